"""Regenerate Tables 1-2 of seed 000 and thesis Tables 5.1-5.2, §5.5.4, Figures 5.3-5.8 (003)."""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synthcert._result import Result
from synthcert.data.io import atomic_write_path, save_figure, write_text
from synthcert.privacy.budget import max_records_rdp
from synthcert.privacy.conversion import optimal_dp, rdp_to_dp
from synthcert.privacy.inherent import (
    _bounded_interval,
    _bounded_objective,
    alpha_limit,
    epsilon_bounded,
    epsilon_per_record,
    epsilon_unbounded,
)

D, SIGMA = 6, 0.01
# The paper's tables and figures are reproduced with its own bounded certificate (Corollary 3.2);
# the exact bounded certificate is compared with it in ``table_paper_vs_exact``.
PAPER = "corollary"
NS = (10**4, 10**5, 10**6, 10**7, 10**8)

# Table 1 of seed 000 (n ≤ 10^7) and thesis Table 5.1 (adds 10^8). None = printed "–".
TABLE1 = {
    "unbounded": ("3535.17", "62.5859", "5.8064", "0.5764", "0.058"),
    "bounded": (None, "266.7349", "23.3577", "2.3071", "0.23"),
}
# Table 2 of seed 000: rows α, columns δ; Mironov's conversion at fixed α.
T2_ALPHAS = (2, 4, 7, 10, 20, 30)
T2_DELTAS = (1e-2, 1e-5, 1e-10, 1e-15, 1e-20)
TABLE2 = {
    (10**6, "unbounded"): (
        (7.499, 14.407, 25.920, 37.433, 48.946),
        (7.341, 9.644, 13.482, 17.319, 21.157),
        (10.978, 12.130, 14.048, 15.967, 17.886),
        (15.170, 15.937, 17.217, 18.496, 19.775),
        (30.046, 30.410, 31.016, 31.622, 32.228),
        (45.624, 45.863, 46.260, 46.657, 47.054),
    ),
    (10**6, "bounded"): (
        (16.209, 23.116, 34.629, 46.142, 57.655),
        (24.893, 27.195, 31.033, 34.871, 38.708),
        (42.046, 43.198, 45.116, 47.035, 48.954),
        (60.070, 60.838, 62.117, 63.396, 64.675),
        (123.482, 123.846, 124.452, 125.058, 125.663),
        (191.710, 191.948, 192.345, 192.742, 193.139),
    ),
    (10**7, "unbounded"): (
        (4.893, 11.801, 23.314, 34.827, 46.340),
        (2.112, 4.414, 8.252, 12.089, 15.927),
        (1.777, 2.928, 4.847, 6.766, 8.685),
        (1.954, 2.722, 4.001, 5.280, 6.559),
        (3.132, 3.496, 4.102, 4.708, 5.313),
        (4.500, 4.739, 5.136, 5.533, 5.930),
    ),
    (10**7, "bounded"): (
        (5.758, 12.666, 24.179, 35.692, 47.205),
        (3.842, 6.145, 9.982, 13.820, 17.658),
        (4.809, 5.960, 7.879, 9.798, 11.717),
        (6.291, 7.058, 8.337, 9.617, 10.896),
        (11.838, 12.201, 12.807, 13.413, 14.019),
        (17.608, 17.846, 18.243, 18.640, 19.037),
    ),
}
# Thesis Table 5.2: n_out allowed by (α = 4, ε = 1)-RDP; the thesis rounds to nearest.
TABLE52 = {
    "unbounded": ("3", "1598", "1.72e5", "1.73e7", "1.74e9"),
    "bounded": ("0", "375", "4.28e4", "4.33e6", "4.34e8"),
}
# Thesis §5.5.4 text: (ε, δ)-DP with α optimised, n_in = n_out, δ ∈ {10^-10, 1/n²}.
THESIS_554 = {
    ("unbounded", 10**6): ("13.03", "14.14"),
    ("unbounded", 10**7): ("3.79", "4.46"),
    ("unbounded", 10**8): ("1.23", "1.71"),
    ("bounded", 10**6): ("29.03", "31.2"),
    ("bounded", 10**7): ("7.87", "9.21"),
    ("bounded", 10**8): ("2.36", "2.97"),
}
# The order grid that reproduces the thesis's optimised values (found by search, see summary).
THESIS_ALPHA_GRID = np.round(np.arange(1.1, 30.0001, 0.1), 10)


