"""The reproduced tables: every printed value of seed 000 and thesis chapter 5 beside ours.

Each function returns one row per printed value with the computed value, the value of the
formula exactly as printed, the printed figure, ``match`` and a note that explains a mismatch.
"""

from __future__ import annotations

import math

import numpy as np

from synthcert.privacy.budget import max_records_rdp
from synthcert.privacy.conversion import optimal_dp, rdp_to_dp
from synthcert.privacy.gaussian_release import (
    alpha_limit,
    bounded_objective,
    bounded_p_interval,
    epsilon_bounded,
    epsilon_per_record,
    epsilon_unbounded,
)
from synthcert.reproduce.rdp.matching import matches_printed, matches_truncated
from synthcert.reproduce.rdp.printed import (
    NS,
    PAPER,
    SIGMA,
    T2_ALPHAS,
    T2_DELTAS,
    TABLE1,
    TABLE2,
    TABLE52,
    THESIS_554,
    THESIS_ALPHA_GRID,
    D,
)


def table1() -> list[dict[str, object]]:
    """Table 1 (seed 000) / Table 5.1 (thesis): n·ε at α = 4, d = 6, σ = 0.01, n_out = n.

    Returns
    -------
    list of dict
        One row per printed value: ``neighboring``, ``n``, ``epsilon`` (corrected),
        ``epsilon_paper_formula``, ``printed``, ``match``, ``note``.

    Examples
    --------
    >>> all(r["match"] for r in table1())
    True
    """
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
    """Table 2 (seed 000): Mironov's Prop. 2.6 at fixed α, n_in = n_out ∈ {10^6, 10^7}.

    Returns
    -------
    list of dict
        120 rows: ``n``, ``neighboring``, ``alpha``, ``delta``, ``epsilon`` (corrected),
        ``epsilon_paper_formula``, ``printed``, ``match``.
    """
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
    """Thesis Table 5.2: largest n_out within (α = 4, ε = 1)-RDP (floor; the thesis rounded).

    Returns
    -------
    list of dict
        One row per printed value: ``neighboring``, ``n``, ``max_records`` (floor),
        ``real_valued`` (1/ε), ``printed``, ``match``, ``note``.
    """
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
    worst case (privacy/bounded_exact.py); n·ε of (α, ε)-RDP with n_out = n.

    Returns
    -------
    list of dict
        One row per setting of ``EXACT_SETTINGS``: n·ε of the corollary (corrected and as
        printed), of the exact worst case (certified and attained), their ratio, the admissible
        orders and the worst pair's Gram entries.
    """
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
        interval = bounded_p_interval(float(a), float(n), D, SIGMA, "paper")
        if interval is None:
            continue
        p = np.arange(1.25, interval[1], 0.25)
        p = p[p > interval[0]]
        if p.size:
            out[i] = np.min(bounded_objective(p, np.array(a), float(n), D, SIGMA, "paper"))
    return out


def thesis_554() -> list[dict[str, object]]:
    """Thesis §5.5.4: (ε, δ) with α optimised, δ ∈ {10^-10, 1/n²}, both conversions.

    Returns
    -------
    list of dict
        One row per printed value: the thesis procedure (α on {1.1, ..., 30}, Mironov), the
        continuous optimum of both conversions, ``match`` and a ``note`` explaining a mismatch.
    """
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
