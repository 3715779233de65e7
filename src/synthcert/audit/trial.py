"""One trial of the Setsubun game (thesis, seed 003, section 3.3.1, Algorithms 7 and 8).

A trial prepares both sides (Algorithm 8, lines 1-4: a shadow fit on D_pos or D_neg and its c2
shadow tables; Algorithm 7, lines 8-9: the game's fit on the same table), trains every attack
on the shadow features (Algorithm 8, line 5) and scores blocks of generations (Algorithm 7,
lines 10-15). Each step is a pure function of a :class:`GameSetup` and its inputs, so it runs
in any process; every draw is seeded from ``SeedSequence(seed, spawn_key=(trial, role, i))``.
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

from synthcert.audit.adapter import SynthesizerSpec, draw_table, fit_synthesizer, privacy_of
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


@dataclass
class TrainedTrial:
    """A trial ready to play: trained attacks and the two fitted synthesizers."""

    trial: int
    attacks: list[Attack]
    synth_pos: Any
    synth_neg: Any
    privacy: dict[str, Any] | None


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
    return PreparedSide(trial, side.shadow, feats, synth, privacy_of(shadow, setup.n))


def train_attack(
    setup: GameSetup, trial: int, index: int, pos: list[np.ndarray], neg: list[np.ndarray]
) -> Attack:
    """Algorithm 8, line 5: train attack ``index`` of the trial on its shadow features."""
    attack = make_attack(setup.attack_names[index])
    ctx = copy.copy(setup.ctx)
    ctx.seed = derive_seed(setup.seed, trial, Role.TRAIN, index) % (2**31)
    attack.fit(ctx, pos, neg)
    return attack


def score_block(setup: GameSetup, trained: TrainedTrial, gens: Sequence[int]) -> ScoredBlock:
    """Algorithm 7, lines 10-15, for generations ``gens`` of one trial: IMs of every attack."""
    attacks, t = trained.attacks, trained.trial
    codes = any(a.needs_codes for a in attacks)
    per_side: dict[Role, list[list[np.ndarray]]] = {Role.GEN_POS: [], Role.GEN_NEG: []}
    for j in gens:
        for role, synth in ((Role.GEN_POS, trained.synth_pos), (Role.GEN_NEG, trained.synth_neg)):
            frame = draw_table(
                synth, setup.n, derive_seed(setup.seed, t, role, j), setup.spec.schema
            )
            table = setup.view(frame, codes)
            per_side[role].append(_table_features(attacks, table, setup, (t, role, j), False))
    ims = {}
    for i, attack in enumerate(attacks):
        pos = attack.score([f[i] for f in per_side[Role.GEN_POS]])
        neg = attack.score([f[i] for f in per_side[Role.GEN_NEG]])
        ims[attack.name] = (np.asarray(pos, float), np.asarray(neg, float))
    return ScoredBlock(t, list(gens), ims)