@dataclass(frozen=True)
class Reproduction(Result):
    """Where the outputs went and how many printed values matched."""

    out_dir: str
    files: tuple[str, ...]
    matched: int
    compared: int
    differing: tuple[str, ...]
    seconds: float


def decimals(text: str) -> int:
    """Number of printed decimals of a number written like '2.3071' (0 for '375')."""
    return len(text.split(".")[1]) if "." in text else 0


def matches_printed(value: float, printed: str) -> bool:
    """True if ``value`` rounds to the printed figure at the printed precision."""
    if "e" in printed:
        mant = printed.split("e")[0]
        digits = decimals(mant) + 1
        return f"{value:.{digits - 1}e}".replace("e+0", "e").replace("e+", "e") == printed
    return abs(value - float(printed)) <= 0.5 * 10 ** (-decimals(printed)) + 1e-12


def matches_truncated(value: float, printed: str) -> bool:
    """True if ``value`` cut (not rounded) to the printed decimals gives the printed figure."""
    scale = 10 ** decimals(printed)
    return math.floor(value * scale + 1e-9) == round(float(printed) * scale)


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Write a CSV atomically."""
    with atomic_write_path(path) as tmp, open(tmp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _fmt(x: float | None, digits: int = 6) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def table1() -> list[dict[str, object]]:
    """Table 1 (seed 000) / Table 5.1 (thesis): n·ε at α = 4, d = 6, σ = 0.01, n_out = n."""
    rows = []
    for rel in ("unbounded", "bounded"):
        for n, printed in zip(NS, TABLE1[rel], strict=True):
            if rel == "unbounded":
                value = float(epsilon_unbounded(4.0, n, D, SIGMA)) * n
                paper = value
            else:
                value = float(epsilon_bounded(4.0, n, D, SIGMA)) * n
                paper = float(epsilon_bounded(4.0, n, D, SIGMA, variant="paper")) * n
            if printed is None:
                ok = not math.isfinite(paper)
                note = (
                    "match: no certificate, eq. (2) needs α < 2.3681"
                    if ok
                    else "differs: we give a value"
                )
            else:
                ok = matches_printed(paper, printed)
                note = "match" if ok else "differs"
                if not ok and matches_truncated(paper, printed):
                    ok = True
                    note = (
                        f"match if truncated: {paper:.6f} is printed cut to {printed} "
                        "(rounding gives one more in the last digit; seed 001 prints 0.576462)"
                    )
                if rel == "bounded" and not matches_printed(value, printed):
                    note += (
                        f"; corrected Cor. 3.2 gives {value:.4f} (second leg at n, σ·n/(n+1): "
                        "the paper's ε(·, n+1) is a slip; relative change O(1/n))"
                    )
            rows.append(
                {"neighboring": rel, "n": n, "epsilon": value, "epsilon_paper_formula": paper,
                 "printed": printed or "–", "match": ok, "note": note}
            )  # fmt: skip
    return rows


def table2() -> list[dict[str, object]]:
    """Table 2 (seed 000): Mironov's Prop. 2.6 at fixed α, n_in = n_out ∈ {10^6, 10^7}."""
    rows = []
    for (n, rel), block in TABLE2.items():
        per = epsilon_per_record(
            np.array(T2_ALPHAS, float), n, D, SIGMA, rel, variant="paper", method=PAPER
        )
        per_c = epsilon_per_record(np.array(T2_ALPHAS, float), n, D, SIGMA, rel, method=PAPER)
        for i, a in enumerate(T2_ALPHAS):
            for j, dl in enumerate(T2_DELTAS):
                v = float(rdp_to_dp(a, per[i] * n, dl, "mironov"))
                vc = float(rdp_to_dp(a, per_c[i] * n, dl, "mironov"))
                printed = f"{block[i][j]:.3f}"
                ok = matches_printed(v, printed)
                rows.append(
                    {"n": n, "neighboring": rel, "alpha": a, "delta": dl, "epsilon": vc,
                     "epsilon_paper_formula": v, "printed": printed, "match": ok}
                )  # fmt: skip
    return rows


