"""The certified release M_G, measured on a worst-case pair (issue 26 part 4, issue 29 item 2).

M_G (:class:`~synthcert.synthesizers.gaussian.GaussianSynthesizer`) fits the mean and the
biased covariance of the encoded table and releases n_out rows drawn from N(μ, Σ), clipped to
[−1, 1]^d. Its certificate (Theorem 3.1 of Miura et al., evaluated at the public n − 1,
:func:`synthcert.privacy.budget.account`) is an RDP bound converted to (ε, δ). Four numbers are
set side by side, at the same δ:

1. **certificate ε**: what the release claims (RDP, α optimised, CKS conversion);
2. **theorem pair ε(δ)**: the exact privacy profile of the theorem's own worst pairs, the
   whitened reduction of docs/accountant.md §5 at m = n − 1 rows (:func:`theorem_pairs`: a
   record at the norm bound |u|² = τ = 4d/σ along the flattest axis, added or removed; the
   worse of the two). Whitened, the pair is a product: the one-dimensional pair along u and
   d − 1 axes whose variance is only rescaled (by m/(m+1) or (m+1)/m). Theorem 3.1 is attained
   by these pairs in RDP (a test checks their Rényi divergence against the certificate's
   ε_RDP), so certificate − theorem pair is the cost of the RDP → (ε, δ) conversion;
3. **pair ε(δ)**: the exact profile of the real pair that is audited (:func:`worst_design`).
   Its first coordinate (d = 1: its only one) is the extreme one: n values in [−1, 1] with the
   smallest variance the synthesizer accepts under the declared σ (its neighbour margin at
   (n, d), ``neighbour_margin``), put as far from +1 as that variance allows (values −1 and +1
   and one value solved for so that the variance meets the margin exactly: for a given
   variance the two-point law on the ends has the smallest mean). For d ≥ 2 the other d − 1
   coordinates are a well-conditioned design: columns of a Sylvester–Hadamard matrix (±1,
   zero-sum, mutually orthogonal) tiled within each group of equal first coordinate, 0 on the
   rows left over, so that every cross-covariance is exactly 0 and every other coordinate has
   the same variance, above the margin (the smallest eigenvalue is the first coordinate's).
   D′ adds the canary (+1, 0, …, 0): +1 on the extreme coordinate, and on every other one its
   mean (0), which leaves those means and cross-covariances unchanged and only scales their
   variances by n/(n+1). Both fitted covariances are then diagonal (to rounding, ~10⁻¹⁷), the
   clipping acts coordinate by coordinate, and a released row is a product of d independent
   clipped normals under either table: the pair's profile is the composition of d
   one-dimensional pairs per row and n_out rows. theorem pair − pair is what real tables
   cannot reach: the margin keeps Σ above σ, the canary is not at a corner of the cube on the
   other axes (that would move their covariance, and the pair would no longer factor), and
   clipping is post-processing;
4. **audit ε_lb**: the real fit and sampling, once per side, then ``runs`` releases of n_out
   rows per side (the synthesizer's own sampler, before decoding: decoding is
   post-processing); each release is scored by its log-likelihood ratio Σ_i log q(y_i)/p(y_i)
   (the Neyman–Pearson optimal statistic; q and p the clipped product laws fitted on D′ and on
   D, with atoms at ±1; fixed a priori since the tables are designed) and ``estimate_bounds``
   gives ε_lb at δ. Beside it the **ceiling**: the bound the same estimator would reach with
   the pair's optimal test and the same runs (from the pair's exact profile). pair − ceiling
   is the cost of finitely many runs, ceiling − ε_lb the cost of the test.

The runs are cheap: the fit is deterministic, so all ``runs`` releases of a side are one draw
of runs·n_out rows from the fitted law cut into blocks (the same law as separate releases; a
test checks it against per-run sampling), scored chunk by chunk in bounded memory.

The exact profiles: the outcome of one coordinate is discretised into ``bins`` equal cells of
its range (plus the clipping atoms, or the far tails for the unclipped theorem pair). Binning
is post-processing, so the binned pair's δ(ε) is at most the true one; 5,000 cells give ε(δ)
within 10⁻⁴ of 20,000 cells at the settings tested. dp-accounting then rounds the loss of each
cell *up* to a multiple of ``value_discretization_interval`` (pessimistic
``from_two_probability_mass_functions``) and composes the d coordinates and the n_out records
(``compose``, ``self_compose``); the profile is the worse of the two orders. The rounding up
moves ε by less than one interval per composed loss, n_out·d in all, so the interval is
chosen for a bound on that error (:func:`profile_interval`: ``PAIR_TOLERANCE`` = 0.01 for
the audited pair and its ceiling, ``THEOREM_TOLERANCE`` = 0.05 for the theorem pair, whose
ε is several times larger). A fixed interval of 10⁻³ is not enough: at d = 1, n = n_out = 50
it overstates the pair's ε(δ) by 0.025 (1.794 against 1.769 at 10⁻⁵), and at n = 2000,
n_out·d ≈ 4,300 it reports 3.1 for a pair whose ε(δ) is 0.20, above the certificate. Beyond
``PROFILE_LIMIT`` = 500 composed losses (n_out·d) that interval makes the profiles and the
trade-off curve of the ceiling slow (tens of seconds at 2,000, minutes beyond), so they, the
ceiling and the gaps are left out (None, with ``profile_reason``) rather than reported
wrong. A test checks the profile's trade-off curve against Monte Carlo (d = 1 and d = 2).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import linalg, optimize, stats

from synthcert._result import Result
from synthcert.audit.claim.estimate import BoundEstimate, ceiling, estimate_bounds
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.tradeoff import pld_tradeoff

_BINS = 5_000
_VDI = 1e-3
PROFILE_LIMIT = 500
"""Largest n_out·d for which the exact profiles are composed (module text)."""
PAIR_TOLERANCE = 1e-2
"""Bound on the rounding of the audited pair's ε(δ) (and so of the ceiling)."""
THEOREM_TOLERANCE = 5e-2
"""Bound on the rounding of the theorem pair's ε(δ) (several times larger, and its unclipped
tails make a fine interval slow)."""


