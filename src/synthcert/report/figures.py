"""Figures of the release report as inline, self-contained SVG (matplotlib, no pyplot state).

Every figure is readable without colour: series differ by line style, marker or hatch as well
as hue (Okabe-Ito palette), numbers are written beside the marks that matter, and each figure
carries alt text stating what it shows in words and figures.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from synthcert.report.curves import CertificateCurves

if TYPE_CHECKING:
    from synthcert.utility.marginals import ColumnDistance

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies)
BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY, YELLOW, GREY = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#555555",
)
SERIES = [
    (BLUE, "-", "o"),
    (VERMILION, "--", "s"),
    (GREEN, "-.", "^"),
    (PURPLE, ":", "D"),
    (ORANGE, (0, (5, 1, 1, 1)), "v"),
    (SKY, (0, (3, 1, 1, 1, 1, 1)), "P"),
]
REAL_STYLE = {"color": SKY, "hatch": "///", "edgecolor": BLUE}
SYNTH_COLOR = VERMILION

_RC = {
    "svg.fonttype": "none",  # text stays text: searchable, selectable, small
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "hatch.linewidth": 0.6,
}


PX_PER_INCH = 112  # on-screen size cap: text stays near its nominal size at any width


@dataclass(frozen=True)
class Figure:
    """One figure of the report: an id, inline SVG markup, alt text and a caption."""

    id: str
    svg: str
    alt: str
    caption: str


def fmt(x: float | None, digits: int = 3) -> str:
    """A number for prose: significant digits, thousands separators for counts, ∞ for inf.

    Parameters
    ----------
    x : float, int or None
    digits : int, default 3
        Significant digits of a non-integer.

    Returns
    -------
    str
        "–" for None or NaN.

    Examples
    --------
    >>> fmt(30162), fmt(0.123456), fmt(float("inf")), fmt(None)
    ('30,162', '0.123', '∞', '–')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6):
        return f"{x:.{digits}g}"
    return f"{x:,.{digits}g}" if abs(x) >= 1000 else f"{x:.{digits}g}"


def new_figure(width: float, height: float) -> MplFigure:
    """A matplotlib Figure not registered with pyplot (no global state, thread-safe).

    Parameters
    ----------
    width, height : float
        Size in inches.

    Returns
    -------
    matplotlib.figure.Figure
        With the report's style and a constrained layout.
    """
    with matplotlib.rc_context(_RC):
        return MplFigure(figsize=(width, height), layout="constrained")


