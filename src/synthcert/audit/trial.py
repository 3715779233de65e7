"""One trial of the Setsubun game (thesis, seed 003, section 3.3.1, Algorithms 7 and 8).

A trial prepares both sides (Algorithm 8, lines 1-4: a shadow fit on D_pos or D_neg and its c2
shadow tables; Algorithm 7, lines 8-9: the game's fit on the same table), trains every attack
on the shadow features (Algorithm 8, line 5), draws the generations of each side and reduces
them to the attacks' features (Algorithm 7, lines 10-13), and scores blocks of generations with
the trained attacks (lines 14-15). Drawing needs only the game's fits, not the trained attacks,
so it runs beside the training, and without the model libraries. Each step is a pure function
of its inputs, so it runs in any process; every draw is seeded from
``SeedSequence(seed, spawn_key=(trial, role, i))``, per table, so no result depends on how the
generations are split into jobs.
"""

from __future__ import annotations

import copy
import dataclasses
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
import pandas as pd

from synthcert.audit.adapter import (
    SynthesizerSpec,
    deterministic_fit,
    draw_table,
    fit_synthesizer,
    privacy_of,
)
from synthcert.audit.attacks import Attack, AttackContext, SyntheticTable, make_attack
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder
from synthcert.seeding import derive_seed


class Role(IntEnum):
    """The middle key of the seed tree ``(trial, role, index)``: which draw a seed is for."""

    FIT_SHADOW_POS = 0
    FIT_SHADOW_NEG = 1
    FIT_POS = 2
    FIT_NEG = 3
    SHADOW_POS = 4
    SHADOW_NEG = 5
    GEN_POS = 6
    GEN_NEG = 7
    TRAIN = 8


TARGET_TRIAL = 2**31 - 1  # the trial key of the draws outside any trial (target, scores)


@dataclass(frozen=True)
class Side:
    """One side of the game: its data, its shadow-table role and its two fit roles."""

    data: str  # the GameSetup attribute holding the table
    shadow: Role  # role of its shadow tables
    shadow_fit: Role
    game_fit: Role


SIDES: dict[Role, Side] = {
    Role.SHADOW_POS: Side("d_pos", Role.SHADOW_POS, Role.FIT_SHADOW_POS, Role.FIT_POS),
    Role.SHADOW_NEG: Side("d_neg", Role.SHADOW_NEG, Role.FIT_SHADOW_NEG, Role.FIT_NEG),
}


@dataclass
class GameSetup:
    """Everything a job needs (sent to the worker processes)."""

    spec: SynthesizerSpec
    d_pos: pd.DataFrame | None  # None in the jobs that need no data (training, scoring)
    d_neg: pd.DataFrame | None
    attack_names: list[str]
    ctx: AttackContext
    seed: int
    generations: int
    n: int  # rows per synthetic table, |D|

    def without_data(self) -> GameSetup:
        """The same setup without the two tables (cheaper to send to a worker)."""
        return dataclasses.replace(self, d_pos=None, d_neg=None)

    def for_side(self, role: Role) -> GameSetup:
        """The same setup with only the table side ``role`` is fitted on (what its job needs)."""
        other = "d_neg" if SIDES[role].data == "d_pos" else "d_pos"
        return dataclasses.replace(self, **{other: None})

    def view(self, frame: pd.DataFrame, needs_codes: bool) -> SyntheticTable:
        """Encode (and discretise) a synthetic frame for the attacks."""
        X, _ = Encoder(self.spec.schema, missing="drop").encode(frame)
        codes = None
        if needs_codes:
            codes = Discretizer(self.spec.schema, bins=self.ctx.params.bins).transform(frame)
        return SyntheticTable(X, codes)


@dataclass
class PreparedSide:
    """Output of a preparation job: one side's shadow features per attack and its game fit."""

    trial: int
    role: Role  # Role.SHADOW_POS or Role.SHADOW_NEG
    shadow: list[list[np.ndarray]]  # [attack][table] features
    synth: Any  # fitted for Algorithm 7's generations
    privacy: dict[str, Any] | None
    deterministic_fit: bool = False  # the synthesizer declares a fit without randomness


@dataclass(frozen=True)
class DrawnBlock:
    """Output of a drawing job: the attacks' features of generations ``gens`` of one side."""

    trial: int
    role: Role  # Role.GEN_POS or Role.GEN_NEG
    gens: list[int]
    features: list[list[np.ndarray]]  # [generation][attack]


