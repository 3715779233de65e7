"""MWEM+PGM and AIM on Private-PGM (thesis section 2.4.2, Algorithms 4-6; Table 4.2).

Columns are discretised with the shared :class:`~synthcert.data.discretize.Discretizer`
(numeric columns in equal-width bins over their public bounds) and decoded within the bin.
With ``epsilon`` the whole fit is rho-zCDP with rho from (epsilon, delta) by the standard
conversion (``rho_from_epsilon_delta``), spent exactly and recorded step by step in
``accountant``; neighbouring is unbounded (add or remove one record). Without ``epsilon`` the
marginals are measured exactly (the thesis's audit, section 3.5, uses this mode).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Self

import numpy as np
import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.encode import MissingPolicy
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.privacy.accountant import PrivacyAccountant, rho_from_epsilon_delta
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.sources import CountSource, check_cardinalities
from synthcert.synthesizers._pgm_inference import sample_codes
from synthcert.synthesizers._pgm_mechanisms import (
    Clique,
    PGMState,
    Progress,
    all_pairs,
    needed_marginals,
    run_aim,
    run_mwem,
)
from synthcert.synthesizers.base import DEFAULT_DELTA, DPSynthesizer
from synthcert.synthesizers.counts import fit_from_table


class _PGMSynthesizer(DPSynthesizer):
    """Shared parts: discretisation, budget, workload, sampling from the fitted model.

    ``pgm_iters`` mirror-descent iterations for the final estimate, ``round_iters`` (default
    the same) inside the selection loop, warm-started from the previous round.
    """

    privacy_model: ClassVar[str] = "zcdp"
    neighboring = "unbounded"
    mechanisms = (
        "Gaussian noise (marginal measurements)",
        "exponential mechanism (marginal selection)",
    )
    default_max_model_size: ClassVar[float] = 80.0
    mechanism: ClassVar[Callable[..., PGMState]]  # run_aim or run_mwem

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        workload: Sequence[Sequence[str]] | None = None,
        rounds: int | None = None,
        max_model_size: float | None = None,
        pgm_iters: int = 1000,
        round_iters: int | None = None,
        alpha: float = 0.9,
        bins: int = DEFAULT_BINS,
        missing: MissingPolicy = "model",
        seed: Seed = None,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(schema)
        if epsilon is not None:
            delta = DEFAULT_DELTA if delta is None else delta
            self.rho = rho_from_epsilon_delta(epsilon, delta)  # checks both
        else:
            self.rho = None
        if not 0 < alpha < 1:
            raise AssumptionError(
                f"alpha (the share of each round's budget spent on measurement) must lie in "
                f"(0, 1), got {alpha}",
                assumption="0 < alpha < 1",
                admissible="for example 0.9",
            )
        if rounds is not None and rounds < 1:
            raise AssumptionError("rounds must be at least 1", assumption="rounds >= 1")
        if pgm_iters < 1:
            raise AssumptionError("pgm_iters must be at least 1", assumption="pgm_iters >= 1")
        names = set(schema.names)
        if workload is not None:
            for cl in workload:
                unknown = [a for a in cl if a not in names]
                if unknown or not cl:
                    raise AssumptionError(
                        f"workload clique {tuple(cl)} names no schema column or unknown "
                        f"column(s) {unknown}",
                        assumption="workload cliques are non-empty sets of schema columns",
                        admissible=", ".join(schema.names),
                    )
        self.epsilon = epsilon
        self.delta = delta
        self.workload = None if workload is None else [tuple(cl) for cl in workload]
        self.rounds = rounds
        self.max_model_size = float(max_model_size or self.default_max_model_size)
        self.pgm_iters = int(pgm_iters)
        self.round_iters = round_iters
        self.alpha = float(alpha)
        self.bins = int(bins)
        self.discretizer = Discretizer(schema, bins=bins, missing=missing)
        self.seed = seed
        self.progress = progress
        self.accountant = PrivacyAccountant(epsilon, delta)

    def params(self) -> dict[str, Any]:
        """Constructor parameters, for provenance."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "workload": self.workload,
            "rounds": self.rounds,
            "max_model_size": self.max_model_size,
            "pgm_iters": self.pgm_iters,
            "round_iters": self.round_iters,
            "alpha": self.alpha,
            "bins": self.bins,
        }

    def _workload(self) -> list[tuple[Clique, float]]:
        names = self.schema.names
        if self.workload is not None:
            return [(tuple(cl), 1.0) for cl in self.workload]
        if len(names) == 1:
            return [((names[0],), 1.0)]
        return all_pairs(names)

    def fit(self, table: pd.DataFrame) -> Self:
        """Discretise ``table`` and fit from its counts (:meth:`fit_counts`).

        Missing values of nullable columns are one more category; ``rows_dropped_missing_``
        (private: run record only) counts the rows the missing-value policy dropped.
        """
        return fit_from_table(self, table)

    def fit_counts(self, source: CountSource) -> Self:
        """Run the mechanism (AIM or MWEM) on the marginals of ``source`` (counted on
        ``self.discretizer``'s bins), and keep the calibrated model (in memory only).

        Every marginal the mechanism may score or measure (the one-way marginals and the
        workload's downward closure) is asked of ``source`` in one request.
        """
        cards = self.discretizer.cardinalities
        check_cardinalities(source, cards)
        names = self.schema.names
        sizes = dict(zip(names, cards, strict=True))
        workload = self._workload()
        needed = needed_marginals(names, workload)
        keys = [tuple(names.index(a) for a in cl) for cl in needed]
        counts = source.marginal(keys)
        answers = {cl: counts[k].astype(np.float64) for cl, k in zip(needed, keys, strict=True)}
        n = source.rows
        if n == 0:
            raise DataError(f"{type(self).__name__} needs at least one complete row")
        rng = np.random.default_rng(seed_sequence(self.seed))
        self.accountant = PrivacyAccountant(self.epsilon, self.delta)
        self.state_ = type(self).mechanism(
            answers,
            n,
            sizes,
            workload,
            rho=self.rho,
            accountant=self.accountant,
            rng=rng,
            rounds=self.rounds,
            max_model_size=self.max_model_size,
            alpha=self.alpha,
            pgm_iters=self.pgm_iters,
            round_iters=self.round_iters,
            progress=self.progress,
        )
        self.accountant.check_within_budget()
        self.n_ = n
        self._fitted = True
        return self

    @property
    def selected(self) -> list[Clique]:
        """The marginals measured, in order."""
        self._check_fitted()
        return list(self.state_.selected)

    @property
    def fit_seconds(self) -> float:
        """Wall-clock seconds of the last fit's mechanism (selection + estimation)."""
        self._check_fitted()
        return self.state_.seconds

    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Forward-sample codes from the model's junction tree, then decode within bins."""
        self._check_fitted()
        if n < 0:
            raise ValueError("n must be non-negative")
        rng = np.random.default_rng(seed_sequence(seed))
        codes = sample_codes(self.state_.calib, self.schema.names, int(n), rng)  # type: ignore[arg-type]
        return self.discretizer.inverse_transform(codes, rng)

    def model_marginal(self, columns: Sequence[str]) -> np.ndarray:
        """The fitted model's marginal (probabilities) over ``columns`` (post-processing)."""
        self._check_fitted()
        p = self.state_.calib.project(tuple(columns))  # type: ignore[union-attr]
        return p / p.sum()

    def claim_rho(self) -> float | None:
        """rho-zCDP of the requested (epsilon, delta) (AIM's conversion; public)."""
        return self.rho


class AIMSynthesizer(_PGMSynthesizer):
    """AIM: adaptive, iterative marginal selection with Private-PGM (McKenna et al. 2022).

    Defaults follow thesis Algorithm 4: all 2-way marginals as workload, MAX-SIZE 80 MB,
    T = 16 k, alpha = 0.9. ``rounds`` overrides T under DP, and is the number of selection
    rounds without DP (default k).
    """

    name = "aim"
    description = "AIM: adaptive, iterative marginal selection with Private-PGM."
    mechanism = staticmethod(run_aim)


class MWEMPGMSynthesizer(_PGMSynthesizer):
    """MWEM+PGM (McKenna et al. 2019): T rounds (default k) of select-measure-estimate.

    Each round spends rho/T, a share ``alpha`` on the Gaussian measurement; the model-size
    limit grows as max_model_size * t / T (25 MB by default, as in the reference).
    """

    name = "mwem-pgm"
    description = "MWEM with Private-PGM estimation of a graphical model."
    default_max_model_size = 25.0
    mechanism = staticmethod(run_mwem)