def to_svg(fig: MplFigure, fig_id: str, alt: str) -> str:
    """Serialise ``fig`` to SVG markup for inlining: ids salted by ``fig_id``, titled by ``alt``.

    The XML prologue and the fixed width/height are removed (CSS scales the viewBox), the
    Date metadata is dropped (same inputs, same bytes), and ``role="img"`` with a <title>
    makes screen readers announce the alt text.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    fig_id : str
        The figure's id on the page (prefixes every id inside the SVG).
    alt : str
        The alt text.

    Returns
    -------
    str
        The ``<svg>`` element.
    """
    width_px = round(float(fig.get_size_inches()[0]) * PX_PER_INCH)
    buf = io.StringIO()
    with matplotlib.rc_context({**_RC, "svg.hashsalt": fig_id}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = _prefix_ids(text, fig_id)
    head_end = text.index(">")
    head = text[:head_end]
    head = re.sub(r'\s(width|height)="[^"]*"', "", head)
    title_id = f"{fig_id}-title"
    head += (
        f' role="img" aria-labelledby="{title_id}" class="chart" style="max-width: {width_px}px"'
    )
    return (
        head + f'><title id="{title_id}">{html.escape(alt)}</title>' + text[head_end + 1 :].strip()
    )


def _prefix_ids(svg: str, prefix: str) -> str:
    """Prefix every id (and each in-document reference to it) so inlined SVGs cannot clash.

    matplotlib names groups ``figure_1``, ``axes_1``… in every figure; inlined side by side,
    those ids would repeat on the page and ``url(#…)``/``href="#…"`` could resolve to another
    figure's clip path.
    """
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if not ids:
        return svg
    svg = re.sub(r'(\sid=")([^"]+)(")', lambda m: f"{m[1]}{prefix}-{m[2]}{m[3]}", svg)

    def ref(m: re.Match) -> str:
        name = m[2]
        return f"{m[1]}{prefix}-{name}{m[3]}" if name in ids else m[0]

    svg = re.sub(r"(url\(#)([^)]+)(\))", ref, svg)
    return re.sub(r'((?:xlink:)?href="#)([^"]+)(")', ref, svg)


def _plain_log(ax, which: str = "both") -> None:
    """Log axes labelled 1, 10, 100, 1k… instead of 10^k, without minor-tick labels."""
    formatter = FuncFormatter(lambda v, _pos: _tick(v))
    for axis in (ax.xaxis, ax.yaxis) if which == "both" else (getattr(ax, f"{which}axis"),):
        axis.set_major_formatter(formatter)
        axis.set_minor_formatter(NullFormatter())


def _tick(v: float) -> str:
    if v <= 0:
        return "0"
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


def _style(ax) -> None:
    for spine in ("top", "right"):
        ax.spines[spine].set_visible(False)
    ax.grid(True, alpha=0.3)


def _styled_axes(width: float, height: float) -> tuple[MplFigure, Any]:
    """A new figure (:func:`new_figure`, size in inches) and its one axes, in the report's style
    (no top and right spines, a light grid)."""
    fig = new_figure(width, height)
    ax = fig.subplots()
    _style(ax)
    return fig, ax


# --------------------------------------------------------------------------------------------
# certificate
# --------------------------------------------------------------------------------------------
def alpha_epsilon_figure(c: CertificateCurves) -> Figure:
    """ε_RDP(α) of the n_out records and the (ε, δ) it converts to, chosen α marked.

    Parameters
    ----------
    c : CertificateCurves

    Returns
    -------
    Figure
        ``fig-alpha``.
    """
    fig, ax = _styled_axes(6.4, 3.6)
    total = c.n_out * c.epsilon_rdp_per_record
    ok = np.isfinite(total) & (total > 0)
    ax.plot(c.alphas[ok], total[ok], color=BLUE, ls="-", lw=2, label="ε_RDP(α) of the release")
    styles = {"mironov": (VERMILION, "--"), "ckm": (GREEN, "-.")}
    for conv, eps in c.epsilon_dp_by_alpha.items():
        m = np.isfinite(eps) & (eps > 0)
        color, ls = styles.get(conv, (GREY, ":"))
        ax.plot(
            c.alphas[m], eps[m], color=color, ls=ls, lw=1.6, label=f"ε at δ={c.delta:g} ({conv})"
        )
    ax.axvline(c.alpha, color=GREY, ls=":", lw=1)
    if math.isfinite(c.recomputed_epsilon_rdp) and c.recomputed_epsilon_rdp > 0:
        ax.plot([c.alpha], [c.recomputed_epsilon_rdp], "o", color=BLUE, ms=7, mec="black")
        ax.annotate(
            f"chosen α = {fmt(c.alpha)}\nε_RDP = {fmt(c.recomputed_epsilon_rdp)}",
            (c.alpha, c.recomputed_epsilon_rdp),
            xytext=(8, 10),
            textcoords="offset points",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "ec": GREY, "alpha": 0.9},
        )
    if math.isfinite(c.alpha_max):
        ax.axvline(c.alpha_max, color=VERMILION, lw=1, ls=(0, (1, 1)))
        ax.text(
            c.alpha_max, 0.02, " α limit", transform=ax.get_xaxis_transform(),
            rotation=90, va="bottom", ha="right", fontsize=7, color=VERMILION,
        )  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    lows = [
        float(np.nanmin(e[np.isfinite(e)]))
        for e in c.epsilon_dp_by_alpha.values()
        if np.isfinite(e).any()
    ]
    ref = max([*lows, c.recomputed_epsilon_rdp if math.isfinite(c.recomputed_epsilon_rdp) else 0.0])
    if ref > 0:  # the curves explode at the edges of the admissible range: show the useful part
        ax.set_ylim(top=min(ax.get_ylim()[1], 100.0 * ref))
    _plain_log(ax)
    ax.set_xlabel("Rényi order α (log scale)")
    ax.set_ylabel("ε (log scale)")
    ax.legend(loc="upper center", fontsize=7.5)
    conv = (
        f"The converted (ε, δ={c.delta:g}) curves are U-shaped; the chosen order gives "
        f"ε = {fmt(c.recomputed_epsilon)} ({c.conversion}). "
        if c.delta is not None
        else ""
    )
    alt = (
        f"Line chart of ε against the Rényi order α for {c.n_out:,} released rows. "
        f"The RDP ε grows with α; the chosen order α = {fmt(c.alpha)} gives "
        f"ε_RDP = {fmt(c.recomputed_epsilon_rdp)}. {conv}"
        f"The theorem admits α below {fmt(c.alpha_max)}."
    )
    caption = (
        "The α–ε curve. Solid: the Rényi-DP ε of the whole release at each order α; dashed and "
        "dash-dotted: the (ε, δ)-DP ε each conversion gives from it. The dot marks the order "
        "the certificate uses; orders right of the dotted red line are outside the theorem."
    )
    return Figure("fig-alpha", to_svg(fig, "fig-alpha", alt), alt, caption)