def table52() -> list[dict[str, object]]:
    """Thesis Table 5.2: largest n_out within (α = 4, ε = 1)-RDP (floor; the thesis rounded)."""
    rows = []
    for rel in ("unbounded", "bounded"):
        for n, printed in zip(NS, TABLE52[rel], strict=True):
            b = max_records_rdp(n, D, SIGMA, 4.0, 1.0, neighboring=rel, method=PAPER)
            per_paper = float(
                epsilon_per_record(4.0, n, D, SIGMA, rel, variant="paper", method=PAPER)
            )
            raw = 1.0 / per_paper if math.isfinite(per_paper) else 0.0
            rounded = round(raw)
            ok = matches_printed(float(rounded), printed) or (
                "e" in printed and matches_printed(raw, printed)
            )
            if ok and b.max_records != rounded and "e" not in printed:
                note = (
                    f"match up to rounding: 1/ε = {raw:.2f}, the thesis rounds, "
                    f"the floor is {b.max_records}"
                )
            elif ok:
                note = "match"
            else:
                note = "differs"
            if not b.feasible:
                note += " (no certificate: eq. (2) fails, so no record can be released)"
            rows.append(
                {"neighboring": rel, "n": n, "max_records": b.max_records, "real_valued": raw,
                 "printed": printed, "match": ok, "note": note}
            )  # fmt: skip
    return rows


# (n, d, σ, α) of the paper-vs-exact table: Table 1's settings and two more of issue 18.
EXACT_SETTINGS = (
    *((n, D, SIGMA, 4.0) for n in NS),
    (10**6, D, SIGMA, 10.0),
    (3 * 10**4, D, 0.02, 2.0),
)


def table_paper_vs_exact() -> list[dict[str, object]]:
    """Bounded neighbours: Corollary 3.2 (seed 000, eq. (3)) against the certified exact
    worst case (privacy/bounded_exact.py); n·ε of (α, ε)-RDP with n_out = n."""
    from synthcert.privacy.bounded_exact import exact_bound

    rows = []
    for n, d, sig, a in EXACT_SETTINGS:
        cor = float(epsilon_bounded(a, n, d, sig)) * n
        printed = float(epsilon_bounded(a, n, d, sig, variant="paper")) * n
        ex = exact_bound(a, n, d, sig)
        upper, attained = ex.upper[0] * n, ex.attained[0] * n
        u2, v2, cos = ex.argmax[0]
        rows.append(
            {"n": n, "d": d, "sigma": sig, "alpha": a, "corollary": cor,
             "corollary_as_printed": printed, "exact": upper, "exact_attained": attained,
             "ratio": cor / upper if math.isfinite(cor) and upper > 0 else math.inf,
             "alpha_max_corollary": alpha_limit(n, d, sig, "bounded", "corollary"),
             "alpha_max_exact": ex.alpha_max, "worst_u2": u2, "worst_v2": v2, "worst_cos": cos,
             "certified": ex.converged[0]}
        )  # fmt: skip
    return rows


