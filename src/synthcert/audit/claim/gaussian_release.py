"""The certified release M_G, measured on a worst-case pair (issue 26, part 4).

M_G (:class:`~synthcert.synthesizers.gaussian.GaussianSynthesizer`) fits the mean and the
biased covariance of the encoded table and releases n_out rows drawn from N(μ, Σ), clipped to
[−1, 1]^d. Its certificate (Theorem 3.1 of Miura et al., evaluated at the public n − 1,
:func:`synthcert.privacy.budget.account`) is an RDP bound converted to (ε, δ). Four numbers are
set side by side, at the same δ:

1. **certificate ε**: what the release claims (RDP, α optimised, CKS conversion);
2. **theorem pair ε(δ)**: the exact privacy profile of the theorem's own worst pairs, the
   whitened reduction of docs/accountant.md §5 at m = n − 1 rows (:func:`theorem_pairs`: a
   record at the norm bound |u|² = τ = 4d/σ along the flattest axis, added or removed; the
   worse of the two). Theorem 3.1 is attained by these pairs in RDP (a test checks their
   Rényi divergence against the certificate's ε_RDP), so certificate − theorem pair is the
   cost of the RDP → (ε, δ) conversion;
3. **pair ε(δ)**: the exact profile of the real pair that is audited. D is a table of n values
   in [−1, 1] (d = 1) with the smallest variance the synthesizer accepts under the declared σ
   (its neighbour margin, ``neighbour_margin``), put as far from +1 as that variance allows
   (values −1 and +1 and one value solved for so that the variance meets the margin exactly:
   for a given variance the two-point law on the ends has the smallest mean); D′ adds the
   canary +1. theorem pair − pair is what real tables cannot reach: the margin keeps Σ above
   σ, and clipping is post-processing;
4. **audit ε_lb**: the real fit and sampling, once per side, then ``runs`` releases of n_out
   rows per side; each release is scored by its log-likelihood ratio Σ_i log q(y_i)/p(y_i)
   (the Neyman–Pearson optimal statistic; q and p the clipped normal laws fitted on D′ and on
   D, with atoms at ±1) and ``estimate_bounds`` gives ε_lb at δ. Beside it the **ceiling**:
   the bound the same estimator would reach with the pair's optimal test and the same runs
   (from the pair's exact profile). pair − ceiling is the cost of finitely many runs,
   ceiling − ε_lb the cost of the test.

The exact profiles: the outcome of one record is discretised into ``bins`` equal cells of its
range (plus the clipping atoms, or the far tails for the unclipped theorem pair). Binning is
post-processing, so the binned pair's δ(ε) is at most the true one; 5,000 cells give ε(δ)
within 10⁻⁴ of 20,000 cells at the settings tested. dp-accounting then rounds the loss of each
cell *up* to a multiple of ``value_discretization_interval`` (pessimistic
``from_two_probability_mass_functions``) and composes the n_out records (``self_compose``);
the profile is the worse of the two orders. The two roundings pull opposite ways by ~10⁻³ in
ε. A test checks the profile's trade-off curve against Monte Carlo.

Only d = 1 is built: with one column the whitened reduction is exact and a real table can come
close to its worst case; in d ≥ 2 the canary's other coordinates would move the covariance too.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from synthcert._result import Result
from synthcert.audit.claim.estimate import BoundEstimate, ceiling, estimate_bounds
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.tradeoff import pld_tradeoff

_BINS = 5_000
_VDI = 1e-3


@dataclass(frozen=True)
class GaussianReleaseAudit(Result):
    """M_G on a worst-case pair: certificate, exact profiles, ceiling and audit at one δ.

    Attributes
    ----------
    n, d, sigma, n_out, delta, runs, seed
        The setting: table size (also the public minimum size of the certificate), dimension,
        declared σ, rows per release, δ, releases per side, seed.
    table_values : tuple of float
        D (n values in [−1, 1]); D′ is D plus ``canary``.
    canary : float
        The added record.
    u_squared, tau : float
        The pair's whitened |u|² = (canary − mean(D))²/var(D), and the theorem's bound 4d/σ.
    certificate_epsilon, certificate_alpha, certificate_epsilon_rdp : float
        The release's certificate at δ.
    theorem_pair_epsilon : float
        Exact ε(δ) of the theorem's worst whitened pairs (n − 1 and n rows, |u|² = τ, adding
        and removing: the worse).
    pair_epsilon : float
        Exact ε(δ) of the audited pair (D, D′).
    ceiling : float
        The largest ε lower bound the estimator would prove with ``runs`` and the optimal test.
    epsilon_lower_bound : float or None
        The audit's ε lower bound.
    estimate : BoundEstimate
        The audit's test and rates.
    gap_conversion, gap_pair, gap_runs, gap_test : float
        certificate − theorem pair (RDP → (ε, δ) conversion), theorem pair − pair (what real
        tables under the margin cannot reach), pair − ceiling (finitely many runs), ceiling −
        ε_lb (the test).
    seconds : float
        Wall time.
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
    theorem_pair_epsilon: float
    pair_epsilon: float
    ceiling: float
    epsilon_lower_bound: float | None
    estimate: BoundEstimate
    gap_conversion: float
    gap_pair: float
    gap_runs: float
    gap_test: float
    seconds: float


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


