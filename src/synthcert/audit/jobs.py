"""The game's job graph as a typed state machine: each finished job releases the next ones.

A trial moves through :class:`Stage` values: both sides are prepared (``PREPARE``), then each
attack is trained (``TRAIN``), then blocks of generations are scored (``SCORE``); once every
generation of every trial is in, each attack is rated (``RATE``: AUC, TPR, ε lower bound).
Results arrive in completion order (``synthcert.audit.schedule.run_jobs``) and are stored by
trial and generation, so what :class:`GamePlay` records does not depend on that order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from typing import Any

import numpy as np

from synthcert.audit.attacks import Attack, make_attack
from synthcert.audit.schedule import Job
from synthcert.audit.scoring import AttackScore, score_attack
from synthcert.audit.trial import (
    SIDES,
    TARGET_TRIAL,
    GameSetup,
    PreparedSide,
    Role,
    ScoredBlock,
    TrainedTrial,
    prepare_side,
    score_block,
    train_attack,
)
from synthcert.seeding import derive_seed

Progress = Callable[[int, int], None]  # (units done so far, total units)


class Stage(Enum):
    """What a job does; its value is the first element of the job's priority (lower first)."""

    PREPARE = 0  # one side of a trial: shadow fit, shadow tables, game fit
    TRAIN = 1  # one attack of a trial
    SCORE = 2  # a block of generations of a trial
    RATE = 3  # one attack's scores from all its IMs


@dataclass(frozen=True)
class JobKey:
    """Which job a result belongs to: its stage, trial and index (side, attack or block)."""

    stage: Stage
    trial: int  # -1 for RATE, which spans all trials
    index: int


@dataclass
class TrialState:
    """What a trial has so far: its prepared sides, then its trained attacks."""

    sides: dict[Role, PreparedSide] = field(default_factory=dict)
    attacks: dict[int, Attack] = field(default_factory=dict)


def preparation_jobs(setup: GameSetup, trials: int) -> list[Job]:
    """The first jobs of the game: both sides of every trial (they need the data)."""
    return [
        Job((Stage.PREPARE.value, t, role), JobKey(Stage.PREPARE, t, role), prepare_side,
            (setup, t, role))
        for t in range(trials)
        for role in SIDES
    ]  # fmt: skip


class GamePlay:
    """The game's bookkeeping: turns each finished job into the jobs it makes ready.

    Parameters
    ----------
    setup : GameSetup
        The game without its data (sent with every job).
    trials, generations : int
        Trials, and generations per trial and side.
    progress : callable, optional
        Called with (units done, total units); a unit is a trained trial or a generation.
    bound_delta : float, optional
        δ of the ε lower bound; None takes the δ the synthesizer claims (else 0).
    confidence : float
        Confidence of the Clopper-Pearson intervals of the bound.
    blocks_per_trial : int
        Scoring jobs each trial's generations are split into.
    """

    def __init__(
        self,
        setup: GameSetup,
        trials: int,
        generations: int,
        progress: Progress | None,
        bound_delta: float | None,
        confidence: float,
        blocks_per_trial: int,
    ) -> None:
        self.setup = setup
        self.blocks_per_trial = blocks_per_trial
        self.bound_delta = bound_delta
        self.confidence = confidence
        self.scores: dict[str, AttackScore] = {}
        self.generations = generations
        self.progress = progress
        self.total = trials + trials * generations
        self.done = 0
        self.trials: dict[int, TrialState] = {t: TrialState() for t in range(trials)}
        names = setup.attack_names
        self.pos_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.neg_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.privacy: dict[str, Any] | None = None
        self._tick(0)

    def _tick(self, units: int) -> None:
        self.done += units
        if self.progress:
            self.progress(self.done, self.total)

    def on_result(self, key: JobKey, result: Any) -> list[Job]:
        """Record ``result``; return the jobs it makes ready: a prepared trial's training, a
        trained trial's generation blocks, the attacks' ratings after the last block."""
        if key.stage is Stage.PREPARE:
            return self._prepared(key.trial, result)
        if key.stage is Stage.TRAIN:
            return self._trained(key.trial, key.index, result)
        if key.stage is Stage.SCORE:
            return self._scored(result)
        self.scores[result.name] = result
        return []

    def _prepared(self, t: int, side: PreparedSide) -> list[Job]:
        state = self.trials[t]
        state.sides[side.role] = side
        if side.role is Role.SHADOW_POS and t == 0:
            self.privacy = side.privacy
        if len(state.sides) < len(SIDES):
            return []
        pos, neg = state.sides[Role.SHADOW_POS], state.sides[Role.SHADOW_NEG]
        return [
            Job(
                (Stage.TRAIN.value, -make_attack(name).training_cost, t, i),
                JobKey(Stage.TRAIN, t, i),
                train_attack,
                (self.setup, t, i, pos.shadow[i], neg.shadow[i]),
            )
            for i, name in enumerate(self.setup.attack_names)
        ]

    def _trained(self, t: int, index: int, attack: Attack) -> list[Job]:
        state = self.trials[t]
        state.attacks[index] = attack
        n_attacks = len(self.setup.attack_names)
        if len(state.attacks) < n_attacks:
            return []
        self._tick(1)
        sides = state.sides
        trained = TrainedTrial(
            t,
            [state.attacks[i] for i in range(n_attacks)],
            sides[Role.SHADOW_POS].synth,
            sides[Role.SHADOW_NEG].synth,
            sides[Role.SHADOW_POS].privacy,
        )
        self.trials[t] = TrialState()  # the fits and attacks now travel with the blocks
        size = math.ceil(self.generations / self.blocks_per_trial)
        return [
            Job((Stage.SCORE.value, t, a), JobKey(Stage.SCORE, t, a), score_block,
                (self.setup, trained, range(a, min(a + size, self.generations))))
            for a in range(0, self.generations, size)
        ]  # fmt: skip

    def _scored(self, block: ScoredBlock) -> list[Job]:
        for name, (p, q) in block.ims.items():
            self.pos_ims[name][block.trial, block.gens] = p
            self.neg_ims[name][block.trial, block.gens] = q
        self._tick(len(block.gens))
        return self._rating_jobs() if self.done == self.total else []

    def _rating_jobs(self) -> list[Job]:
        """Scores of every attack from all its IMs, once the last block is in."""
        if self.bound_delta is None:
            self.bound_delta = float((self.privacy or {}).get("delta") or 0.0)
        seed = self.setup.seed
        return [
            Job(
                (Stage.RATE.value, i),
                JobKey(Stage.RATE, -1, i),
                partial(
                    score_attack,
                    delta=self.bound_delta,
                    confidence=self.confidence,
                    seed=derive_seed(seed, TARGET_TRIAL, i) % 2**31,
                ),
                (name, self.pos_ims[name].ravel(), self.neg_ims[name].ravel()),
            )
            for i, name in enumerate(self.setup.attack_names)
        ]