@dataclass(frozen=True)
class GaussianReleaseAudit(Result):
    """M_G on a worst-case pair: certificate, exact profiles, ceiling and audit at one δ.

    Attributes
    ----------
    n, d, sigma, n_out, delta, runs, seed
        The setting: table size (also the public minimum size of the certificate), encoded
        dimension, declared σ, rows per release, δ, releases per side, seed.
    table_values : tuple of float
        The extreme coordinate of D (n values in [−1, 1]); D′ adds ``canary`` there.
    canary : float
        The added record's extreme coordinate (its others are their mean, 0).
    u_squared, tau : float
        The pair's whitened |u|² = (canary − mean)²/var on the extreme coordinate (the others
        add nothing), and the theorem's bound 4d/σ.
    certificate_epsilon, certificate_alpha, certificate_epsilon_rdp : float
        The release's certificate at δ.
    theorem_pair_epsilon : float or None
        Exact ε(δ) of the theorem's worst whitened pairs (n − 1 and n rows, |u|² = τ, adding
        and removing: the worse); None beyond ``PROFILE_LIMIT`` (``profile_reason``).
    pair_epsilon : float or None
        Exact ε(δ) of the audited pair (D, D′); None as above.
    ceiling : float or None
        The largest ε lower bound the estimator would prove with ``runs`` and the optimal test;
        None as above.
    epsilon_lower_bound : float or None
        The audit's ε lower bound.
    estimate : BoundEstimate
        The audit's test and rates.
    gap_conversion, gap_pair, gap_runs, gap_test : float or None
        certificate − theorem pair (RDP → (ε, δ) conversion), theorem pair − pair (what real
        tables under the margin cannot reach), pair − ceiling (finitely many runs), ceiling −
        ε_lb (the test); None where a term is.
    seconds : float
        Wall time.
    other_variance : float or None
        The variance of each of the d − 1 other coordinates of D (None for d = 1).
    profile_reason : str or None
        Why the profiles are None, if they are.
    """

    n: int
    d: int
    sigma: float
    n_out: int
    delta: float
    runs: int
    seed: int
    table_values: tuple[float, ...]
    canary: float
    u_squared: float
    tau: float
    certificate_epsilon: float
    certificate_alpha: float
    certificate_epsilon_rdp: float
    theorem_pair_epsilon: float | None
    pair_epsilon: float | None
    ceiling: float | None
    epsilon_lower_bound: float | None
    estimate: BoundEstimate
    gap_conversion: float | None
    gap_pair: float | None
    gap_runs: float | None
    gap_test: float | None
    seconds: float
    other_variance: float | None = None
    profile_reason: str | None = None


