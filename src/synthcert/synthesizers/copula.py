"""The Gaussian-copula synthesizer (thesis section 4.3.2, "GCopula"), with and without DP.

Without DP: marginals are the empirical CDFs (numeric columns, raw values within the public
bounds) and the category frequencies; the copula correlation is the correlation of the
normal scores Phi^{-1}(rank / (n + 1)) (categories: the midpoint of their CDF step).
``marginals="beta"`` instead fits each numeric column with a beta distribution on the data's
[min, max] (SDV's default GaussianCopula, the synthesizer the thesis audits in chapter 3); its
support moves with the extreme records, which is what the Setsubun mah-max target exploits.

With DP (after Li, Xiong & Jiang 2014, DPCopula-Kendall): a share ``marginal_share`` of epsilon
buys Laplace-noised histograms (numeric columns on the public equal-width bins, categorical on
the declared categories; clipped at 0 and renormalised), the rest buys Laplace-noised
Kendall's tau of every pair, mapped by r = sin(pi tau / 2) and projected to the nearest
correlation matrix (Higham 2002). Neighbouring is *bounded* (one record replaced, n public).

Missing values (nullable columns): ``fit(table)`` adds a copula variable per nullable column,
its missingness indicator (a two-level category: present, missing), so the copula carries the
joint pattern of missingness; the column's own marginal is that of its present values. A
missing value's normal score is the public fill 0 (the centre); under DP its Kendall-tau value
is the public centre of the column's (transformed) bounds, a function of the record alone, so
the sensitivity 4/n stands. ``fit_counts`` (the engine path) treats a missing value as one more
category of the column's histogram, ordered last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, Self

import numpy as np
import pandas as pd
from scipy import special, stats

from synthcert.data.discretize import (
    DEFAULT_BINS,
    Discretizer,
    n_bins,
    numeric_codes,
    numeric_decode,
    value_cardinality,
    value_order,
)
from synthcert.data.encode import (
    MissingPolicy,
    category_codes,
    clipped_typed_frame,
    missing_policy_for,
    numeric_values,
    prepare_table,
)
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.audit_hook import record_measurement
from synthcert.privacy.mechanisms import laplace_mechanism
from synthcert.privacy.tree_bins import ATOM_SD
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.sources import CountSource, check_cardinalities
from synthcert.synthesizers.base import (
    DPSynthesizer,
    cached_discretizer,
    check_bins,
    check_share,
    require_two_rows,
)
from synthcert.synthesizers.gaussian import gaussian_factor


def normal_scores(values: np.ndarray) -> np.ndarray:
    """Phi^{-1}(rank / (n + 1)) with average ranks for ties (van der Waerden scores).

    Parameters
    ----------
    values : numpy.ndarray
        One column of n values.

    Returns
    -------
    numpy.ndarray
        n normal scores.

    Examples
    --------
    >>> normal_scores(np.array([3.0, 1.0, 2.0])).round(4).tolist()
    [0.6745, -0.6745, 0.0]
    """
    ranks = stats.rankdata(values, method="average")
    return special.ndtri(ranks / (len(values) + 1.0))


def category_scores(codes: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Phi^{-1} of the midpoint of each category's CDF step.

    Parameters
    ----------
    codes : numpy.ndarray
        Category codes.
    probs : numpy.ndarray
        The categories' probabilities.

    Returns
    -------
    numpy.ndarray
        The score of each code.

    Examples
    --------
    >>> category_scores(np.array([0, 1]), np.array([0.5, 0.5])).round(4).tolist()
    [-0.6745, 0.6745]
    """
    cum = np.concatenate([[0.0], np.cumsum(probs)])
    mid = np.clip((cum[:-1] + cum[1:]) / 2.0, 1e-12, 1 - 1e-12)
    return special.ndtri(mid)[codes]


