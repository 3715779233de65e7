"""Differentially private mechanisms of thesis section 2.3.3 (seed 003): Laplace, Gaussian
(classic, zCDP and analytic calibration), Staircase and Exponential.

Every mechanism takes its randomness from a ``numpy.random.Generator`` (or an int seed, or a
:class:`random.SystemRandom` for OS entropy on every draw) and, when given an
:class:`~synthcert.privacy.accountant.PrivacyAccountant`, records what it spent.

``laplace_mechanism`` and ``gaussian_mechanism`` are floating-point safe (Mironov 2012): the
noise is the discrete Laplace or discrete Gaussian of Canonne, Kamath and Steinke (2020),
sampled exactly (``synthcert.privacy.discrete``), added to an integer. ``integer=True`` says the
query is integer-valued (counts) and adds the noise to it directly. Otherwise the value is
first rounded to a public grid g = 2^-k (a deterministic function, so DP is kept) and the
sensitivity in grid units is raised by the rounding error: Delta/g + d (L1) or
Delta/g + sqrt(d) (L2), with g chosen so that this costs at most 2^-10 of the noise scale.
The output g (round(q/g) + Z) is exact in floating point, so its support does not depend on
the input.
"""

from __future__ import annotations

import functools
import math
import random
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.discrete import (
    UniformSource,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
    uniform_below,
)
from synthcert.privacy.parameters import check_delta, check_epsilon

if TYPE_CHECKING:
    from synthcert.privacy.accountant import PrivacyAccountant

Rng = int | np.random.Generator | random.SystemRandom | None
GaussianCalibration = Literal["zcdp", "analytic", "classic"]
StaircaseForm = Literal["l1", "coordinate"]


def _rng(rng: Rng) -> np.random.Generator:
    if isinstance(rng, random.SystemRandom):
        return np.random.default_rng(rng.getrandbits(128))
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _source(rng: Rng) -> UniformSource:
    """The uniform-integer source of the exact samplers: a SystemRandom as is, else a Generator."""
    return rng if isinstance(rng, random.SystemRandom) else _rng(rng)


# -- floating-point-safe noise on a grid ---------------------------------------------------
_GRID_SLACK_BITS = 10  # the rounding may cost at most 2^-10 of the sensitivity
_EXACT_FLOAT = 2.0**52
_SIGNIFICANT_BITS = 48


def _dyadic_ceil(x: Fraction) -> Fraction:
    """The smallest m / 2^k >= x with m of about 48 significant bits (x > 0).

    Noise parameters are rounded up (more noise, smaller epsilon or rho), never down.
    """
    k = _SIGNIFICANT_BITS - (x.numerator.bit_length() - x.denominator.bit_length())
    scale = Fraction(2) ** k
    return Fraction(math.ceil(x * scale)) / scale


def _ceil_sqrt(d: int) -> int:
    r = math.isqrt(d)
    return r if r * r == d else r + 1


def grid_for(sensitivity: float, d: int, norm: Literal[1, 2]) -> float:
    """The public grid g = 2^j with rounding error d (L1) or ceil(sqrt(d)) (L2) <= 2^-10 Delta/g."""
    spread = d if norm == 1 else _ceil_sqrt(d)
    return 2.0 ** math.floor(math.log2(sensitivity / (spread * 2.0**_GRID_SLACK_BITS)))


def _integer_query(
    value: np.ndarray, sensitivity: float, norm: Literal[1, 2], integer: bool
) -> tuple[np.ndarray, float, Fraction]:
    """(integers, grid g, sensitivity in grid units) of the query.

    ``integer=True``: g = 1 and the values must be integers. Otherwise each coordinate is
    rounded to the nearest multiple of g (|rint(a/g) - rint(b/g)| <= |a - b|/g + 1 when a != b),
    and values beyond 2^52 g are clipped (1-Lipschitz), so the L1 sensitivity becomes
    Delta/g + d and the L2 sensitivity Delta/g + sqrt(d).
    """
    d = max(value.size, 1)
    if integer:
        if not np.all(np.isfinite(value)) or np.any(value != np.rint(value)):
            raise AssumptionError(
                "integer=True needs an integer-valued query (counts)",
                assumption="q(D) in Z^d",
                admissible="integer=False for real-valued queries (rounded to a public grid)",
            )
        if np.any(np.abs(value) >= _EXACT_FLOAT):
            raise AssumptionError(
                "integer query values must stay below 2^52 in magnitude",
                assumption="|q(D)| < 2^52",
            )
        return value.astype(np.int64), 1.0, Fraction(sensitivity)
    g = grid_for(sensitivity, d, norm)
    scaled = np.clip(np.nan_to_num(value / g), -_EXACT_FLOAT, _EXACT_FLOAT)
    ints = np.rint(scaled).astype(np.int64)
    spread = Fraction(d) if norm == 1 else Fraction(_ceil_sqrt(d))
    return ints, g, Fraction(sensitivity) / Fraction(g) + spread


