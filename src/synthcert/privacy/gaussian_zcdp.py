"""zCDP of classical Gaussian synthesis (Neunhoeffler, Latner & Drechsler, seed 004, §4).

A univariate synthesizer that draws records from N(mean of the data, public variance) is a
Gaussian mechanism on the mean, so it satisfies rho-zCDP. Everything here is pure math on
public parameters: the clamping bound ``b`` (the paper's ``d``, renamed so it cannot be taken
for a dimension), the number ``n`` of original records, ``n_syn`` synthetic records per copy,
``m`` copies, and bounded neighbouring (one record replaced, n fixed).

Convention: ``sigma`` and ``sigma_lower`` are *standard deviations* (the paper's variance is
sigma**2). The multivariate bridge takes Miura et al.'s sigma, which is an *eigenvalue* of the
covariance (a variance), and therefore calls it ``min_eigenvalue``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import stats

from synthcert._result import Result
from synthcert.errors import AssumptionError, BudgetError, ParameterError
from synthcert.privacy.calibrate import calibrate
from synthcert.privacy.claims import GUARANTEE, PrivacyClaim
from synthcert.privacy.parameters import (
    Neighbouring,
    NeighbouringLike,
    check_delta,
    check_neighbouring,
)

Conversion = Literal["bun-steinke", "cks", "tight"]


@dataclass(frozen=True)
class UnivariateGuarantee(Result):
    """A privacy figure for univariate Gaussian synthesis, with the accounting that produced it."""

    synthesis: str
    rho: float | None
    epsilon: float | None
    delta: float | None
    accounting: str
    bound: float
    n: int
    n_syn: int
    m: int
    components: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    @property
    def claim(self) -> PrivacyClaim:
        """The claim of this synthesis: ρ-zCDP (with its (ε, δ)) under bounded neighbours, or
        (ε, δ)-DP alone when no ρ is stated (§4.3)."""
        model = "zcdp" if self.rho is not None else "approx-dp"
        return PrivacyClaim(
            model=model, guarantee=GUARANTEE, neighboring="bounded", epsilon=self.epsilon,
            delta=self.delta, rho=self.rho, n_out=self.n_syn * self.m,
        )  # fmt: skip


# --------------------------------------------------------------------------- checks


def _check_common(bound: float, n: int, n_syn: int, m: int) -> None:
    if not (math.isfinite(bound) and bound > 0):
        raise AssumptionError(
            f"the clamping bound must be a positive finite number, got {bound!r}",
            assumption="data clamped to [-b, b] with public b > 0",
            admissible="b > 0",
        )
    if int(n) < 2:
        raise AssumptionError(
            f"need at least 2 original records, got n={n}",
            assumption="n >= 2",
            admissible="n >= 2",
        )
    if int(n_syn) < 0 or int(m) < 1:
        raise AssumptionError(
            f"n_syn must be >= 0 and m >= 1, got n_syn={n_syn}, m={m}",
            assumption="n_syn >= 0 synthetic records per copy, m >= 1 copies",
            admissible="n_syn >= 0, m >= 1",
        )


def _check_sigma(sigma: float, name: str = "sigma") -> None:
    if not (math.isfinite(sigma) and sigma > 0):
        raise AssumptionError(
            f"{name} must be a positive finite standard deviation, got {sigma!r}; with zero "
            "variance one synthetic record reveals the mean exactly (rho = infinity, §4.1)",
            assumption=f"public {name} > 0",
            admissible=f"{name} > 0",
        )


# --------------------------------------------------------------------------- sensitivities


def mean_sensitivity(bound: float, n: int) -> float:
    """Sensitivity 2b/n of the mean of n values in [-b, b] under bounded neighbouring (§4.1)."""
    return 2.0 * bound / n


def variance_sensitivity(bound: float, n: int) -> float:
    """Sensitivity (2b)^2/n of the sample variance (1/(n-1) normalisation) on [-b, b] (§4.3)."""
    return 4.0 * bound**2 / n


# --------------------------------------------------------------------------- §4.1


def plugin_known_variance_rho(bound: float, n: int, n_syn: int, m: int, sigma: float) -> float:
    """rho = m n_syn 4b^2 / (2 n^2 sigma^2): plug-in synthesis with public variance (§4.1)."""
    _check_common(bound, n, n_syn, m)
    _check_sigma(sigma)
    return m * n_syn * 4.0 * bound**2 / (2.0 * n**2 * sigma**2)


def plugin_known_variance_records(rho: float, bound: float, n: int, m: int, sigma: float) -> int:
    """Largest n_syn with plug-in rho <= budget: floor(2 n^2 rho sigma^2 / (4 b^2 m)) (§4.1)."""
    _check_common(bound, n, 0, m)
    _check_sigma(sigma)
    if not (rho > 0):
        raise BudgetError(f"rho must be positive, got {rho!r}")
    raw = 2.0 * n**2 * rho * sigma**2 / (4.0 * bound**2 * m)
    return _largest_within(raw, lambda k: plugin_known_variance_rho(bound, n, k, m, sigma), rho)


def _largest_within(raw: float, cost, budget: float) -> int:
    """The largest k ≤ floor(raw) + 1 whose ``cost`` stays within the budget (0 if none).

    15625.000000001 or 15624.99999999 must both give 15625 when the budget is met exactly:
    :func:`~synthcert.privacy.calibrate.calibrate` decides on ``cost`` below floor(raw) + 1.
    """
    if not math.isfinite(raw):
        raise BudgetError("the budget allows an unbounded number of records")
    bound = max(math.floor(raw), 0) + 1
    fits = calibrate(lambda k: cost(k) <= budget * (1 + 1e-12), bound, find="largest", upper=bound)
    return fits or 0


# --------------------------------------------------------------------------- §4.2


def bayesian_two_step_rho(bound: float, n: int, n_syn: int, m: int, sigma: float) -> float:
    """rho = m n_syn 4b^2 / (2 n^2 sigma^2 (1 + 1/n)): Bayesian synthesis, paper's §4.2."""
    return plugin_known_variance_rho(bound, n, n_syn, m, sigma) / (1.0 + 1.0 / n)


