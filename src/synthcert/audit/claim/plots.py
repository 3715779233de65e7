"""The figure of ``synthcert audit-claim``: the claim's region in the (FPR, TPR) plane, the
pair's own curve, and the measured test with its Clopper–Pearson confidence box.

A mechanism satisfying the claim admits no test above the curve TPR = 1 − f(FPR), f the claim's
trade-off function (:func:`synthcert.privacy.tradeoff.claim_tradeoff`), drawn by the report's
:func:`synthcert.report.figures.draw_tradeoff` (the public report's attack-risk figure is the
same drawing). The audit's test
has empirical rates (FPR, TPR) on the evaluation half; its box runs to the corner
(FPR upper bound, TPR lower bound), the point the lower bound is computed from. A corner above
the claim's curve refutes the claim at the stated confidence. The figure is public, like the
result it draws.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from synthcert.audit.claim.result import ClaimAuditResult
from synthcert.data.io import save_and_close_figure

Tradeoff = Callable[[np.ndarray], np.ndarray]


def tradeoff_figure(
    result: ClaimAuditResult,
    claim_curve: Tradeoff,
    path: str | Path,
    *,
    pair_curve: Tradeoff | None = None,
) -> Path:
    """Draw the claim's curve, the pair's curve (if known) and the measured box into ``path``.

    Parameters
    ----------
    result : ClaimAuditResult
        The audit (its rates and bounds).
    claim_curve : callable
        The claim's trade-off function f (FPR -> type-II error).
    path : str or Path
        The image file (PNG, SVG, PDF by extension), written atomically.
    pair_curve : callable, optional
        The trade-off function of the mechanism on the audited pair (its noise steps' PLD).

    Returns
    -------
    Path
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from synthcert.report.figures import draw_tradeoff

    fig, ax = plt.subplots(figsize=(4.8, 4.6))
    label = f"claim: ε = {result.claimed_epsilon:g}" + (
        f", δ = {result.delta:g}" if result.delta else ""
    )

    def tpr_of(curve: Tradeoff) -> Tradeoff:
        return lambda a: 1.0 - np.clip(np.asarray(curve(a), dtype=np.float64), 0.0, 1.0)

    draw_tradeoff(
        ax, tpr_of(claim_curve), claim_label=label, audit=result, points=801,
        pair_tpr=None if pair_curve is None else tpr_of(pair_curve),
    )  # fmt: skip
    lb = result.epsilon_lower_bound
    verdict = "VIOLATION" if result.violation else "no violation"
    title = f"{result.synthesizer}, {result.runs} runs per side: "
    title += ("ε_lb = -" if lb is None else f"ε_lb = {lb:.3g}") + f" ({verdict})"
    ax.set_title(title, fontsize=9)
    ax.set_aspect("equal")
    ax.legend(loc="lower right", fontsize=7)
    return save_and_close_figure(fig, path, dpi=120)


__all__ = ["tradeoff_figure"]