def _release(ints: np.ndarray, noise: np.ndarray, g: float, shape: tuple[int, ...]) -> np.ndarray:
    """g (q + Z) as floats: exact, since g is a power of two and |q + Z| < 2^53."""
    total = ints.ravel().astype(object) + noise
    out = np.array([float(v) for v in total], dtype=np.float64) * g
    return out.reshape(shape)


def discrete_laplace_noise(size: int, scale: Fraction, *, rng: Rng = None) -> np.ndarray:
    """``size`` exact discrete Laplace draws Lap_Z(scale) (CKS 2020, Algorithm 2), as int64."""
    return discrete_laplace(_source(rng), Fraction(scale), size).astype(np.int64)


def discrete_gaussian_noise(size: int, sigma2: Fraction, *, rng: Rng = None) -> np.ndarray:
    """``size`` exact discrete Gaussian draws N_Z(0, sigma2) (CKS 2020, Algorithm 3), as int64."""
    return discrete_gaussian(_source(rng), Fraction(sigma2), size).astype(np.int64)


def _positive(name: str, value: float) -> float:
    if not (value > 0 and math.isfinite(value)):
        raise AssumptionError(
            f"{name} must be a positive finite number, got {value}",
            assumption=f"0 < {name} < inf",
            admissible="> 0",
        )
    return float(value)


# -- Laplace ------------------------------------------------------------------------------
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """b = Delta_1 / epsilon, the Laplace scale of thesis Definition 2.3.12."""
    return _positive("sensitivity", sensitivity) / check_epsilon(epsilon)


def laplace_mechanism(
    value: ArrayLike,
    sensitivity: float,
    epsilon: float,
    *,
    integer: bool = False,
    rng: Rng = None,
    accountant: PrivacyAccountant | None = None,
    name: str = "laplace",
) -> np.ndarray:
    """q(D) + discrete Laplace noise: epsilon-DP for L1 sensitivity Delta_1 (thesis Def. 2.3.12,
    floating-point safe).

    The noise is Lap_Z(t) with t >= Delta_int/epsilon (CKS 2020, Def. 2: P(x) proportional to
    e^{-|x|/t}, so neighbouring integer queries at L1 distance Delta_int have probability
    ratios <= e^{Delta_int/t} <= e^epsilon). ``integer=True``: Delta_int = Delta_1 on the
    counts themselves; otherwise Delta_int = Delta_1/g + d on the grid g (module docstring).
    t is rounded up to a dyadic rational, so the epsilon spent is at most ``epsilon``.
    """
    value = np.asarray(value, dtype=np.float64)
    _positive("sensitivity", sensitivity)
    check_epsilon(epsilon)
    ints, g, sens = _integer_query(value, sensitivity, 1, integer)
    scale = _dyadic_ceil(sens / Fraction(epsilon))
    noise = discrete_laplace(_source(rng), scale, ints.size)
    out = _release(ints, noise, g, value.shape)
    if accountant is not None:
        accountant.record_pure(name, epsilon)
    return out