def epsilon_n_out_figure(c: CertificateCurves) -> Figure:
    """Best-α ε at δ as a function of the number of released rows, budget line and n_out marked.

    Parameters
    ----------
    c : CertificateCurves

    Returns
    -------
    Figure
        ``fig-nout``.
    """
    fig, ax = _styled_axes(6.4, 3.6)
    eps = c.epsilon_vs_n_out
    m = np.isfinite(eps) & (eps > 0)
    if c.n_out_metric == "dp":
        what, ylabel = f"ε at δ={c.delta:g} ({c.conversion})", "ε at the best α (log scale)"
    else:
        what, ylabel = f"ε_RDP at α={fmt(c.alpha)}", "ε_RDP (log scale)"
    ax.plot(c.n_out_grid[m], eps[m], color=BLUE, lw=2, label=what)
    if math.isfinite(c.budget_epsilon):
        name = "budget" if c.budget_kind != "none" else "this release's"
        ax.axhline(c.budget_epsilon, color=VERMILION, ls="--", lw=1.4,
                   label=f"{name} ε = {fmt(c.budget_epsilon)}")  # fmt: skip
    if c.max_records:
        ax.axvline(c.max_records, color=GREEN, ls="-.", lw=1.2,
                   label=f"rows the budget allows: {c.max_records:,}")  # fmt: skip
    # the release itself, at its own α (above the curve when α was fixed rather than optimised)
    own = c.recomputed_epsilon if c.n_out_metric == "dp" else c.recomputed_epsilon_rdp
    if own is not None and math.isfinite(own) and own > 0:
        ax.plot([c.n_out], [own], "D", color=ORANGE, mec="black", ms=7,
                label=f"this release: {c.n_out:,} rows, ε = {fmt(own)}")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log(ax)
    ax.set_xlabel("number of released rows n_out (log scale)")
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left", fontsize=7.5)
    last_n = int(c.n_out_grid[m][-1]) if m.any() else 0
    allow = f"{c.max_records:,}" if c.max_records is not None else "not computed (no budget)"
    alt = (
        f"Line chart: the {what} of the release grows with the number of released rows, from "
        f"{fmt(float(eps[m][0]) if m.any() else None)} for one row to "
        f"{fmt(float(eps[m][-1]) if m.any() else None)} for {last_n:,} rows. "
        f"The budget ε = {fmt(c.budget_epsilon)} allows {allow} rows; {c.n_out:,} were released."
    )
    caption = (
        "ε versus the number of released rows, each point at its own best order α. The dashed "
        "line is the budget; where the curve crosses it (dash-dotted) is the largest release the "
        "budget allows. The diamond marks this release."
    )
    return Figure("fig-nout", to_svg(fig, "fig-nout", alt), alt, caption)


# --------------------------------------------------------------------------------------------
# utility
# --------------------------------------------------------------------------------------------
def _proportions(values: Sequence[float]) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    v = np.where(np.isfinite(v) & (v > 0), v, 0.0)
    s = v.sum()
    return v / s if s > 0 else v


