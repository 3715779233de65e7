"""The one interface every synthesizer implements (scikit-learn style), and its privacy record."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError

PrivacyModel = Literal["none", "pure-dp", "approx-dp", "zcdp", "inherent-rdp"]
Seed = int | np.random.Generator | np.random.SeedSequence | None
DEFAULT_DELTA = 1e-5  # delta of the (epsilon, delta)-DP synthesizers when none is given


@dataclass(frozen=True)
class PrivacyGuarantee(Result):
    """What a fitted synthesizer guarantees: none, DP (epsilon, delta / rho) or inherent RDP."""

    model: PrivacyModel
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    alpha: float | None = None
    epsilon_rdp: float | None = None
    note: str = ""


NO_PRIVACY = PrivacyGuarantee("none", note="no formal guarantee: fitted without noise")


def as_generator(seed: Seed) -> np.random.Generator:
    """A numpy Generator from an int seed, a SeedSequence, a Generator or None."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


class NotFittedError(SynthcertError, RuntimeError):
    """``sample`` was called before ``fit``."""


class Synthesizer(ABC):
    """Common interface: ``fit(table) -> self``, ``sample(n, seed=...) -> table``, ``privacy``.

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

    @property
    def privacy(self) -> PrivacyGuarantee:
        """The guarantee of the last fit (``none`` unless the synthesizer says otherwise)."""
        return NO_PRIVACY

    def params(self) -> dict[str, Any]:
        """The constructor parameters (for provenance; never the fitted parameters)."""
        return {}

    def _check_fitted(self) -> None:
        if not self._fitted:
            raise NotFittedError(f"{type(self).__name__}.sample called before fit")
