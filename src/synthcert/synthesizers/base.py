"""The one interface every synthesizer implements (scikit-learn style), and its privacy record."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Self

import numpy as np
import pandas as pd

from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError
from synthcert.privacy.claims import (
    Assumption,
    PrivacyClaim,
    domain_assumption,
    dp_claim,
    no_privacy_claim,
)
from synthcert.seeding import Seed

DEFAULT_DELTA = 1e-5  # delta of the (epsilon, delta)-DP synthesizers when none is given


class NotFittedError(SynthcertError, RuntimeError):
    """``sample`` was called before ``fit``."""


class Synthesizer(ABC):
    """Common interface: ``fit(table) -> self``, ``sample(n, seed=...) -> table``,
    ``privacy_claim(n_out) -> PrivacyClaim``.

    Subclasses take the :class:`Schema` and their parameters in ``__init__`` and keep the
    generative parameters in memory only.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    privacy_model: ClassVar[str] = "none"

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._fitted = False

    @abstractmethod
    def fit(self, table: pd.DataFrame) -> Self:
        """Learn the generative parameters from ``table`` (columns as in the schema)."""

    @abstractmethod
    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Draw ``n`` synthetic rows with the schema's columns and types."""

    def sample_chunk(self, rows: int, seed: np.random.SeedSequence) -> pd.DataFrame:
        """One chunk of a chunked release: ``rows`` rows drawn from the child seed ``seed``.

        What the engines call (:class:`~synthcert.statistics.protocols.SamplesChunks`): chunk
        ``i`` of a release is ``sample_chunk(rows_i, child_i)``. The default is
        ``self.sample(rows, seed=seed)``; a model with its own chunk arithmetic overrides it.

        Parameters
        ----------
        rows : int
            Rows to draw (0 gives an empty frame with the schema's columns).
        seed : numpy.random.SeedSequence
            The chunk's child seed (secret).

        Returns
        -------
        pandas.DataFrame
            ``rows`` synthetic rows with the schema's columns and types.

        Raises
        ------
        NotFittedError
            The model is not fitted.
        """
        return self.sample(rows, seed=seed)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        """The public claim of releasing ``n_out`` rows of this fit (none without DP)."""
        return no_privacy_claim(n_out)

    def params(self) -> dict[str, Any]:
        """The constructor parameters (for provenance; never the fitted parameters)."""
        return {}

    def _check_fitted(self) -> None:
        if not self._fitted:
            raise NotFittedError(f"{type(self).__name__}.sample called before fit")


class DPSynthesizer(Synthesizer):
    """A synthesizer whose DP fit records every mechanism in ``self.accountant``.

    Subclasses set ``epsilon`` (None: no DP), ``delta`` and ``accountant`` in their fit, and
    declare their neighbouring relation and mechanisms; the claim is the *requested* budget
    (public), which :meth:`PrivacyAccountant.check_within_budget` guarantees the ledger
    does not exceed.
    """

    neighboring: ClassVar[str] = "unbounded"
    mechanisms: ClassVar[tuple[str, ...]] = ()
    epsilon: float | None
    delta: float | None

    def claim_rho(self) -> float | None:
        """The zCDP rho of the requested budget, for synthesizers accounted in zCDP."""
        return None

    def claim_assumptions(self) -> tuple[Assumption, ...]:
        """Public assumptions: the domain, the neighbouring relation, n when it is public."""
        data_cols = [c.name for c in self.schema.columns if c.source == "data"]
        out = [
            domain_assumption(self.schema.bounds_source, data_cols),
            Assumption("neighboring", self.neighboring, "definition"),
        ]
        n = getattr(self, "n_", None)
        if self.neighboring == "bounded" and n is not None:
            out.append(Assumption("n", int(n), "definition", "bounded neighbouring keeps n public"))
        return tuple(out)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        """The requested (epsilon, delta) of the last fit, or no claim without epsilon."""
        if self.epsilon is None:
            return no_privacy_claim(n_out)
        self._check_fitted()
        spent = self.accountant.check_within_budget()
        delta = 0.0 if spent.delta == 0.0 else float(self.delta or 0.0)
        return dp_claim(
            epsilon=float(self.epsilon),
            delta=delta,
            rho=self.claim_rho(),
            neighboring=self.neighboring,
            n_out=int(n_out),
            mechanisms=self.mechanisms,
            assumptions=self.claim_assumptions(),
        )