# -- one record's law ---------------------------------------------------------------------
@dataclass(frozen=True)
class RecordLaw:
    """N(mean, var) of one released value, clipped to [lower, upper] (±inf: not clipped)."""

    mean: float
    var: float
    lower: float = -1.0
    upper: float = 1.0

    @property
    def sd(self) -> float:
        return math.sqrt(self.var)

    def log_density(self, y: np.ndarray) -> np.ndarray:
        """Log density of the interior and log mass of the atoms at the clipping bounds."""
        z = (np.asarray(y, dtype=np.float64) - self.mean) / self.sd
        out = stats.norm.logpdf(z) - math.log(self.sd)
        lo, hi = (self.lower - self.mean) / self.sd, (self.upper - self.mean) / self.sd
        out = np.where(y <= self.lower, stats.norm.logcdf(lo), out)
        return np.where(y >= self.upper, stats.norm.logsf(hi), out)

    def log_cell_masses(self, edges: np.ndarray) -> np.ndarray:
        """log P[edges[i] ≤ Y < edges[i+1]] for the unclipped normal, accurate in both tails."""
        z = (edges - self.mean) / self.sd
        lcdf, lsf = stats.norm.logcdf(z), stats.norm.logsf(z)
        with np.errstate(divide="ignore"):
            below = lcdf[1:] + np.log(-np.expm1(lcdf[:-1] - lcdf[1:]))
            above = lsf[:-1] + np.log(-np.expm1(lsf[1:] - lsf[:-1]))
        lc = np.where(z[:-1] < 0, below, above)
        return lc