def marginal_figure(
    name: str, spec: Mapping, metrics: ColumnDistance | None, idx: int
) -> Figure | None:
    """One small multiple: real (hatched bars) against synthetic (outlined) for one column.

    Parameters
    ----------
    name : str
        The column.
    spec : Mapping
        The marginal as :func:`synthcert.report.sections.utility.marginal_specs` gives it:
        ``real`` and ``synthetic`` shares, and ``categories`` or ``bins`` (edges; with
        ``bin_index`` when they are bin numbers only).
    metrics : ColumnDistance or None
        The column's distances; its L1 (else Hellinger) distance is written in the title.
    idx : int
        Position on the page (the figure's id is ``fig-marg-{idx}``).

    Returns
    -------
    Figure or None
        None when the two distributions cannot be drawn against each other.
    """
    real = spec.get("real")
    synth = spec.get("synthetic")
    if real is None or synth is None:
        return None
    real, synth = _proportions(real), _proportions(synth)
    if real.shape != synth.shape or real.size == 0:
        return None
    fid = f"fig-marg-{idx}"
    fig, ax = _styled_axes(3.3, 2.3)
    label_metric = ""
    if metrics:
        for key, lab in (("l1", "L1"), ("hellinger", "Hellinger")):
            v = getattr(metrics, key)
            if isinstance(v, (int, float)) and math.isfinite(v):
                label_metric = f"{lab} {v:.3f}"
                break
    if "categories" in spec:
        cats = [str(c) for c in spec["categories"]]
        order = np.argsort(-real, kind="stable")
        top = 8
        if len(cats) > top:
            keep, rest = order[: top - 1], order[top - 1 :]
            cats = [cats[i] for i in keep] + [f"other ({len(rest)})"]
            real = np.append(real[keep], real[rest].sum())
            synth = np.append(synth[keep], synth[rest].sum())
        else:
            cats = [cats[i] for i in order]
            real, synth = real[order], synth[order]
        y = np.arange(len(cats))
        h = 0.4
        ax.barh(y - h / 2, real, h, label="real", color=REAL_STYLE["color"],
                hatch=REAL_STYLE["hatch"], edgecolor=REAL_STYLE["edgecolor"], lw=0.6)  # fmt: skip
        ax.barh(y + h / 2, synth, h, label="synthetic", color="white",
                edgecolor=SYNTH_COLOR, lw=1.4)  # fmt: skip
        ax.set_yticks(y, [c if len(c) <= 18 else c[:17] + "…" for c in cats], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("share of rows", fontsize=8)
        ax.grid(axis="y", visible=False)
        worst = int(np.argmax(np.abs(real - synth)))
        shape = f"{len(spec['categories'])} categories"
        detail = (
            f"largest gap at '{cats[worst]}': real {real[worst]:.1%}, synthetic {synth[worst]:.1%}"
        )
    else:
        edges = np.asarray(spec.get("bins") or [], dtype=float)
        if edges.size != real.size + 1:
            edges = np.arange(real.size + 1, dtype=float)
        widths = np.diff(edges)
        ax.bar(edges[:-1], real, widths, align="edge", label="real", color=REAL_STYLE["color"],
               hatch=REAL_STYLE["hatch"], edgecolor=REAL_STYLE["edgecolor"], lw=0.4)  # fmt: skip
        ax.stairs(synth, edges, label="synthetic", color=SYNTH_COLOR, lw=1.6)
        ax.set_ylabel("share of rows", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda v, _pos: _tick(v) if v >= 0 else f"{v:g}")
        )
        if spec.get("bin_index"):
            ax.set_xlabel(f"bin (of {real.size}, equal width over the public range)", fontsize=7.5)
        ax.tick_params(labelsize=7.5)
        worst = int(np.argmax(np.abs(real - synth)))
        shape = f"{real.size} bins from {fmt(float(edges[0]))} to {fmt(float(edges[-1]))}"
        detail = (
            f"largest gap in [{fmt(float(edges[worst]))}, {fmt(float(edges[worst + 1]))}): "
            f"real {real[worst]:.1%}, synthetic {synth[worst]:.1%}"
        )
    ax.set_title(f"{name}" + (f"  ·  {label_metric}" if label_metric else ""), loc="left",
                 fontsize=9)  # fmt: skip
    ax.legend(fontsize=7, loc="best")
    alt = f"Distribution of column {name} ({shape}), real against synthetic; {detail}."
    if label_metric:
        alt += f" {label_metric}."
    return Figure(fid, to_svg(fig, fid, alt), alt, name)


