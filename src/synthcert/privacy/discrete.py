"""Exact samplers for the discrete Laplace and discrete Gaussian distributions.

Canonne, Kamath and Steinke (2020), "The Discrete Gaussian for Differential Privacy",
Algorithms 1-3. Every draw is made with integer arithmetic from uniform integers, so the output
distribution is exactly the stated one: there is no floating-point inverse CDF whose rounding
(Mironov 2012) could make some outputs impossible from a neighbouring input.

The uniform source is a ``numpy.random.Generator`` (``Generator.integers`` draws exact uniform
integers from the bit generator) or a :class:`random.SystemRandom` (``secrets``: OS entropy for
every draw). Parameters are exact rationals (:class:`fractions.Fraction`); bounds beyond 63 bits
are drawn from 64-bit words by rejection. Everything is vectorised over the batch: each loop
runs over the draws still undecided, which shrink geometrically.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np

from synthcert.errors import AssumptionError

UniformSource = np.random.Generator | random.SystemRandom

_INT64_SAFE = 2**62


def _as_objects(values: np.ndarray | int, size: int) -> np.ndarray:
    """An object array of Python ints of length ``size`` (a scalar is broadcast)."""
    out = np.empty(size, dtype=object)
    if isinstance(values, np.ndarray):
        out[:] = [int(v) for v in values]
    else:
        out[:] = int(values)
    return out


def uniform_below(source: UniformSource, bounds: np.ndarray) -> np.ndarray:
    """Independent exact uniform draws from {0, ..., b - 1} for each b in ``bounds`` (b >= 1).

    Returns an object array of Python ints. Bounds below 2^62 use ``Generator.integers`` (exact
    for any high); larger ones take bit_length(b) random bits from 64-bit words and reject draws
    >= b (acceptance probability above 1/2).
    """
    bounds = np.asarray(bounds, dtype=object)
    n = bounds.size
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    if isinstance(source, random.SystemRandom):
        out[:] = [source.randrange(int(b)) for b in bounds]
        return out
    if max(bounds) < _INT64_SAFE:
        out[:] = source.integers(0, bounds.astype(np.int64)).tolist()
        return out
    pending = np.arange(n)
    while pending.size:
        b = bounds[pending]
        bits = np.array([int(v).bit_length() for v in b], dtype=np.int64)
        words = -(-int(bits.max()) // 64)
        raw = source.integers(0, 2**64, size=(pending.size, words), dtype=np.uint64)
        u = raw[:, 0].astype(object)
        for j in range(1, words):
            u = (u << 64) | raw[:, j].astype(object)
        u = u >> (64 * words - bits).astype(object)
        ok = u < b
        out[pending[ok]] = u[ok]
        pending = pending[~ok]
    return out


def _bernoulli_exp_unit(source: UniformSource, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Bernoulli(exp(-num/den)) for 0 <= num/den <= 1 (CKS 2020, Algorithm 1, first part).

    K = 1; while Bernoulli(gamma/K) = 1: K += 1; return [K odd]. Bernoulli(num/(den K)) is
    exact: a uniform integer below den K compared with num.
    """
    n = num.size
    out = np.zeros(n, dtype=bool)
    k = np.ones(n, dtype=object)
    alive = np.arange(n)
    while alive.size:
        a = uniform_below(source, den[alive] * k[alive]) < num[alive]
        stop = alive[~a]
        out[stop] = (k[stop] % 2) == 1
        alive = alive[a]
        k[alive] = k[alive] + 1
    return out