def bayesian_post_processing_rho(bound: float, n: int, m: int, sigma: float) -> float:
    """rho = m 4b^2 / (2 n sigma^2): the posterior draw of the mean as a Gaussian mechanism.

    Seed 004 §4.2 prints 4b^2 n / (2 sigma^2); the Gaussian mechanism with variance sigma^2/n
    and sensitivity 2b/n has rho = (2b/n)^2 / (2 sigma^2/n) = 4b^2 / (2 n sigma^2), which is
    what is implemented. Each of the m copies draws its own posterior mean (Rubin's
    posterior-predictive synthesis, the setting of T_PPD), so the m draws compose.
    """
    _check_common(bound, n, 1, m)
    _check_sigma(sigma)
    return m * 4.0 * bound**2 / (2.0 * n * sigma**2)


def bayesian_joint_rho(bound: float, n: int, n_syn: int, m: int, sigma: float) -> float:
    """Exact rho = m 4b^2 n_syn / (2 n sigma^2 (n + n_syn)) of a Bayesian copy (§4.2, sharpened).

    The n_syn records of one copy share the posterior mean, so the copy is jointly
    N(mean * 1, sigma^2 I + (sigma^2/n) 1 1^T); its Renyi divergence under a mean shift of 2b/n
    is alpha * (2b/n)^2 * 1^T Sigma^-1 1 / 2 with 1^T Sigma^-1 1 = n n_syn / (sigma^2 (n + n_syn))
    (Sherman-Morrison). This is below both the paper's two-step figure (denominator n + 1
    instead of n + n_syn) and the post-processing figure (factor n_syn/(n + n_syn) < 1).
    """
    _check_common(bound, n, n_syn, m)
    _check_sigma(sigma)
    return m * 4.0 * bound**2 * n_syn / (2.0 * n * sigma**2 * (n + n_syn))