def correlation_figure(
    columns: Sequence[str],
    matrix: Sequence[Sequence[float]],
    *,
    measure: str = "correlation",
    fig_id: str = "fig-corr",
    caption: str | None = None,
) -> Figure | None:
    """Heat map of synthetic − real ``measure`` (correlation, association), cells labelled.

    Parameters
    ----------
    columns : sequence of str
    matrix : k × k nested sequence of float
        Synthetic minus real.
    measure : str, default "correlation"
        Named in the title, alt text and colour-bar label.
    fig_id : str, default "fig-corr"
    caption : str, optional

    Returns
    -------
    Figure or None
        None when the matrix is not k × k.
    """
    m = np.asarray(matrix, dtype=float)
    k = len(columns)
    if m.shape != (k, k) or k == 0:
        return None
    size = min(max(3.6, 0.42 * k + 1.6), 9.5)
    fig = new_figure(size + 0.8, size)
    ax = fig.subplots()
    finite = m[np.isfinite(m)]
    vmax = max(float(np.abs(finite).max()) if finite.size else 0.0, 0.05)
    im = ax.imshow(m, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
    ax.set_xticks(range(k), [str(c) for c in columns], rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(k), [str(c) for c in columns], fontsize=7)
    ax.grid(False)
    if k <= 20:
        for i in range(k):
            for j in range(k):
                v = m[i, j]
                if np.isfinite(v):
                    strong = abs(v) > 0.6 * vmax
                    ax.text(j, i, f"{v:+.2f}" if v else "0", ha="center", va="center",
                            fontsize=5.5 if k > 12 else 7,
                            color="white" if strong else "black")  # fmt: skip
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label(f"synthetic − real {measure}", fontsize=8)
    cb.ax.tick_params(labelsize=7)
    off = np.where(np.eye(k, dtype=bool), np.nan, np.abs(m))
    if np.isfinite(off).any():
        i, j = np.unravel_index(int(np.nanargmax(off)), off.shape)
        worst = (
            f"the largest difference is {m[i, j]:+.3f} between {columns[i]} and "
            f"{columns[j]}; the mean absolute difference is {np.nanmean(off):.3f}"
        )
    else:
        worst = "no off-diagonal values"
    alt = f"Heat map of {measure} differences across {k} columns; {worst}."
    caption = caption or (
        "Correlation difference (synthetic minus real) for each pair of columns; every cell "
        "shows its value, red above zero and blue below. Near-zero everywhere means the "
        "synthetic data keeps the pairwise relationships."
    )
    return Figure(fig_id, to_svg(fig, fig_id, alt), alt, caption)


# --------------------------------------------------------------------------------------------
# audit
# --------------------------------------------------------------------------------------------
def score_histogram_figure(
    name: str, pos: Sequence[float], neg: Sequence[float], idx: int
) -> Figure:
    """Histogram of attack scores for members (hatched) and non-members (dotted outline).

    Parameters
    ----------
    name : str
        The attack.
    pos, neg : sequence of float
        Its IMs with and without the target in the training data.
    idx : int
        Position on the page (the id is ``fig-hist-{idx}``).

    Returns
    -------
    Figure
    """
    p = np.asarray(pos, dtype=float)
    q = np.asarray(neg, dtype=float)
    p, q = p[np.isfinite(p)], q[np.isfinite(q)]
    fid = f"fig-hist-{idx}"
    fig, ax = _styled_axes(3.3, 2.3)
    both = np.concatenate([p, q]) if p.size + q.size else np.array([0.0, 1.0])
    lo, hi = float(both.min()), float(both.max())
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, 21)
    ax.hist(q, bins=edges, histtype="stepfilled", color=SKY, alpha=0.45, hatch="...",
            edgecolor=BLUE, lw=1.0, label=f"not in training ({q.size})")  # fmt: skip
    ax.hist(p, bins=edges, histtype="step", color=VERMILION, hatch="///", lw=1.6,
            label=f"in training ({p.size})")  # fmt: skip
    ax.set_title(name, loc="left", fontsize=9)
    ax.xaxis.set_major_locator(MaxNLocator(4))
    ax.set_xlabel("attack score (higher: 'member')", fontsize=8)
    ax.set_ylabel("trials", fontsize=8)
    ax.tick_params(labelsize=7.5)
    ax.legend(fontsize=7)
    mp = float(np.median(p)) if p.size else math.nan
    mq = float(np.median(q)) if q.size else math.nan
    alt = (
        f"Histogram of the {name} attack's scores: {p.size} trials with the target in the "
        f"training data (median {fmt(mp)}) and {q.size} without (median {fmt(mq)}). "
        + ("The two overlap almost entirely." if abs(mp - mq) < 0.1 * (hi - lo) else
           "The two are visibly separated.")
    )  # fmt: skip
    return Figure(fid, to_svg(fig, fid, alt), alt, name)


