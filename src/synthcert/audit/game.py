"""The Setsubun membership-inference game (thesis, seed 003, section 3.3.1, Algorithms 7 and 8).

Target choice → D_pos = D, D_neg = D \\ {t} → per trial (extraction): fit the synthesizer on
D_pos and D_neg to draw c2 shadow tables each and train the attacks (Algorithm 8), fit it again
on both (Algorithm 7, lines 8-9), draw ``generations`` tables of |D| rows from each fit and
score every table with every attack.

Work is split into jobs (the shadow tables of one side of a trial, the training of one
attack, a block of generations), each started as soon as its inputs exist
(``synthcert.audit.schedule``). Every random draw is seeded from ``SeedSequence(seed,
spawn_key=(trial, role, index))``, so the IMs do not depend on the number of workers.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from synthcert._result import Result
from synthcert.audit.attacks import (
    Attack,
    AttackContext,
    AttackParams,
    SyntheticTable,
    make_attack,
    parse_attacks,
)
from synthcert.audit.schedule import Job, open_slots, run_jobs
from synthcert.audit.scoring import AttackScore, score_attack
from synthcert.audit.targets import TargetChoice, choose_target, top_at_risk
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, prepare_frame
from synthcert.data.schema import Schema
from synthcert.errors import DataError, SynthcertError
from synthcert.seeding import derive_seed

Progress = Callable[[int, int], None]  # (units done so far, total units)

# roles of the seed tree: (trial, role, index)
_FIT_SHADOW_POS, _FIT_SHADOW_NEG, _FIT_POS, _FIT_NEG = 0, 1, 2, 3
_SHADOW_POS, _SHADOW_NEG, _GEN_POS, _GEN_NEG, _TRAIN = 4, 5, 6, 7, 8
_TARGET_TRIAL = 2**31 - 1


# -- synthesizers --------------------------------------------------------------------------
@dataclass(frozen=True)
class SynthesizerSpec:
    """How to build a fresh synthesizer in any process: a registry name or a user prototype."""

    schema: Schema
    name: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    prototype: Any = None

    @property
    def label(self) -> str:
        """Name for reports, with epsilon and the parameters given, e.g. ``x (marginals=beta)``."""
        base = self.name or type(self.prototype).__name__
        given = {} if self.epsilon is None else {"epsilon": f"{self.epsilon:g}"}
        given.update(self.params)
        return f"{base} ({', '.join(f'{k}={v}' for k, v in given.items())})" if given else base

    def build(self, seed: int) -> tuple[Any, dict[str, Any]]:
        """A fresh unfitted synthesizer and the keyword arguments its ``fit`` takes (a seed)."""
        if self.prototype is not None:
            synth = copy.deepcopy(self.prototype)
        else:
            from synthcert.synthesizers.registry import accepted_params, make_synthesizer

            params = dict(self.params)
            accepted = accepted_params(self.name)
            for key in ("seed", "random_state"):
                if key in accepted and key not in params:
                    params[key] = seed
            synth = make_synthesizer(
                self.name, self.schema, epsilon=self.epsilon, delta=self.delta, **params
            )
        fit_kwargs = {"seed": seed} if _accepts(synth.fit, "seed") else {}
        return synth, fit_kwargs


def _accepts(func: Callable, name: str) -> bool:
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def fit_synthesizer(spec: SynthesizerSpec, table: pd.DataFrame, seed: int) -> Any:
    """F_ext: a synthesizer fitted on ``table`` (fit randomness seeded where it can be)."""
    synth, kwargs = spec.build(seed)
    if getattr(synth, "min_rows", 0) is None and getattr(synth, "epsilon", None) is not None:
        synth.min_rows = len(table)  # DP-SGD's public rate: the game's tables are public to it
    out = synth.fit(table, **kwargs)
    return synth if out is None else out


def draw_table(synth: Any, n: int, seed: int, schema: Schema) -> pd.DataFrame:
    """F_gen: ``n`` synthetic rows as a frame with the schema's columns."""
    out = synth.sample(n, seed=seed) if _accepts(synth.sample, "seed") else synth.sample(n)
    if isinstance(out, np.ndarray):
        out = pd.DataFrame(out, columns=schema.names)
    if not isinstance(out, pd.DataFrame):
        raise SynthcertError(
            f"{type(synth).__name__}.sample returned {type(out).__name__}, not a table"
        )
    return out


# -- one trial -----------------------------------------------------------------------------
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
    role: int  # _SHADOW_POS or _SHADOW_NEG
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


