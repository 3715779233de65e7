"""The runs of the worst-case audit: K independent fits per side, in parallel (issue 26).

Each run fits the synthesizer on D (OUT) or D' (IN) with its own seed, spawned from the public
audit seed (``SeedSequence(seed).spawn``: one child per side, one grandchild per run), and
scores the fit with both statistics (:mod:`.statistics`). Runs are statistically independent
(each draws all its noise from its own seed), which the estimator needs: one score per fit.

The runs go to a process pool of ``workers`` processes in chunks (``engine="local"``), or to a
Dask cluster (``engine="dask"``, :func:`synthcert.engine.dask.dask_client`); the scores depend
on the seed only, not on the engine, the workers or the chunking.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from synthcert.audit.claim.ctgan_canary import gradient_canary_measurements, one_torch_thread
from synthcert.audit.claim.design import NeighbourPair, build_pair
from synthcert.audit.claim.result import ClaimAuditResult
from synthcert.audit.claim.statistics import (
    DEFAULT_SAMPLES,
    STATISTICS,
    PairCodes,
    black_box_score,
    pair_discretizer,
    pgm_measurements,
    simulate_white_box,
    white_box_score,
)
from synthcert.data.schema import Schema
from synthcert.errors import ParameterError
from synthcert.privacy.audit_hook import NoisyMeasurement, Selection, recording_measurements
from synthcert.privacy.claims import PrivacyClaim

DEFAULT_RUNS = 1000
ENGINES = ("local", "dask")
MAX_CHUNK = 50
SIMULATED = 200_000  # simulated scores per side that fix the white-box test a priori
Progress = Callable[[int], None]  # called with the runs just finished


@dataclass(frozen=True)
class AuditSetup:
    """What every run needs: the synthesizer and its options, the pair, the reference values.

    ``reference`` maps a measurement that is not a count table (the copula's Kendall taus) to
    its exact values on D and on D', read from two reference fits.
    """

    synthesizer: str
    epsilon: float | None
    delta: float | None
    params: dict[str, Any]
    pair: NeighbourPair
    samples: int = DEFAULT_SAMPLES
    reference: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimAudit:
    """What :func:`run_claim_audit` returns: the public result, the claim it tested, the
    dp-accounting event of the mechanism's noise steps on the pair (None if unknown), and the
    runs' scores (in, out; columns white-box, black-box) for a second look at the same runs."""

    result: ClaimAuditResult
    claim: PrivacyClaim
    event: Any | None
    scores: tuple[np.ndarray, np.ndarray] | None = None


def fits_from_counts(synth: Any) -> bool:
    """True when ``fit(table)`` is "discretise on the public bins, then ``fit_counts``"
    (:func:`synthcert.synthesizers.counts.fit_from_table`): the audit then discretises each
    side once and calls ``fit_counts`` itself, the same computation without re-encoding the
    11-row frame at every fit."""
    fit = getattr(type(synth), "_fit", None)
    return hasattr(synth, "fit_counts") and "fit_from_table" in getattr(
        getattr(fit, "__code__", None), "co_names", ()
    )


def fit_recorded(
    setup: AuditSetup,
    side: int,
    seed: np.random.SeedSequence,
    cache: dict[Any, Any] | None = None,
) -> tuple[Any, list[NoisyMeasurement], list[Selection]]:
    """:func:`fit_once`, also returning the exponential-mechanism choices the fit recorded."""
    synth, seen = _fit(setup, side, seed, cache)
    measurements = [m for m in seen if isinstance(m, NoisyMeasurement)]
    choices = [m for m in seen if isinstance(m, Selection)]
    canary = gradient_canary_measurements(seen, synth, setup.pair)  # DP-SGD steps (DP-CTGAN)
    return synth, [*measurements, *pgm_measurements(synth), *canary], choices


def fit_once(
    setup: AuditSetup,
    side: int,
    seed: np.random.SeedSequence,
    cache: dict[Any, Any] | None = None,
) -> tuple[Any, list[NoisyMeasurement]]:
    """Fit the synthesizer on D' (``side=1``) or D with ``seed``, recording its measurements.

    Returns the fitted synthesizer and its noisy measurements (hook and PGM state).
    ``cache`` (one dict per chunk of runs) keeps each side's codes for :func:`fits_from_counts`,
    or the table as a synthesizer with ``prepare``/``fit_prepared`` reads it (the copula).
    """
    synth, measurements, _ = fit_recorded(setup, side, seed, cache)
    return synth, measurements


def _fit(
    setup: AuditSetup, side: int, seed: np.random.SeedSequence, cache: dict[Any, Any] | None
) -> tuple[Any, list[Any]]:
    from synthcert.statistics.sources import CodesCounts
    from synthcert.synthesizers.registry import make_synthesizer

    synth = make_synthesizer(
        setup.synthesizer,
        setup.pair.schema,
        epsilon=setup.epsilon,
        delta=setup.delta,
        seed=seed,
        **setup.params,
    )
    table = setup.pair.table(side)
    with recording_measurements() as seen:
        if cache is not None and fits_from_counts(synth):
            if side not in cache:
                cache[side] = synth.discretizer.transform(table)
            synth.fit_counts(CodesCounts(cache[side], synth.discretizer.cardinalities))
        elif cache is not None and hasattr(synth, "fit_prepared"):  # the copula: same fit
            if ("prepared", side) not in cache:
                cache["prepared", side] = synth.prepare(table)
            synth.fit_prepared(cache["prepared", side])
        else:
            synth.fit(table)
    return synth, list(seen)


def run_chunk(setup: AuditSetup, side: int, seeds: list[np.random.SeedSequence]) -> np.ndarray:
    """Scores (white-box, black-box) of one fit per seed, on one side: shape (len(seeds), 2).

    The white-box score is 0 (no evidence either way) when the fit exposed no measurement that
    moves with the canary; the black-box score is nan when ``setup.samples`` is 0.
    """
    out = np.full((len(seeds), 2), np.nan)
    codes = disc = None
    cache: dict[Any, Any] = {}
    for i, seed in enumerate(seeds):
        fit_seed, sample_seed = seed.spawn(2)
        with one_torch_thread():  # many small fits in parallel processes
            synth, measurements, choices = fit_recorded(setup, side, fit_seed, cache)
        if codes is None:
            disc = pair_discretizer(synth, setup.pair)
            codes = PairCodes.of(disc, setup.pair)
        out[i, 0] = white_box_score(measurements, codes, setup.reference, choices)
        if setup.samples > 0:  # samples=0: white-box only, no rows drawn
            rows = synth.sample(setup.samples, seed=sample_seed)
            out[i, 1] = black_box_score(rows, setup.pair, disc, codes)
    return out


def _chunk_call(item: tuple[AuditSetup, int, int, list[np.random.SeedSequence]]) -> Any:
    setup, side, start, seeds = item
    return side, start, run_chunk(setup, side, seeds)


def run_seeds(seed: int, runs: int) -> tuple[list[Any], list[Any], Any]:
    """The seeds of the OUT runs, the IN runs and the reference fits (spawned from ``seed``)."""
    root = np.random.SeedSequence(int(seed))
    out_root, in_root, ref_root = root.spawn(3)
    return out_root.spawn(runs), in_root.spawn(runs), ref_root


def run_scores(
    setup: AuditSetup,
    *,
    runs: int,
    seed: int,
    workers: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of ``runs`` fits per side: (in_scores, out_scores), each of shape (runs, 2).

    Parameters
    ----------
    setup : AuditSetup
        The synthesizer, its options and the pair.
    runs : int
        Fits per side.
    seed : int
        The public audit seed.
    workers : int, optional
        Processes (default: the cores); 1 runs in this process.
    engine : {"local", "dask"}
        A local process pool or a Dask cluster (``scheduler``, or a new LocalCluster).
    progress : callable, optional
        Called with the number of runs each finished chunk held.

    Notes
    -----
    The local pool's workers start from a forkserver, so a *script* that calls this (or
    :func:`run_claim_audit`) with more than one worker needs the usual
    ``if __name__ == "__main__":`` guard, as with any spawn-based pool.
    """
    if engine not in ENGINES:
        raise ParameterError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    out_seeds, in_seeds, _ = run_seeds(seed, runs)
    workers = max(1, int(workers or os.cpu_count() or 1))
    size = max(1, min(MAX_CHUNK, math.ceil(runs / (4 * workers))))
    items = [
        (setup, side, start, seeds[start : start + size])
        for side, seeds in ((0, out_seeds), (1, in_seeds))
        for start in range(0, runs, size)
    ]
    scores = {0: np.full((runs, 2), np.nan), 1: np.full((runs, 2), np.nan)}

    def take(result: Any) -> None:
        side, start, chunk = result
        scores[side][start : start + len(chunk)] = chunk
        if progress:
            progress(len(chunk))

    if engine == "dask":
        from synthcert.engine.dask import dask_client

        with dask_client(scheduler, n_workers=workers, notify=notify) as client:
            from distributed import as_completed as dask_completed  # installed: client is up

            futures = client.map(_chunk_call, items, pure=False)
            for fut in dask_completed(futures):
                take(fut.result())
    elif workers == 1 or len(items) == 1:
        for item in items:
            take(_chunk_call(item))
    else:
        # forkserver: workers do not inherit this process's threads (torch's, BLAS's), which a
        # fork after the reference fits could deadlock on
        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for fut in as_completed([pool.submit(_chunk_call, item) for item in items]):
                take(fut.result())
    return scores[1], scores[0]


def reference_values(
    setup: AuditSetup, seed: np.random.SeedSequence
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], Any, list[NoisyMeasurement]]:
    """Two reference fits (D, D'): exact values of the non-count measurements by name, and the
    fitted D' model and its measurements (for the claim and the ceiling's event)."""
    return reference_fits(setup, seed)[:3]


def reference_fits(
    setup: AuditSetup, seed: np.random.SeedSequence
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], Any, list[NoisyMeasurement], list[Selection]]:
    """:func:`reference_values`, also returning the D' fit's exponential-mechanism choices."""
    out_seed, in_seed = seed.spawn(2)
    _, seen_out = fit_once(setup, 0, out_seed)
    synth_in, seen_in, choices_in = fit_recorded(setup, 1, in_seed)
    exact_out = {m.name: m.true for m in seen_out if m.axes is None}
    reference = {
        m.name: (exact_out[m.name], m.true)
        for m in seen_in
        if m.axes is None and m.name in exact_out and exact_out[m.name].shape == m.true.shape
    }
    return reference, synth_in, seen_in, choices_in


def claimed(claim: PrivacyClaim, claimed_epsilon: float | None) -> PrivacyClaim:
    """The claim tested: the synthesizer's own, or its ε replaced (ρ re-derived for zCDP)."""
    if claimed_epsilon is None:
        return claim
    rho = claim.rho
    if claim.model == "zcdp":
        from synthcert.privacy.accountant import rho_from_epsilon_delta

        rho = rho_from_epsilon_delta(float(claimed_epsilon), float(claim.delta or 0.0))
    return replace(claim, epsilon=float(claimed_epsilon), rho=rho)


def mu_objective(claim: PrivacyClaim, gaussian: bool) -> bool:
    """Whether the a-priori test maximises the μ bound (else the ε bound at the claim's δ).

    μ for a zCDP claim with Gaussian noise: its trade-off curve is the envelope over every δ,
    which the μ-optimal test refutes best. An (ε, δ) claim (DP-CTGAN's) is refuted by the ε
    bound at its δ, in the tail: the μ-optimal test sits at a central threshold and proves
    it far less often (DP-CTGAN at ε = 4 against a claim of (1, 10⁻²), 1,000 runs a side:
    29 % of simulated audits against 100 %). The μ bound is still reported, at that test.
    """
    return gaussian and claim.model == "zcdp"


def corner_above_claim(claim: PrivacyClaim, fpr_upper: float, tpr_lower: float) -> bool:
    """True when the confidence box's corner lies above the claim's trade-off curve.

    With probability at least the confidence, the test's true rates satisfy FPR <= fpr_upper and
    TPR >= tpr_lower; a mechanism satisfying the claim has TPR <= 1 - f(FPR) <= 1 - f(fpr_upper)
    (f non-increasing). So ``tpr_lower > 1 - f(fpr_upper)`` refutes the claim at that confidence.
    For a pure or approximate DP claim this is the lower bound exceeding the claimed epsilon at
    its delta; for a zCDP claim, f is the envelope over every delta, a stronger claim.
    """
    from synthcert.privacy.tradeoff import claim_tradeoff

    f = claim_tradeoff(claim)
    beta = float(np.asarray(f(np.array([float(fpr_upper)])), dtype=np.float64).ravel()[0])
    return bool(tpr_lower > 1.0 - beta + 1e-9)


def _ceilings(
    event: Any, runs: int, delta: float, confidence: float, gaussian: bool, split: bool = True
) -> tuple[float | None, float | None, str | None]:
    """(ε ceiling, μ ceiling, why None) of the pair's event (its PLD, :func:`event_pld`)."""
    if event is None:
        return None, None, "no noise step of this synthesizer is known on the pair"
    from synthcert.audit.claim.estimate import ceiling
    from synthcert.audit.claim.events import event_pld
    from synthcert.privacy.tradeoff import pld_tradeoff

    try:
        curve = pld_tradeoff(event_pld(event))
        eps = ceiling(curve, runs=runs, delta=delta, confidence=confidence, split=split)
        mu = (
            ceiling(
                curve, runs=runs, delta=delta, confidence=confidence, gaussian=True, split=split
            )
            if gaussian
            else None
        )
    except Exception as exc:  # an event dp-accounting cannot turn into a PLD
        return None, None, f"ceiling not computed: {type(exc).__name__}: {exc}"
    return eps, mu, None


def gaussian_release_audit(
    *,
    delta: float | None,
    params: dict[str, Any],
    runs: int,
    claimed_epsilon: float | None,
    seed: int,
) -> ClaimAudit:
    """The certified Gaussian release (``gaussian``) on the theorem's worst pair, as a result.

    M_G adds no noise: its privacy comes from sampling, and its audit (helper module
    :mod:`synthcert.audit.claim.gaussian_release`) fits the real synthesizer on a pair built at
    a small public n (d coordinates in [-1, 1]) and scores each release by its log-likelihood
    ratio, the optimal test there. ``params`` may set ``n``, ``d``, ``sigma``, ``n_out`` and
    ``profiles`` (False: no exact profile, no ceiling); the
    claim is the release's certificate at ``delta`` (default 1e-2), and the ceiling is computed
    from the pair's exact privacy profile (None, with the reason, where it is not).
    """
    from synthcert.audit.claim.gaussian_release import audit_gaussian_release
    from synthcert.privacy.claims import GUARANTEE

    allowed = {"n", "d", "sigma", "n_out", "profiles"}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ParameterError(
            f"the gaussian release audit takes --param n, d, sigma, n_out, profiles; got {unknown}"
        )
    d = 1e-2 if delta is None else float(delta)
    start = time.perf_counter()
    g = audit_gaussian_release(runs=runs, seed=seed, delta=d, **params)
    seconds = time.perf_counter() - start
    eps_claim = float(g.certificate_epsilon if claimed_epsilon is None else claimed_epsilon)
    claim = PrivacyClaim("approx-dp", GUARANTEE, "unbounded", epsilon=eps_claim, delta=d)
    result = _result(
        g.estimate,
        claim,
        synthesizer="gaussian",
        design="theorem-pair",
        neighbouring="unbounded",
        statistic="black-box",
        claimed_mu=None,
        ceiling=g.ceiling,
        mu_ceiling=None,
        runs=runs,
        seed=seed,
        seconds=seconds,
        reason=g.estimate.reason or g.profile_reason,
    )
    return ClaimAudit(result, claim, None)


def run_claim_audit(
    synthesizer: str,
    schema: Schema | None,
    *,
    epsilon: float | None,
    delta: float | None = None,
    params: dict[str, Any] | None = None,
    runs: int = DEFAULT_RUNS,
    claimed_epsilon: float | None = None,
    statistic: str | None = None,
    design: str = "domain",
    seed: int = 0,
    confidence: float = 0.95,
    samples: int = DEFAULT_SAMPLES,
    workers: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
) -> ClaimAudit:
    """Audit a synthesizer's DP claim on the worst-case pair of a public schema (issue 26).

    Parameters
    ----------
    synthesizer : str
        A DP synthesizer of the registry (privbayes, gaussian-copula, mwem-pgm, aim, ctgan), or
        ``gaussian`` (the certified release, :func:`gaussian_release_audit`; no epsilon).
    schema : Schema or None
        The public schema (None with ``design="anchor"``).
    epsilon, delta, params
        The synthesizer's budget and options, as ``synthesize`` takes them.
    runs : int, default 1000
        Fits per side.
    claimed_epsilon : float, optional
        The ε tested (default: the synthesizer's own claim).
    statistic : {"white-box", "black-box"}, optional
        Default: white-box where the synthesizer exposes its measurements, else black-box.
    design : {"domain", "anchor"}
        The pair (:mod:`.design`).
    seed : int
        Public seed of the runs.
    confidence : float
        Confidence of the lower bounds.
    samples : int, default 1000
        Synthetic rows per fit for the black-box statistic (0: none drawn, white-box only).
    workers, engine, scheduler, progress, notify
        As in :func:`run_scores`.

    Returns
    -------
    ClaimAudit
        The public result, the claim tested and the pair's event (for the figure).

    Raises
    ------
    ParameterError
        No epsilon, a synthesizer without a DP claim, an unknown statistic, or white-box asked
        of a synthesizer that exposes no measurement.
    """
    from synthcert.audit.claim.estimate import a_priori_test, estimate_bounds, evaluate_test
    from synthcert.audit.claim.events import (
        dpsgd_events,
        measurement_events,
        pair_event,
        paired_choice_events,
        scored_choice_events,
    )
    from synthcert.synthesizers.base import constructor_params
    from synthcert.synthesizers.registry import get_info

    if synthesizer == "gaussian":  # the certified release: no noise step, its own pair
        return gaussian_release_audit(
            delta=delta, params=dict(params or {}), runs=runs, claimed_epsilon=claimed_epsilon,
            seed=seed,
        )  # fmt: skip
    if epsilon is None:
        raise ParameterError("audit-claim tests a DP claim: give --epsilon")
    if runs < 2:
        raise ParameterError(f"runs must be at least 2 per side, got {runs}")
    if statistic is not None and statistic not in STATISTICS:
        raise ParameterError(f"unknown statistic {statistic!r}; choose one of white-box, black-box")
    cls = get_info(synthesizer).load()
    neighbouring = getattr(cls, "neighboring", "unbounded")
    pair = build_pair(schema, neighbouring, design)
    params = dict(params or {})
    if "min_rows" in constructor_params(cls) and params.get("min_rows") is None:
        # the auditor built both tables: their sizes are public, the smaller one is the bound
        params["min_rows"] = len(pair.without)
    setup = AuditSetup(synthesizer, float(epsilon), delta, params, pair, samples)
    _, _, ref_seed = run_seeds(seed, runs)
    reference, synth_in, seen_in, choices_in = reference_fits(setup, ref_seed)
    setup = replace(setup, reference=reference)
    claim = claimed(synth_in.privacy_claim(len(pair.with_canary)), claimed_epsilon)
    if claim.epsilon is None or claim.model == "none":
        raise ParameterError(f"{synthesizer} makes no DP claim with these options")
    codes = PairCodes.of(pair_discretizer(synth_in, pair), pair)
    has_white = any(m.axes is not None or m.name in reference for m in seen_in)
    chosen = statistic or ("white-box" if has_white else "black-box")
    if chosen == "black-box" and samples < 1:
        raise ParameterError("the black-box statistic needs samples >= 1 synthetic rows per fit")
    if chosen == "white-box" and not has_white:
        raise ParameterError(
            f"{synthesizer} exposes no noisy measurement to the auditing hook: use "
            "--statistic black-box"
        )
    delta_claim = float(claim.delta or 0.0)
    gaussian = all(m.noise == "gaussian" for m in seen_in) and bool(seen_in)
    start = time.perf_counter()
    in_scores, out_scores = run_scores(
        setup, runs=runs, seed=seed, workers=workers, engine=engine, scheduler=scheduler,
        progress=progress, notify=notify,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    col = 0 if chosen == "white-box" else 1
    if chosen == "white-box":  # the statistic's law is declared: fix the test a priori
        rng = np.random.default_rng(
            np.random.SeedSequence(ref_seed.entropy, spawn_key=(*ref_seed.spawn_key, 2**20))
        )
        sim_in, sim_out = simulate_white_box(seen_in, codes, reference, SIMULATED, rng, choices_in)
        t, direction = a_priori_test(
            sim_in, sim_out, runs=runs, delta=delta_claim, confidence=confidence,
            gaussian=mu_objective(claim, gaussian),
        )  # fmt: skip
        est = evaluate_test(
            in_scores[:, col], out_scores[:, col], threshold=t, direction=direction,
            delta=delta_claim, confidence=confidence, gaussian=gaussian,
        )  # fmt: skip
    else:
        est = estimate_bounds(
            in_scores[:, col], out_scores[:, col], delta=delta_claim, confidence=confidence,
            gaussian=gaussian, seed=int(seed),
        )  # fmt: skip
    rule = "a-priori" if chosen == "white-box" else "split"
    # the choices' exact events: from the D' reference fit when their scores can be recomputed
    # on both tables (AIM, MWEM+PGM), else from two same-seed fits while their histories agree
    choices = scored_choice_events(choices_in, codes)
    if choices is None:
        same = np.random.SeedSequence(ref_seed.entropy, spawn_key=(*ref_seed.spawn_key, 2**20 + 1))
        choices = paired_choice_events(
            fit_recorded(setup, 1, same)[2], fit_recorded(setup, 0, same)[2]
        )
    event = pair_event(synth_in, seen_in, codes, reference, choices)
    ceil, mu_ceil, why = _ceilings(
        event, runs, delta_claim, confidence, gaussian, split=rule == "split"
    )
    import dp_accounting  # the audit extra; pair_event needed it already

    measured = measurement_events(seen_in, codes, reference)
    meas_ceil, meas_mu_ceil, _ = (
        _ceilings(
            dp_accounting.ComposedDpEvent(measured), runs, delta_claim, confidence, gaussian,
            split=rule == "split",
        )
        if measured and not dpsgd_events(synth_in)
        else (None, None, None)
    )  # fmt: skip
    claimed_mu = math.sqrt(2.0 * claim.rho) if claim.model == "zcdp" and claim.rho else None
    result = _result(
        est,
        claim,
        synthesizer=synthesizer,
        design=design,
        neighbouring=neighbouring,
        statistic=chosen,
        claimed_mu=claimed_mu,
        ceiling=ceil,
        mu_ceiling=mu_ceil,
        runs=runs,
        seed=seed,
        seconds=seconds,
        reason="; ".join(r for r in (est.reason, why) if r) or None,
        threshold_rule=rule,
    )
    result = replace(result, measurement_ceiling=meas_mu_ceil if gaussian else meas_ceil)
    return ClaimAudit(result, claim, event, (in_scores, out_scores))


def _result(
    est: Any,
    claim: PrivacyClaim,
    *,
    synthesizer: str,
    design: str,
    neighbouring: str,
    statistic: str,
    claimed_mu: float | None,
    ceiling: float | None,
    mu_ceiling: float | None,
    runs: int,
    seed: int,
    seconds: float,
    reason: str | None,
    threshold_rule: str = "split",
) -> ClaimAuditResult:
    """The verdict of one audit from its estimate: a violation when the lower bound exceeds the
    claimed ε, or when the confidence box's corner lies above the claim's trade-off curve."""
    lb = est.epsilon_lower_bound
    eps = float(claim.epsilon)  # type: ignore[arg-type]
    above = corner_above_claim(claim, est.fpr_upper, est.tpr_lower) if lb is not None else False
    return ClaimAuditResult(
        synthesizer=synthesizer,
        design=design,
        neighbouring=neighbouring,
        statistic=statistic,
        claimed_epsilon=eps,
        claimed_mu=claimed_mu,
        delta=float(claim.delta or 0.0),
        epsilon_lower_bound=lb,
        mu_lower_bound=est.mu_lower_bound,
        ceiling=ceiling,
        mu_ceiling=mu_ceiling,
        gap_test=None if ceiling is None or lb is None else ceiling - lb,
        gap_mechanism_runs=None if ceiling is None else eps - ceiling,
        violation=bool((lb is not None and lb > eps) or above),
        above_claim_curve=bool(above),
        runs=int(runs),
        confidence=float(est.confidence),
        fpr=float(est.fpr),
        tpr=float(est.tpr),
        fpr_upper=float(est.fpr_upper),
        tpr_lower=float(est.tpr_lower),
        threshold=float(est.threshold),
        seed=int(seed),
        seconds=float(seconds),
        reason=reason,
        threshold_rule=threshold_rule,
    )


__all__ = [
    "DEFAULT_RUNS",
    "ENGINES",
    "AuditSetup",
    "ClaimAudit",
    "claimed",
    "fit_once",
    "fit_recorded",
    "gaussian_release_audit",
    "reference_fits",
    "reference_values",
    "run_chunk",
    "run_claim_audit",
    "run_scores",
    "run_seeds",
]