def roc_figure(scores: Mapping[str, Mapping[str, Sequence[float]]]) -> Figure | None:
    """ROC curves of all attacks on log-log axes, the 1 % false-positive rate marked.

    Parameters
    ----------
    scores : Mapping
        Per attack, its finite IMs as ``{"pos": [...], "neg": [...]}`` (both non-empty).

    Returns
    -------
    Figure or None
        None without attacks. The curves and AUCs are those of
        :func:`synthcert.audit.scoring.roc_curve` and :func:`synthcert.audit.scoring.auc`.
    """
    from synthcert.audit.scoring import auc as auc_of
    from synthcert.audit.scoring import roc_curve

    if not scores:
        return None
    fig, ax = _styled_axes(5.2, 4.0)
    floor = 1.0
    parts = []
    aucs = {name: auc_of(sp["pos"], sp["neg"]) for name, sp in scores.items()}
    ranked = sorted(scores.items(), key=lambda kv: -aucs[kv[0]])
    shown = ranked[: len(SERIES)]
    for i, (name, sp) in enumerate(shown):
        fpr, tpr, _ = roc_curve(sp["pos"], sp["neg"])
        n_neg = max(len(sp["neg"]), 1)
        floor = min(floor, 0.5 / n_neg)
        color, ls, marker = SERIES[i % len(SERIES)]
        auc = aucs[name]
        ax.plot(np.maximum(fpr, 0.5 / n_neg), np.maximum(tpr, 0.5 / n_neg), color=color, ls=ls,
                marker=marker, markevery=max(len(fpr) // 8, 1), ms=4, lw=1.5,
                label=f"{name} (AUC {auc:.2f})")  # fmt: skip
        parts.append(f"{name} AUC {auc:.2f}")
    grid = np.logspace(math.log10(floor), 0, 50)
    ax.plot(grid, grid, color=GREY, ls=":", lw=1, label="chance (no attack)")
    ax.axvline(0.01, color=GREY, lw=0.8, ls="--")
    ax.text(0.01, 0.98, " 1% FPR", transform=ax.get_xaxis_transform(), fontsize=7, va="top")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor, 1.02)
    ax.set_ylim(floor, 1.05)
    _plain_log(ax)
    ax.set_xlabel("false-positive rate (log)")
    ax.set_ylabel("true-positive rate (log)")
    ax.legend(fontsize=7, loc="lower right")
    alt = (
        "ROC curves of the membership-inference attacks on log-log axes with the chance "
        "diagonal; " + "; ".join(parts) + ". Curves on the diagonal mean the attack does no "
        "better than guessing."
    )
    caption = (
        "ROC curves on log-log axes (the low false-positive region is where an attack would be "
        "dangerous). The dotted diagonal is guessing; each attack has its own line style and "
        "marker."
    )
    if len(ranked) > len(shown):
        caption += f" The {len(shown)} strongest of {len(ranked)} attacks (by AUC) are drawn."
    return Figure("fig-roc", to_svg(fig, "fig-roc", alt), alt, caption)


def sandwich_figure(
    lower: Mapping[str, float], certified: float | None, delta: float | None
) -> Figure | None:
    """The 'sandwich': the best empirical ε lower bound, the certified upper bound, the gap.

    Parameters
    ----------
    lower : Mapping of str to float
        Each attack's ε lower bound.
    certified : float or None
        The guaranteed ε (upper bound).
    delta : float or None
        δ of the bounds, written on the axis.

    Returns
    -------
    Figure or None
        None with neither a finite lower bound nor an upper bound.
    """
    items = [(k, float(v)) for k, v in lower.items() if v is not None and math.isfinite(float(v))]
    has_upper = certified is not None and math.isfinite(certified)
    if not items and not has_upper:
        return None
    best_name, best = max(items, key=lambda kv: kv[1]) if items else ("none", 0.0)
    best = max(best, 0.0)
    fig, ax = _styled_axes(6.4, 2.1)
    ax.grid(axis="y", visible=False)
    top = max(best, certified if has_upper else 0.0)
    top = top if top > 0 else 1.0
    ax.barh([0], [best], 0.5, color=SKY, hatch="///", edgecolor=BLUE, lw=0.8,
            label=f"measured: ε ≥ {best:.3g} ({best_name})")  # fmt: skip
    if has_upper:
        ax.barh([0], [certified - best], 0.5, left=best, color="white", hatch="..",
                edgecolor=GREY, lw=0.8, label="the true ε lies in this gap")  # fmt: skip
        ax.axvline(certified, color=VERMILION, ls="--", lw=2,
                   label=f"certified: ε ≤ {certified:.3g}")  # fmt: skip
    ax.text(best, 0.38, f"≥ {best:.3g}", ha="center", va="bottom", fontsize=8, color=BLUE)
    if has_upper:
        ax.text(certified, 0.38, f"≤ {certified:.3g}", ha="right", va="bottom", fontsize=8,
                color=VERMILION)  # fmt: skip
    ax.set_xlim(0, top * 1.08)
    ax.set_ylim(-0.5, 0.9)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    d = f" (δ = {delta:.3g})" if delta else ""
    ax.set_xlabel(f"ε{d}")
    fig.legend(fontsize=7.5, loc="outside lower center", ncol=3)
    cert_txt = f"{certified:.3g}" if has_upper else "not stated"
    alt = (
        f"Interval chart: the strongest of {len(items)} attacks demonstrates ε ≥ {best:.3g} "
        f"({best_name}); the certificate guarantees ε ≤ {cert_txt}. The true ε of the "
        "release lies between the two."
    )
    caption = (
        "The sandwich. Hatched: the privacy loss the strongest attack proves the mechanism must "
        "have at least (a statistical lower bound at 95 % confidence; per-attack values are in "
        "the table). Dashed: the ε the certificate proves it has at most. The true privacy loss "
        "lies in the dotted gap; a measured bound right of the dashed line would mean the "
        "certificate is wrong."
    )
    return Figure("fig-sandwich", to_svg(fig, "fig-sandwich", alt), alt, caption)