def _thesis_per_record(alphas: np.ndarray, n: int, rel: str) -> np.ndarray:
    """ε per record with p of Corollary 3.2 searched only on {1.25, 1.5, …} (a hypothesis).

    This coarse grid gives the printed 29.03 for bounded n = 10^6, δ = 10^-10, which the fine
    search does not (28.97), but it misses the printed n = 10^7 values; reported, not adopted.
    """
    if rel != "bounded":
        return epsilon_per_record(alphas, n, D, SIGMA, rel, method=PAPER)
    out = np.full(alphas.shape, np.inf)
    for i, a in enumerate(alphas):
        interval = _bounded_interval(float(a), float(n), D, SIGMA, "paper")
        if interval is None:
            continue
        p = np.arange(1.25, interval[1], 0.25)
        p = p[p > interval[0]]
        if p.size:
            out[i] = np.min(_bounded_objective(p, np.array(a), float(n), D, SIGMA, "paper"))
    return out


def thesis_554() -> list[dict[str, object]]:
    """Thesis §5.5.4: (ε, δ) with α optimised, δ ∈ {10^-10, 1/n²}, both conversions."""
    rows = []
    for (rel, n), printed_pair in THESIS_554.items():
        lim = alpha_limit(n, D, SIGMA, rel, PAPER)
        grid = THESIS_ALPHA_GRID[lim > THESIS_ALPHA_GRID]
        per_grid = epsilon_per_record(grid, n, D, SIGMA, rel, variant="paper", method=PAPER)

        def curve(a: np.ndarray, rel: str = rel, n: int = n) -> np.ndarray:
            return epsilon_per_record(a, n, D, SIGMA, rel, method=PAPER) * n

        for dl, printed in zip((1e-10, 1.0 / n**2), printed_pair, strict=True):
            out = {conv: optimal_dp(curve, dl, lim, conversion=conv) for conv in ("mironov", "ckm")}
            thesis_vals = rdp_to_dp(grid, per_grid * n, dl, "mironov")
            k = int(np.argmin(thesis_vals))
            thesis_eps, thesis_alpha = float(thesis_vals[k]), float(grid[k])
            ok = matches_printed(thesis_eps, printed)
            diff = thesis_eps - float(printed)
            if ok:
                note = "match (thesis procedure: α ∈ {1.1, 1.2, …, 30}, Mironov)"
            elif rel == "unbounded":
                note = (
                    f"differs by {diff:+.3f} (ours lower): the α grid ends at 30 and Theorem 3.1 "
                    "has no inner search, so no grid explains it; probably read off the bar chart"
                )
            else:
                coarse = rdp_to_dp(grid, _thesis_per_record(grid, n, rel) * n, dl, "mironov")
                alt = float(np.min(coarse))
                note = f"differs by {diff:+.3f} (ours lower)"
                if matches_printed(alt, printed):
                    note += (
                        f"; searching p of eq. (3) only over {{1.25, 1.5, …}} gives {alt:.3f}, "
                        "the printed value, but that grid does not reproduce the n = 10^7 values, "
                        "so the thesis's procedure stays unexplained (a coarser p only loosens "
                        "the bound: every p gives a valid one)"
                    )
            if ok and out["mironov"].epsilon < thesis_eps - 0.005:
                note += (
                    f"; optimising α beyond 30 gives {out['mironov'].epsilon:.3f} "
                    f"at α = {out['mironov'].alpha:.1f}"
                )
            rows.append(
                {"neighboring": rel, "n": n, "delta": dl, "printed": printed,
                 "thesis_procedure": thesis_eps, "thesis_alpha": thesis_alpha,
                 "mironov_optimal": out["mironov"].epsilon, "mironov_alpha": out["mironov"].alpha,
                 "ckm_optimal": out["ckm"].epsilon, "ckm_alpha": out["ckm"].alpha,
                 "match": ok, "note": note}
            )  # fmt: skip
    return rows


# --------------------------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------------------------
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    save_figure(fig, path, dpi=130)


