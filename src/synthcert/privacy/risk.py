"""The attack-risk label of a privacy claim: what the best attacker can do, in plain words.

A claim's trade-off curve f (:func:`synthcert.privacy.tradeoff.claim_tradeoff`) bounds every
membership test at once: an attacker who knows every other record, sees the release and
accuses people with false-positive rate FPR = x detects at most TPR = 1 − f(x) of those who are
in the table (Dong, Roth & Su 2022, Def. 2.1; Kairouz, Oh & Viswanath 2015 for (ε, δ)). The
label states that bound at FPR 1 % and 5 %, the largest advantage max_x (TPR − FPR), and one
sentence a data steward can act on.

Every number is an *upper* bound on what the claim allows, never below it:

* pure ε and (ε, δ): the closed forms TPR(x) = min(1, e^ε x + δ, 1 − e^{−ε}(1 − δ − x)) and
  advantage δ + (1 − δ)(e^ε − 1)/(e^ε + 1), each raised by 10⁻¹² against rounding;
* zCDP and inherent RDP: the Rényi region of the claim (bisection returning the upper end of its
  bracket) intersected with the stated (ε, δ); the advantage is bounded on grid intervals by
  TPR(x_{i+1}) − x_i (TPR is non-decreasing) and by the neighbouring secants of the concave
  TPR − x (:func:`advantage_bound`);
* a claim that is not a guarantee (model ``none``, or an assumption read from the data) gets a
  label that says no bound holds.

ρ-zCDP is never read as √(2ρ)-GDP (that holds for Gaussian noise only).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from synthcert._result import Result
from synthcert.errors import ParameterError
from synthcert.privacy.parameters import GUARANTEE, ClaimFigures

FPRS: tuple[float, ...] = (0.01, 0.05)
"""The false-positive rates a label states (keys ``"0.01"`` and ``"0.05"``)."""
ROUNDING = 1e-12  # added to closed forms: a rounding error may only raise a bound
_GRID = 129  # points of each refinement of the advantage's grid

TprBound = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class RiskLabel(Result):
    """The attack-risk label of a claim (``to_dict``/``from_dict`` round-trip).

    Attributes
    ----------
    tpr_at_fpr : dict of str to float, or None
        The largest TPR any membership test reaches at FPR 0.01 and 0.05 (keys ``"0.01"``,
        ``"0.05"``); None when the claim bounds nothing.
    advantage : float or None
        The largest TPR − FPR of any test (the total-variation distance the claim allows).
    sentence : str
        The bound at 1 % in plain English.
    source : str
        Which description of the claim the curve was computed from.
    neighboring : str
        The neighbouring relation the tests distinguish.

    Examples
    --------
    >>> from synthcert.privacy.claims import GUARANTEE, PrivacyClaim
    >>> label = risk_label(PrivacyClaim("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=0))
    >>> round(label.tpr_at_fpr["0.01"], 4), round(label.advantage, 4)
    (0.0272, 0.4621)
    >>> RiskLabel.from_dict(label.to_dict()) == label
    True
    """

    tpr_at_fpr: dict[str, float] | None
    advantage: float | None
    sentence: str
    source: str
    neighboring: str

    @property
    def bounded(self) -> bool:
        """True when the label bounds the attacker (the claim is a DP guarantee)."""
        return self.tpr_at_fpr is not None


def fpr_key(fpr: float) -> str:
    """The JSON key of a false-positive rate (``0.01`` -> ``"0.01"``)."""
    return f"{fpr:g}"


def round_up(x: float, digits: int = 3) -> float:
    """``x`` rounded *up* to ``digits`` significant digits (a bound stays a bound).

    >>> round_up(2.718281828), round_up(100.0), round_up(0.0)
    (2.72, 100.0, 0.0)
    """
    if x <= 0 or not math.isfinite(x):
        return x
    scale = 10 ** (digits - 1 - math.floor(math.log10(x)))
    return math.ceil(x * scale - 1e-9) / scale


def _per_hundred(x: float) -> str:
    value = round_up(100.0 * x)
    return f"{value:g}"


def risk_sentence(tpr_at_1pct: float) -> str:
    """The label's sentence at FPR 1 % (the TPR rounded up, per hundred people).

    >>> risk_sentence(0.027182818)
    'An attacker who knows every other record and sees this release, and wrongly accuses at most 1 in 100 people, correctly detects at most 2.72 in 100 of those who are in the table.'
    """  # noqa: E501
    head = (
        "An attacker who knows every other record and sees this release, and wrongly accuses "
        "at most 1 in 100 people, "
    )
    if tpr_at_1pct >= 1.0:
        return head + "may detect every one of those who are in the table: the claim sets no bound."
    share = _per_hundred(tpr_at_1pct)
    return head + f"correctly detects at most {share} in 100 of those who are in the table."


def no_bound_label(claim: ClaimFigures, why: str | None = None) -> RiskLabel:
    """The label of a claim that limits no attacker (no DP, or an assumption read from data)."""
    reason = why or claim.guarantee.removeprefix("none: ")
    return RiskLabel(
        tpr_at_fpr=None,
        advantage=None,
        sentence=f"No bound: {reason}; nothing limits what an attacker can learn about one "
        "person from this release.",
        source="none",
        neighboring=claim.neighboring,
    )


def interval_bounds(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Upper bounds on a concave g over each [x_i, x_{i+1}] from its values on the grid ``x``.

    Every interval: g(t) ≤ g(x_{i+1}) + (x_{i+1} − x_i) (TPR non-decreasing). Interior ones
    also: g lies under the secants of its neighbours extended (g concave), so under
    min(left line, right line), whose maximum on the interval is at an end or where they cross;
    10⁻⁹ is added for rounding.
    """
    h = np.diff(x)
    trivial = g[1:] + h
    out = trivial.copy()
    if x.size < 4:
        return out
    s = np.diff(g) / h
    gl, gr, hh = g[1:-2], g[2:-1], h[1:-1]  # intervals 1..m-2
    sl, sr = s[:-2], s[2:]

    def both(t: np.ndarray) -> np.ndarray:
        return np.minimum(gl + sl * t, gr + sr * (t - hh))

    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.where(sl > sr, (gr - sr * hh - gl) / (sl - sr), 0.0)
    cross = np.clip(np.nan_to_num(cross), 0.0, hh)
    secant = np.maximum.reduce([both(np.zeros_like(hh)), both(hh), both(cross)]) + 1e-9
    out[1:-1] = np.minimum(trivial[1:-1], secant)
    return out


def bounds_end(points: int, padded: bool) -> int:
    """End of the intervals of a grid of ``points`` inside the window (the last one dropped
    when it leads to an outer neighbour)."""
    return points - 1 - int(padded)


def advantage_bound(tpr: TprBound, rounds: int = 2) -> float:
    """An upper bound on max_x TPR(x) − x for a concave, non-decreasing TPR bound on [0, 1].

    The curves here are concave (the upper boundary of a convex region: the (ε, δ) region and
    every Rényi region are convex, and so is their intersection), so g = TPR − x is bounded on
    each grid interval by :func:`interval_bounds`. The interval with the largest bound and its
    neighbours are refined ``rounds`` times; the result is the largest bound over all the
    intervals that cover [0, 1], so it is never below the true maximum. The refined grid keeps
    one point on each side of its window, so its end intervals have secant neighbours too.

    Examples
    --------
    >>> e = math.e
    >>> tpr = lambda x: np.minimum.reduce([np.ones_like(x), e * x, 1 - (1 - x) / e])
    >>> exact = (e - 1) / (e + 1)
    >>> exact <= advantage_bound(tpr) < exact + 1e-6
    True
    """
    x = np.linspace(0.0, 1.0, _GRID)
    pad = (False, False)  # whether x's first/last point lies outside the window (a neighbour)
    settled = -math.inf
    for step in range(rounds + 1):
        g = np.asarray(tpr(x), dtype=np.float64) - x
        bounds = interval_bounds(x, g)[slice(int(pad[0]), bounds_end(x.size, pad[1]))]
        inner = x[int(pad[0]) : x.size - int(pad[1])]
        if step == rounds:
            settled = max(settled, float(bounds.max()))
            break
        i = int(np.argmax(bounds))
        keep = np.zeros(bounds.size, dtype=bool)
        keep[max(i - 1, 0) : i + 2] = True
        if (~keep).any():
            settled = max(settled, float(bounds[~keep].max()))
        idx = np.flatnonzero(keep)
        first, last = idx[0], idx[-1] + 1  # the window [inner[first], inner[last]]
        window = np.linspace(inner[first], inner[last], _GRID)
        left = inner[first - 1 : first] if first > 0 else inner[:0]
        right = inner[last + 1 : last + 2]
        x = np.concatenate([left, window, right])
        pad = (left.size > 0, right.size > 0)
    return float(min(1.0, max(settled, 0.0)))


def _closed_form(epsilon: float, delta: float) -> tuple[TprBound, float]:
    """TPR bound and advantage of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Thm. 2.1)."""
    e = math.exp(epsilon) if epsilon <= 700.0 else math.inf

    def tpr(x: np.ndarray) -> np.ndarray:
        x = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
        with np.errstate(invalid="ignore"):
            first = np.where(x > 0, e * x, 0.0) + delta
        raw = np.minimum(first, 1.0 - (1.0 - delta - x) / e)
        return np.minimum(1.0, raw + ROUNDING)

    adv = delta + (1.0 - delta) * math.tanh(epsilon / 2.0)  # (e^ε − 1)/(e^ε + 1)
    return tpr, min(1.0, adv + ROUNDING)


def _label(tpr: TprBound, advantage: float, source: str, neighboring: str) -> RiskLabel:
    values = np.asarray(tpr(np.array(FPRS)), dtype=np.float64)
    rates = {fpr_key(f): float(min(1.0, v)) for f, v in zip(FPRS, values, strict=True)}
    return RiskLabel(
        tpr_at_fpr=rates,
        advantage=float(advantage),
        sentence=risk_sentence(rates[fpr_key(0.01)]),
        source=source,
        neighboring=neighboring,
    )


def claim_tpr(claim: ClaimFigures) -> TprBound:
    """The claim's TPR bound as a function of FPR: 1 − f, f its curve (upper bound on TPR).

    Raises
    ------
    ParameterError
        For a claim without DP figures.
    """
    from synthcert.privacy.tradeoff import claim_tradeoff

    if claim.model in ("pure-dp", "approx-dp") and claim.epsilon is not None:
        delta = 0.0 if claim.model == "pure-dp" else float(claim.delta or 0.0)
        return _closed_form(float(claim.epsilon), delta)[0]
    curve = claim_tradeoff(claim)

    def tpr(x: np.ndarray) -> np.ndarray:
        return np.clip(1.0 - np.asarray(curve(x), dtype=np.float64), 0.0, 1.0)

    return tpr


def risk_label(claim: ClaimFigures) -> RiskLabel:
    """The attack-risk label of ``claim``, from the tightest description it has.

    Parameters
    ----------
    claim : ClaimFigures
        A :class:`~synthcert.privacy.claims.PrivacyClaim` (or its figures).

    Returns
    -------
    RiskLabel
        TPR at FPR 1 % and 5 %, the advantage and the sentence; a label saying no bound holds
        when the claim is not a DP guarantee.
    """
    figures = ClaimFigures(*(getattr(claim, f.name) for f in dataclasses.fields(ClaimFigures)))
    return _cached_label(figures)  # the label depends on these eight figures only


@functools.lru_cache(maxsize=256)
def _cached_label(claim: ClaimFigures) -> RiskLabel:
    from synthcert.privacy.tradeoff import claim_descriptions

    model, eps, neighboring = claim.model, claim.epsilon, claim.neighboring
    if claim.guarantee != GUARANTEE or model == "none":
        return no_bound_label(claim)
    source = "; ".join(claim_descriptions(claim))
    if eps is not None and not math.isfinite(eps) and model in ("pure-dp", "approx-dp"):
        return no_bound_label(claim, "ε is infinite")
    if model in ("pure-dp", "approx-dp") and eps is not None:
        d = 0.0 if model == "pure-dp" else float(claim.delta or 0.0)
        tpr, adv = _closed_form(float(eps), d)
        return _label(tpr, adv, source, neighboring)
    try:
        tpr = claim_tpr(claim)
    except ParameterError as exc:
        return no_bound_label(claim, f"the claim has no trade-off curve ({exc})")
    return _label(tpr, advantage_bound(tpr), source, neighboring)


__all__ = [
    "FPRS",
    "RiskLabel",
    "advantage_bound",
    "claim_tpr",
    "fpr_key",
    "interval_bounds",
    "no_bound_label",
    "risk_label",
    "risk_sentence",
    "round_up",
]
