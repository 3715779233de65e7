"""The exact worst case of M_G for bounded neighbours, certified by interval branch-and-bound.

Reduction (docs/accountant.md, "The exact bounded certificate"). Let D ∈ D_σ have n records,
mean μ and (biased) covariance Σ, and let D' replace the record x of D by x'. Then

    μ' − μ = (x' − x)/n,
    Σ' = Σ + (bbᵗ − aaᵗ)/n − (b − a)(b − a)ᵗ/n²,        a = x − μ, b = x' − μ.

The Rényi divergence is invariant under the affine map z ↦ Σ^{-1/2}(z − μ), which sends the pair
to P = N(0, I) and Q = N(δ, I + E) with u = Σ^{-1/2}a, v = Σ^{-1/2}b, δ = (v − u)/n and
E = (vvᵗ − uuᵗ)/n − (v − u)(v − u)ᵗ/n². Everything lives in span{u, v}, so D_α(P‖Q) depends only
on the Gram matrix (|u|², |v|², u·v) and n, α (not on d). The constraints kept are
|u|², |v|² ≤ τ = 4d/σ (λ_min(Σ) ≥ σ and ‖x − μ‖², ‖x' − μ‖² ≤ 4d); everything else is relaxed
(see ``RELAXED``), which can only enlarge the set, so its supremum is an upper bound (sound).

Closed form (Gil et al., seed 000 Prop. 4.1, in the eigenbasis of E with eigenvalues
λ1 ≥ 0 ≥ λ2, tr E = T, det E = −k):

    D_α(P‖Q) = α W / (2 n² Δ_α) + h(λ1) + h(λ2),
    W = |v − u|², T = (|v|² − |u|²)/n − W/n², k = (|u|²|v|² − (u·v)²)/n²,
    Δ_β = det(I + βE) = 1 + βT − β²k,  h(λ) = −[log(1 + αλ) − α log(1 + λ)]/(2(α − 1)),

where the mean term simplifies because δᵗEδ = |δ|² tr E. It is finite iff I + αE ≻ 0; over the
constraint set the smallest eigenvalue of E is −τ/(n − 1) (attained), so every point is finite
iff α < (n − 1)/τ: that is the admissible range, about twice Corollary 3.2's c²/(2c − 1).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from synthcert._result import Result
from synthcert.errors import AssumptionError
from synthcert.privacy.numerics import log1p_minus_x, tau

EQUATION = (
    "exact bounded worst case: sup of the closed-form D_α over |u|², |v|² ≤ τ, certified by "
    "interval branch-and-bound (docs/accountant.md)"
)
KEPT = "|u|² ≤ τ and |v|² ≤ τ for u = Σ^{-1/2}(x−μ), v = Σ^{-1/2}(x'−μ), τ = 4d/σ"
RELAXED = (
    "that μ and Σ are the moments of n records in [-1,1]^d containing x (this couples u, μ, Σ), "
    "that the neighbour D' is in D_σ, and (d = 1 aside) nothing about the angle of u and v"
)

RTOL = 1e-6  # settled when the rigorous bound is within this of the attained value
SEARCH_RTOL = 1e-4  # for curves searched over α; the chosen α is then certified at RTOL
MAX_BOXES = 1_000_000  # boxes evaluated per order before its search stops (bound stays valid)
SEARCH_MAX_BOXES = 20_000  # the same when rtol is looser than RTOL (α searches)
_ULP = 2.0**-52
_SERIES = 1e-3  # |x| below which l(x) = log(1+x) − x is summed as a series


# --------------------------------------------------------------------------------------------
# closed form (floating point)
# --------------------------------------------------------------------------------------------
def _gram(a, b, cos, n):
    """W = |v−u|², T = tr E and k = −det E from |u|² = a, |v|² = b, cos∠(u, v) and n."""
    a, b, cos, n = (np.asarray(x, dtype=float) for x in (a, b, cos, n))
    c = cos * np.sqrt(a * b)
    w = np.maximum(a + b - 2.0 * c, 0.0)
    t = (b - a) / n - w / n / n
    k = np.maximum(a * b * (1.0 - cos * cos), 0.0) / n / n
    return w, t, k


def _eigen(t, k):
    """λ1 ≥ 0 ≥ λ2 with λ1 + λ2 = t, λ1 λ2 = −k, each without cancellation."""
    t, k = np.broadcast_arrays(np.asarray(t, float), np.asarray(k, float))
    s = np.sqrt(t * t + 4.0 * k)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_pos = 0.5 * (t + s)  # stable when t ≥ 0
        big_neg = 0.5 * (t - s)  # stable when t < 0
        lam1 = np.where(t >= 0, big_pos, np.where(big_neg != 0, -k / big_neg, 0.0))
        lam2 = np.where(t < 0, big_neg, np.where(big_pos != 0, -k / big_pos, 0.0))
    return lam1, lam2


def _pair_spectrum(alpha, n, a, b, cos):
    """(α, n, W, λ1, λ2) of a bounded pair, as arrays: W = |v−u|² and the eigenvalues
    λ1 ≥ 0 ≥ λ2 of E (tr E = T, det E = −k; module doc) from |u|² = a, |v|² = b, cos∠(u, v)
    and n. Both directions of the closed form (Prop. 4.1 of seed 000) start from these."""
    alpha = np.asarray(alpha, dtype=float)
    n = np.asarray(n, dtype=float)
    w, t, k = _gram(a, b, cos, n)
    lam1, lam2 = _eigen(t, k)
    return alpha, n, w, lam1, lam2


def _h(lam, alpha):
    """h(λ) = D_α(N(0,1) ‖ N(0,1+λ)) = −[l(αλ) − α l(λ)]/(2(α−1)) with l(x) = log(1+x) − x."""
    lam = np.asarray(lam, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = -(log1p_minus_x(alpha * lam) - alpha * log1p_minus_x(lam)) / (2.0 * (alpha - 1.0))
    return np.where(1.0 + alpha * lam > 0, out, np.inf)


def divergence(
    alpha: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, cos: ArrayLike
) -> np.ndarray:
    """D_α(M(D) ‖ M(D')) for a bounded pair, whitened by D: the closed form of the module doc.

    ``a`` = |u|², ``b`` = |v|² (u the replaced record, v the new one, both whitened by D's
    covariance), ``cos`` the cosine of their angle. +inf where (1−α)I + α(I+E) is not PD.
    """
    alpha, n, w, lam1, lam2 = _pair_spectrum(alpha, n, a, b, cos)
    delta_a = (1.0 + alpha * lam1) * (1.0 + alpha * lam2)
    ok = (1.0 + alpha * lam2 > 0) & (1.0 + lam2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = alpha * w / (2.0 * n * n * np.where(ok, delta_a, 1.0))
        out = mean + _h(lam1, alpha) + _h(lam2, alpha)
    return np.where(ok, out, np.inf)


def divergence_reverse(
    alpha: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, cos: ArrayLike
) -> np.ndarray:
    """D_α(M(D') ‖ M(D)) in the same coordinates: Σ_α = I + (1−α)E (Prop. 4.1 of seed 000).

    = α W/(2n² Δ_{1−α}) − Σ_i [log(1+(1−α)λ_i) − (1−α) log(1+λ_i)]/(2(α−1)); +inf where
    I + (1−α)E is not PD. Not needed for the certificate (see ``reverse_parameters``).
    """
    alpha, n, w, lam1, lam2 = _pair_spectrum(alpha, n, a, b, cos)
    beta = 1.0 - alpha
    ok = (1.0 + beta * lam1 > 0) & (1.0 + lam2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        delta_b = (1.0 + beta * lam1) * (1.0 + beta * lam2)
        mean = alpha * w / (2.0 * n * n * np.where(ok, delta_b, 1.0))
        cov = 0.0
        for lam in (lam1, lam2):
            cov = cov - (log1p_minus_x(beta * lam) - beta * log1p_minus_x(lam)) / (
                2.0 * (alpha - 1.0)
            )
        out = mean + cov
    return np.where(ok, out, np.inf)


def reverse_parameters(n: float, a: float, b: float, cos: float) -> tuple[float, float, float]:
    """(|u'|², |v'|², cos') of the reversed pair (D', D) whitened by D' (2-D, exact algebra).

    D_α(M(D')‖M(D)) = ``divergence`` at these parameters. Since D' ∈ D_σ too, |u'|², |v'|² ≤ τ:
    the supremum of the forward divergence covers both orders of every pair.
    """
    u = np.array([math.sqrt(a), 0.0])
    vy2 = max(b - b * cos * cos, 0.0)
    v = np.array([math.sqrt(b) * cos, math.sqrt(vy2)])
    w = v - u
    cov2 = np.eye(2) + (np.outer(v, v) - np.outer(u, u)) / n - np.outer(w, w) / n**2
    mu2 = w / n
    # Σ'^{-1/2}: any square root gives the same Gram matrix; use the inverse Cholesky factor.
    chol = np.linalg.cholesky(cov2)
    up = np.linalg.solve(chol, v - mu2)  # the record of D' that differs, centred at μ'
    vp = np.linalg.solve(chol, u - mu2)  # the record of D it is replaced by
    a2, b2 = float(up @ up), float(vp @ vp)
    c2 = float(up @ vp) / math.sqrt(a2 * b2) if a2 > 0 and b2 > 0 else 1.0
    return a2, b2, max(-1.0, min(1.0, c2))


def exact_alpha_limit(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> np.ndarray:
    """(n − 1)/τ: D_α is finite on the whole constraint set iff α is below it (0 if τ ≥ n − 1).

    min over |u|², |v|² ≤ τ of λ_min(E) is −τ/(n−1), attained at v = −u/(n−1), |u|² = τ
    (maximise p²/n + (q−p)²/n² − q²/n over |p|, |q| ≤ √τ: q = −p/(n−1), value p²/(n−1)).
    """
    n_a = np.asarray(n, dtype=float)
    t = tau(d, sigma)
    lim = (n_a - 1.0) / t
    return np.where(lim > 1.0, lim, 0.0)


# --------------------------------------------------------------------------------------------
# outward-rounded interval enclosures
# --------------------------------------------------------------------------------------------
def _dn(x):
    return np.nextafter(x, -np.inf)


def _up(x):
    return np.nextafter(x, np.inf)


def _l_enclosure(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rigorous [lo, hi] ∋ l(x) = log(1+x) − x at float points x > −1.

    |x| < 10⁻³: Taylor series to x⁷ plus the remainder |x|⁸/(8(1−|x|)) and 4·10⁻¹⁵x² for the
    rounding of the 12 flops. Otherwise log1p(x) − x with 8 ulp of |log1p(x)| + |result| for the
    library log1p (glibc documents at most 1-2 ulp) and the subtraction.
    """
    x = np.asarray(x, dtype=float)
    ax = np.abs(x)
    small = ax < _SERIES
    xs = np.where(small, x, 0.0)
    poly = 1 / 5 + xs * (-1 / 6 + xs / 7)
    series = xs * xs * (-1 / 2 + xs * (1 / 3 + xs * (-1 / 4 + xs * poly)))
    axs = np.abs(xs)
    err_s = axs**8 / (8.0 * (1.0 - axs)) + 4e-15 * xs * xs
    with np.errstate(invalid="ignore", divide="ignore"):
        xl = np.where(small, 0.5, x)
        lg = np.log1p(xl)
        big = lg - xl
        err_b = 8.0 * _ULP * (np.abs(lg) + np.abs(big)) + 1e-300
    val = np.where(small, series, big)
    err = np.where(small, err_s, err_b)
    lo = _dn(val - err)
    hi = np.minimum(_up(val + err), 0.0)  # l ≤ 0 everywhere
    bad = ~(x > -1.0)
    return np.where(bad, -np.inf, lo), np.where(bad, -np.inf, hi)


def _h_upper(lam: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """A rigorous upper bound on h at the float points λ (+inf where 1 + αλ ≤ 0)."""
    al_lo, al_hi = _dn(alpha * lam), _up(alpha * lam)
    # l is unimodal (max 0 at 0): its minimum on [al_lo, al_hi] is at an end.
    lo1, _ = _l_enclosure(al_lo)
    lo2, _ = _l_enclosure(al_hi)
    l_alpha_lo = np.minimum(lo1, lo2)
    _, l_hi = _l_enclosure(lam)
    num = _up(_up(-l_alpha_lo) + _up(alpha * l_hi))
    den = _dn(2.0 * _dn(alpha - 1.0))
    out = np.maximum(_up(num / den), 0.0)
    return np.where((al_lo > -1.0) & np.isfinite(out), out, np.inf)


def _lam1_bounds(t: np.ndarray, k: np.ndarray, upper: bool) -> np.ndarray:
    """Rigorous lower (upper=False) or upper bound on λ1(t, k) = (t + √(t²+4k))/2 at points."""
    k = np.maximum(k, 0.0)
    if upper:
        s = _up(np.sqrt(_up(_up(t * t) + _up(4.0 * k))))
        pos = _up(t + s) * 0.5
        with np.errstate(divide="ignore", invalid="ignore"):
            neg = _up(_up(2.0 * k) / _dn(_dn(np.sqrt(_dn(_dn(t * t) + _dn(4.0 * k)))) - t))
    else:
        s = _dn(np.sqrt(np.maximum(_dn(_dn(t * t) + _dn(4.0 * k)), 0.0)))
        pos = _dn(t + s) * 0.5
        with np.errstate(divide="ignore", invalid="ignore"):
            neg = _dn(_dn(2.0 * k) / _up(_up(np.sqrt(_up(_up(t * t) + _up(4.0 * k)))) - t))
    out = np.where(t >= 0, pos, np.where(np.isfinite(neg), neg, 0.0))
    return np.maximum(out, 0.0)  # λ1 ≥ 0 exactly


def _box_upper(alpha: np.ndarray, n: float, box: np.ndarray) -> np.ndarray:
    """Rigorous upper bound on D_α over boxes of (a, b, cos): columns a0 a1 b0 b1 r0 r1."""
    a0, a1, b0, b1, r0, r1 = box.T
    s_lo = _dn(np.sqrt(np.maximum(_dn(a0 * b0), 0.0)))
    s_hi = _up(np.sqrt(_up(a1 * b1)))
    s_lo = np.maximum(s_lo, 0.0)
    c_lo = _dn(np.minimum(r0 * s_lo, r0 * s_hi))
    c_hi = _up(np.maximum(r1 * s_lo, r1 * s_hi))
    w_lo = np.maximum(_dn(_dn(a0 + b0) - 2.0 * c_hi), 0.0)
    w_hi = _up(_up(a1 + b1) - 2.0 * c_lo)
    sq_lo = np.where((r0 <= 0) & (r1 >= 0), 0.0, _dn(np.minimum(r0 * r0, r1 * r1)))
    sq_hi = _up(np.maximum(r0 * r0, r1 * r1))
    om_lo = np.maximum(_dn(1.0 - sq_hi), 0.0)
    om_hi = np.minimum(_up(1.0 - sq_lo), 1.0)
    k_lo = _dn(_dn(_dn(np.maximum(_dn(a0 * b0), 0.0) * om_lo) / n) / n)
    k_hi = _up(_up(_up(_up(a1 * b1) * om_hi) / n) / n)
    k_lo = np.maximum(k_lo, 0.0)
    t_lo = _dn(_dn(_dn(b0 - a1) / n) - _up(_up(w_hi / n) / n))
    t_hi = _up(_up(_up(b1 - a0) / n) - _dn(_dn(w_lo / n) / n))
    # λ1 increases in t and k; λ2(t, k) = −λ1(−t, k) increases in t and decreases in k.
    l1_lo = _lam1_bounds(t_lo, k_lo, upper=False)
    l1_hi = _lam1_bounds(t_hi, k_hi, upper=True)
    l2_lo = -_lam1_bounds(-t_lo, k_hi, upper=True)
    # h decreases on λ ≤ 0 and increases on λ ≥ 0.
    h1 = _h_upper(l1_hi, alpha)
    h2 = _h_upper(l2_lo, alpha)
    f1 = _dn(1.0 + _dn(alpha * l1_lo))
    f2 = _dn(1.0 + _dn(alpha * l2_lo))
    det_lo = _dn(f1 * f2)
    ok = (f2 > 0) & (det_lo > 0) & (_dn(1.0 + l2_lo) > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        den = _dn(_dn(_dn(2.0 * n) * n) * np.where(ok, det_lo, 1.0))
        mean = _up(_up(alpha * w_hi) / den)
    total = _up(_up(mean + h1) + h2)
    return np.where(ok & np.isfinite(total), total, np.inf)


def _box_centre_value(alpha: np.ndarray, n: float, box: np.ndarray) -> np.ndarray:
    a = 0.5 * (box[:, 0] + box[:, 1])
    b = 0.5 * (box[:, 2] + box[:, 3])
    r = 0.5 * (box[:, 4] + box[:, 5])
    return divergence(alpha, n, a, b, r)


# --------------------------------------------------------------------------------------------
# certified supremum
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExactBound(Result):
    """Certified supremum of the bounded divergence at each α (one output record).

    ``upper`` is a rigorous upper bound (the certificate); ``attained`` is D_α at the point
    ``argmax`` = (|u|², |v|², cos) of the constraint set, so upper − attained bounds the gap.
    """

    alpha: tuple[float, ...]
    upper: tuple[float, ...]
    attained: tuple[float, ...]
    argmax: tuple[tuple[float, float, float], ...]
    converged: tuple[bool, ...]
    boxes: int
    n: int
    d: int
    sigma: float
    tau: float
    alpha_max: float


def _initial_boxes(t: float, d: int) -> np.ndarray:
    """4 × 4 × 16 boxes over [0,τ]² × [−1,1] (d ≥ 2), or cos ∈ {−1, 1} only (d = 1)."""
    ea = np.linspace(0.0, t, 5)
    if d >= 2:
        er = np.linspace(-1.0, 1.0, 17)
        rs = list(itertools.pairwise(er))
    else:
        rs = [(-1.0, -1.0), (1.0, 1.0)]
    rows = [
        (ea[i], ea[i + 1], ea[j], ea[j + 1], r0, r1)
        for i in range(4)
        for j in range(4)
        for r0, r1 in rs
    ]
    return np.array(rows, dtype=float)


def _seed_points(t: float, n: float, d: int) -> np.ndarray:
    """Good starting points: |u|² = |v|² = τ with u·v near −1 (the large-n optimum), and the
    near-singular configuration v = −u/(n−1) that dominates as α → (n−1)/τ."""
    if d >= 2:
        cs = np.concatenate([np.linspace(-1.0, 1.0, 41), [-1.0 / t, -2.0 / t, -0.5 / t, 0.0]])
        pts = [(t, t, c) for c in cs]
    else:
        pts = [(t, t, -1.0), (t, t, 1.0)]
    pts.append((t, t / (n - 1.0) ** 2, -1.0))
    return np.array(pts, dtype=float)


def certified_sup(
    alpha: ArrayLike,
    n: float,
    d: int,
    sigma: float,
    *,
    rtol: float = RTOL,
    max_iter: int = 200,
    max_boxes: int = MAX_BOXES,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Interval branch-and-bound for sup D_α over {|u|², |v|² ≤ τ, cos ∈ [−1, 1]}, all α at once.

    Returns (upper, attained, argmax rows, converged, boxes evaluated), one entry per α (every
    α must lie in (1, (n−1)/τ)). Boxes whose rigorous upper bound is below the best attained
    value of their α are discarded; boxes within ``rtol`` of it are settled (their bound is
    kept); the rest are halved along their widest side (relative to τ, and to 2 for the
    cosine). The answer is max(best attained, every kept upper bound): a rigorous upper bound
    on the supremum, also when the iteration limit or an order's box budget (``max_boxes``
    boxes evaluated per order) stops its search early; the other orders go on.
    """
    t = float(tau(d, sigma))
    alphas = np.atleast_1d(np.asarray(alpha, dtype=float)).ravel()
    m = alphas.size
    seeds = _seed_points(t, float(n), d)
    sv = divergence(alphas[:, None], n, seeds[None, :, 0], seeds[None, :, 1], seeds[None, :, 2])
    sv = np.where(np.isfinite(sv), sv, -np.inf)
    js = np.argmax(sv, axis=1)
    best = sv[np.arange(m), js]
    arg = seeds[js].copy()
    base = _initial_boxes(float(_up(t)), d)  # τ = 4d/σ rounded outward
    boxes = np.tile(base, (m, 1))
    idx = np.repeat(np.arange(m), base.shape[0])
    settled = np.full(m, -np.inf)
    stopped = np.zeros(m, dtype=bool)
    spent = np.zeros(m, dtype=np.int64)
    evaluated = 0
    for _ in range(max_iter):
        a_box = alphas[idx]
        up = _box_upper(a_box, float(n), boxes)
        cv = _box_centre_value(a_box, float(n), boxes)
        evaluated += boxes.shape[0]
        spent += np.bincount(idx, minlength=m)
        cv = np.where(np.isfinite(cv), cv, -np.inf)
        # best centre value per α
        order = np.lexsort((cv, idx))
        last = np.r_[idx[order][1:] != idx[order][:-1], True]
        top = order[last]
        better = cv[top] > best[idx[top]]
        for j in top[better]:
            best[idx[j]] = cv[j]
            row = boxes[j]
            arg[idx[j]] = 0.5 * (row[0::2] + row[1::2])
        b_box = best[idx]
        keep = up >= b_box
        done = keep & (up <= b_box * (1.0 + rtol))
        if np.any(done):
            np.maximum.at(settled, idx[done], up[done])
        act = keep & ~done
        boxes, idx, up = boxes[act], idx[act], up[act]
        # An order whose next round would exceed its box budget stops with its current bounds.
        over = spent + 2 * np.bincount(idx, minlength=m) > max_boxes
        if np.any(over):
            out = over[idx]
            np.maximum.at(settled, idx[out], up[out])
            stopped |= over
            boxes, idx = boxes[~out], idx[~out]
        if boxes.shape[0] == 0:
            break
        wa = (boxes[:, 1] - boxes[:, 0]) / t
        wb = (boxes[:, 3] - boxes[:, 2]) / t
        wr = (boxes[:, 5] - boxes[:, 4]) / 2.0
        dim = np.argmax(np.stack([wa, wb, wr], axis=1), axis=1)
        lo_part = boxes.copy()
        hi_part = boxes.copy()
        for k in range(3):
            sel = dim == k
            mid = 0.5 * (boxes[sel, 2 * k] + boxes[sel, 2 * k + 1])
            lo_part[sel, 2 * k + 1] = mid
            hi_part[sel, 2 * k] = mid
        boxes = np.concatenate([lo_part, hi_part])
        idx = np.concatenate([idx, idx])
    upper = np.maximum(best, settled)
    converged = ~stopped
    if boxes.shape[0]:
        rest = _box_upper(alphas[idx], float(n), boxes)
        np.maximum.at(upper, idx, rest)
        converged[np.unique(idx)] = False
    return upper, best, arg, converged, evaluated


def _check(n: float, d: float, sigma: float) -> None:
    if not (n >= 2 and float(n).is_integer()):
        raise AssumptionError(
            "the bounded relation needs a whole number n ≥ 2",
            assumption="n ≥ 2",
            admissible="n ≥ 2",
        )
    if not (d >= 1 and float(d).is_integer()):
        raise AssumptionError("d must be a whole number ≥ 1", assumption="d ≥ 1")
    if not (math.isfinite(sigma) and sigma > 0):
        raise AssumptionError("σ must be a positive number", assumption="σ > 0")


def exact_bound(
    alpha: ArrayLike,
    n: float,
    d: int,
    sigma: float,
    *,
    rtol: float = RTOL,
    max_boxes: int = MAX_BOXES,
) -> ExactBound:
    """Certified sup of D_α over bounded neighbours of D_σ (per record), at each order α.

    +inf (upper and attained) where α ∉ (1, (n−1)/τ): there the divergence is infinite at a
    point of the constraint set, so the relaxed class admits no finite bound.
    """
    _check(float(n), float(d), float(sigma))
    alphas = np.atleast_1d(np.asarray(alpha, dtype=float)).ravel()
    lim = float(exact_alpha_limit(n, d, sigma))
    t = float(tau(d, sigma))
    ok = (alphas > 1.0) & (alphas < lim)
    ups = np.full(alphas.size, math.inf)
    ats = np.full(alphas.size, math.inf)
    args = np.full((alphas.size, 3), math.nan)
    convs = np.zeros(alphas.size, dtype=bool)
    total = 0
    if np.any(ok):
        u, b, arg, conv, total = certified_sup(
            alphas[ok], float(n), int(d), float(sigma), rtol=rtol, max_boxes=max_boxes
        )
        ups[ok], ats[ok], args[ok], convs[ok] = u, b, arg, conv
    return ExactBound(
        alpha=tuple(float(a) for a in alphas),
        upper=tuple(float(x) for x in ups),
        attained=tuple(float(x) for x in ats),
        argmax=tuple((float(r[0]), float(r[1]), float(r[2])) for r in args),
        converged=tuple(bool(x) for x in convs),
        boxes=total,
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        tau=t,
        alpha_max=lim,
    )


def epsilon_bounded_exact(
    alpha: ArrayLike, n: float, d: int, sigma: float, *, rtol: float = RTOL
) -> np.ndarray:
    """Per-record ε of the exact bounded certificate (the certified upper bound), shaped as α.

    A looser ``rtol`` returns a larger, still certified, value faster (used to search α); it
    also caps each order at SEARCH_MAX_BOXES live boxes, so orders next to (n−1)/τ cost little
    (their bound is then looser, still an upper bound).
    """
    a = np.asarray(alpha, dtype=float)
    cap = MAX_BOXES if rtol <= RTOL else SEARCH_MAX_BOXES
    res = exact_bound(a, n, d, sigma, rtol=rtol, max_boxes=cap)
    return np.asarray(res.upper, dtype=float).reshape(a.shape)


# --------------------------------------------------------------------------------------------
# the unbounded one-parameter reduction (Theorem 3.1 is tight for its class)
# --------------------------------------------------------------------------------------------
def unbounded_divergence(
    alpha: ArrayLike, n: ArrayLike, d: ArrayLike, t: ArrayLike, move: str = "add"
) -> np.ndarray:
    """Exact D_α of an unbounded pair as a function of t = |u|² (whitened by the first table).

    ``add``: the n-record D against D ∪ {x}: whitened N(0,I) vs N(u/(n+1), n/(n+1)(I + uuᵗ/(n+1))).
    ``remove``: the (n+1)-record D against D ∖ {x}: N(0,I) vs N(−u/n, (n+1)/n (I − uuᵗ/n)).
    Each direction with Q-variance 1 + g contributes −[l(αg) − α l(g)]/(2(α−1)); the u-axis adds
    α m²/(2(1 + αg)) with m² = t/(n+1)² (add) or t/n² (remove). Theorem 3.1 bounds these by
    their value at t = τ (Lemmas 4.4, 4.5); maximising over t ∈ (0, τ] reproduces it.
    """
    alpha = np.asarray(alpha, dtype=float)
    n = np.asarray(n, dtype=float)
    d = np.asarray(d, dtype=float)
    t = np.asarray(t, dtype=float)
    if move == "add":
        g_perp = -1.0 / (n + 1.0)
        g_axis = (n * t - n - 1.0) / (n + 1.0) ** 2
        m2 = t / (n + 1.0) ** 2
    elif move == "remove":
        g_perp = 1.0 / n
        g_axis = (n - (n + 1.0) * t) / (n * n)
        m2 = t / (n * n)
    else:
        raise ValueError("move must be 'add' or 'remove'")
    ok = (1.0 + alpha * g_axis > 0) & (1.0 + alpha * g_perp > 0) & (1.0 + g_axis > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        perp = _h(g_perp, alpha)
        axis = _h(g_axis, alpha)
        out = (d - 1.0) * perp + axis + alpha * m2 / (2.0 * (1.0 + alpha * g_axis))
    return np.where(ok, out, np.inf)


__all__ = [
    "EQUATION",
    "ExactBound",
    "certified_sup",
    "divergence",
    "divergence_reverse",
    "epsilon_bounded_exact",
    "exact_alpha_limit",
    "exact_bound",
    "reverse_parameters",
    "unbounded_divergence",
]