def _privacy_of(synth: Any, n_out: int) -> dict[str, Any] | None:
    """The synthesizer's public claim for ``n_out`` rows (None when it cannot state one)."""
    try:
        claim = synth.privacy_claim(n_out)
    except (SynthcertError, ImportError, AttributeError, ValueError):
        return None
    return claim.to_dict() if claim.is_guarantee or claim.model == "none" else None


_SIDES = {  # shadow role: (data attribute, shadow fit role, game fit role)
    _SHADOW_POS: ("d_pos", _FIT_SHADOW_POS, _FIT_POS),
    _SHADOW_NEG: ("d_neg", _FIT_SHADOW_NEG, _FIT_NEG),
}


def prepare_side(setup: GameSetup, trial: int, role: int) -> PreparedSide:
    """Algorithm 8, lines 1-4 for one side (shadow fit, c2 shadow tables) + Alg. 7, line 8 or 9."""
    attacks = [make_attack(name) for name in setup.attack_names]
    codes = any(a.needs_codes for a in attacks)
    s, schema = setup.seed, setup.spec.schema
    attr, shadow_fit, game_fit = _SIDES[role]
    data = getattr(setup, attr)
    shadow = fit_synthesizer(setup.spec, data, derive_seed(s, trial, shadow_fit))
    per_table = []
    for j in range(setup.ctx.params.c2):
        frame = draw_table(shadow, setup.n, derive_seed(s, trial, role, j), schema)
        table = setup.view(frame, codes)
        per_table.append(_table_features(attacks, table, setup, (trial, role, j), True))
    feats = [[f[i] for f in per_table] for i in range(len(attacks))]
    synth = fit_synthesizer(setup.spec, data, derive_seed(s, trial, game_fit))
    return PreparedSide(trial, role, feats, synth, _privacy_of(shadow, setup.n))


def train_attack(
    setup: GameSetup, trial: int, index: int, pos: list[np.ndarray], neg: list[np.ndarray]
) -> tuple[int, int, Attack]:
    """Algorithm 8, line 5: train attack ``index`` of the trial on its shadow features."""
    attack = make_attack(setup.attack_names[index])
    ctx = copy.copy(setup.ctx)
    ctx.seed = derive_seed(setup.seed, trial, _TRAIN, index) % (2**31)
    attack.fit(ctx, pos, neg)
    return trial, index, attack