def kendall_tau_a(x: np.ndarray, y: np.ndarray) -> float:
    """tau_a = (concordant - discordant) / (n(n-1)/2), recovered from scipy's tau_b.

    Parameters
    ----------
    x, y : numpy.ndarray
        Two columns of n values.

    Returns
    -------
    float
        tau_a (0 where scipy's tau_b is undefined).

    Examples
    --------
    >>> round(kendall_tau_a(np.array([1, 2, 3]), np.array([1, 3, 2])), 4)
    0.3333
    """
    n = len(x)
    n0 = n * (n - 1) / 2.0
    tau_b = stats.kendalltau(x, y).statistic
    if not np.isfinite(tau_b):
        return 0.0

    def tied(v: np.ndarray) -> float:
        _, counts = np.unique(v, return_counts=True)
        return float(np.sum(counts * (counts - 1.0) / 2.0))

    s = tau_b * math.sqrt((n0 - tied(x)) * (n0 - tied(y)))
    return float(s / n0)


def kendall_tau_sensitivity(n: int) -> float:
    """4/n: replacing one record flips at most its n-1 pairs, each by at most 2, over n(n-1)/2.

    Li et al. (2014) state 4/(n+1); the direct count above gives 4/n, which we use (it is larger,
    so the noise is never too small).

    Examples
    --------
    >>> kendall_tau_sensitivity(100)
    0.04
    """
    return 4.0 / n


