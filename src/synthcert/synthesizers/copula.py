"""The Gaussian-copula synthesizer (thesis section 4.3.2, "GCopula"), with and without DP.

Without DP: marginals are the empirical CDFs (numeric columns, raw values within the public
bounds) and the category frequencies; the copula correlation is the correlation of the
normal scores Phi^{-1}(rank / (n + 1)) (categories: the midpoint of their CDF step).

With DP (after Li, Xiong & Jiang 2014, DPCopula-Kendall): a share ``marginal_share`` of epsilon
buys Laplace-noised histograms (numeric columns on the public equal-width bins, categorical on
the declared categories; clipped at 0 and renormalised), the rest buys Laplace-noised
Kendall's tau of every pair, mapped by r = sin(pi tau / 2) and projected to the nearest
correlation matrix (Higham 2002). Neighbouring is *bounded* (one record replaced, n public).
"""

from __future__ import annotations

import math
from typing import Self

import numpy as np
import pandas as pd
from scipy import special, stats

from synthcert.data.discretize import DEFAULT_BINS, bin_values, numeric_bin_codes
from synthcert.data.encode import MissingPolicy, category_codes, numeric_values, prepare_frame
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.mechanisms import laplace_mechanism
from synthcert.synthesizers.base import NO_PRIVACY, PrivacyGuarantee, Seed, Synthesizer
from synthcert.synthesizers.gaussian import gaussian_factor, seed_sequence


def normal_scores(values: np.ndarray) -> np.ndarray:
    """Phi^{-1}(rank / (n + 1)) with average ranks for ties (van der Waerden scores)."""
    ranks = stats.rankdata(values, method="average")
    return special.ndtri(ranks / (len(values) + 1.0))


