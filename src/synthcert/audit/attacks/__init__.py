"""Inference methods of the Setsubun game (thesis, seed 003, section 3.3.3 and Table 3.1).

An attack is trained on shadow tables drawn from fits on D_pos and D_neg (Algorithm 8), then
turns each synthetic table into an inference measure (IM), large when the table came from D_pos.
Attacks see tables only through :class:`SyntheticTable` (encoded rows, discretised codes) and
work in two steps so that the game can stream tables: ``features(table)`` reduces a table to a
small array (kept), ``score(features)`` maps a batch of them to IMs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Self

import numpy as np

from synthcert._result import Result
from synthcert.errors import ParameterError, check_choice


@dataclass(frozen=True)
class AttackParams(Result):
    """Sizes of Table 3.1's inference methods: c1 rows a chunk, c2 shadow tables, c3 neighbours.

    Parameters
    ----------
    c1 : int
        Records per chunk of the *-dataset attacks.
    c2 : int
        Shadow tables per side.
    c3 : int
        Nearest synthetic records of the distance attack.
    chunks : int
        Chunks drawn per table for the *-dataset attacks.
    bins : int
        Bins per numeric column for the *-hist attacks.

    Raises
    ------
    ParameterError
        When a size is below 1.
    """

    c1: int = 10  # records per chunk of the *-dataset attacks
    c2: int = 10  # shadow tables per side (statistics; also the training tables of learned attacks)
    c3: int = 10  # nearest synthetic records of the distance attack
    chunks: int = 50  # chunks drawn per table for the *-dataset attacks (training and scoring)
    bins: int = 20  # bins per numeric column for the *-hist attacks (thesis section 3.4.2)

    def __post_init__(self) -> None:
        for name in ("c1", "c2", "c3", "chunks"):
            if getattr(self, name) < 1:
                raise ParameterError(f"attack parameter {name} must be at least 1")


@dataclass
class SyntheticTable:
    """One table seen by the attacks: encoded rows in [-1,1]^d and (if needed) bin codes."""

    X: np.ndarray
    codes: np.ndarray | None = None


@dataclass
class AttackContext:
    """What the adversary knows: the encoded target, the bin cardinalities, the sizes."""

    target: np.ndarray
    cardinalities: list[int]
    params: AttackParams = field(default_factory=AttackParams)
    seed: int = 0


class Attack(ABC):
    """An inference method: ``fit`` on shadow tables, then ``features`` and ``score`` per table."""

    name: ClassVar[str] = ""
    feature_key: ClassVar[str] = ""  # attacks with the same key share one feature computation
    needs_codes: ClassVar[bool] = False
    training_cost: ClassVar[float] = 0.0  # relative training time; only orders the game's jobs

    def fit(
        self,
        ctx: AttackContext,
        shadow_pos: Sequence[np.ndarray],
        shadow_neg: Sequence[np.ndarray],
    ) -> Self:
        """Train on the features of the shadow tables (Algorithm 8); default: remember ctx."""
        self.ctx = ctx
        return self

    @abstractmethod
    def features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """Reduce one synthetic table to the array this attack scores."""

    def shadow_features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """Features of a shadow (training) table; by default the same as :meth:`features`."""
        return self.features(table, ctx, rng)

    @abstractmethod
    def score(self, features: Sequence[np.ndarray]) -> np.ndarray:
        """The IMs of a batch of tables given their features (one float per table)."""


def _registry() -> dict[str, Callable[[], Attack]]:
    from synthcert.audit.attacks.distance import DistanceAttack
    from synthcert.audit.attacks.learned import LEARNED_ATTACKS, LearnedAttack
    from synthcert.audit.attacks.statistics import CalibratedStatisticsAttack, StatisticsAttack

    reg: dict[str, Callable[[], Attack]] = {
        "statistics": StatisticsAttack,
        "statistics-calibrated": CalibratedStatisticsAttack,
        "distance": DistanceAttack,
    }
    for name in LEARNED_ATTACKS:
        model, featureset = name.split("-")
        reg[name] = lambda m=model, f=featureset: LearnedAttack(m, f)
    return reg


THESIS_ATTACKS = (
    "rf-dataset",
    "rf-hist",
    "lr-dataset",
    "lr-hist",
    "mlp-dataset",
    "mlp-hist",
    "xgb-dataset",
    "xgb-hist",
    "statistics",
    "distance",
)
ATTACK_NAMES = (*THESIS_ATTACKS, "statistics-calibrated")
# The thesis's names (Table 3.1) for figures: RF_dataset, ..., statistics, sample.
THESIS_LABELS = {
    **{n: n.split("-")[0].upper() + "_" + n.split("-")[1] for n in THESIS_ATTACKS[:8]},
    "statistics": "statistics",
    "distance": "sample",
    "statistics-calibrated": "statistics (calibrated)",
}


def parse_attacks(spec: str | Sequence[str]) -> list[str]:
    """``all``, ``thesis`` (the ten of Table 3.1) or a comma-separated list of attack names.

    Parameters
    ----------
    spec : str or sequence of str
        Names, comma-separated or as a list.

    Returns
    -------
    list of str
        The attacks, without repeats, in the order given.

    Raises
    ------
    ParameterError
        For an unknown name or an empty choice.

    Examples
    --------
    >>> parse_attacks("distance, statistics")
    ['distance', 'statistics']
    """
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    out: list[str] = []
    for n in names:
        expanded = ATTACK_NAMES if n == "all" else THESIS_ATTACKS if n == "thesis" else (n,)
        for e in expanded:
            if e not in ATTACK_NAMES:
                raise ParameterError(
                    f"unknown attack {e!r}; choose from all, thesis, {', '.join(ATTACK_NAMES)}"
                )
            if e not in out:
                out.append(e)
    if not out:
        raise ParameterError("no attack chosen")
    return out


def make_attack(name: str) -> Attack:
    """A fresh, untrained attack called ``name``."""
    reg = _registry()
    check_choice("attack", name, ATTACK_NAMES)
    return reg[name]()


__all__ = [
    "ATTACK_NAMES",
    "THESIS_ATTACKS",
    "THESIS_LABELS",
    "Attack",
    "AttackContext",
    "AttackParams",
    "SyntheticTable",
    "make_attack",
    "parse_attacks",
]