def bayesian_known_variance_rho(
    bound: float, n: int, n_syn: int, m: int, sigma: float, *, include_joint: bool = True
) -> tuple[float, str, dict[str, float]]:
    """Smallest valid rho for Bayesian synthesis with known variance, and its name (§4.2).

    Returns ``(rho, accounting, all_rhos)``. With ``include_joint=False`` only the paper's
    two accountings ("two-step", "post-processing") compete.
    """
    rhos = {
        "two-step": bayesian_two_step_rho(bound, n, n_syn, m, sigma),
        "post-processing": bayesian_post_processing_rho(bound, n, m, sigma),
    }
    if include_joint:
        rhos["joint"] = bayesian_joint_rho(bound, n, n_syn, m, sigma)
    name = min(rhos, key=lambda k: (rhos[k], k != "joint"))
    return rhos[name], name, rhos


def bayesian_known_variance_records(
    rho: float, bound: float, n: int, m: int, sigma: float
) -> float:
    """Largest n_syn per copy with Bayesian rho <= budget (§4.2, exact joint accounting).

    Solves m 4b^2 k / (2 n sigma^2 (n + k)) <= rho. Returns ``math.inf`` when the budget covers
    the post-processing figure m 4b^2/(2 n sigma^2): then any number of records is allowed.
    """
    post = bayesian_post_processing_rho(bound, n, m, sigma)
    if not (rho > 0):
        raise BudgetError(f"rho must be positive, got {rho!r}")
    if rho >= post:
        return math.inf
    raw = rho * n / (post - rho)
    return _largest_within(raw, lambda k: bayesian_joint_rho(bound, n, k, m, sigma), rho)


# --------------------------------------------------------------------------- §4.3


def gamma_variance_loss(
    x: np.ndarray | float, variance: float, variance_neighbour: float, dof: float
) -> np.ndarray:
    """Privacy loss log p(x)/p'(x) of a variance estimate ~ Gamma(dof/2, rate dof/(2 v)) (§4.3).

    With shape a = dof/2 and rates beta = a/v, beta' = a/v' the Gamma densities give
    L(x) = a ln(v'/v) - a (1/v - 1/v') x. Seed 004 §4.3 carries the shift as 2 s^2 + (2d)^2/n
    in some places and 2 (s^2 + (2d)^2/n) in others; this is the consistent form.
    """
    a = 0.5 * dof
    x = np.asarray(x, dtype=float)
    return (
        a * math.log(variance_neighbour / variance)
        - a * (1.0 / variance - 1.0 / variance_neighbour) * x
    )


def variance_part_epsilon(
    bound: float, n: int, sigma_lower: float, delta: float, dof: float
) -> tuple[float, dict[str, float]]:
    """epsilon of the synthetic variance: |loss| at the delta/2, 1-delta/2 Gamma quantiles (§4.3).

    Both neighbouring directions are taken (variance up by Delta = 4b^2/n from v, and down by
    Delta to v - Delta). The loss depends on v only through Delta/v, so the worst case under
    the public lower bound sigma_lower^2 is the smallest admissible v: v = sigma_lower^2 going
    up, v = sigma_lower^2 + Delta going down (its neighbour must also respect the bound).
    """
    check_delta(delta, pure=False)
    s0 = sigma_lower**2
    gap = variance_sensitivity(bound, n)
    a = 0.5 * dof
    out: dict[str, float] = {}
    for direction, v, v_prime in (("up", s0, s0 + gap), ("down", s0 + gap, s0)):
        q = stats.gamma.ppf([delta / 2, 1 - delta / 2], a, scale=v / a)
        out[direction] = float(np.max(np.abs(gamma_variance_loss(q, v, v_prime, dof))))
    return max(out.values()), out