# --------------------------------------------------------------------------------------------
# attack risk: the claim's trade-off curve as TPR against FPR
# --------------------------------------------------------------------------------------------
def draw_tradeoff(
    ax,
    claim_tpr,
    *,
    claim_label: str,
    fpr_max: float = 1.0,
    audit=None,
    pair_tpr=None,
    attack_points=None,
    points: int = 401,
) -> None:
    """Draw on ``ax`` the claim's region in the (FPR, TPR) plane, the random-guess line and,
    when given, the mechanism's own curve on a pair and an audit's measured point with its
    confidence box (shared by the report and ``synthcert audit-claim``'s figure).

    Parameters
    ----------
    ax : matplotlib Axes
    claim_tpr : callable
        FPR array -> the greatest TPR the claim allows (1 − f, f its trade-off function).
    claim_label : str
        The claim's legend entry.
    fpr_max : float, default 1.0
        The right end of the FPR axis (0.1 zooms on the rates that matter).
    audit : ClaimAuditResult, optional
        Anything with ``fpr``, ``tpr``, ``fpr_upper``, ``tpr_lower``, ``confidence`` and
        ``statistic``: its box runs from the measured rates to the corner (FPR upper bound,
        TPR lower bound) the lower bound is computed from.
    pair_tpr : callable, optional
        The mechanism's own TPR curve on the audited pair.
    attack_points : Mapping, optional
        Internal reports only: per attack of a Setsubun audit on the real table, ``{"roc":
        (fpr, tpr) or None, "bound": (fpr, tpr) or None}``, its empirical ROC operating points
        (from its IMs) and the operating point its ε lower bound is computed at
        (:func:`synthcert.report.sections.risk.setsubun_points`).
    points : int, default 401
        Points of each curve.
    """
    from matplotlib.patches import Rectangle

    x = np.linspace(0.0, fpr_max, points)
    top = float(np.clip(np.asarray(claim_tpr(np.array([fpr_max])), dtype=float)[0], 0, 1))
    ymax = 1.0 if fpr_max >= 1.0 else min(1.0, max(1.3 * top, 2.5 * fpr_max))
    ax.plot([0, fpr_max], [0, fpr_max], color=GREY, ls=":", lw=1.2, label="random guess")
    y = np.clip(np.asarray(claim_tpr(x), dtype=float), 0.0, 1.0)
    ax.plot(x, y, color=BLUE, lw=2, label=claim_label)
    ax.fill_between(x, y, ymax, color=VERMILION, alpha=0.08, lw=0, hatch="//", ec=VERMILION)
    if pair_tpr is not None:
        pair = np.clip(np.asarray(pair_tpr(x), dtype=float), 0.0, 1.0)
        ax.plot(x, pair, color=GREEN, lw=1.2, ls="--", label="mechanism on the audited pair")
    if audit is not None:
        lo_x, hi_x = sorted((float(audit.fpr), float(audit.fpr_upper)))
        lo_y, hi_y = sorted((float(audit.tpr), float(audit.tpr_lower)))
        pct = f"{100 * float(audit.confidence):g}%"
        ax.add_patch(
            Rectangle((lo_x, lo_y), hi_x - lo_x, hi_y - lo_y, fill=False, ec=ORANGE, lw=1.5,
                      label=f"{pct} confidence box")
        )  # fmt: skip
        ax.plot([audit.fpr], [audit.tpr], "o", color=ORANGE, mec="black",
                label=f"measured by the audit ({audit.statistic})")  # fmt: skip
        ax.plot([audit.fpr_upper], [audit.tpr_lower], "s", color=ORANGE, ms=4)
    for i, (name, pts) in enumerate((attack_points or {}).items()):
        color, _ls, marker = SERIES[(i + 2) % len(SERIES)]  # BLUE and VERMILION are taken
        if pts.get("roc") is not None:
            fx, ty = pts["roc"]
            ax.plot(fx, ty, color=color, lw=0.8, marker=marker, ms=2.5, alpha=0.8,
                    label=f"Setsubun audit, {name}: operating points")  # fmt: skip
        if pts.get("bound") is not None:
            bx, by = pts["bound"]
            ax.plot([bx], [by], marker, color=color, mec="black", ms=7,
                    label=f"Setsubun audit, {name}: ε-bound point")  # fmt: skip
    ax.set_xlim(0, fpr_max)
    ax.set_ylim(0, ymax)
    ax.set_xlabel("false-positive rate (FPR)")
    ax.set_ylabel("true-positive rate (TPR)")