def bernoulli_exp(source: UniformSource, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Bernoulli(exp(-gamma)) for gamma = num/den >= 0 (CKS 2020, Algorithm 1).

    For gamma > 1: floor(gamma) independent Bernoulli(exp(-1)) must all be 1, then one
    Bernoulli(exp(-(gamma - floor(gamma)))). ``num``, ``den``: arrays of non-negative ints.
    """
    num = np.asarray(num, dtype=object)
    den = np.asarray(den, dtype=object)
    whole = num // den
    frac = num - whole * den
    out = np.ones(num.size, dtype=bool)
    remaining = whole.copy()
    alive = np.flatnonzero(remaining > 0)
    while alive.size:
        ones = _as_objects(1, alive.size)
        b = _bernoulli_exp_unit(source, ones, ones)
        out[alive[~b]] = False
        remaining[alive] = remaining[alive] - 1
        alive = alive[b & (remaining[alive] > 0)]
    live = np.flatnonzero(out)
    if live.size:
        out[live] = _bernoulli_exp_unit(source, frac[live], den[live])
    return out


def _geometric_exp1(source: UniformSource, n: int) -> np.ndarray:
    """V = number of 1s before the first 0 in Bernoulli(exp(-1)) trials: (1 - 1/e) e^-v."""
    v = np.zeros(n, dtype=object)
    alive = np.arange(n)
    while alive.size:
        ones = _as_objects(1, alive.size)
        b = _bernoulli_exp_unit(source, ones, ones)
        alive = alive[b]
        v[alive] = v[alive] + 1
    return v


def _check_scale(name: str, value: Fraction) -> Fraction:
    if not value > 0:
        raise AssumptionError(
            f"{name} must be positive, got {value}", assumption=f"{name} > 0", admissible="> 0"
        )
    return value


def discrete_laplace(source: UniformSource, scale: Fraction, size: int) -> np.ndarray:
    """``size`` draws of the discrete Laplace Lap_Z(t/s): P(x) proportional to exp(-|x| s/t).

    CKS 2020, Algorithm 2 with scale = t/s: U uniform on {0..t-1}; reject unless
    Bernoulli(exp(-U/t)); V ~ Geometric(1 - 1/e); X = U + tV; Y = floor(X/s); B a fair bit;
    reject (B = 1, Y = 0); return (1 - 2B) Y. Returns an object array of Python ints.
    """
    scale = _check_scale("scale", Fraction(scale))
    t, s = scale.numerator, scale.denominator
    out = np.empty(size, dtype=object)
    pending = np.arange(size)
    while pending.size:
        m = pending.size
        u = uniform_below(source, _as_objects(t, m))
        d = bernoulli_exp(source, u, _as_objects(t, m))
        u = u[d]
        idx = pending[d]
        if idx.size:
            x = u + t * _geometric_exp1(source, idx.size)
            y = x // s
            b = uniform_below(source, _as_objects(2, idx.size)) == 1
            ok = ~(b & (y == 0))
            z = np.where(b, -y, y)
            out[idx[ok]] = z[ok]
            done = np.zeros(size, dtype=bool)
            done[idx[ok]] = True
            pending = pending[~done[pending]]
    return out


def discrete_gaussian(source: UniformSource, sigma2: Fraction, size: int) -> np.ndarray:
    """``size`` draws of the discrete Gaussian N_Z(0, sigma^2): P(x) proportional to
    exp(-x^2/(2 sigma^2)) on the integers (CKS 2020, Algorithm 3).

    t = floor(sigma) + 1; Y ~ Lap_Z(t); accept with probability
    exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| t q - p)^2 / (2 p q t^2)) for
    sigma^2 = p/q. Returns an object array of Python ints.
    """
    sigma2 = _check_scale("sigma^2", Fraction(sigma2))
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1
    out = np.empty(size, dtype=object)
    pending = np.arange(size)
    while pending.size:
        m = pending.size
        y = discrete_laplace(source, Fraction(t), m)
        num = (np.abs(y) * (t * q) - p) ** 2
        den = _as_objects(2 * p * q * t * t, m)
        c = bernoulli_exp(source, num, den)
        out[pending[c]] = y[c]
        pending = pending[~c]
    return out


# -- probability mass functions (for tests and documentation) -----------------------------
def discrete_laplace_logpmf(x: np.ndarray, scale: float) -> np.ndarray:
    """log P(x) = log((e^{1/b} - 1)/(e^{1/b} + 1)) - |x|/b for Lap_Z(b) (CKS 2020, Def. 2)."""
    b = float(scale)
    log_norm = math.log(math.expm1(1.0 / b)) - math.log(math.exp(1.0 / b) + 1.0)
    return log_norm - np.abs(np.asarray(x, dtype=np.float64)) / b


__all__ = [
    "UniformSource",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_laplace",
    "discrete_laplace_logpmf",
    "uniform_below",
]