def mean_part_epsilon(
    bound: float, n: int, n_total: int, sigma_lower: float, delta: float
) -> tuple[float, float]:
    """Tail epsilon of the synthetic mean when the variance also moves (§4.3, made rigorous).

    Splitting the log-likelihood ratio of n_total records as L = L_var(W) + (c z + c^2/2)/r with
    W ~ chi^2_{n_total}, z ~ N(0,1), r = v'/v and c = sqrt(n_total) (mu - mu') / sqrt(v), the
    mean term is Gaussian with mean <= rho_mean and standard deviation <= sqrt(2 rho_mean (1 + t)),
    t = Delta / sigma_lower^2. Hence P(L_mean > eps) <= delta for
    eps = rho_mean + sqrt(2 rho_mean (1 + t)) * Phi^-1(1 - delta). Returns ``(eps, rho_mean)``.
    """
    check_delta(delta, pure=False)
    s0 = sigma_lower**2
    rho_mean = n_total * mean_sensitivity(bound, n) ** 2 / (2.0 * s0)
    t = variance_sensitivity(bound, n) / s0
    eps = rho_mean + math.sqrt(2.0 * rho_mean * (1.0 + t)) * float(stats.norm.isf(delta))
    return eps, rho_mean


def plugin_unknown_variance(
    bound: float,
    n: int,
    n_syn: int,
    m: int,
    sigma_lower: float,
    delta: float,
    *,
    delta_split: float = 0.5,
) -> UnivariateGuarantee:
    """(epsilon, delta) of plug-in synthesis N(mean, s^2) given public s >= sigma_lower (§4.3).

    Seed 004 uses s^2 itself, which makes the figure data-dependent; a declared public lower
    bound keeps it data-independent (like Miura et al.'s sigma). The m copies are m * n_syn
    draws from one distribution (footnote 3), whose sufficient statistics are the mean and the
    sum of squares. The paper treats the mean as a Gaussian mechanism with fixed variance and
    the variance through Gamma(shape (n_syn-1)/2); but the synthetic mean's spread also
    changes with s^2. Splitting the exact log-likelihood ratio instead gives a Gamma term with
    shape n_total/2 and a mean term whose spread is inflated by at most sqrt(1 + t) (see
    :func:`mean_part_epsilon`); the two tail bounds are added (union bound), delta split as
    ``delta_split`` to the mean and the rest to the variance.
    """
    _check_common(bound, n, n_syn, m)
    _check_sigma(sigma_lower, "sigma_lower")
    check_delta(delta, pure=False)
    if not (0 < delta_split < 1):
        raise AssumptionError(
            f"delta_split must lie in (0, 1), got {delta_split!r}",
            assumption="delta shared between the mean and the variance part",
            admissible="0 < delta_split < 1, e.g. 0.5",
        )
    max_var = bound**2 * n / (n - 1)
    if sigma_lower**2 > max_var:
        raise AssumptionError(
            f"sigma_lower={sigma_lower} is impossible: the sample variance of {n} values in "
            f"[-{bound}, {bound}] is at most {max_var:.6g}",
            assumption="public lower bound on the sample standard deviation",
            admissible=f"sigma_lower <= {math.sqrt(max_var):.6g}",
        )
    n_total = m * n_syn
    if n_total < 2:
        raise AssumptionError(
            f"need at least 2 synthetic records in total, got m * n_syn = {n_total}",
            assumption="m * n_syn >= 2",
            admissible="m * n_syn >= 2",
        )
    d_mean, d_var = delta * delta_split, delta * (1 - delta_split)
    eps_mean, rho_mean = mean_part_epsilon(bound, n, n_total, sigma_lower, d_mean)
    eps_var, eps_dirs = variance_part_epsilon(bound, n, sigma_lower, d_var, dof=n_total)
    return UnivariateGuarantee(
        synthesis="plug-in, unknown variance",
        rho=rho_mean,
        epsilon=eps_mean + eps_var,
        delta=delta,
        accounting="unknown-variance: mean tail + Gamma variance tail, union bound",
        bound=bound,
        n=int(n),
        n_syn=int(n_syn),
        m=int(m),
        components={
            "rho_mean": rho_mean,
            "epsilon_mean": eps_mean,
            "delta_mean": d_mean,
            "epsilon_variance": eps_var,
            "epsilon_variance_up": eps_dirs["up"],
            "epsilon_variance_down": eps_dirs["down"],
            "delta_variance": d_var,
            "variance_sensitivity": variance_sensitivity(bound, n),
        },
        note=(
            "rho is the zCDP of the mean part alone (public variance sigma_lower^2); the "
            "release as a whole is only (epsilon, delta)-DP"
        ),
    )


