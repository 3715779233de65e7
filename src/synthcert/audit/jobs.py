"""The game's job graph as a typed state machine: each finished job releases the next ones.

A trial moves through :class:`Stage` values: each side is prepared (``PREPARE``); a prepared
side's generations are drawn and reduced to features in pieces (``DRAW``), while the attacks
are trained once both sides are prepared (``TRAIN``); a block of generations is scored once its
features are drawn and the attacks trained (``SCORE``); once every generation of every trial is
in, each attack is rated (``RATE``: AUC, TPR, ε lower bound). Training, scoring and rating need
the model libraries (heavy jobs, :mod:`synthcert.audit.schedule`); preparing and drawing, which
take about two thirds of the time, do not. Results arrive in completion order
(``synthcert.audit.schedule.run_jobs``) and are stored by trial and generation, so what
:class:`GamePlay` records does not depend on that order. The blocks and pieces depend on the
number of generations only, never on the workers, so neither do the IMs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
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
    DrawnBlock,
    GameSetup,
    PreparedSide,
    Role,
    ScoredBlock,
    draw_block,
    prepare_side,
    score_block,
    train_attack,
)
from synthcert.seeding import derive_seed

Progress = Callable[[int, int], None]  # (units done so far, total units)

SCORE_BLOCKS = 4  # scoring jobs per trial (each scores its generations in one batch per side)
DRAW_PIECES = 2  # drawing jobs per scoring block and side


class Stage(Enum):
    """What a job does; its value is the first element of the job's priority (lower first)."""

    PREPARE = 0  # one side of a trial: shadow fit, shadow tables, game fit
    TRAIN = 1  # one attack of a trial
    DRAW = 2  # a piece of one side's generations of a trial: tables and their features
    SCORE = 3  # a block of generations of a trial: IMs of the trained attacks
    RATE = 4  # one attack's scores from all its IMs


GEN_ROLE = {Role.SHADOW_POS: Role.GEN_POS, Role.SHADOW_NEG: Role.GEN_NEG}


@dataclass(frozen=True)
class JobKey:
    """Which job a result belongs to: its stage, trial and index (side, attack or block)."""

    stage: Stage
    trial: int  # -1 for RATE, which spans all trials
    index: int


def blocks(generations: int, parts: int) -> list[range]:
    """``range(generations)`` cut into at most ``parts`` consecutive blocks of equal size
    (the last one shorter), ceil(generations / parts) generations each."""
    size = math.ceil(generations / parts)
    return [range(a, min(a + size, generations)) for a in range(0, generations, size)]


def score_blocks(generations: int) -> list[range]:
    """The scoring blocks of a trial: ``SCORE_BLOCKS`` blocks (fewer for fewer generations)."""
    return blocks(generations, min(generations, SCORE_BLOCKS))


def draw_pieces(generations: int) -> list[range]:
    """The drawing pieces of one side of a trial: each scoring block in ``DRAW_PIECES``."""
    return [
        range(block.start + p.start, block.start + p.stop)
        for block in score_blocks(generations)
        for p in blocks(len(block), min(len(block), DRAW_PIECES))
    ]


@dataclass
class TrialState:
    """What a trial has so far: its prepared sides, trained attacks and drawn features."""

    n_attacks: int
    sides: dict[Role, PreparedSide] = field(default_factory=dict)
    attacks: dict[int, Attack] = field(default_factory=dict)
    drawn: dict[Role, dict[int, list[np.ndarray]]] = field(
        default_factory=lambda: {Role.GEN_POS: {}, Role.GEN_NEG: {}}
    )  # side: {generation: features per attack}, until its block is scored
    scored: set[int] = field(default_factory=set)  # scoring blocks released

    @property
    def trained(self) -> bool:
        """Whether every attack of the trial is trained."""
        return len(self.attacks) == self.n_attacks


def preparation_jobs(setup: GameSetup, trials: int) -> list[Job]:
    """The first jobs of the game: both sides of every trial (each gets its own table only)."""
    return [
        Job((Stage.PREPARE.value, t, role), JobKey(Stage.PREPARE, t, role), prepare_side,
            (setup.for_side(role), t, role))
        for t in range(trials)
        for role in SIDES
    ]  # fmt: skip