class PairProfile:
    """Exact privacy profile of n_out i.i.d. records from p against q, both orders.

    Has ``get_delta_for_epsilon`` and ``get_epsilon_for_delta`` like a dp-accounting PLD, so
    :func:`~synthcert.privacy.tradeoff.pld_tradeoff` gives its trade-off curve.
    """

    def __init__(
        self,
        p: RecordLaw,
        q: RecordLaw,
        n_out: int,
        *,
        bins: int = _BINS,
        value_discretization_interval: float = _VDI,
    ) -> None:
        from dp_accounting.pld import privacy_loss_distribution as pld_lib

        lp, lq = _outcome_log_pmfs(p, q, bins)
        keep = np.isfinite(lp) & np.isfinite(lq) & ((lp > -700) | (lq > -700))
        # cells of zero mass under both laws carry nothing; a cell of mass under one law only
        # would be an infinite loss, which the normal laws (full support) never have
        lower = {int(i): float(lp[i]) for i in np.flatnonzero(keep)}
        upper = {int(i): float(lq[i]) for i in np.flatnonzero(keep)}
        self.plds = [
            pld_lib.from_two_probability_mass_functions(
                a, b, value_discretization_interval=value_discretization_interval
            ).self_compose(int(n_out))
            for a, b in ((lower, upper), (upper, lower))
        ]

    def get_delta_for_epsilon(self, epsilon: Any) -> np.ndarray:
        """δ(ε), the worse of the two orders."""
        return np.maximum(*[np.asarray(p.get_delta_for_epsilon(epsilon)) for p in self.plds])

    def get_epsilon_for_delta(self, delta: float) -> float:
        """ε(δ), the worse of the two orders."""
        return max(float(p.get_epsilon_for_delta(delta)) for p in self.plds)