def score_block(
    setup: GameSetup, trained: TrainedTrial, gens: Sequence[int]
) -> tuple[int, list[int], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Algorithm 7, lines 10-15, for generations ``gens`` of one trial: IMs of every attack."""
    attacks, t = trained.attacks, trained.trial
    codes = any(a.needs_codes for a in attacks)
    per_side: dict[int, list[list[np.ndarray]]] = {_GEN_POS: [], _GEN_NEG: []}
    for j in gens:
        for role, synth in ((_GEN_POS, trained.synth_pos), (_GEN_NEG, trained.synth_neg)):
            frame = draw_table(
                synth, setup.n, derive_seed(setup.seed, t, role, j), setup.spec.schema
            )
            table = setup.view(frame, codes)
            per_side[role].append(_table_features(attacks, table, setup, (t, role, j), False))
    ims = {}
    for i, attack in enumerate(attacks):
        pos = attack.score([f[i] for f in per_side[_GEN_POS]])
        neg = attack.score([f[i] for f in per_side[_GEN_NEG]])
        ims[attack.name] = (np.asarray(pos, float), np.asarray(neg, float))
    return t, list(gens), ims


# -- the result ----------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditResult(Result):
    """Outcome of the game: the target, per-attack scores, the IMs and the records most at risk."""

    synthesizer: str
    privacy: dict[str, Any] | None
    target: TargetChoice
    target_row: int  # position of the target in the input table (0-based)
    target_mahalanobis: float
    trials: int
    generations: int
    rows: int
    encoded_dim: int
    seed: int
    workers: int
    params: AttackParams
    attacks: dict[str, AttackScore]
    ims: dict[str, dict[str, list[float]]]
    at_risk: list[dict[str, float]]
    ranking_method: str
    elapsed_seconds: float
    notes: list[str]

    def auc_rows(self) -> list[dict[str, Any]]:
        """One dict per attack: AUC, its interval, TPR at 1 % FPR, ε lower bound."""
        return [
            {
                "attack": name,
                "auc": s.auc,
                "auc_low": s.auc_ci[0],
                "auc_high": s.auc_ci[1],
                "tpr_at_1pct_fpr": s.tpr_at_1pct_fpr,
                "epsilon_lower_bound": s.epsilon_lower_bound,
            }
            for name, s in self.attacks.items()
        ]

    def auc_table(self) -> pd.DataFrame:
        """:meth:`auc_rows` as a frame."""
        return pd.DataFrame(self.auc_rows())


def _complete_rows(table: pd.DataFrame, schema: Schema) -> tuple[pd.DataFrame, np.ndarray]:
    frame, _ = prepare_frame(table, schema, missing="drop")
    positions = np.flatnonzero(~table[schema.names].isna().any(axis=1).to_numpy())
    return frame.reset_index(drop=True), positions


class _Play:
    """The game's bookkeeping: turns each finished job into the jobs it makes ready."""

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
        self.sides: dict[int, dict[int, PreparedSide]] = {t: {} for t in range(trials)}
        self.attacks: dict[int, dict[int, Attack]] = {t: {} for t in range(trials)}
        names = setup.attack_names
        self.pos_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.neg_ims = {n: np.full((trials, generations), np.nan) for n in names}
        self.privacy: dict[str, Any] | None = None
        self._tick(0)

    def _tick(self, units: int) -> None:
        self.done += units
        if self.progress:
            self.progress(self.done, self.total)

    def on_result(self, key: tuple, result: Any) -> list[Job]:
        """Record ``result``; return the jobs it makes ready: a prepared trial's training, a
        trained trial's generation blocks, the attacks' scores after the last block."""
        kind, t = key[0], key[1]
        names = self.setup.attack_names
        if kind == "prep":
            self.sides[t][result.role] = result
            if result.role == _SHADOW_POS and t == 0:
                self.privacy = result.privacy
            if len(self.sides[t]) < len(_SIDES):
                return []
            pos, neg = self.sides[t][_SHADOW_POS], self.sides[t][_SHADOW_NEG]
            return [
                Job(
                    (1, -make_attack(name).training_cost, t, i),
                    ("train", t, i),
                    train_attack,
                    (self.setup, t, i, pos.shadow[i], neg.shadow[i]),
                )
                for i, name in enumerate(names)
            ]
        if kind == "train":
            self.attacks[t][key[2]] = result[2]
            if len(self.attacks[t]) < len(names):
                return []
            self._tick(1)
            sides = self.sides.pop(t)
            trained = TrainedTrial(
                t,
                [self.attacks[t][i] for i in range(len(names))],
                sides[_SHADOW_POS].synth,
                sides[_SHADOW_NEG].synth,
                sides[_SHADOW_POS].privacy,
            )
            size = math.ceil(self.generations / self.blocks_per_trial)
            return [
                Job((2, t, a), ("score", t, a), score_block,
                    (self.setup, trained, range(a, min(a + size, self.generations))))
                for a in range(0, self.generations, size)
            ]  # fmt: skip
        if kind == "rate":
            self.scores[result.name] = result
            return []
        _, gens, ims = result
        for name, (p, q) in ims.items():
            self.pos_ims[name][t, gens] = p
            self.neg_ims[name][t, gens] = q
        self._tick(len(gens))
        return self._rating_jobs() if self.done == self.total else []

    def _rating_jobs(self) -> list[Job]:
        """Scores of every attack from all its IMs, once the last block is in."""
        if self.bound_delta is None:
            self.bound_delta = float((self.privacy or {}).get("delta") or 0.0)
        seed = self.setup.seed
        return [
            Job(
                (3, i),
                ("rate", i),
                partial(
                    score_attack,
                    delta=self.bound_delta,
                    confidence=self.confidence,
                    seed=derive_seed(seed, _TARGET_TRIAL, i) % 2**31,
                ),
                (name, self.pos_ims[name].ravel(), self.neg_ims[name].ravel()),
            )
            for i, name in enumerate(self.setup.attack_names)
        ]


def run_audit(
    table: pd.DataFrame,
    schema: Schema,
    synthesizer: str | Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    synthesizer_params: dict[str, Any] | None = None,
    target: str | int = "mah-max",
    attacks: str | Sequence[str] = "all",
    trials: int = 3,
    generations: int = 100,
    workers: int = 1,
    seed: int = 0,
    params: AttackParams | None = None,
    alpha: float = 2.0,
    confidence: float = 0.95,
    bound_delta: float | None = None,
    progress: Progress | None = None,
    engine: str = "local",
    scheduler: Any = None,
) -> AuditResult:
    """Play the Setsubun game (Algorithms 7-8 of seed 003) against ``synthesizer``.

    ``synthesizer`` is a registry name (``epsilon``/``delta``/``synthesizer_params`` build it) or
    any object with ``fit(table)`` and ``sample(n)`` (deep-copied for every fit; it must pickle
    when ``workers > 1``). ``target`` is random, mah-max, iforest, ocsvm, divergence or a row
    position of ``table``. ``bound_delta`` is the δ of the ε lower bound (default: the δ the
    synthesizer claims, else 0). ``engine="dask"`` runs the trials on a Dask cluster (the
    ``scheduler`` address, or a new local cluster of ``workers`` processes); the IMs are the same.
    """
    if engine not in ("local", "dask"):
        raise SynthcertError(f"engine must be 'local' or 'dask', not {engine!r}")
    started = time.perf_counter()
    if trials < 1 or generations < 1:
        raise SynthcertError("trials and generations must be at least 1")
    if workers < 1:
        raise SynthcertError("workers must be at least 1")
    params = params or AttackParams()
    names = parse_attacks(attacks)
    if isinstance(synthesizer, str):
        spec = SynthesizerSpec(schema, synthesizer, epsilon, delta, dict(synthesizer_params or {}))
    else:
        if not (hasattr(synthesizer, "fit") and hasattr(synthesizer, "sample")):
            raise SynthcertError("the synthesizer must be a registry name or have fit and sample")
        spec = SynthesizerSpec(schema, None, epsilon, delta, {}, synthesizer)
        if workers > 1:
            import pickle

            try:
                pickle.dumps(synthesizer)
            except Exception as exc:  # any pickling failure: say what to do instead
                raise SynthcertError(
                    f"{type(synthesizer).__name__} cannot be sent to worker processes ({exc}); "
                    "define it at module level or use workers=1"
                ) from exc

    # worker processes start now, while this one prepares the game
    with open_slots(workers, engine, scheduler) as slots, threadpool_limits(1):
        D, positions = _complete_rows(table, schema)
        if len(D) < 3:
            raise DataError(f"the game needs at least 3 complete rows, the table has {len(D)}")
        X, _ = Encoder(schema, missing="drop").encode(D)
        tgt = target
        if isinstance(target, (int, np.integer)) or (isinstance(target, str) and target.isdigit()):
            where = np.flatnonzero(positions == int(target))
            if where.size == 0:
                raise DataError(
                    f"row {target} of the input is not a complete row (or does not exist)"
                )
            tgt = int(where[0])
        choice, scores = choose_target(
            X, tgt, seed=derive_seed(seed, _TARGET_TRIAL) % 2**31, alpha=alpha
        )
        rows, top = top_at_risk(scores, 20)
        at_risk = [
            {"row": int(positions[r]), "score": float(v)} for r, v in zip(rows, top, strict=True)
        ]

        d_neg = D.drop(index=choice.row).reset_index(drop=True)
        cards = Discretizer(schema, bins=params.bins).cardinalities
        ctx = AttackContext(
            target=X[choice.row].copy(), cardinalities=cards, params=params, seed=seed
        )
        setup = GameSetup(spec, D, d_neg, names, ctx, seed, generations, len(D))
        light = setup.without_data()

        blocks = min(generations, max(4, 2 * sum(x.capacity for x in slots)))
        play = _Play(light, trials, generations, progress, bound_delta, confidence, blocks)
        first = [
            Job((0, t, role), ("prep", t, role), prepare_side, (setup, t, role))
            for t in range(trials)
            for role in _SIDES
        ]
        run_jobs(first, play.on_result, slots)
    pos_ims, neg_ims = play.pos_ims, play.neg_ims

    privacy = play.privacy
    notes = []
    model = (privacy or {}).get("model", "none")
    if model in ("pure-dp", "approx-dp", "zcdp") and generations > 1:
        notes.append(
            "the epsilon lower bound treats all IMs as independent; the noise of this "
            "synthesizer is drawn at fit time, so tables of one fit are not independent runs. "
            "For a valid bound use --generations 1 with many --trials."
        )
    scores_out = {n: play.scores[n] for n in names}
    return AuditResult(
        synthesizer=spec.label,
        privacy=privacy,
        target=choice,
        target_row=int(positions[choice.row]),
        target_mahalanobis=choice.mahalanobis,
        trials=trials,
        generations=generations,
        rows=len(D),
        encoded_dim=int(X.shape[1]),
        seed=seed,
        workers=workers,
        params=params,
        attacks=scores_out,
        ims={
            n: {"pos": pos_ims[n].ravel().tolist(), "neg": neg_ims[n].ravel().tolist()}
            for n in names
        },
        at_risk=at_risk,
        ranking_method=choice.ranking_method,
        elapsed_seconds=time.perf_counter() - started,
        notes=notes,
    )