@dataclass(frozen=True)
class ScoredBlock:
    """Output of a scoring job: the IMs of generations ``gens`` of one trial, per attack."""

    trial: int
    gens: list[int]
    ims: dict[str, tuple[np.ndarray, np.ndarray]]  # attack: (IMs on D_pos fits, on D_neg fits)


def _table_features(
    attacks: Sequence[Attack],
    table: SyntheticTable,
    setup: GameSetup,
    key: tuple[int, ...],
    shadow: bool,
) -> list[np.ndarray]:
    """Features of one table for every attack; attacks sharing a feature key share one draw."""
    cache: dict[str, np.ndarray] = {}
    out = []
    for attack in attacks:
        k = attack.feature_key or attack.name
        if k not in cache:
            rng = np.random.default_rng(derive_seed(setup.seed, *key, zlib.crc32(k.encode())))
            fn = attack.shadow_features if shadow else attack.features
            cache[k] = fn(table, setup.ctx, rng)
        out.append(cache[k])
    return out


def prepare_side(setup: GameSetup, trial: int, role: Role) -> PreparedSide:
    """Algorithm 8, lines 1-4 for one side (shadow fit, c2 shadow tables) + Alg. 7, line 8 or 9."""
    attacks = [make_attack(name) for name in setup.attack_names]
    codes = any(a.needs_codes for a in attacks)
    s, schema = setup.seed, setup.spec.schema
    side = SIDES[role]
    data = getattr(setup, side.data)
    shadow = fit_synthesizer(setup.spec, data, derive_seed(s, trial, side.shadow_fit))
    per_table = []
    for j in range(setup.ctx.params.c2):
        frame = draw_table(shadow, setup.n, derive_seed(s, trial, side.shadow, j), schema)
        table = setup.view(frame, codes)
        per_table.append(_table_features(attacks, table, setup, (trial, side.shadow, j), True))
    feats = [[f[i] for f in per_table] for i in range(len(attacks))]
    synth = fit_synthesizer(setup.spec, data, derive_seed(s, trial, side.game_fit))
    return PreparedSide(
        trial, side.shadow, feats, synth, privacy_of(shadow, setup.n), deterministic_fit(synth)
    )


def train_attack(
    setup: GameSetup, trial: int, index: int, pos: list[np.ndarray], neg: list[np.ndarray]
) -> Attack:
    """Algorithm 8, line 5: train attack ``index`` of the trial on its shadow features."""
    attack = make_attack(setup.attack_names[index])
    ctx = copy.copy(setup.ctx)
    ctx.seed = derive_seed(setup.seed, trial, Role.TRAIN, index) % (2**31)
    attack.fit(ctx, pos, neg)
    return attack


def draw_block(
    setup: GameSetup, trial: int, role: Role, synth: Any, gens: Sequence[int]
) -> DrawnBlock:
    """Algorithm 7, lines 10-13, for generations ``gens`` of one side: tables and features.

    ``synth`` is the side's game fit (Algorithm 7, line 8 or 9); ``role`` is ``GEN_POS`` or
    ``GEN_NEG``. Generation j's table is drawn with seed ``(trial, role, j)`` and its features
    with ``(trial, role, j, feature key)``, as in :func:`prepare_side`.
    """
    attacks = [make_attack(name) for name in setup.attack_names]
    codes = any(a.needs_codes for a in attacks)
    features = []
    for j in gens:
        frame = draw_table(
            synth, setup.n, derive_seed(setup.seed, trial, role, j), setup.spec.schema
        )
        table = setup.view(frame, codes)
        features.append(_table_features(attacks, table, setup, (trial, role, j), False))
    return DrawnBlock(trial, role, list(gens), features)


def score_block(
    trial: int,
    attacks: Sequence[Attack],
    gens: Sequence[int],
    pos: Sequence[list[np.ndarray]],
    neg: Sequence[list[np.ndarray]],
) -> ScoredBlock:
    """Algorithm 7, lines 14-15: IMs of every trained attack on the features of ``gens``.

    ``pos`` and ``neg`` hold, per generation of ``gens`` in order, the features of the tables
    drawn from the D_pos and D_neg fits (:func:`draw_block`). Each side is one batch per attack.
    """
    ims = {}
    for i, attack in enumerate(attacks):
        p = attack.score([f[i] for f in pos])
        q = attack.score([f[i] for f in neg])
        ims[attack.name] = (np.asarray(p, float), np.asarray(q, float))
    return ScoredBlock(trial, list(gens), ims)