def kendall_tau_table(table: np.ndarray, *, variant: Literal["a", "b"] = "a") -> float:
    """Kendall's tau of the n = sum(T) points counted in a 2-way table T (codes in order).

    S = concordant - discordant = sum_ij T_ij (sum_{i'>i, j'>j} T - sum_{i'>i, j'<j} T), in
    exact integers; tau_a = S / n0 with n0 = n(n-1)/2, tau_b = S / sqrt((n0 - n1)(n0 - n2))
    with n1, n2 the pairs tied in rows and in columns (Kendall 1945). 0 where undefined.

    Parameters
    ----------
    table : numpy.ndarray
        A 2-way table of integer counts, codes in order along both axes.
    variant : {"a", "b"}, default "a"
        tau_a or tau_b.

    Returns
    -------
    float
        Kendall's tau of the counted points.

    Examples
    --------
    >>> kendall_tau_table(np.array([[1, 0], [0, 1]]))
    1.0
    """
    t = np.asarray(table, dtype=np.int64).astype(object)  # Python ints: no overflow at any n
    s = 0
    for i in range(t.shape[0] - 1):
        below = t[i + 1 :].sum(axis=0)
        cum = np.cumsum(below)
        s += int(np.dot(t[i], (cum[-1] - cum) - (cum - below)))
    n = int(t.sum())
    n0 = n * (n - 1) // 2
    if variant == "a":
        return s / n0 if n0 > 0 else 0.0
    n1 = sum(int(r) * (int(r) - 1) // 2 for r in t.sum(axis=1))
    n2 = sum(int(c) * (int(c) - 1) // 2 for c in t.sum(axis=0))
    denom = (n0 - n1) * (n0 - n2)
    return s / math.sqrt(denom) if denom > 0 else 0.0


def tau_b_from_tau_a(tau_a: float, p: np.ndarray, q: np.ndarray, n: int) -> float:
    """tau_b = tau_a n0 / sqrt((n0 - n1)(n0 - n2)) when code k of x holds n p_k points and
    code k of y n q_k (n1, n2: the pairs tied in x and in y; 0 if a column is constant).

    Parameters
    ----------
    tau_a : float
        Kendall's tau_a of the pair.
    p, q : numpy.ndarray
        The shares of each code of x and of y.
    n : int
        Number of points.

    Returns
    -------
    float
        tau_b, clipped to [-1, 1].

    Examples
    --------
    >>> tau_b_from_tau_a(0.5, np.array([0.5, 0.5]), np.array([0.5, 0.5]), 4)
    0.75
    """
    n0 = n * (n - 1) / 2.0
    n1, n2 = (float(np.sum(n * v * (n * v - 1.0))) / 2.0 for v in (p, q))
    denom = max(n0 - n1, 0.0) * max(n0 - n2, 0.0)
    return float(np.clip(tau_a * n0 / math.sqrt(denom), -1.0, 1.0)) if denom > 0 else 0.0


def correlation_from_taus(taus: np.ndarray, d: int) -> np.ndarray:
    """R_ij = sin(pi tau_ij / 2) for the pairs i < j in order (exact for a Gaussian copula),
    projected to the nearest correlation matrix.

    Parameters
    ----------
    taus : numpy.ndarray
        Kendall's tau of the d(d-1)/2 pairs i < j, row by row.
    d : int
        Number of variables.

    Returns
    -------
    numpy.ndarray
        A (d, d) correlation matrix.

    Examples
    --------
    >>> correlation_from_taus(np.array([1 / 3]), 2).round(4).tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    corr = np.eye(d)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    r = np.sin(np.pi * np.clip(np.asarray(taus, dtype=np.float64), -1.0, 1.0) / 2.0)
    for (i, j), v in zip(pairs, r, strict=True):
        corr[i, j] = corr[j, i] = v
    return nearest_correlation(corr)


def nearest_correlation(a: np.ndarray, *, tol: float = 1e-10, max_iter: int = 500) -> np.ndarray:
    """Nearest correlation matrix in Frobenius norm (Higham 2002, alternating projections with
    Dykstra's correction), then eigenvalues floored at 1e-8 and the diagonal reset to 1.

    Parameters
    ----------
    a : numpy.ndarray
        A symmetric (d, d) matrix with unit diagonal.
    tol : float, default 1e-10
        Relative change at which the iteration stops.
    max_iter : int, default 500
        Most iterations.

    Returns
    -------
    numpy.ndarray
        A positive definite correlation matrix.

    Examples
    --------
    >>> a = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])
    >>> bool(np.linalg.eigvalsh(nearest_correlation(a)).min() > 0)
    True
    """
    a = (a + a.T) / 2.0
    y = a.copy()
    ds = np.zeros_like(a)
    for _ in range(max_iter):
        r = y - ds
        w, v = np.linalg.eigh(r)
        x = (v * np.clip(w, 0.0, None)) @ v.T
        ds = x - r
        y_new = x.copy()
        np.fill_diagonal(y_new, 1.0)
        if np.linalg.norm(y_new - y, "fro") <= tol * max(1.0, np.linalg.norm(y, "fro")):
            y = y_new
            break
        y = y_new
    w, v = np.linalg.eigh((y + y.T) / 2.0)
    y = (v * np.clip(w, 1e-8, None)) @ v.T
    d = np.sqrt(np.diag(y))
    y = y / np.outer(d, d)
    np.fill_diagonal(y, 1.0)
    return y


def clip_normalise(p: np.ndarray) -> np.ndarray:
    """Negative entries set to 0, then rescaled to sum to 1 (uniform if nothing is left).

    Examples
    --------
    >>> clip_normalise(np.array([3.0, -1.0, 1.0])).tolist()
    [0.75, 0.0, 0.25]
    """
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, None)
    total = p.sum()
    return p / total if total > 0 else np.full(p.shape, 1.0 / p.size)


@dataclass(frozen=True)
class BetaMarginal:
    """Beta(a, b) on [loc, loc + scale] = the data's [min, max], where SDV's beta fit starts."""

    a: float
    b: float
    loc: float
    scale: float

    @classmethod
    def fit(cls, x: np.ndarray) -> BetaMarginal:
        """Support fixed to the data's range, shape by the method of moments: a = m c, b =
        (1 - m) c with c = m (1 - m) / v - 1 (the likelihood is degenerate there, since the
        data hold both endpoints)."""
        loc, scale = float(np.min(x)), float(np.ptp(x))
        if scale == 0.0:
            return cls(1.0, 1.0, loc, 0.0)
        y = (x - loc) / scale
        m, v = float(np.mean(y)), float(np.var(y))
        c = m * (1.0 - m) / v - 1.0 if v > 0 else 1.0
        return cls(max(m * c, 1e-3), max((1.0 - m) * c, 1e-3), loc, scale)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """F(x); a constant column maps to 1/2."""
        if self.scale == 0.0:
            return np.full(np.shape(x), 0.5)
        return special.betainc(self.a, self.b, np.clip((x - self.loc) / self.scale, 0.0, 1.0))

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """F^{-1}(u)."""
        if self.scale == 0.0:
            return np.full(np.shape(u), self.loc)
        return self.loc + self.scale * special.betaincinv(self.a, self.b, u)

    @cached_property
    def _grid(self) -> tuple[np.ndarray, np.ndarray]:
        # dense where Phi(z) puts the tails, and the exact endpoints
        u = np.concatenate([[0.0], special.ndtr(np.linspace(-8.0, 8.0, 4097)), [1.0]])
        return u, self.ppf(u)

    def fast_ppf(self, u: np.ndarray) -> np.ndarray:
        """F^{-1}(u) interpolated on Phi(z) at 4,097 points |z| <= 8 and at 0 and 1: within
        1e-5 x scale of ``ppf`` for u in [Phi(-8), Phi(8)] (tested), ~50x faster."""
        return np.interp(u, *self._grid)


class GaussianCopulaSynthesizer(DPSynthesizer):
    """Empirical (or DP-histogram) marginals joined by a Gaussian copula.

    ``epsilon=None`` fits without noise, with empirical numeric marginals or, with
    ``marginals="beta"``, the beta fits of :class:`BetaMarginal`. With ``epsilon``:
    ``marginal_share * epsilon`` for the d marginal histograms (epsilon / d each, L1
    sensitivity 2 under replacement) and the rest for the d(d-1)/2 Kendall taus (sensitivity
    4/n each). ``delta`` is accepted for a uniform interface; the mechanism is pure
    epsilon-DP. ``seed`` drives the DP noise of ``fit``.

    :meth:`fit_counts` (the engine path of ``synthesize --engine``, for inputs never loaded
    whole) works on the public bins only: binned numeric marginals (sampled uniformly within
    the bin) and Kendall's tau_b of the binned pairs (under DP: the noisy tau_a rescaled by
    the ties of the noisy histograms). It therefore differs slightly from ``fit(table)``, whose
    numeric marginals are the raw values and whose taus (DP) or normal-score correlations (no
    DP) use the raw values; the DP histograms are the same.

    Parameters
    ----------
    schema : Schema
        The public schema.
    epsilon : float, optional
        The pure-DP budget; None fits without noise.
    delta : float, optional
        Accepted for a uniform interface (the mechanism is pure epsilon-DP).
    marginal_share : float, default 0.5
        Share of epsilon spent on the marginal histograms, in (0, 1).
    bins : int, default 20
        Equal-width public bins of the numeric columns (DP histograms, counted fits).
    marginals : {"empirical", "beta"}, default "empirical"
        Numeric marginals without DP: the empirical CDF, or SDV-style beta fits.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's DP noise.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b"))))
    >>> df = pd.DataFrame({"x": [0.1, 0.4, 0.8, 0.3], "c": ["a", "b", "b", "a"]})
    >>> synth = GaussianCopulaSynthesizer(schema, epsilon=1.0, seed=3).fit(df)
    >>> synth.privacy_claim(10).epsilon
    1.0
    """

    name = "gaussian-copula"
    description = "Empirical marginals joined by a Gaussian copula; DP version after DPCopula."
    neighboring = "bounded"
    mechanisms = ("Laplace noise (marginal histograms)", "Laplace noise (Kendall tau)")
    privacy_model = "pure-dp"

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        marginal_share: float = 0.5,
        bins: int = DEFAULT_BINS,
        marginals: Literal["empirical", "beta"] = "empirical",
        missing: MissingPolicy = "model",
        seed: Seed = None,
    ) -> None:
        self._store_params(locals())

    def validate_params(self) -> None:
        """Check the budget, the marginal share, the bins and the kind of marginals.

        Raises
        ------
        ParameterError
            If ``marginals`` is not ``"empirical"`` or ``"beta"``, ``marginal_share`` is
            outside (0, 1), or ``bins < 2``.
        AssumptionError
            If epsilon is not positive, delta is outside [0, 1), or ``marginals="beta"`` is
            asked with epsilon (no DP guarantee covers data-fitted supports).

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1),))
        >>> GaussianCopulaSynthesizer(schema, marginal_share=2.0).validate_params()
        Traceback (most recent call last):
        ...
        synthcert.errors.ParameterError: marginal_share must lie in (0, 1), got 2.0
        """
        super().validate_params()
        if self.marginals not in ("empirical", "beta"):
            raise ParameterError(f"marginals must be 'empirical' or 'beta', got {self.marginals!r}")
        if self.marginals == "beta" and self.epsilon is not None:
            raise AssumptionError(
                "marginals='beta' fits each column's support to the data's min and max, which "
                "no DP guarantee covers; with epsilon the marginals are DP histograms",
                assumption="marginals='beta' only without epsilon",
                admissible="drop epsilon, or use marginals='empirical' (the DP default)",
            )
        check_share("marginal_share", self.marginal_share)
        check_bins(self.bins)

    # -- fitting -------------------------------------------------------------------------
    def _fit(self, table: pd.DataFrame) -> None:
        """Learn the marginals and the copula correlation (noised when epsilon is set).

        The copula's variables are the columns plus one missingness indicator per nullable
        column (``variables_``); ``rows_dropped_missing_`` and ``values_filled_`` (private)
        count the rows the missing-value policy dropped and the values it filled (the policy
        ``model`` fills under bounded neighbours: :func:`missing_policy_for`).
        """
        self._fit_prepared(self.prepare(table))

    def prepare(self, table: pd.DataFrame) -> tuple[Any, ...]:
        """The columns of ``table`` as the fit reads them (missing-value policy applied): a
        function of the table and the public options only, no randomness. ``fit`` is
        ``prepare`` then the fit proper; an auditor that fits one table many times (the
        worst-case audit) prepares it once and calls :meth:`fit_prepared`."""
        policy = missing_policy_for(
            self.missing, self.neighboring, private=self.epsilon is not None
        )
        frame, dropped, filled = prepare_table(table, self.schema, missing=policy)
        n = len(frame)
        require_two_rows(n, "the copula")
        raw: list[np.ndarray] = []
        present: list[np.ndarray] = []
        variables: list[tuple[int, str]] = []
        for j, col in enumerate(self.schema.columns):
            if isinstance(col, NumericColumn):
                x = np.clip(numeric_values(frame[col.name], col), col.lower, col.upper)
                absent = np.isnan(x)
            else:
                x = category_codes(frame[col.name], col)
                absent = x < 0
            raw.append(x)
            present.append(~absent)
            variables.append((j, "value"))
            if col.nullable:
                raw.append(absent.astype(np.int64))
                present.append(np.ones(n, dtype=bool))
                variables.append((j, "missing"))
        return raw, present, variables, n, dropped, filled

    def fit_prepared(self, prepared: tuple[Any, ...]) -> Self:
        """Fit from :meth:`prepare`'s output: the same computation as ``fit`` on that table."""
        self._start_fit()
        self._fit_prepared(prepared)
        return self._end_fit()

    def _fit_prepared(self, prepared: tuple[Any, ...]) -> None:
        raw, present, variables, n, dropped, filled = prepared
        self.variables_: list[tuple[int, str]] = list(variables)
        self.accountant = self.new_accountant()
        self.n_ = n
        self.rows_dropped_missing_ = dropped
        self.values_filled_ = filled
        self.binned_ = self.epsilon is not None
        if self.epsilon is None:
            self._fit_exact(raw, present)
        else:
            triples = list(zip(self.variables_, raw, present, strict=True))
            hists = [self._histogram(v, x, ok) for v, x, ok in triples]
            filled = [self._tau_values(v, x, ok) for v, x, ok in triples]
            d = len(filled)
            taus = [kendall_tau_a(filled[i], filled[j]) for i in range(d) for j in range(i + 1, d)]
            self._fit_dp(hists, np.array(taus))
        self._factor = gaussian_factor(self.corr_)

    def _histogram(self, var: tuple[int, str], x: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Counts of a variable on public bins: present values of a column, or its indicator."""
        j, role = var
        col = self.schema.columns[j]
        if role == "missing":
            return np.bincount(x, minlength=2)
        if isinstance(col, NumericColumn):
            return np.bincount(
                numeric_codes(x[ok], col, self.bins), minlength=value_cardinality(col, self.bins)
            )
        return np.bincount(x[ok], minlength=len(col.categories))

    def _tau_values(self, var: tuple[int, str], x: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """A variable's values for Kendall's tau, a missing value at the public centre."""
        j, role = var
        col = self.schema.columns[j]
        if role == "missing" or ok.all():
            return x
        if isinstance(col, NumericColumn):
            lo, hi = col.model_bounds
            return np.where(ok, x, float(col.from_model(np.array((lo + hi) / 2.0))))
        return np.where(ok, x, (len(col.categories) - 1) / 2.0)

    @property
    def discretizer(self) -> Discretizer:
        """The public bins the counted fit (:meth:`fit_counts`) and the DP histograms use."""
        return cached_discretizer(self)

    def fit_counts(self, source: CountSource) -> Self:
        """Fit from counts on the public bins (``source`` counted on ``self.discretizer``).

        The marginals are the one-way histograms (numeric values uniform within their bin
        when sampled) and R_ij = sin(pi tau_ij / 2) with Kendall's tau of the 2-way table of
        each pair (:func:`kendall_tau_table`): tau_b without DP; with DP, tau_a noised as in
        ``fit``, then turned into tau_b with the ties of the noisy histograms (post-processing;
        binning ties many pairs, which pulls tau_a towards 0). tau_a of binned values keeps
        sensitivity 4/n: a record's bins depend on that record alone, so replacing it changes
        only its n - 1 pairs, each sign product by at most 2 (a tie counts 0), and S by at
        most 2(n - 1) over n(n - 1)/2 pairs. All tables are asked of ``source`` in one request.

        The route of :class:`~synthcert.statistics.protocols.FitsFromCounts`.

        Parameters
        ----------
        source : CountSource
            Counts of the table on ``self.discretizer``'s codes.

        Returns
        -------
        GaussianCopulaSynthesizer
            ``self``, fitted.

        Raises
        ------
        AssumptionError
            With ``marginals="beta"`` (counts on public bins hold no min and max).
        DataError
            If the counts are on other bins, or hold fewer than 2 rows.

        Examples
        --------
        >>> import numpy as np
        >>> from synthcert.data.schema import CategoricalColumn, Schema
        >>> from synthcert.statistics.sources import CodesCounts
        >>> cols = (CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v")))
        >>> schema = Schema(cols)
        >>> synth = GaussianCopulaSynthesizer(schema)
        >>> codes = np.array([[0, 0], [1, 1], [1, 0], [0, 0]])
        >>> synth.fit_counts(CodesCounts(codes, [2, 2])).n_
        4
        """
        self._start_fit()
        if self.marginals == "beta":
            raise AssumptionError(
                "marginals='beta' fits the data's min and max, which counts on public bins do "
                "not hold",
                assumption="fit_counts with marginals='empirical'",
                admissible="marginals='empirical', or fit(table) in memory",
            )
        cards = self.discretizer.cardinalities
        check_cardinalities(source, cards)
        d = len(cards)
        pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
        tables = source.marginal([*((j,) for j in range(d)), *pairs])
        n = source.rows
        require_two_rows(n, "the copula")
        self.accountant = self.new_accountant()
        self.n_ = n
        self.rows_dropped_missing_ = None  # the counts hold the kept rows only
        self.binned_ = True
        self.variables_ = [(j, "value") for j in range(d)]  # missing: the last code
        hists = [tables[(j,)] for j in range(d)]
        tables = {p: self._in_value_order(tables[p], p) for p in pairs}  # tau reads order
        if self.epsilon is None:
            self._marginals = [h / n for h in hists]
            taus = [kendall_tau_table(tables[p], variant="b") for p in pairs]
            self.corr_ = correlation_from_taus(np.array(taus), d)
        else:
            taus = [kendall_tau_table(tables[p], variant="a") for p in pairs]
            self._fit_dp(hists, np.array(taus), tie_corrected=True)
        self._factor = gaussian_factor(self.corr_)
        return self._end_fit()

    def _in_value_order(self, table: np.ndarray, pair: tuple[int, int]) -> np.ndarray:
        """A pair's 2-way table with each numeric axis in value order (:func:`~synthcert.data.
        discretize.value_order`: an atom's code sits after the bins, its value before them)."""
        for axis, j in enumerate(pair):
            col = self.schema.columns[j]
            if isinstance(col, NumericColumn):
                order = value_order(col, self.bins, table.shape[axis])
                table = np.take(table, order, axis=axis)
        return table

    def _fit_exact(self, raw: list[np.ndarray], present: list[np.ndarray]) -> None:
        scores = np.zeros((self.n_, len(raw)))  # 0: the public score of a missing value
        self._marginals: list[np.ndarray | BetaMarginal] = []
        for v, ((j, role), x, ok) in enumerate(zip(self.variables_, raw, present, strict=True)):
            col = self.schema.columns[j]
            xs = x[ok]
            if role == "missing":
                p = np.bincount(x, minlength=2) / self.n_
                self._marginals.append(p)
                scores[:, v] = category_scores(x, p)
            elif isinstance(col, NumericColumn) and not len(xs):
                self._marginals.append(np.array([0.5 * (col.lower + col.upper)]))
            elif isinstance(col, NumericColumn) and self.marginals == "beta":
                beta = BetaMarginal.fit(xs)
                self._marginals.append(beta)
                scores[ok, v] = special.ndtri(np.clip(beta.cdf(xs), 1e-12, 1 - 1e-12))
            elif isinstance(col, NumericColumn):
                self._marginals.append(np.sort(xs))
                scores[ok, v] = normal_scores(xs)
            else:
                p = clip_normalise(np.bincount(xs, minlength=len(col.categories)))
                self._marginals.append(p)
                scores[ok, v] = category_scores(xs, p)
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.corrcoef(scores, rowvar=False)
        corr = np.atleast_2d(np.nan_to_num(corr, nan=0.0))
        np.fill_diagonal(corr, 1.0)
        self.corr_ = nearest_correlation(corr)

    def _fit_dp(
        self, hists: list[np.ndarray], taus: np.ndarray, *, tie_corrected: bool = False
    ) -> None:
        """Laplace-noised histograms (epsilon / d each of the marginal share) and Laplace-noised
        Kendall tau_a of the pairs i < j (the rest), then R = sin(pi tau / 2) (DPCopula); the
        noise is drawn from ``seed``.

        ``tie_corrected``: the noisy tau_a become tau_b with the ties of the noisy histograms
        (``tau_b_from_tau_a``; post-processing of DP outputs and the public n, so free).
        """
        eps = float(self.epsilon)  # type: ignore[arg-type]
        rng = np.random.default_rng(seed_sequence(self.seed))
        d = len(hists)
        eps_marg = float(self.marginal_share) * eps if d > 1 else eps
        eps_corr = eps - eps_marg
        self._marginals = []
        for (j, role), counts in zip(self.variables_, hists, strict=True):
            # replacing one record moves one count down and one up: L1 sensitivity 2
            name = self.schema.columns[j].name + (":missing" if role == "missing" else "")
            noisy = laplace_mechanism(
                counts, 2.0, eps_marg / d, integer=True, rng=rng, accountant=self.accountant,
                name=f"laplace:marginal:{name}",
            )  # fmt: skip
            record_measurement(
                f"laplace:marginal:{name}", "laplace", 2.0 * d / eps_marg, noisy, counts,
                (j,) if role == "value" else None, integer=True,
            )  # fmt: skip
            if role == "value":
                noisy = self._decide_atoms(j, noisy, math.sqrt(2.0) * 2.0 * d / eps_marg)
            self._marginals.append(clip_normalise(noisy))
        if len(taus):
            # the vector of taus has L1 sensitivity len(taus) * 4/n
            exact, sens = taus, len(taus) * kendall_tau_sensitivity(self.n_)
            taus = laplace_mechanism(
                taus, sens, eps_corr, rng=rng, accountant=self.accountant,
                name="laplace:kendall-tau",
            )  # fmt: skip
            # nominal scale: the grid of laplace_mechanism adds a little more noise
            record_measurement("laplace:kendall-tau", "laplace", sens / eps_corr, taus, exact)
        if tie_corrected:
            m = self._marginals
            pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
            taus = np.array([
                tau_b_from_tau_a(t, m[i], m[j], self.n_)
                for t, (i, j) in zip(taus, pairs, strict=True)
            ])  # fmt: skip
        self.corr_ = correlation_from_taus(taus, d)
        self.accountant.check_within_budget()

    def _decide_atoms(self, j: int, noisy: np.ndarray, sd: float) -> np.ndarray:
        """The noisy histogram of column ``j`` without the mass of a default-rule atom whose
        noisy count is below :data:`~synthcert.privacy.tree_bins.ATOM_SD` noise standard
        deviations ``sd`` (post-processing of this DP output, as the tree step decides its
        atoms): a bound at 0 that nobody sits at gets no exact zeros from noise alone."""
        col = self.schema.columns[j]
        if not isinstance(col, NumericColumn) or col.atoms is not None:
            return noisy
        k = n_bins(col, self.bins)
        out = np.asarray(noisy, dtype=np.float64).copy()
        for i in range(len(col.atom_values)):
            if out[k + i] < ATOM_SD * sd:
                out[k + i] = 0.0
        return out

    # -- sampling ------------------------------------------------------------------------
    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Draw z ~ N(0, R), u = Phi(z), and invert each marginal at u; a column is missing
        where its indicator variable says so (or its histogram's missing code is drawn)."""
        rng = np.random.default_rng(seed_sequence(seed))
        z = rng.standard_normal((n, len(self.variables_))) @ self._factor.T
        u = special.ndtr(z)
        data: dict[str, np.ndarray] = {}
        for v, (j, role) in enumerate(self.variables_):
            col = self.schema.columns[j]
            if role == "value":
                data[col.name] = self._invert(col, self._marginals[v], u[:, v])
                continue
            absent = self._invert(None, self._marginals[v], u[:, v]) == 1
            values = data[col.name]
            if isinstance(col, NumericColumn):
                data[col.name] = np.where(absent, np.nan, values.astype(np.float64))
            else:
                data[col.name] = np.where(absent, -1, values)
        return clipped_typed_frame(self.schema, data)

    def _invert(self, col, marginal: np.ndarray | BetaMarginal, u: np.ndarray) -> np.ndarray:
        """Values (NaN: missing) or codes (-1: missing) at the marginal's quantile u."""
        if isinstance(marginal, BetaMarginal):
            return marginal.fast_ppf(u)
        if col is None or isinstance(col, CategoricalColumn):
            cum = np.cumsum(marginal)
            codes = np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), len(cum) - 1)
            if col is not None:
                codes = np.where(codes >= len(col.categories), -1, codes)  # the missing code
            return codes
        if not self.binned_:  # empirical quantile (inverted CDF): values seen in the data
            idx = np.clip(np.ceil(u * len(marginal)).astype(np.int64) - 1, 0, len(marginal) - 1)
            return marginal[idx]
        # DP or counted: piecewise-linear CDF over the public bins in value order (an atom
        # at the lower bound before the first bin), uniform within the bin
        k = value_cardinality(col, self.bins)
        order = value_order(col, self.bins, len(marginal))
        sorted_mass = np.asarray(marginal)[order]
        cum = np.concatenate([[0.0], np.cumsum(sorted_mass)])
        i = np.clip(np.searchsorted(cum, u, side="right") - 1, 0, len(marginal) - 1)
        p = sorted_mass[i]
        frac = np.where(p > 0, (u - cum[i]) / np.where(p > 0, p, 1.0), 0.5)
        b = order[i]
        x = numeric_decode(col, self.bins, np.minimum(b, k - 1), frac)
        return np.where(b >= k, np.nan, x)  # the missing code (counted fit)