def laplace_logpdf(x: ArrayLike, sensitivity: float, epsilon: float) -> np.ndarray:
    """log f_{epsilon,Delta}(x) of thesis Def. 2.3.12, summed over the last axis."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    b = laplace_scale(sensitivity, epsilon)
    return np.sum(-np.abs(x) / b - math.log(2 * b), axis=-1)


# -- Gaussian -----------------------------------------------------------------------------
def gaussian_sigma_classic(sensitivity: float, epsilon: float, delta: float) -> float:
    """sigma = Delta_2 sqrt(2 ln(1.25/delta)) / epsilon for epsilon < 1 (Dwork & Roth, Thm A.1).

    Thesis Def. 2.3.14 drops the square of Delta and writes sigma for sigma^2; this is the
    correct form sigma^2 >= 2 Delta^2 ln(1.25/delta) / epsilon^2.
    """
    _positive("sensitivity", sensitivity)
    check_epsilon(epsilon)
    check_delta(delta, pure=False)
    if epsilon >= 1:
        raise AssumptionError(
            f"the classic Gaussian calibration holds only for epsilon < 1 (got {epsilon}); "
            "use calibration='analytic' (Balle & Wang 2018), which is valid and tighter for "
            "every epsilon",
            assumption="epsilon < 1",
            admissible="epsilon < 1, or the analytic calibration",
        )
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def gaussian_sigma_zcdp(sensitivity: float, rho: float) -> float:
    """sigma = Delta_2 / sqrt(2 rho): rho-zCDP (Bun & Steinke 2016 Prop. 1.6; thesis Def. 2.3.14,
    corrected: the thesis writes sigma > Delta^2/(2 rho) for sigma^2 >= Delta^2/(2 rho))."""
    return _positive("sensitivity", sensitivity) / math.sqrt(2.0 * _positive("rho", rho))


def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact privacy profile delta(epsilon) of N(0, sigma^2) noise (Balle & Wang 2018, Thm. 8).

    delta = Phi(D/(2 s) - eps s/D) - e^eps Phi(-D/(2 s) - eps s/D) with D = Delta_2, s = sigma.
    """
    _positive("sigma", sigma)
    _positive("sensitivity", sensitivity)
    if epsilon < 0:
        raise AssumptionError("epsilon must be >= 0", assumption="epsilon >= 0")
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    l1 = special.log_ndtr(a - b)
    l2 = epsilon + special.log_ndtr(-a - b)
    if l2 >= l1:
        return 0.0
    return float(math.exp(l1) * -math.expm1(l2 - l1))