# --------------------------------------------------------------------------- conversion


def to_dp(rho: float, delta: float, method: Conversion = "cks") -> float:
    """zCDP -> (epsilon, delta) via ``synthcert.privacy.conversion.zcdp_to_dp`` ("tight" = "cks").

    "bun-steinke" is the conversion of seed 004 §2, rho + 2 sqrt(rho log(1/delta)); "cks"
    (Canonne, Kamath & Steinke 2020) is tighter and never larger.
    """
    check_delta(delta, pure=False)
    from synthcert.privacy.conversion import zcdp_to_dp

    if method == "tight":
        method = "cks"
    if method not in ("bun-steinke", "cks"):
        raise ParameterError(
            f"unknown conversion {method!r}; choose 'bun-steinke' or 'cks' (alias 'tight')"
        )
    return float(zcdp_to_dp(rho, delta, method=method))


def univariate_guarantee(
    bound: float,
    n: int,
    n_syn: int,
    m: int = 1,
    *,
    sigma: float | None = None,
    sigma_lower: float | None = None,
    bayesian: bool = False,
    delta: float = 1e-6,
    conversion: Conversion = "cks",
    include_joint: bool = True,
) -> UnivariateGuarantee:
    """The guarantee of §4.1, §4.2 or §4.3 of seed 004, by which of sigma/sigma_lower is given.

    Parameters
    ----------
    bound : float
        Public bound B on |x| (values clipped to [−B, B]).
    n : int
        Records of the confidential sample.
    n_syn : int
        Synthetic records per dataset.
    m : int
        Synthetic datasets released.
    sigma : float, optional
        Public standard deviation (§4.1, or §4.2 with ``bayesian``).
    sigma_lower : float, optional
        Public lower bound on the sample standard deviation (§4.3).
    bayesian : bool
        Bayesian rather than plug-in synthesis (known variance only).
    delta : float
        δ of the (ε, δ)-DP conversion.
    conversion : {"cks", "bun-steinke"}
        The zCDP conversion.
    include_joint : bool
        Bayesian only: include the joint term of the accounting.

    Returns
    -------
    UnivariateGuarantee
        ρ of ρ-zCDP and (ε, δ).

    Raises
    ------
    AssumptionError
        When not exactly one of ``sigma`` and ``sigma_lower`` is given, or a Bayesian
        synthesis has no public variance.

    Examples
    --------
    >>> univariate_guarantee(1.0, 1000, 1000, sigma=1.0).rho
    0.002
    """
    if (sigma is None) == (sigma_lower is None):
        raise AssumptionError(
            "give exactly one of sigma (public variance, §4.1/§4.2) and sigma_lower "
            "(public lower bound on the sample standard deviation, §4.3)",
            assumption="variance known or bounded below",
            admissible="sigma=... or sigma_lower=...",
        )
    if sigma_lower is not None:
        if bayesian:
            raise AssumptionError(
                "Bayesian synthesis with unknown variance has no guarantee in seed 004",
                assumption="Bayesian synthesis needs a public variance (§4.2)",
                admissible="pass sigma (known variance) or drop bayesian",
            )
        return plugin_unknown_variance(bound, n, n_syn, m, sigma_lower, delta)
    assert sigma is not None
    if bayesian:
        rho, name, rhos = bayesian_known_variance_rho(
            bound, n, n_syn, m, sigma, include_joint=include_joint
        )
        synthesis = "bayesian, known variance"
        components: dict[str, Any] = {f"rho_{k.replace('-', '_')}": v for k, v in rhos.items()}
    else:
        rho = plugin_known_variance_rho(bound, n, n_syn, m, sigma)
        name, synthesis, components = "plug-in", "plug-in, known variance", {}
    return UnivariateGuarantee(
        synthesis=synthesis,
        rho=rho,
        epsilon=to_dp(rho, delta, conversion),
        delta=delta,
        accounting=name,
        bound=bound,
        n=int(n),
        n_syn=int(n_syn),
        m=int(m),
        components={**components, "conversion": conversion},
    )


