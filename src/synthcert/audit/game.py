"""The Setsubun membership-inference game (thesis, seed 003, section 3.3.1, Algorithms 7 and 8).

Target choice → D_pos = D, D_neg = D \\ {t} → per trial (extraction): fit the synthesizer on
D_pos and D_neg to draw c2 shadow tables each and train the attacks (Algorithm 8), fit it again
on both (Algorithm 7, lines 8-9), draw ``generations`` tables of |D| rows from each fit and
score every table with every attack.

The pieces live in their own modules: ``adapter`` (building, fitting and sampling any
synthesizer), ``trial`` (the steps of one trial), ``jobs`` (the job graph as a typed state
machine, run by ``schedule``) and ``results`` (:class:`AuditResult`). This module chooses the
target, sets the game up and assembles the result.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from synthcert.audit.adapter import SynthesizerSpec, check_synthesizer_object
from synthcert.audit.attacks import AttackContext, AttackParams, parse_attacks
from synthcert.audit.jobs import GamePlay, Progress, preparation_jobs
from synthcert.audit.results import AuditResult, bound_notes, flatten_ims
from synthcert.audit.schedule import open_slots, run_jobs
from synthcert.audit.targets import choose_target, top_at_risk
from synthcert.audit.trial import TARGET_TRIAL, GameSetup
from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, prepare_frame
from synthcert.data.schema import Schema
from synthcert.errors import DataError, ParameterError
from synthcert.seeding import derive_seed

ENGINES = ("local", "dask")
AT_RISK_LISTED = 20  # records in the at-risk ranking


def _complete_rows(table: pd.DataFrame, schema: Schema) -> tuple[pd.DataFrame, np.ndarray]:
    """The complete rows of ``table`` (re-indexed) and their positions in the input."""
    frame, _ = prepare_frame(table, schema, missing="drop")
    positions = np.flatnonzero(~table[schema.names].isna().any(axis=1).to_numpy())
    return frame.reset_index(drop=True), positions


def _check_options(engine: str, trials: int, generations: int, workers: int) -> None:
    if engine not in ENGINES:
        raise ParameterError(f"engine must be 'local' or 'dask', not {engine!r}")
    if trials < 1 or generations < 1:
        raise ParameterError("trials and generations must be at least 1")
    if workers < 1:
        raise ParameterError("workers must be at least 1")


def _target_index(target: str | int, positions: np.ndarray) -> str | int:
    """A target given as an input row position, as an index of the complete rows."""
    if isinstance(target, (int, np.integer)) or (isinstance(target, str) and target.isdigit()):
        where = np.flatnonzero(positions == int(target))
        if where.size == 0:
            raise DataError(f"row {target} of the input is not a complete row (or does not exist)")
        return int(where[0])
    return target


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

    Parameters
    ----------
    table : pandas.DataFrame
        The private table D (rows with a missing value are left out of the game).
    schema : Schema
        Its public schema.
    synthesizer : str or object
        A registry name (built by ``make_synthesizer`` from ``epsilon``, ``delta`` and
        ``synthesizer_params``) or any object with ``fit(table)`` and ``sample(n)``,
        deep-copied for every fit (it must pickle when ``workers > 1``).
    epsilon, delta : float, optional
        Budget of a registry synthesizer (None: no DP noise).
    synthesizer_params : dict, optional
        Further constructor keywords of a registry synthesizer.
    target : str or int
        ``random``, ``mah-max``, ``iforest``, ``ocsvm``, ``divergence`` or a row position of
        ``table``.
    attacks : str or sequence of str
        Attack names, comma-separated, or ``all`` / ``thesis``.
    trials, generations : int
        Fits per side, and tables drawn from each game fit.
    workers : int
        Parallel slots (one thread here plus processes); the IMs do not depend on it.
    seed : int
        Root of the seed tree ``(trial, role, index)`` of every draw.
    params : AttackParams, optional
        Sizes of the attacks (Table 3.1).
    alpha : float
        Rényi order of the divergence target ranking.
    confidence : float
        Confidence of the ε lower bounds, shared by all the attacks (each bound is valid at
        it on its own, and so is their maximum). The bounds use only independent runs: one
        score per fit (the mean IM of its tables) unless the synthesizer declares
        ``deterministic_fit``, then one per table.
    bound_delta : float, optional
        δ of the ε lower bound (default: the δ the synthesizer claims, else 0).
    progress : callable, optional
        Called with (units done, total units).
    engine : {"local", "dask"}
        ``dask`` runs the trials on the cluster at ``scheduler`` (or a new local cluster of
        ``workers`` processes); the IMs are the same.
    scheduler : str or dask.distributed.Client, optional
        The Dask cluster.

    Returns
    -------
    AuditResult
        The scores, IMs and records most at risk.

    Raises
    ------
    ParameterError
        For an unknown engine or a count below 1.
    DataError
        When fewer than 3 complete rows remain or the target row is not a complete row.
    SynthcertError
        When the synthesizer has no ``fit``/``sample`` or cannot be sent to the workers.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("a", 0.0, 1.0), NumericColumn("b", 0.0, 1.0)))
    >>> table = pd.DataFrame(np.random.default_rng(0).uniform(size=(40, 2)), columns=["a", "b"])
    >>> res = run_audit(table, schema, "gaussian", attacks="distance", trials=1, generations=2)
    >>> sorted(res.attacks)
    ['distance']
    """
    _check_options(engine, trials, generations, workers)
    started = time.perf_counter()
    params = params or AttackParams()
    names = parse_attacks(attacks)
    if isinstance(synthesizer, str):
        spec = SynthesizerSpec(schema, synthesizer, epsilon, delta, dict(synthesizer_params or {}))
    else:
        check_synthesizer_object(synthesizer, workers)
        spec = SynthesizerSpec(schema, None, epsilon, delta, {}, synthesizer)

    # worker processes start now, while this one prepares the game
    with open_slots(workers, engine, scheduler) as slots, threadpool_limits(1):
        D, positions = _complete_rows(table, schema)
        if len(D) < 3:
            raise DataError(f"the game needs at least 3 complete rows, the table has {len(D)}")
        X, _ = Encoder(schema, missing="drop").encode(D)
        choice, scores = choose_target(
            X,
            _target_index(target, positions),
            seed=derive_seed(seed, TARGET_TRIAL) % 2**31,
            alpha=alpha,
        )
        rows, top = top_at_risk(scores, AT_RISK_LISTED)
        at_risk = [
            {"row": int(positions[r]), "score": float(v)} for r, v in zip(rows, top, strict=True)
        ]

        d_neg = D.drop(index=choice.row).reset_index(drop=True)
        cards = Discretizer(schema, bins=params.bins).cardinalities
        ctx = AttackContext(
            target=X[choice.row].copy(), cardinalities=cards, params=params, seed=seed
        )
        setup = GameSetup(spec, D, d_neg, names, ctx, seed, generations, len(D))

        play = GamePlay(
            setup.without_data(), trials, generations, progress, bound_delta, confidence
        )
        run_jobs(preparation_jobs(setup, trials), play.on_result, slots)

    rated = {n: play.scores[n] for n in names}
    return AuditResult(
        synthesizer=spec.label,
        privacy=play.privacy,
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
        attacks=rated,
        ims=flatten_ims(names, play.pos_ims, play.neg_ims),
        at_risk=at_risk,
        ranking_method=choice.ranking_method,
        elapsed_seconds=time.perf_counter() - started,
        notes=bound_notes(rated, trials, generations),
    )