def theorem_pairs(n: int, d: int, sigma: float) -> list[tuple[RecordLaw, RecordLaw]]:
    """The whitened worst pairs of Theorem 3.1 at m = n − 1 (docs/accountant.md §5), d = 1.

    add: the m-record table against it plus x, whitened by the first: N(0, 1) against
    N(u/(m+1), m/(m+1)·(1 + u²/(m+1))); remove: the (m+1)-record table against it minus x,
    whitened by the first: N(0, 1) against N(−u/m, (m+1)/m·(1 − u²/m)); both at u² = τ = 4d/σ,
    where the theorem's bound is attained (``unbounded_divergence``).

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
    return [(base, add), (base, remove)]


def worst_table(n: int, sigma: float) -> np.ndarray:
    """D: n values in [−1, 1] whose variance is exactly the neighbour margin at σ, mean lowest.

    k values at +1, one at c, the rest at −1, with k and c solved for (see the module text).

    Raises
    ------
    AssumptionError
        When no table of n values in [−1, 1] has the margin's variance (σ too large for n).
    """
    from synthcert.synthesizers.gaussian import neighbour_margin

    need = neighbour_margin(n, 1, sigma, "unbounded") * (1 + 1e-9)
    if need >= 1.0 - 1.0 / n**2:
        raise AssumptionError(
            f"no table of {n} values in [-1, 1] has a variance of {need:.4g}, the margin the "
            f"synthesizer needs for sigma = {sigma}: take a smaller sigma or a larger n",
            assumption="neighbour margin below the largest variance",
        )

    def table(k: int, c: float) -> np.ndarray:
        return np.concatenate([np.ones(k), [c], -np.ones(n - k - 1)])

    k = 0
    while table(k + 1, -1.0).var() < need:
        k += 1
    c = optimize.brentq(lambda x: table(k, x).var() - need, -1.0, 1.0, xtol=1e-15)
    return table(k, float(c))


def release_scores(
    synth: Any,
    n_out: int,
    runs: int,
    seed: np.random.SeedSequence,
    p: RecordLaw,
    q: RecordLaw,
    *,
    per_run_seeds: bool = False,
) -> np.ndarray:
    """Log-likelihood ratio Σ log q(y)/p(y) of each of ``runs`` releases of n_out rows.

    By default one release of runs·n_out rows (``synth.sample``) is cut into ``runs`` blocks:
    the fit is deterministic and the rows are i.i.d. draws of the fitted law, so the blocks have
    exactly the law of separate releases and are independent. ``per_run_seeds=True`` calls
    ``synth.sample(n_out, seed=child)`` once per run instead (same law, ~100× slower).
    """
    if per_run_seeds:
        rows = np.stack(
            [synth.sample(n_out, seed=c)["x"].to_numpy(np.float64) for c in seed.spawn(runs)]
        )
    else:
        rows = synth.sample(runs * n_out, seed=seed)["x"].to_numpy(np.float64)
        rows = rows.reshape(runs, n_out)
    return np.sum(q.log_density(rows) - p.log_density(rows), axis=1)


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
) -> GaussianReleaseAudit:
    """Audit M_G on the worst pair it accepts, beside its certificate and exact profiles.

    Parameters
    ----------
    n : int
        Rows of D (D′ has n + 1); also the public minimum table size of the certificate.
    d : int
        Dimension; only 1 is built (module text).
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

    Returns
    -------
    GaussianReleaseAudit
        The certificate, the exact ε(δ) of the theorem's pair and of the audited pair, the
        ceiling, the audit's bound and the four gaps.

    Raises
    ------
    ParameterError
        For d ≠ 1, n < 3, n_out < 1, runs < 2 or δ outside (0, 1).
    AssumptionError
        When the certificate is infeasible at these settings or no table meets the margin.
    """
    from synthcert.data.schema import NumericColumn, Schema
    from synthcert.synthesizers.gaussian import GaussianSynthesizer

    start = time.perf_counter()
    if d != 1:
        raise ParameterError(f"the M_G pair audit is built for d = 1 only, got d = {d}")
    if n < 3 or n_out < 1 or runs < 2 or not 0 < delta < 1:
        raise ParameterError(
            f"need n >= 3, n_out >= 1, runs >= 2 and 0 < delta < 1 (got {n}, {n_out}, "
            f"{runs}, {delta})"
        )
    values = worst_table(n, sigma)
    canary = 1.0
    schema = Schema((NumericColumn("x", -1.0, 1.0),))
    fits = []
    for table in (values, np.append(values, canary)):
        synth = GaussianSynthesizer(schema, sigma=sigma, min_rows=n, workers=1)
        fits.append(synth.fit(pd.DataFrame({"x": table})))
    p, q = (RecordLaw(float(s.mean_[0]), float(s.cov_[0, 0])) for s in fits)
    cert = fits[0].certificate(n_out, delta=delta)
    if not cert.feasible:
        raise AssumptionError(f"the certificate is infeasible: {cert.reason}")

    pair = PairProfile(p, q, n_out)
    pair_eps = pair.get_epsilon_for_delta(delta)
    theorem_eps = max(
        PairProfile(a, b, n_out).get_epsilon_for_delta(delta) for a, b in theorem_pairs(n, d, sigma)
    )
    cap = ceiling(pld_tradeoff(pair), runs=runs, delta=delta)

    root = np.random.SeedSequence([int(seed), 26])
    out_seeds, in_seeds = root.spawn(2)
    out_scores = release_scores(fits[0], n_out, runs, out_seeds, p, q, per_run_seeds=per_run_seeds)
    in_scores = release_scores(fits[1], n_out, runs, in_seeds, p, q, per_run_seeds=per_run_seeds)
    est = estimate_bounds(in_scores, out_scores, delta=delta, seed=seed)
    lb = est.epsilon_lower_bound
    cert_eps = float(cert.epsilon)  # type: ignore[arg-type]
    return GaussianReleaseAudit(
        n=int(n),
        d=int(d),
        sigma=float(sigma),
        n_out=int(n_out),
        delta=float(delta),
        runs=int(runs),
        seed=int(seed),
        table_values=tuple(float(v) for v in values),
        canary=canary,
        u_squared=float((canary - values.mean()) ** 2 / values.var()),
        tau=4.0 * d / sigma,
        certificate_epsilon=cert_eps,
        certificate_alpha=float(cert.alpha),  # type: ignore[arg-type]
        certificate_epsilon_rdp=float(cert.epsilon_rdp),  # type: ignore[arg-type]
        theorem_pair_epsilon=theorem_eps,
        pair_epsilon=pair_eps,
        ceiling=cap,
        epsilon_lower_bound=lb,
        estimate=est,
        gap_conversion=cert_eps - theorem_eps,
        gap_pair=theorem_eps - pair_eps,
        gap_runs=pair_eps - cap,
        gap_test=cap - (lb or 0.0),
        seconds=time.perf_counter() - start,
    )