class GamePlay:
    """The game's bookkeeping: turns each finished job into the jobs it makes ready.

    Parameters
    ----------
    setup : GameSetup
        The game without its data (sent with the jobs).
    trials, generations : int
        Trials, and generations per trial and side.
    progress : callable, optional
        Called with (units done, total units); a unit is a trained trial or a generation.
    bound_delta : float, optional
        δ of the ε lower bound; None takes the δ the synthesizer claims (else 0).
    confidence : float
        Confidence of the Clopper-Pearson intervals of the bound.
    """

    def __init__(
        self,
        setup: GameSetup,
        trials: int,
        generations: int,
        progress: Progress | None,
        bound_delta: float | None,
        confidence: float,
    ) -> None:
        self.setup = setup
        self.bound_delta = bound_delta
        self.confidence = confidence
        self.scores: dict[str, AttackScore] = {}
        self.generations = generations
        self.blocks = score_blocks(generations)
        self.pieces = draw_pieces(generations)
        self.progress = progress
        self.total = trials + trials * generations
        self.done = 0
        n_attacks = len(setup.attack_names)
        self.trials = {t: TrialState(n_attacks) for t in range(trials)}
        names = setup.attack_names
        self.pos_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.neg_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.privacy: dict[str, Any] | None = None
        self.deterministic_fit = True  # until a prepared side says otherwise
        self._tick(0)

    def _tick(self, units: int) -> None:
        self.done += units
        if self.progress:
            self.progress(self.done, self.total)

    def on_result(self, key: JobKey, result: Any) -> list[Job]:
        """Record ``result``; return the jobs it makes ready: a prepared side's drawing, a
        prepared trial's training, the scoring of drawn blocks of a trained trial, the
        attacks' ratings after the last block."""
        if key.stage is Stage.PREPARE:
            return self._prepared(key.trial, result)
        if key.stage is Stage.TRAIN:
            return self._trained(key.trial, key.index, result)
        if key.stage is Stage.DRAW:
            return self._drawn(result)
        if key.stage is Stage.SCORE:
            return self._scored(result)
        self.scores[result.name] = result
        return []

    def _prepared(self, t: int, side: PreparedSide) -> list[Job]:
        state = self.trials[t]
        state.sides[side.role] = side
        if side.role is Role.SHADOW_POS and t == 0:
            self.privacy = side.privacy
        self.deterministic_fit &= side.deterministic_fit
        gen = GEN_ROLE[side.role]
        jobs = [  # the index tells the piece (its first generation) and the side apart
            Job((Stage.DRAW.value, t, p.start, gen), JobKey(Stage.DRAW, t, 2 * p.start + gen % 2),
                draw_block, (self.setup, t, gen, side.synth, p))
            for p in self.pieces
        ]  # fmt: skip
        if len(state.sides) < len(SIDES):
            return jobs
        pos, neg = state.sides[Role.SHADOW_POS], state.sides[Role.SHADOW_NEG]
        jobs += [
            Job(
                (Stage.TRAIN.value, -make_attack(name).training_cost, t, i),
                JobKey(Stage.TRAIN, t, i),
                train_attack,
                (self.setup, t, i, pos.shadow[i], neg.shadow[i]),
                heavy=True,
            )
            for i, name in enumerate(self.setup.attack_names)
        ]
        for role in SIDES:  # the shadow features now travel with the training jobs
            state.sides[role].shadow = []
        return jobs

    def _trained(self, t: int, index: int, attack: Attack) -> list[Job]:
        state = self.trials[t]
        state.attacks[index] = attack
        if not state.trained:
            return []
        self._tick(1)
        return self._score_jobs(t, range(len(self.blocks)))

    def _drawn(self, block: DrawnBlock) -> list[Job]:
        state = self.trials[block.trial]
        state.drawn[block.role].update(zip(block.gens, block.features, strict=True))
        if not state.trained:
            return []
        return self._score_jobs(block.trial, [self._block_of(block.gens[0])])

    def _block_of(self, generation: int) -> int:
        return next(b for b, r in enumerate(self.blocks) if generation in r)

    def _score_jobs(self, t: int, candidates: Iterable[int]) -> list[Job]:
        """Scoring jobs of the blocks in ``candidates`` whose features are all drawn."""
        state = self.trials[t]
        attacks = [state.attacks[i] for i in range(state.n_attacks)]
        jobs = []
        for b in candidates:
            gens = self.blocks[b]
            drawn = state.drawn
            if b in state.scored or not all(
                j in drawn[role] for role in (Role.GEN_POS, Role.GEN_NEG) for j in gens
            ):
                continue
            state.scored.add(b)
            pos = [drawn[Role.GEN_POS].pop(j) for j in gens]
            neg = [drawn[Role.GEN_NEG].pop(j) for j in gens]
            jobs.append(
                Job((Stage.SCORE.value, t, b), JobKey(Stage.SCORE, t, b), score_block,
                    (t, attacks, gens, pos, neg), heavy=True)
            )  # fmt: skip
        return jobs

    def _scored(self, block: ScoredBlock) -> list[Job]:
        for name, (p, q) in block.ims.items():
            self.pos_ims[name][block.trial, block.gens] = p
            self.neg_ims[name][block.trial, block.gens] = q
        self._tick(len(block.gens))
        return self._rating_jobs() if self.done == self.total else []

    @property
    def run_unit(self) -> str:
        """What one independent run of the mechanism is: ``table`` when every fit declared
        itself deterministic, else ``fit`` (the tables of one fit share its randomness)."""
        return "table" if self.deterministic_fit else "fit"

    def _rating_jobs(self) -> list[Job]:
        """Scores of every attack from all its IMs, once the last block is in: AUC and TPR
        over all tables, the ε lower bound over the independent runs (:attr:`run_unit`), at a
        confidence shared by all the attacks (Bonferroni: the report reads their maximum)."""
        if self.bound_delta is None:
            self.bound_delta = float((self.privacy or {}).get("delta") or 0.0)
        seed = self.setup.seed
        family = len(self.setup.attack_names)
        return [
            Job(
                (Stage.RATE.value, i),
                JobKey(Stage.RATE, -1, i),
                partial(
                    score_attack,
                    delta=self.bound_delta,
                    confidence=self.confidence,
                    seed=derive_seed(seed, TARGET_TRIAL, i) % 2**31,
                    unit=self.run_unit,
                    family=family,
                ),
                (name, self.pos_ims[name], self.neg_ims[name]),
                heavy=True,
            )
            for i, name in enumerate(self.setup.attack_names)
        ]