def gaussian_sigma_analytic(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest sigma with gaussian_delta(sigma) <= delta: the analytic Gaussian mechanism
    (Balle & Wang 2018, Algorithm 1, solved by bisection on log sigma), tight for every epsilon."""
    _positive("sensitivity", sensitivity)
    check_epsilon(epsilon)
    check_delta(delta, pure=False)

    def excess(log_sigma: float) -> float:
        return gaussian_delta(math.exp(log_sigma), sensitivity, epsilon) - delta

    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0
    while excess(lo) < 0:
        lo -= 10.0
    while excess(hi) > 0:
        hi += 10.0
    log_sigma = optimize.brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14)
    sigma = math.exp(log_sigma)
    # step to the safe side of the root
    while gaussian_delta(sigma, sensitivity, epsilon) > delta:
        sigma *= 1.0 + 1e-12
    return sigma


def gaussian_rho(sigma: float, sensitivity: float) -> float:
    """rho = Delta_2^2 / (2 sigma^2): the zCDP of Gaussian noise of scale sigma."""
    return _positive("sensitivity", sensitivity) ** 2 / (2.0 * _positive("sigma", sigma) ** 2)


def gaussian_mechanism(
    value: ArrayLike,
    sensitivity: float,
    *,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    calibration: GaussianCalibration = "zcdp",
    integer: bool = False,
    rng: Rng = None,
    accountant: PrivacyAccountant | None = None,
    name: str = "gaussian",
) -> np.ndarray:
    """q(D) + discrete Gaussian noise N_Z(0, sigma^2)^d (floating-point safe).

    The discrete Gaussian on an integer query of L2 sensitivity Delta_int is
    Delta_int^2/(2 sigma^2)-zCDP (Canonne, Kamath & Steinke 2020, Thm. 4 and 14), as the
    continuous one. ``calibration="zcdp"``: sigma^2 >= Delta_int^2/(2 rho). For (epsilon, delta)
    (``"analytic"``, ``"classic"``) the continuous calibrations do not transfer exactly, so
    sigma is the larger of that calibration's sigma and the one whose rho converts to
    (epsilon, delta) by rho + 2 sqrt(rho log(1/delta)) <= epsilon (Bun & Steinke 2016,
    Prop. 1.3); that rho is recorded. ``integer=True``: Delta_int = Delta_2 on the counts;
    otherwise Delta_int = Delta_2/g + sqrt(d) on the grid g. sigma^2 is rounded up.

    The density exponent is -||x||^2 / (2 sigma^2) (thesis Def. 2.3.14 omits the 2).
    """
    from synthcert.privacy.accountant import rho_from_epsilon_delta

    value = np.asarray(value, dtype=np.float64)
    _positive("sensitivity", sensitivity)
    if calibration == "zcdp":
        if rho is None:
            raise AssumptionError("calibration='zcdp' needs rho", assumption="rho given")
        rho_used = _positive("rho", rho)
        sigma_floor = 0.0
    elif calibration in ("analytic", "classic"):
        if epsilon is None or delta is None:
            raise AssumptionError(
                f"calibration={calibration!r} needs epsilon and delta",
                assumption="epsilon and delta given",
            )
        fn = gaussian_sigma_analytic if calibration == "analytic" else gaussian_sigma_classic
        sigma_floor = fn(sensitivity, epsilon, delta)
        rho_used = rho_from_epsilon_delta(epsilon, delta)
    else:
        raise ParameterError(
            f"unknown calibration {calibration!r}; choose one of zcdp, analytic, classic"
        )
    ints, g, sens = _integer_query(value, sensitivity, 2, integer)
    sigma2 = sens**2 / (2 * Fraction(rho_used))
    sigma2 = max(sigma2, Fraction(sigma_floor / g) ** 2)
    noise = discrete_gaussian(_source(rng), _dyadic_ceil(sigma2), ints.size)
    out = _release(ints, noise, g, value.shape)
    if accountant is not None:
        if calibration == "zcdp":
            accountant.record_zcdp(name, float(rho_used))
        else:
            accountant.record_approx(name, float(epsilon), float(delta), rho=float(rho_used))
    return out


# -- Staircase ----------------------------------------------------------------------------
def staircase_gamma_1d(epsilon: float) -> float:
    """gamma* = 1 / (1 + e^{epsilon/2}), optimal for E|X| in one dimension (Geng & Viswanath)."""
    return 1.0 / (1.0 + math.exp(check_epsilon(epsilon) / 2.0))


def _log_terms(gamma: float, epsilon: float, power: int) -> np.ndarray:
    """log of e^{-k epsilon} (k + gamma)^power for k = 0..K, K far enough past the mode."""
    mode = max(power / epsilon - gamma, 0.0)
    k_max = math.ceil(mode + (80.0 + 12.0 * math.sqrt(power)) / epsilon) + 4
    k = np.arange(k_max + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return -k * epsilon + power * np.log(k + gamma)


def staircase_log_s(d: int, gamma: float, epsilon: float) -> float:
    """log S_d(gamma, epsilon) = log sum_k e^{-k epsilon} (gamma + k)^d (thesis eq. (2.2))."""
    return float(special.logsumexp(_log_terms(gamma, epsilon, d)))


def staircase_mean_l1(d: int, gamma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """E||X||_1 = d/(d+1) Delta S_{d+1}/S_d of the d-dimensional Staircase (Def. 2.3.13)."""
    log_ratio = staircase_log_s(d + 1, gamma, epsilon) - staircase_log_s(d, gamma, epsilon)
    return d / (d + 1.0) * sensitivity * math.exp(log_ratio)


def staircase_optimal_gamma(epsilon: float, d: int = 1) -> float:
    """gamma in [0,1] minimising E||X||_1: closed form for d = 1, numerical for d > 1."""
    check_epsilon(epsilon)
    if d == 1:
        return staircase_gamma_1d(epsilon)
    res = optimize.minimize_scalar(
        lambda g: staircase_mean_l1(d, g, epsilon),
        bounds=(1e-9, 1.0),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(res.x)


def staircase_shell_index(r: ArrayLike, gamma: float, sensitivity: float) -> np.ndarray:
    """k with (k + gamma - 1) Delta <= r < (k + gamma) Delta (shell k of Def. 2.3.13)."""
    r = np.asarray(r, dtype=np.float64)
    k = np.floor(r / sensitivity - gamma) + 1.0
    return np.maximum(k, 0.0)


def staircase_logpdf(x: ArrayLike, epsilon: float, sensitivity: float, gamma: float) -> np.ndarray:
    """log f_{epsilon,Delta,gamma}(x) of thesis Def. 2.3.13 (the last axis is R^d)."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    d = x.shape[-1]
    r = np.sum(np.abs(x), axis=-1)
    k = staircase_shell_index(r, gamma, sensitivity)
    log_c = (
        special.gammaln(d + 1)
        - math.log1p(-math.exp(-epsilon))
        - d * math.log(2.0 * sensitivity)
        - staircase_log_s(d, gamma, epsilon)
    )
    return log_c - k * epsilon


def _staircase_1d(
    size: tuple[int, ...],
    epsilon: float,
    sensitivity: float,
    gamma: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Exact 1-D Staircase draws (Geng & Viswanath 2015, Algorithm 1): sign, geometric step,
    Bernoulli inner/outer part of the step, uniform within it."""
    b = math.exp(-epsilon)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    g = rng.geometric(1.0 - b, size=size) - 1.0  # P(G = k) = (1 - b) b^k, k >= 0
    u = rng.random(size)
    outer = rng.random(size) < (1.0 - gamma) * b / (gamma + (1.0 - gamma) * b)
    mag = np.where(outer, g + gamma + (1.0 - gamma) * u, g + gamma * u)
    return sign * mag * sensitivity


def _staircase_radius(
    n: int, d: int, epsilon: float, sensitivity: float, gamma: float, rng: np.random.Generator
) -> np.ndarray:
    """Exact draws of R = ||X||_1 for the d-dimensional Staircase, by rejection.

    R has density proportional to r^{d-1} e^{-k(r) epsilon}; the proposal Gamma(d, Delta/epsilon)
    has density proportional to r^{d-1} e^{-epsilon r / Delta}, and since r/Delta - k(r) < gamma
    the ratio is at most e^{epsilon gamma}: accept with probability
    e^{epsilon (r/Delta - k(r) - gamma)}.
    """
    out = np.empty(0)
    log_accept = (
        math.log1p(-math.exp(-epsilon))
        + staircase_log_s(d, gamma, epsilon)
        + d * math.log(epsilon)
        - special.gammaln(d + 1)
        - epsilon * gamma
    )
    accept = min(max(math.exp(log_accept), 1e-6), 1.0)
    while out.size < n:
        m = math.ceil((n - out.size) / accept * 1.2) + 8
        r = rng.gamma(d, sensitivity / epsilon, size=m)
        k = staircase_shell_index(r, gamma, sensitivity)
        keep = rng.random(m) < np.exp(epsilon * (r / sensitivity - k - gamma))
        out = np.concatenate([out, r[keep]])
    return out[:n]


def staircase_sample(
    n: int,
    d: int,
    epsilon: float,
    sensitivity: float,
    *,
    gamma: float | None = None,
    form: StaircaseForm = "l1",
    rng: Rng = None,
) -> np.ndarray:
    """n draws of Staircase noise in R^d, shape (n, d).

    ``form="l1"``: the d-dimensional L1 form of thesis Def. 2.3.13, sampled exactly (radius by
    rejection, direction uniform on the L1 sphere: normalised exponentials with random signs).
    ``form="coordinate"``: independent exact 1-D Staircase draws per coordinate.
    ``gamma=None`` uses the gamma minimising E||X||_1 for this d (1-D gamma* per coordinate).
    """
    check_epsilon(epsilon)
    _positive("sensitivity", sensitivity)
    g = _rng(rng)
    if form == "coordinate":
        gamma = staircase_gamma_1d(epsilon) if gamma is None else gamma
        _check_gamma(gamma)
        return _staircase_1d((n, d), epsilon, sensitivity, gamma, g)
    if form != "l1":
        raise ParameterError(f"unknown Staircase form {form!r}; choose l1 or coordinate")
    gamma = staircase_optimal_gamma(epsilon, d) if gamma is None else gamma
    _check_gamma(gamma)
    if d == 1:
        return _staircase_1d((n, 1), epsilon, sensitivity, gamma, g)
    radius = _staircase_radius(n, d, epsilon, sensitivity, gamma, g)
    e = g.standard_exponential((n, d))
    direction = e / e.sum(axis=1, keepdims=True)
    signs = np.where(g.random((n, d)) < 0.5, -1.0, 1.0)
    return radius[:, None] * direction * signs


def _check_gamma(gamma: float) -> None:
    if not 0 <= gamma <= 1:
        raise AssumptionError(
            f"Staircase gamma must lie in [0, 1], got {gamma}", assumption="0 <= gamma <= 1"
        )


def staircase_mechanism(
    value: ArrayLike,
    sensitivity: float,
    epsilon: float,
    *,
    gamma: float | None = None,
    form: StaircaseForm = "l1",
    max_changed: int = 1,
    rng: Rng = None,
    accountant: PrivacyAccountant | None = None,
    name: str = "staircase",
) -> np.ndarray:
    """q(D) + Staircase noise: epsilon-DP (thesis Def. 2.3.13).

    ``form="l1"``: one d-dimensional draw with ``sensitivity`` the L1 sensitivity of q.
    ``form="coordinate"``: ``sensitivity`` bounds the change of any one coordinate and at most
    ``max_changed`` coordinates change between neighbours; each coordinate then gets
    epsilon / max_changed (basic composition over the changed coordinates).
    """
    value = np.asarray(value, dtype=np.float64)
    flat = value.reshape(1, -1)
    if form == "coordinate":
        if max_changed < 1:
            raise AssumptionError("max_changed must be >= 1", assumption="max_changed >= 1")
        noise = staircase_sample(
            1, flat.shape[1], epsilon / max_changed, sensitivity, gamma=gamma, form=form, rng=rng
        )
    else:
        noise = staircase_sample(1, flat.shape[1], epsilon, sensitivity, gamma=gamma, rng=rng)
    if accountant is not None:
        accountant.record_pure(name, epsilon)
    return (flat + noise).reshape(value.shape)


# -- Exponential --------------------------------------------------------------------------
_SCORE_SLACK = 2  # grid steps added to the sensitivity: 1 for rounding, 1 for score round-off
_RATE_BITS = 30  # significant bits of the exponent's rate, rounded down
_BATCH = (64, 4096)  # trials drawn at once by the rejection sampler: at least 64, at most 4096


def exponential_exponents(
    scores: ArrayLike, sensitivity: float, epsilon: float
) -> tuple[np.ndarray, int]:
    """The exact exponents of the exponential mechanism as implemented: Pr[c] proportional to
    exp(-gamma_c), gamma_c = num_c / den >= 0 with min_c gamma_c = 0.

    The scores are rounded to the public grid g = :func:`grid_for` (Delta, 2, 1), a power of
    two at most 2^-11 Delta: n_c = rint(s_c / g), clipped to +-2^52 (1-Lipschitz). Since
    |rint(x) - rint(y)| <= |x - y| + 1, scores that move by at most Delta + g between
    neighbours (Delta, plus up to g of floating-point round-off in computing them) give
    integers that move by at most S = Delta/g + 2 (exact rational). The rate
    lambda = epsilon / (2 S) is rounded *down* to a dyadic of 30 significant bits,
    lambda' = a / 2^b, and gamma_c = lambda' (max_j n_j - n_c) = a (max n - n_c) / 2^b.
    This is the exponential mechanism exp(lambda' n_c) on integer scores of sensitivity S with
    2 lambda' S <= epsilon: epsilon-DP and epsilon-bounded-range, hence epsilon^2/8-zCDP
    (McSherry & Talwar 2007, Thm 6; Durfee & Rogers 2019; Cesar & Rogers 2021), the same
    epsilon as the textbook form exp(epsilon s_c / (2 Delta)), whose exponent it matches up
    to a relative 2^-10 and an absolute epsilon g / (2 Delta) <= 2^-12 epsilon per candidate.

    Returns (num, den): an object array of Python ints num_c >= 0 and the int den = 2^b.
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    if s.size == 0:
        raise AssumptionError("the exponential mechanism needs at least one candidate")
    if not np.all(np.isfinite(s)):
        raise AssumptionError("exponential-mechanism scores must be finite")
    g, a, b = _exponent_rate(_positive("sensitivity", sensitivity), check_epsilon(epsilon))
    with np.errstate(over="ignore"):  # |s| / g past the doubles clips like any large score
        ints = np.rint(np.clip(s / g, -_EXACT_FLOAT, _EXACT_FLOAT)).astype(np.int64)
    gaps = (int(ints.max()) - ints).astype(object)
    return gaps * a, 2**b


@functools.lru_cache(maxsize=256)
def _exponent_rate(sensitivity: float, epsilon: float) -> tuple[float, int, int]:
    """(g, a, b) of :func:`exponential_exponents`, a function of the public (Delta, epsilon)."""
    g = grid_for(sensitivity, _SCORE_SLACK, 1)
    steps = Fraction(sensitivity) / Fraction(g) + _SCORE_SLACK
    rate = Fraction(epsilon) / (2 * steps)
    b = max(_RATE_BITS - (rate.numerator.bit_length() - rate.denominator.bit_length()), 0)
    a = math.floor(rate * 2**b)  # rate' = a / 2^b <= rate, a > 0 with about 30 bits
    return g, a, b


def exponential_probabilities(scores: ArrayLike, sensitivity: float, epsilon: float) -> np.ndarray:
    """Pr[c] proportional to exp(epsilon s(D,c) / (2 Delta)) (thesis Def. 2.3.15), as the
    implemented mechanism has them: exp(-gamma_c) of :func:`exponential_exponents` (floats)."""
    num, den = exponential_exponents(scores, sensitivity, epsilon)
    logits = -np.ldexp(num.astype(np.float64), -(den.bit_length() - 1))  # den = 2^b
    return np.exp(logits - special.logsumexp(logits))


def exponential_mechanism(
    scores: ArrayLike,
    sensitivity: float,
    epsilon: float,
    *,
    rng: Rng = None,
    accountant: PrivacyAccountant | None = None,
    name: str = "exponential",
) -> int:
    """Index drawn exactly from the exponential mechanism Pr[c] proportional to
    exp(epsilon s_c / (2 Delta)) (thesis Def. 2.3.15), on the rational exponents of
    :func:`exponential_exponents`: epsilon-DP and epsilon^2/8-zCDP, recorded so.

    Sampler (rejection with a uniform proposal): each trial draws c uniformly from the k
    candidates (an exact uniform integer) and accepts it with probability exp(-gamma_c), an
    exact Bernoulli(exp(-num_c/den)) (Canonne, Kamath & Steinke 2020, Algorithm 1,
    :func:`~synthcert.privacy.discrete.bernoulli_exp`). Proof: the trials are i.i.d.; one
    accepts c with probability exp(-gamma_c)/k, so the first accepted trial returns c with
    probability exp(-gamma_c) / sum_j exp(-gamma_j), exactly the target. A trial accepts with
    probability W/k >= 1/k (W = sum_j exp(-gamma_j) >= 1, the best candidate has gamma = 0),
    so the expected number of trials is k/W <= k. Trials are drawn in batches of k (at least
    64, at most 4,096; a batch may repeat candidates) and the first acceptance in draw order is
    returned: the same first accepted trial of the i.i.d. sequence. Every random choice is a
    uniform integer from ``rng`` (a Generator's ``integers`` or a SystemRandom): no
    floating-point Gumbel or exponential variate, whose rounding could make some choices
    impossible from a neighbour (Mironov 2012). The running time depends on the scores (not a
    published byte).

    Not permute-and-flip (McKenna & Sheldon 2020): it is epsilon-DP too, but it is not
    epsilon-bounded-range, and its epsilon^2/8-zCDP (which AIM and MWEM-PGM spend) fails:
    with two candidates, scores (0, 0) and the neighbour (Delta, -Delta), it picks the second
    with probability 1/2 and e^-epsilon / 2, a KL divergence of 0.255 > 1/8 at epsilon = 1.
    """
    num, den = exponential_exponents(scores, sensitivity, epsilon)
    k = num.size
    idx = 0
    if k > 1:
        source = _source(rng)
        bounds = np.full(min(max(k, _BATCH[0]), _BATCH[1]), k, dtype=object)
        while True:
            trial = uniform_below(source, bounds).astype(np.int64)
            hit = np.flatnonzero(bernoulli_exp(source, num[trial], np.full(trial.size, den)))
            if hit.size:
                idx = int(trial[hit[0]])
                break
    if accountant is not None:
        accountant.record_exponential(name, epsilon)
    return idx