def figure_alpha_eps(out: Path, d: int) -> Path:
    """Figure 5.3 (thesis) / Fig. 3 (seed 000): n·ε against α, curves stop at the α limit."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, rel in zip(axes, ("unbounded", "bounded"), strict=True):
        for n in NS[:4]:
            lim = alpha_limit(n, d, SIGMA, rel, PAPER)
            hi = min(lim, 30.0)
            a = 1.0 + (hi - 1.0) * np.linspace(0.0005, 0.9995, 160) ** 1.5
            eps = epsilon_per_record(a, n, d, SIGMA, rel, method=PAPER) * n
            ax.plot(a, eps, label=f"n = 10^{round(math.log10(n))}")
            if lim < 30:
                ax.axvline(lim, color="grey", lw=0.6, ls=":")
        ax.set_yscale("log")
        ax.set_xlabel("α")
        ax.set_title(f"{rel} (d = {d}, σ = {SIGMA}, n_out = n)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ε of (α, ε)-RDP for n_out = n records")
    axes[0].legend()
    path = out / f"fig_alpha_eps_d{d}.png"
    _save(fig, path)
    plt.close(fig)
    return path


def figure_eps_vs_d(out: Path, n: int = 10**7) -> Path:
    """Figure 5.4 (thesis): n·ε at α = 4 for d = 3…15."""
    plt = _plt()
    ds = np.arange(3, 16)
    fig, ax = plt.subplots(figsize=(6, 4))
    for rel in ("unbounded", "bounded"):
        vals = [float(epsilon_per_record(4.0, n, int(d), SIGMA, rel, method=PAPER)) * n for d in ds]
        ax.plot(ds, vals, marker="o", label=rel)
    ax.set_xlabel("d (number of attributes)")
    ax.set_ylabel("ε of (4, ε)-RDP, n_in = n_out = 10^7")
    ax.set_title(f"ε against d (σ = {SIGMA})")
    ax.grid(True, alpha=0.3)
    ax.legend()
    path = out / "fig_eps_vs_d.png"
    _save(fig, path)
    plt.close(fig)
    return path


def figure_eps_vs_sigma(out: Path, n: int = 10**7) -> Path:
    """Figure 5.8 (thesis): n·ε at α = 4, d = 6 against σ (log-log)."""
    plt = _plt()
    sig = np.geomspace(0.001, 0.1, 41)
    fig, ax = plt.subplots(figsize=(6, 4))
    for rel in ("unbounded", "bounded"):
        vals = [float(epsilon_per_record(4.0, n, D, float(s), rel, method=PAPER)) * n for s in sig]
        ax.plot(sig, vals, marker=".", label=rel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("σ (lower bound on the covariance eigenvalues)")
    ax.set_ylabel("ε of (4, ε)-RDP, n_in = n_out = 10^7")
    ax.set_title(f"ε against σ (d = {D})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    path = out / "fig_eps_vs_sigma.png"
    _save(fig, path)
    plt.close(fig)
    return path


def figure_dp_bars(out: Path, n: int, rows_554: list[dict[str, object]]) -> Path:
    """Figures 5.5-5.7 (thesis): ε of (ε, δ)-DP, α optimised, blue unbounded / orange bounded."""
    plt = _plt()
    sel = [r for r in rows_554 if r["n"] == n]
    labels = ["δ = 1e-10", f"δ = 1/n² = {1.0 / n**2:.0e}"]
    x = np.arange(2)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    width = 0.2
    for k, (rel, colour) in enumerate((("unbounded", "tab:blue"), ("bounded", "tab:orange"))):
        for j, (conv, hatch) in enumerate((("mironov_optimal", ""), ("ckm_optimal", "//"))):
            vals = [float(r[conv]) for r in sel if r["neighboring"] == rel]
            pos = x + (2 * k + j - 1.5) * width
            bars = ax.bar(pos, vals, width, color=colour, hatch=hatch, edgecolor="black",
                          label=f"{rel}, {conv.split('_')[0]}")  # fmt: skip
            ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(x, labels)
    top = max(float(r[c]) for r in sel for c in ("mironov_optimal", "ckm_optimal"))
    ax.set_ylim(0, 1.45 * top)
    ax.set_ylabel("ε of (ε, δ)-DP (α optimised)")
    ax.set_title(f"n_in = n_out = 10^{round(math.log10(n))}, d = {D}, σ = {SIGMA}")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    ax.grid(True, axis="y", alpha=0.3)
    path = out / f"fig_dp_bars_n1e{round(math.log10(n))}.png"
    _save(fig, path)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------------------------
# summary
# --------------------------------------------------------------------------------------------
def _md_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def summary_markdown(t1, t2, t52, t554, seconds: float, tex=()) -> str:
    """The Markdown page setting every computed value beside the printed one."""
    n_ok = sum(r["match"] for r in t2)
    parts = [
        "# Reproduction of the RDP results of Miura et al. (seed 000, thesis seed 003 ch. 5)",
        "",
        f"d = {D}, σ = {SIGMA} unless stated; n_in = n_out. Generated by "
        f"`synthcert reproduce rdp` in {seconds:.1f} s.",
        "",
        "## Table 1 / thesis Table 5.1: ε of (4, ε)-RDP",
        "",
        "`paper formula` evaluates eq. (3) exactly as printed (second leg at n+1); `computed` is "
        "the corrected Corollary 3.2 (second leg at n with σ·n/(n+1), see docs/accountant.md).",
        "",
        _md_table(
            ["relation", "n", "computed", "paper formula", "printed", "verdict"],
            [
                [
                    r["neighboring"],
                    f"10^{round(math.log10(r['n']))}",
                    _fmt(r["epsilon"], 4),
                    _fmt(r["epsilon_paper_formula"], 4),
                    r["printed"],
                    r["note"],
                ]
                for r in t1
            ],
        ),
        "",
        f"## Table 2: ε of (ε, δ)-DP by Mironov's Prop. 2.6 — {n_ok}/{len(t2)} match to 3 decimals",
        "",
        _md_table(
            ["n", "relation", "α", "δ", "computed", "printed", "verdict"],
            [
                [
                    f"10^{round(math.log10(r['n']))}",
                    r["neighboring"],
                    r["alpha"],
                    f"{r['delta']:.0e}",
                    f"{r['epsilon_paper_formula']:.3f}",
                    r["printed"],
                    "match" if r["match"] else "differs",
                ]
                for r in t2
            ],
        ),
        "",
        "## Thesis Table 5.2: records allowed by (4, 1)-RDP",
        "",
        "The largest number within the budget is the floor of 1/ε; the thesis rounds to nearest. "
        "`floor (ours)` is what `synthcert budget` certifies: for the unbounded relation it "
        "evaluates Theorem 3.1 at n−1 so that removing a member is covered too (the theorem "
        "is stated for the pair n, n+1); `1/ε` is the paper's ε at n.",
        "",
        _md_table(
            ["relation", "n", "floor (ours)", "1/ε", "printed", "verdict"],
            [
                [
                    r["neighboring"],
                    f"10^{round(math.log10(r['n']))}",
                    r["max_records"],
                    f"{r['real_valued']:.2f}",
                    r["printed"],
                    r["note"],
                ]
                for r in t52
            ],
        ),
        "",
        "## Thesis §5.5.4: (ε, δ)-DP with α optimised",
        "",
        "The seeds README notes the thesis cites Prop. 2.3.9 but used Prop. 2.3.7 (Mironov) "
        "with α minimising ε. Searching α over {1.1, 1.2, …, 30} reproduces its values; a "
        "continuous search over the whole admissible range (`mironov opt.`) can only be lower, "
        "and the CKS/Asoodeh conversion (`ckm opt.`) lower still.",
        "",
        _md_table(
            [
                "relation",
                "n",
                "δ",
                "printed",
                "thesis procedure (α)",
                "mironov opt. (α)",
                "ckm opt. (α)",
                "verdict",
            ],
            [
                [
                    r["neighboring"],
                    f"10^{round(math.log10(r['n']))}",
                    f"{r['delta']:.0e}",
                    r["printed"],
                    f"{r['thesis_procedure']:.3f} ({r['thesis_alpha']:.1f})",
                    f"{r['mironov_optimal']:.3f} ({r['mironov_alpha']:.1f})",
                    f"{r['ckm_optimal']:.3f} ({r['ckm_alpha']:.1f})",
                    r["note"],
                ]
                for r in t554
            ],
        ),
        "",
        "## Bounded neighbours: paper vs exact (n·ε of (α, ε)-RDP, n_out = n)",
        "",
        "`Corollary 3.2` is the corrected corollary (the reproduction above uses it); `exact` is "
        "the certified upper bound on the exact worst case over |u|², |v|² ≤ τ (interval "
        "branch-and-bound, within 10⁻⁶ of the value attained at the worst pair, whose Gram "
        "entries are listed; see docs/accountant.md). `–` means no certificate.",
        "",
        _md_table(
            [
                "n",
                "d",
                "σ",
                "α",
                "Corollary 3.2",
                "exact",
                "ratio",
                "α_max cor. / exact",
                "worst |u|², |v|², cos",
            ],
            [
                [
                    f"{r['n']:.0e}",
                    r["d"],
                    r["sigma"],
                    r["alpha"],
                    _fmt(r["corollary"], 4),
                    _fmt(r["exact"], 4),
                    f"{r['ratio']:.3f}" if math.isfinite(r["ratio"]) else "–",
                    f"{r['alpha_max_corollary']:.4g} / {r['alpha_max_exact']:.4g}",
                    f"{r['worst_u2']:.6g}, {r['worst_v2']:.6g}, {r['worst_cos']:.3g}",
                ]
                for r in tex
            ],
        ),
        "",
        "## Figures",
        "",
        "- `fig_alpha_eps_d6.png`, `fig_alpha_eps_d9.png`: Figure 5.3 (α–ε curves, log scale; "
        "curves stop at the α limit of eq. (1)/(2), dotted lines).",
        "- `fig_eps_vs_d.png`: Figure 5.4; `fig_eps_vs_sigma.png`: Figure 5.8.",
        "- `fig_dp_bars_n1e6.png`, `…n1e7.png`, `…n1e8.png`: Figures 5.5-5.7.",
        "",
    ]
    return "\n".join(parts)


def reproduce_rdp(
    out_dir: str | Path, *, figures: bool = True, progress: Callable[[str], None] | None = None
) -> Reproduction:
    """Write the CSVs, the Markdown summary and the PNG figures into ``out_dir``."""
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    step = progress or (lambda _msg: None)
    files: list[Path] = []

    step("Table 1")
    t1 = table1()
    step("Table 2")
    t2 = table2()
    step("Table 5.2")
    t52 = table52()
    step("§5.5.4")
    t554 = thesis_554()
    step("paper vs exact")
    tex = table_paper_vs_exact()
    for name, rows in (("table1", t1), ("table2", t2), ("table5_2", t52), ("thesis_5_5_4", t554),
                       ("paper_vs_exact", tex)):  # fmt: skip
        path = out / f"{name}.csv"
        _write_csv(path, list(rows[0].keys()), [list(r.values()) for r in rows])
        files.append(path)
    if figures:
        for d in (6, 9):
            step(f"Figure 5.3 (d = {d})")
            files.append(figure_alpha_eps(out, d))
        step("Figures 5.4 and 5.8")
        files.append(figure_eps_vs_d(out))
        files.append(figure_eps_vs_sigma(out))
        for n in (10**6, 10**7, 10**8):
            step(f"Figure bars n = {n:.0e}")
            files.append(figure_dp_bars(out, n, t554))
    seconds = time.perf_counter() - start
    files.append(write_text(summary_markdown(t1, t2, t52, t554, seconds, tex), out / "summary.md"))
    compared = [*t1, *t2, *t52, *t554]
    differing = tuple(
        f"{r.get('neighboring')} n={r.get('n')} printed {r.get('printed')}"
        for r in compared
        if not r["match"]
    )
    return Reproduction(
        out_dir=str(out),
        files=tuple(str(f) for f in files),
        matched=len(compared) - len(differing),
        compared=len(compared),
        differing=differing,
        seconds=time.perf_counter() - start,
    )