def category_scores(codes: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Phi^{-1} of the midpoint of each category's CDF step."""
    cum = np.concatenate([[0.0], np.cumsum(probs)])
    mid = np.clip((cum[:-1] + cum[1:]) / 2.0, 1e-12, 1 - 1e-12)
    return special.ndtri(mid)[codes]


def kendall_tau_a(x: np.ndarray, y: np.ndarray) -> float:
    """tau_a = (concordant - discordant) / (n(n-1)/2), recovered from scipy's tau_b."""
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
    """
    return 4.0 / n


def nearest_correlation(a: np.ndarray, *, tol: float = 1e-10, max_iter: int = 500) -> np.ndarray:
    """Nearest correlation matrix in Frobenius norm (Higham 2002, alternating projections with
    Dykstra's correction), then eigenvalues floored at 1e-8 and the diagonal reset to 1."""
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
    """Negative entries set to 0, then rescaled to sum to 1 (uniform if nothing is left)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, None)
    total = p.sum()
    return p / total if total > 0 else np.full(p.shape, 1.0 / p.size)


def typed_frame(schema: Schema, data: dict[str, np.ndarray]) -> pd.DataFrame:
    """A frame with the schema's columns: integers as int64, categories as declared Categoricals."""
    out: dict[str, object] = {}
    for col in schema.columns:
        values = data[col.name]
        if isinstance(col, NumericColumn):
            x = np.clip(np.asarray(values, dtype=np.float64), col.lower, col.upper)
            out[col.name] = np.rint(x).astype(np.int64) if col.integer else x
        else:
            out[col.name] = pd.Categorical.from_codes(
                np.asarray(values, dtype=np.int64), categories=list(col.categories)
            )
    return pd.DataFrame(out, columns=schema.names)


class GaussianCopulaSynthesizer(Synthesizer):
    """Empirical (or DP-histogram) marginals joined by a Gaussian copula.

    ``epsilon=None`` fits without noise. With ``epsilon``: ``marginal_share * epsilon`` for the
    d marginal histograms (epsilon / d each, L1 sensitivity 2 under replacement) and the rest
    for the d(d-1)/2 Kendall taus (sensitivity 4/n each). ``delta`` is accepted for a uniform
    interface; the mechanism is pure epsilon-DP. ``seed`` drives the DP noise of ``fit``.
    """

    name = "gaussian-copula"
    description = "Empirical marginals joined by a Gaussian copula; DP version after DPCopula."
    privacy_model = "pure-dp"

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        marginal_share: float = 0.5,
        bins: int = DEFAULT_BINS,
        missing: MissingPolicy = "drop",
        seed: Seed = None,
    ) -> None:
        super().__init__(schema)
        if not 0 < marginal_share < 1:
            raise AssumptionError(
                f"marginal_share must lie in (0, 1), got {marginal_share}",
                assumption="0 < marginal_share < 1",
                admissible="for example 0.5",
            )
        if bins < 2:
            raise AssumptionError("bins must be at least 2", assumption="bins >= 2")
        self.accountant = PrivacyAccountant(epsilon, delta)
        self.epsilon = epsilon
        self.delta = delta
        self.marginal_share = float(marginal_share)
        self.bins = int(bins)
        self.missing = missing
        self.seed = seed

    def params(self) -> dict:
        """Constructor parameters, for provenance."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "marginal_share": self.marginal_share,
            "bins": self.bins,
        }

    # -- fitting -------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Self:
        """Learn the marginals and the copula correlation (noised when epsilon is set)."""
        frame, dropped = prepare_frame(table, self.schema, missing=self.missing)
        n = len(frame)
        if n < 2:
            raise DataError(f"the copula needs at least 2 complete rows, got {n}")
        cols = self.schema.columns
        raw: list[np.ndarray] = []
        for col in cols:
            if isinstance(col, NumericColumn):
                raw.append(np.clip(numeric_values(frame[col.name], col), col.lower, col.upper))
            else:
                raw.append(category_codes(frame[col.name], col))
        self.accountant = PrivacyAccountant(self.epsilon, self.delta)
        self.n_ = n
        self.rows_dropped_missing_ = dropped
        if self.epsilon is None:
            self._fit_exact(raw)
        else:
            self._fit_dp(raw, np.random.default_rng(seed_sequence(self.seed)))
            self.accountant.check_within_budget()
        self._factor = gaussian_factor(self.corr_)
        self._fitted = True
        return self

    def _fit_exact(self, raw: list[np.ndarray]) -> None:
        scores = np.empty((self.n_, len(raw)))
        self._marginals: list[np.ndarray] = []
        for j, (col, x) in enumerate(zip(self.schema.columns, raw, strict=True)):
            if isinstance(col, NumericColumn):
                self._marginals.append(np.sort(x))
                scores[:, j] = normal_scores(x)
            else:
                p = np.bincount(x, minlength=len(col.categories)) / self.n_
                self._marginals.append(p)
                scores[:, j] = category_scores(x, p)
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.corrcoef(scores, rowvar=False)
        corr = np.atleast_2d(np.nan_to_num(corr, nan=0.0))
        np.fill_diagonal(corr, 1.0)
        self.corr_ = nearest_correlation(corr)

    def _fit_dp(self, raw: list[np.ndarray], rng: np.random.Generator) -> None:
        eps = float(self.epsilon)  # type: ignore[arg-type]
        d = len(raw)
        eps_marg = self.marginal_share * eps if d > 1 else eps
        eps_corr = eps - eps_marg
        self._marginals = []
        for col, x in zip(self.schema.columns, raw, strict=True):
            if isinstance(col, NumericColumn):
                counts = np.bincount(numeric_bin_codes(x, col, self.bins), minlength=self.bins)
            else:
                counts = np.bincount(x, minlength=len(col.categories))
            # replacing one record moves one count down and one up: L1 sensitivity 2
            noisy = laplace_mechanism(
                counts, 2.0, eps_marg / d, rng=rng, accountant=self.accountant,
                name=f"laplace:marginal:{col.name}",
            )  # fmt: skip
            self._marginals.append(clip_normalise(noisy))
        corr = np.eye(d)
        pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
        if pairs:
            taus = np.array([kendall_tau_a(raw[i], raw[j]) for i, j in pairs])
            # the vector of taus has L1 sensitivity len(pairs) * 4/n
            noisy = laplace_mechanism(
                taus, len(pairs) * kendall_tau_sensitivity(self.n_), eps_corr, rng=rng,
                accountant=self.accountant, name="laplace:kendall-tau",
            )  # fmt: skip
            r = np.sin(np.pi * np.clip(noisy, -1.0, 1.0) / 2.0)
            for (i, j), v in zip(pairs, r, strict=True):
                corr[i, j] = corr[j, i] = v
        self.corr_ = nearest_correlation(corr)

    # -- sampling ------------------------------------------------------------------------
    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Draw z ~ N(0, R), u = Phi(z), and invert each marginal at u."""
        self._check_fitted()
        if n < 0:
            raise ValueError("n must be non-negative")
        rng = np.random.default_rng(seed_sequence(seed))
        z = rng.standard_normal((n, len(self.schema.columns))) @ self._factor.T
        u = special.ndtr(z)
        data: dict[str, np.ndarray] = {}
        for j, col in enumerate(self.schema.columns):
            data[col.name] = self._invert(col, self._marginals[j], u[:, j])
        return typed_frame(self.schema, data)

    def _invert(self, col, marginal: np.ndarray, u: np.ndarray) -> np.ndarray:
        if isinstance(col, CategoricalColumn):
            cum = np.cumsum(marginal)
            return np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), len(cum) - 1)
        if self.epsilon is None:  # empirical quantile (inverted CDF): values seen in the data
            idx = np.clip(np.ceil(u * len(marginal)).astype(np.int64) - 1, 0, len(marginal) - 1)
            return marginal[idx]
        # DP: piecewise-linear CDF over the public bins (uniform within the bin)
        cum = np.concatenate([[0.0], np.cumsum(marginal)])
        b = np.clip(np.searchsorted(cum, u, side="right") - 1, 0, self.bins - 1)
        p = marginal[b]
        frac = np.where(p > 0, (u - cum[b]) / np.where(p > 0, p, 1.0), 0.5)
        return bin_values(col, self.bins, b, frac)

    # -- privacy -------------------------------------------------------------------------
    @property
    def privacy(self) -> PrivacyGuarantee:
        """epsilon-DP spent by the last fit (bounded neighbouring), or none without epsilon."""
        if self.epsilon is None:
            return NO_PRIVACY
        return self.accountant.guarantee(
            note="bounded neighbouring (one record replaced, n public); "
            f"{self.marginal_share:.0%} of epsilon on marginals, the rest on Kendall's tau"
        )