def _outcome_log_pmfs(p: RecordLaw, q: RecordLaw, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Log masses of the binned outcome of one record under p and q (cells, then two atoms)."""
    lo, hi = p.lower, p.upper
    if not (math.isfinite(lo) and math.isfinite(hi)):  # unclipped: cut both tails far out
        spread = 14.0 * max(p.sd, q.sd)
        lo, hi = min(p.mean, q.mean) - spread, max(p.mean, q.mean) + spread
    edges = np.linspace(lo, hi, bins + 1)
    out = []
    for law in (p, q):
        zlo, zhi = (lo - law.mean) / law.sd, (hi - law.mean) / law.sd
        atoms = np.array([stats.norm.logcdf(zlo), stats.norm.logsf(zhi)])
        out.append(np.concatenate([law.log_cell_masses(edges), atoms]))
    return out[0], out[1]


@dataclass(frozen=True)
class ProductLaw:
    """A row of d independent coordinates, coordinate j of law ``factors[j]`` (docstring §3)."""

    factors: tuple[RecordLaw, ...]

    @property
    def d(self) -> int:
        return len(self.factors)

    def log_density(self, y: np.ndarray) -> np.ndarray:
        """Σ_j log density (or atom mass) of y[..., j] under ``factors[j]``."""
        y = np.asarray(y, dtype=np.float64)
        return sum(f.log_density(y[..., j]) for j, f in enumerate(self.factors))  # type: ignore[return-value]


def _product(law: RecordLaw | ProductLaw) -> ProductLaw:
    return law if isinstance(law, ProductLaw) else ProductLaw((law,))


def _same(a: RecordLaw, b: RecordLaw) -> bool:
    """Equal to rounding (the fitted laws of the design's identical coordinates)."""
    return (a.lower, a.upper) == (b.lower, b.upper) and all(
        math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15)
        for x, y in ((a.mean, b.mean), (a.var, b.var))
    )


def _factor_groups(p: ProductLaw, q: ProductLaw) -> list[tuple[RecordLaw, RecordLaw, int]]:
    """Runs of equal coordinate pairs (p_j, q_j) as (p, q, count): each is composed once."""
    if p.d != q.d:
        raise ParameterError(f"the two laws have {p.d} and {q.d} coordinates")
    groups: list[tuple[RecordLaw, RecordLaw, int]] = []
    for a, b in zip(p.factors, q.factors, strict=True):
        if groups and _same(groups[-1][0], a) and _same(groups[-1][1], b):
            groups[-1] = (groups[-1][0], groups[-1][1], groups[-1][2] + 1)
        else:
            groups.append((a, b, 1))
    return groups


class PairProfile:
    """Exact privacy profile of n_out i.i.d. rows from p against q, both orders.

    p and q are one coordinate (:class:`RecordLaw`) or d independent ones
    (:class:`ProductLaw`): each coordinate is binned and turned into a PLD, the d coordinates
    composed, then the n_out rows (module text). Has ``get_delta_for_epsilon`` and
    ``get_epsilon_for_delta`` like a dp-accounting PLD, so
    :func:`~synthcert.privacy.tradeoff.pld_tradeoff` gives its trade-off curve.
    """

    def __init__(
        self,
        p: RecordLaw | ProductLaw,
        q: RecordLaw | ProductLaw,
        n_out: int,
        *,
        bins: int = _BINS,
        value_discretization_interval: float = _VDI,
    ) -> None:
        from dp_accounting.pld import privacy_loss_distribution as pld_lib

        orders: list[list[Any]] = [[], []]
        for a, b, count in _factor_groups(_product(p), _product(q)):
            lp, lq = _outcome_log_pmfs(a, b, bins)
            keep = np.isfinite(lp) & np.isfinite(lq) & ((lp > -700) | (lq > -700))
            # cells of zero mass under both laws carry nothing; a cell of mass under one law
            # only would be an infinite loss, which the normal laws (full support) never have
            lower = {int(i): float(lp[i]) for i in np.flatnonzero(keep)}
            upper = {int(i): float(lq[i]) for i in np.flatnonzero(keep)}
            for order, (x, y) in zip(orders, ((lower, upper), (upper, lower)), strict=True):
                one = pld_lib.from_two_probability_mass_functions(
                    x, y, value_discretization_interval=value_discretization_interval
                )
                order.append(one if count == 1 else one.self_compose(count))
        self.plds = []
        for order in orders:
            row = order[0]
            for other in order[1:]:
                row = row.compose(other)
            self.plds.append(row.self_compose(int(n_out)))

    def get_delta_for_epsilon(self, epsilon: Any) -> np.ndarray:
        """δ(ε), the worse of the two orders."""
        return np.maximum(*[np.asarray(p.get_delta_for_epsilon(epsilon)) for p in self.plds])

    def get_epsilon_for_delta(self, delta: float) -> float:
        """ε(δ), the worse of the two orders."""
        return max(float(p.get_epsilon_for_delta(delta)) for p in self.plds)


def theorem_pairs(n: int, d: int, sigma: float) -> list[tuple[ProductLaw, ProductLaw]]:
    """The whitened worst pairs of Theorem 3.1 at m = n − 1 (docs/accountant.md §5).

    add: the m-record table against it plus x, whitened by the first: N(0, I) against
    N(u/(m+1), m/(m+1)·(I + uuᵀ/(m+1))); remove: the (m+1)-record table against it minus x,
    whitened by the first: N(0, I) against N(−u/m, (m+1)/m·(I − uuᵀ/m)); both at |u|² = τ =
    4d/σ, where the theorem's bound is attained (``unbounded_divergence``). Rotated so that u
    is the first axis, each is a product: the pair along u, and d − 1 axes N(0, 1) against
    N(0, m/(m+1)) (add) or N(0, (m+1)/m) (remove).

    Raises
    ------
    AssumptionError
        When τ ≥ m (the removal pair is degenerate: no certificate exists there).
    """
    m, tau = n - 1, 4.0 * d / sigma
    if tau >= m:
        raise AssumptionError(f"tau = 4d/sigma = {tau:.4g} must be below n - 1 = {m}")
    u, inf = math.sqrt(tau), math.inf
    base = RecordLaw(0.0, 1.0, -inf, inf)
    add = RecordLaw(u / (m + 1), m / (m + 1) * (1 + tau / (m + 1)), -inf, inf)
    remove = RecordLaw(-u / m, (m + 1) / m * (1 - tau / m), -inf, inf)
    add_axis, remove_axis = (
        RecordLaw(0.0, m / (m + 1), -inf, inf),
        RecordLaw(0.0, (m + 1) / m, -inf, inf),
    )
    rest = d - 1
    return [
        (ProductLaw((base,) * d), ProductLaw((add,) + (add_axis,) * rest)),
        (ProductLaw((base,) * d), ProductLaw((remove,) + (remove_axis,) * rest)),
    ]


def worst_table(n: int, sigma: float, d: int = 1) -> np.ndarray:
    """The extreme coordinate: n values in [−1, 1] whose variance is exactly the neighbour
    margin at (n, d, σ), mean lowest.

    k values at +1, one at c, the rest at −1, with k and c solved for (see the module text).

    Raises
    ------
    AssumptionError
        When no table of n values in [−1, 1] has the margin's variance (σ or d too large for n).
    """
    from synthcert.synthesizers.gaussian import neighbour_margin

    need = neighbour_margin(n, d, sigma, "unbounded") * (1 + 1e-9)
    if need >= 1.0 - 1.0 / n**2:
        raise AssumptionError(
            f"no table of {n} values in [-1, 1] has a variance of {need:.4g}, the margin the "
            f"synthesizer needs for sigma = {sigma} and d = {d}: take a smaller sigma or a "
            "larger n",
            assumption="neighbour margin below the largest variance",
        )

    def table(k: int, c: float) -> np.ndarray:
        return np.concatenate([np.ones(k), [c], -np.ones(n - k - 1)])

    k = 0
    while table(k + 1, -1.0).var() < need:
        k += 1
    c = optimize.brentq(lambda x: table(k, x).var() - need, -1.0, 1.0, xtol=1e-15)
    return table(k, float(c))


def _orthogonal_block(rows: int, width: int) -> np.ndarray:
    """``rows`` × ``width`` values in {−1, 0, 1}: zero-sum, mutually orthogonal columns.

    Columns 1..width of a Sylvester–Hadamard matrix of order h (the smallest power of two
    above ``width``), tiled ⌊rows/h⌋ times, then zero rows: every column has the same
    ±1 rows, so the same variance.
    """
    h = 1 << int(width).bit_length()
    block = linalg.hadamard(h)[:, 1 : width + 1].astype(np.float64)
    tiles = rows // h
    return np.vstack([np.tile(block, (tiles, 1)), np.zeros((rows - tiles * h, width))])


def worst_design(n: int, d: int, sigma: float) -> np.ndarray:
    """D: an (n, d) table in [−1, 1]^d, extreme first coordinate, orthogonal others (module text).

    Raises
    ------
    AssumptionError
        When the extreme coordinate cannot meet the margin (:func:`worst_table`), or the other
        coordinates' variance falls below it (n too small for d).
    """
    from synthcert.synthesizers.gaussian import neighbour_margin

    first = worst_table(n, sigma, d)
    if d == 1:
        return first[:, None]
    # the groups of equal first coordinate: its +1s, its one solved value, its −1s; the
    # others are balanced within each group and 0 on the solved row, so they are orthogonal to
    # the first coordinate as well as to each other
    plus, minus = int(np.sum(first == 1.0)), int(np.sum(first == -1.0))
    rest = np.vstack(
        [
            _orthogonal_block(plus, d - 1),
            np.zeros((n - plus - minus, d - 1)),
            _orthogonal_block(minus, d - 1),
        ]
    )
    order = np.argsort(-first, kind="stable")  # +1s, the solved value, −1s
    table = np.empty((n, d))
    table[order, 0] = first[order]
    table[order, 1:] = rest
    need = neighbour_margin(n, d, sigma, "unbounded")
    if rest[:, 0].var() < need:
        raise AssumptionError(
            f"no orthogonal design of {n} rows gives {d - 1} coordinates a variance of "
            f"{need:.4g}, the margin the synthesizer needs for sigma = {sigma} and d = {d} "
            f"(they reach {rest[:, 0].var():.4g}): take a smaller sigma or a larger n",
            assumption="neighbour margin below the design's variance",
        )
    return table


def release_scores(
    synth: Any,
    n_out: int,
    runs: int,
    seed: np.random.SeedSequence,
    p: ProductLaw,
    q: ProductLaw,
    *,
    per_run_seeds: bool = False,
) -> np.ndarray:
    """Log-likelihood ratio Σ log q(y)/p(y) of each of ``runs`` releases of n_out rows.

    By default one release of runs·n_out rows (``synth.sample_encoded_chunks``, the rows
    ``synth.sample`` decodes) is cut into ``runs`` blocks: the fit is deterministic and the
    rows are i.i.d. draws of the fitted law, so the blocks have exactly the law of separate
    releases and are independent. They are scored chunk by chunk (memory: the chunk and the
    ``runs`` scores). ``per_run_seeds=True`` draws each release with its own child seed
    instead (same law, ~100× slower).
    """
    if per_run_seeds:
        return np.array(
            [
                float(np.sum(q.log_density(x) - p.log_density(x)))
                for c in seed.spawn(runs)
                for x in [np.vstack(list(synth.sample_encoded_chunks(n_out, seed=c)))]
            ]
        )
    scores = np.zeros(runs)
    done = 0
    for rows in synth.sample_encoded_chunks(runs * n_out, seed=seed):
        llr = q.log_density(rows) - p.log_density(rows)
        run_of = (done + np.arange(llr.size)) // n_out
        first = int(run_of[0])
        scores[first : int(run_of[-1]) + 1] += np.bincount(run_of - first, weights=llr)
        done += llr.size
    return scores


def _fitted_law(synth: Any) -> ProductLaw:
    """The fitted clipped law of one row, coordinate by coordinate (its Σ is diagonal)."""
    cov = np.asarray(synth.cov_, dtype=np.float64)
    off = np.abs(cov - np.diag(np.diag(cov))).max(initial=0.0)
    if off > 1e-12:  # the design makes every cross-covariance exactly 0
        raise AssumptionError(f"the fitted covariance is not diagonal (off-diagonal {off:.3g})")
    return ProductLaw(
        tuple(RecordLaw(float(m), float(v)) for m, v in zip(synth.mean_, np.diag(cov), strict=True))
    )


def profile_interval(n_out: int, d: int, tolerance: float) -> float:
    """The loss interval of a profile: min(10⁻³, tolerance/(n_out·d)).

    Each of the n_out·d composed one-dimensional losses is rounded up by less than one
    interval, so the profile's ε(δ) is pessimistic by less than ``tolerance`` (module text).
    """
    return min(_VDI, float(tolerance) / (int(n_out) * int(d)))


def _profiles(
    p: ProductLaw, q: ProductLaw, n: int, d: int, sigma: float, n_out: int, delta: float, runs: int
) -> tuple[float | None, float | None, float | None, str | None]:
    """(theorem pair ε, pair ε, ceiling, reason): None with a reason beyond PROFILE_LIMIT."""
    if n_out * d > PROFILE_LIMIT:
        return None, None, None, (
            f"the exact profiles compose n_out·d = {n_out * d} one-dimensional losses, above "
            f"{PROFILE_LIMIT}: with a loss interval fine enough to keep their rounding below "
            f"{PAIR_TOLERANCE:g} they (and the ceiling's trade-off curve) would take minutes, "
            "so they are not reported"
        )  # fmt: skip
    pair = PairProfile(
        p, q, n_out, value_discretization_interval=profile_interval(n_out, d, PAIR_TOLERANCE)
    )
    coarse = profile_interval(n_out, d, THEOREM_TOLERANCE)
    theorem = max(
        PairProfile(a, b, n_out, value_discretization_interval=coarse).get_epsilon_for_delta(delta)
        for a, b in theorem_pairs(n, d, sigma)
    )
    cap = ceiling(pld_tradeoff(pair), runs=runs, delta=delta)
    return theorem, pair.get_epsilon_for_delta(delta), cap, None


def audit_gaussian_release(
    n: int = 50,
    d: int = 1,
    sigma: float = 0.3,
    n_out: int = 50,
    delta: float = 1e-2,
    runs: int = 5_000,
    seed: int = 0,
    *,
    per_run_seeds: bool = False,
    profiles: bool = True,
) -> GaussianReleaseAudit:
    """Audit M_G on the worst pair it accepts, beside its certificate and exact profiles.

    Parameters
    ----------
    n : int
        Rows of D (D′ has n + 1); also the public minimum table size of the certificate.
    d : int
        Encoded dimension (:func:`worst_design`).
    sigma : float
        The declared public σ.
    n_out : int
        Rows per release.
    delta : float
        δ of every ε.
    runs : int
        Releases per side.
    seed : int
        Seed of the releases and of the estimator's split (public: the tables are designed).
    per_run_seeds : bool
        Draw each release with its own seed (:func:`release_scores`); default one long release
        cut into blocks, the same law.
    profiles : bool, default True
        Compute the exact profiles and the ceiling (False: None, with the reason; the release
        gate, which needs only the bound, skips them).

    Returns
    -------
    GaussianReleaseAudit
        The certificate, the exact ε(δ) of the theorem's pair and of the audited pair, the
        ceiling, the audit's bound and the four gaps (None beyond ``PROFILE_LIMIT``).

    Raises
    ------
    ParameterError
        For d < 1, n < 3, n_out < 1, runs < 2 or δ outside (0, 1).
    AssumptionError
        When the certificate is infeasible at these settings or no design meets the margin.
    """
    from synthcert.data.schema import NumericColumn, Schema
    from synthcert.synthesizers.gaussian import GaussianSynthesizer

    start = time.perf_counter()
    if d < 1 or n < 3 or n_out < 1 or runs < 2 or not 0 < delta < 1:
        raise ParameterError(
            f"need d >= 1, n >= 3, n_out >= 1, runs >= 2 and 0 < delta < 1 (got {d}, {n}, "
            f"{n_out}, {runs}, {delta})"
        )
    table = worst_design(n, d, sigma)
    canary = np.zeros(d)
    canary[0] = 1.0
    # d numeric columns on [-1, 1]: the encoding is the identity, so the synthesizer fits and
    # samples exactly the encoded points (any schema of encoded dimension d does the same on them)
    names = [f"x{j}" for j in range(d)]
    schema = Schema(tuple(NumericColumn(c, -1.0, 1.0) for c in names))
    fits = []
    for rows in (table, np.vstack([table, canary])):
        synth = GaussianSynthesizer(schema, sigma=sigma, min_rows=n, workers=1)
        fits.append(synth.fit(pd.DataFrame(rows, columns=names)))
    p, q = (_fitted_law(s) for s in fits)
    cert = fits[0].certificate(n_out, delta=delta)
    if not cert.feasible:
        raise AssumptionError(f"the certificate is infeasible: {cert.reason}")

    if profiles:
        theorem_eps, pair_eps, cap, why = _profiles(p, q, n, d, sigma, n_out, delta, runs)
    else:
        theorem_eps = pair_eps = cap = None
        why = "the exact profiles and the ceiling were not asked for (profiles=False)"
    root = np.random.SeedSequence([int(seed), 26])
    out_seeds, in_seeds = root.spawn(2)
    out_scores = release_scores(fits[0], n_out, runs, out_seeds, p, q, per_run_seeds=per_run_seeds)
    in_scores = release_scores(fits[1], n_out, runs, in_seeds, p, q, per_run_seeds=per_run_seeds)
    est = estimate_bounds(in_scores, out_scores, delta=delta, seed=seed)
    lb = est.epsilon_lower_bound
    cert_eps = float(cert.epsilon)  # type: ignore[arg-type]
    first = table[:, 0]

    def gap(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else a - b

    return GaussianReleaseAudit(
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        n_out=int(n_out),
        delta=float(delta),
        runs=int(runs),
        seed=int(seed),
        table_values=tuple(float(v) for v in first),
        canary=1.0,
        u_squared=float((1.0 - first.mean()) ** 2 / first.var()),
        tau=4.0 * d / sigma,
        certificate_epsilon=cert_eps,
        certificate_alpha=float(cert.alpha),  # type: ignore[arg-type]
        certificate_epsilon_rdp=float(cert.epsilon_rdp),  # type: ignore[arg-type]
        theorem_pair_epsilon=theorem_eps,
        pair_epsilon=pair_eps,
        ceiling=cap,
        epsilon_lower_bound=lb,
        estimate=est,
        gap_conversion=gap(cert_eps, theorem_eps),
        gap_pair=gap(theorem_eps, pair_eps),
        gap_runs=gap(pair_eps, cap),
        gap_test=gap(cap, lb or 0.0),
        seconds=time.perf_counter() - start,
        other_variance=None if d == 1 else float(table[:, 1].var()),
        profile_reason=why,
    )