# --------------------------------------------------------------------------- multivariate


def multivariate_bridge_rho(
    n: int,
    d: int,
    n_out: int,
    min_eigenvalue: float,
    *,
    neighbouring: NeighbouringLike = Neighbouring.BOUNDED,
) -> float:
    """rho = n_out (2 sqrt(d)/n)^2 / (2 lambda_min): N(mu, public Sigma) as a Gaussian mechanism.

    Rows of [-1, 1]^d and a table of n records. Bounded (one record replaced): the mean moves by
    at most 2 sqrt(d)/n. Unbounded: the table must be protected against adding a record, the
    pair (n, n + 1) with shift at most 2 sqrt(d)/(n + 1), *and* against removing one of its
    members, the pair (n - 1, n) with shift (x_n - mu_{n-1})/n, at most 2 sqrt(d)/n. The
    removal pair is the larger, so both relations use the denominator n (as ``theorem_n`` in
    ``inherent`` evaluates Theorem 3.1 at n - 1). The Mahalanobis sensitivity is at most that
    over sqrt(lambda_min(Sigma)). ``min_eigenvalue`` is Miura et al.'s sigma (seed
    000, §3): a lower bound on the smallest *eigenvalue* of the covariance, a variance-scale
    quantity, so it is not squared. The issue's rho = n_out (4d / (n^2 sigma_min)) / 2 is this
    formula with sigma_min read as that eigenvalue; tau = 4d/sigma of seed 000 gives
    rho = n_out tau / (2 n^2).
    """
    if int(n) < 1 or int(d) < 1 or int(n_out) < 0:
        raise AssumptionError(
            f"need n >= 1, d >= 1, n_out >= 0, got n={n}, d={d}, n_out={n_out}",
            assumption="positive sizes",
            admissible="n >= 1, d >= 1, n_out >= 0",
        )
    if not (math.isfinite(min_eigenvalue) and min_eigenvalue > 0):
        raise AssumptionError(
            f"min_eigenvalue must be positive, got {min_eigenvalue!r}",
            assumption="public covariance with smallest eigenvalue >= sigma > 0",
            admissible="sigma > 0 (e.g. 0.01 for Adult's numeric columns in [-1,1])",
        )
    check_neighbouring(neighbouring, what="neighbouring")
    # both relations: the removal pair (n - 1, n) dominates the addition pair (n, n + 1)
    return n_out * (4.0 * d / n**2) / (2.0 * min_eigenvalue)


__all__ = [
    "UnivariateGuarantee",
    "bayesian_joint_rho",
    "bayesian_known_variance_records",
    "bayesian_known_variance_rho",
    "bayesian_post_processing_rho",
    "bayesian_two_step_rho",
    "gamma_variance_loss",
    "mean_part_epsilon",
    "mean_sensitivity",
    "multivariate_bridge_rho",
    "plugin_known_variance_records",
    "plugin_known_variance_rho",
    "plugin_unknown_variance",
    "to_dp",
    "univariate_guarantee",
    "variance_part_epsilon",
    "variance_sensitivity",
]