def risk_figure(claim, audit=None, attack_points=None) -> Figure:
    """The claim's trade-off curve as TPR against FPR (full range, and FPR ≤ 10 %), the line of
    a random guess, an attached worst-case audit's measured point with its confidence box and,
    in the internal report only, the Setsubun audit's operating points on the real table.

    Parameters
    ----------
    claim : PrivacyClaim
        A DP guarantee (its curve: :func:`synthcert.privacy.risk.claim_tpr`).
    audit : ClaimAuditResult, optional
        The public result of ``synthcert audit-claim`` for this configuration.
    attack_points : Mapping, optional
        The Setsubun audit's points (:func:`draw_tradeoff`): statistics of the real table, so
        only the internal report passes them.

    Returns
    -------
    Figure
        ``fig-risk``.
    """
    from synthcert.privacy.risk import claim_tpr

    label = claim.risk
    tpr = claim_tpr(claim)
    fig = new_figure(7.6, 3.7)
    axes = fig.subplots(1, 2)
    claim_label = "the most any attack can reach"
    for ax, fpr_max in zip(axes, (1.0, 0.1), strict=True):
        _style(ax)
        draw_tradeoff(ax, tpr, claim_label=claim_label, fpr_max=fpr_max, audit=audit,
                      attack_points=attack_points)  # fmt: skip
    for key, color in (("0.01", BLUE), ("0.05", BLUE)):
        x, yv = float(key), float(label.tpr_at_fpr[key])
        axes[1].plot([x], [yv], "o", color=color, ms=5, mec="black")
        axes[1].annotate(f"TPR ≤ {yv:.3g}", (x, yv), xytext=(6, -12), textcoords="offset points",
                         fontsize=8)  # fmt: skip
    axes[0].set_title("all false-positive rates")
    axes[1].set_title("zoom: false-positive rate ≤ 10 %")
    handles, names = axes[1].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncol=3, fontsize=7.5)
    t1, t5 = label.tpr_at_fpr["0.01"], label.tpr_at_fpr["0.05"]
    alt = (
        f"Trade-off curve of the privacy claim ({label.source}): at a false-positive rate of "
        f"1 % no attack exceeds a true-positive rate of {t1:.3g}, at 5 % of {t5:.3g}; the "
        f"largest advantage over guessing is {label.advantage:.3g}."
    )
    if audit is not None:
        alt += (
            f" The worst-case audit measured FPR {audit.fpr:.3g} and TPR {audit.tpr:.3g} "
            f"({audit.runs} runs per side)."
        )
    for name, pts in (attack_points or {}).items():
        if pts.get("bound") is not None:
            bx, by = pts["bound"]
            alt += f" The Setsubun audit's {name} attack reached FPR {bx:.3g} and TPR {by:.3g}."
        elif pts.get("roc") is not None:
            alt += f" The Setsubun audit's {name} attack's operating points are drawn."
    caption = (
        "What an attacker can do. The solid line is the largest true-positive rate (people in "
        "the table correctly detected) any attack can reach at each false-positive rate "
        "(people wrongly accused) under the claim; the hatched area above it is impossible. "
        "The dotted diagonal is a random guess."
    )
    if audit is not None:
        caption += (
            " The orange point is what the worst-case audit (audit-claim) measured, with its "
            "confidence box: a box corner above the line would refute the claim."
        )
    if attack_points:
        caption += (
            " Internal: the thin lines are the operating points (false-positive rate, "
            "true-positive rate) each attack of the Setsubun audit reached on the real table, "
            "the large markers the point its ε lower bound is computed at. Empirical rates, "
            "without confidence boxes: a point above the line is a warning to investigate, "
            "not by itself a refutation."
        )
    return Figure("fig-risk", to_svg(fig, "fig-risk", alt), alt, caption)
