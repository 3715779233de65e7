"""AIM and MWEM+PGM selection loops over marginal counts (thesis section 2.4.2, Algs. 4-6).

Both mechanisms alternate: select a marginal (exponential mechanism on a noisy quality
score, or argmax without DP), measure it (Gaussian noise, or exactly without DP), and
re-estimate the graphical model with Private-PGM's mirror descent (warm-started).
Neighbouring is *unbounded* (add/remove one record): a count marginal then has L1 and L2
sensitivity 1, and a score w_r * ||x_r - y_r||_1 has sensitivity w_r. The data enter only as
the count tables of ``needed_marginals`` (asked of a CountSource in one request by the caller).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from synthcert.errors import AssumptionError, NumericalError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.audit_hook import record_selection
from synthcert.privacy.mechanisms import exponential_mechanism, gaussian_mechanism
from synthcert.synthesizers._pgm_backend import load_mbi
from synthcert.synthesizers._pgm_estimation import (
    Measurement,
    MirrorDescent,
    minimum_variance_total,
)
from synthcert.synthesizers._pgm_inference import CalibratedTree, calibrate
from synthcert.synthesizers._pgm_size import ModelSize

Clique = tuple[str, ...]
Progress = Callable[[str], None]
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@dataclass
class PGMState:
    """What one run leaves behind: the measurements, the model, and a trace of the rounds."""

    sizes: dict[str, int]
    measurements: list[Measurement] = field(default_factory=list)
    potentials: dict[Clique, np.ndarray] | None = None
    calib: CalibratedTree | None = None
    selected: list[Clique] = field(default_factory=list)
    sigmas: list[float] = field(default_factory=list)
    seconds: float = 0.0
    compression: Compression | None = None  # AIM's merged codes (None: the original domain)


# -- domain compression ----------------------------------------------------------------------
COMPRESS_SD = 3.0  # a code whose noisy one-way count is below 3 sigma is merged


@dataclass(frozen=True)
class Compression:
    """AIM's model domain after its one-way measurements (``compress``; post-processing).

    For each compressed column ``a``: ``groups[a][c]`` is the model's cell of original code
    ``c`` (a partition of the codes into cells 0..m-1), and ``law[a][c]`` the probability of
    ``c`` within its cell (summing to 1 over each cell), by which a cell is decompressed.
    Columns not named keep their codes.
    """

    groups: dict[str, np.ndarray] = field(default_factory=dict)
    law: dict[str, np.ndarray] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.groups)

    def sizes(self, sizes: Mapping[str, int]) -> dict[str, int]:
        """The model's domain: the number of cells of each column."""
        return {a: int(self.groups[a].max()) + 1 if a in self.groups else k
                for a, k in sizes.items()}  # fmt: skip

    def table(self, clique: Clique, counts: np.ndarray, sizes: Mapping[str, int]) -> np.ndarray:
        """A count table over ``clique`` (axes in clique order, original ``sizes``) on the
        model's domain: the counts of a cell's codes are summed."""
        out = np.asarray(counts, dtype=np.float64).reshape([sizes[a] for a in clique])
        for axis, a in enumerate(clique):
            if a not in self.groups:
                continue
            moved = np.moveaxis(out, axis, 0)
            summed = np.zeros((int(self.groups[a].max()) + 1, *moved.shape[1:]))
            np.add.at(summed, self.groups[a], moved)
            out = np.moveaxis(summed, 0, axis)
        return out

    def expand_codes(
        self, codes: np.ndarray, columns: Sequence[str], rng: np.random.Generator
    ) -> np.ndarray:
        """Model codes -> original codes: each cell to one of its codes drawn by ``law``
        (decompression; post-processing). Only codes of the original domain come out."""
        out = np.array(codes, dtype=np.int64, copy=True)
        for j, a in enumerate(columns):
            if a not in self.groups:
                continue
            group, law = self.groups[a], self.law[a]
            order = np.argsort(group, kind="stable")  # the original codes, cell by cell
            cum = np.cumsum(law[order])
            first = np.searchsorted(group[order], out[:, j], side="left")
            last = np.searchsorted(group[order], out[:, j], side="right") - 1
            base = np.where(first > 0, cum[np.maximum(first - 1, 0)], 0.0)
            width = cum[last] - base
            target = base + rng.random(len(out)) * width
            pick = np.searchsorted(cum, target, side="right")
            out[:, j] = order[np.clip(pick, first, last)]
        return out

    def expand_table(
        self, clique: Sequence[str], p: np.ndarray, sizes: Mapping[str, int]
    ) -> np.ndarray:
        """A table over ``clique`` on the model's domain -> on the original codes: each
        cell's mass shared among its codes by ``law``."""
        out = np.asarray(p, dtype=np.float64)
        for axis, a in enumerate(clique):
            if a not in self.groups:
                continue
            moved = np.moveaxis(out, axis, 0)
            law = self.law[a].reshape(-1, *([1] * (moved.ndim - 1)))
            out = np.moveaxis(moved[self.groups[a]] * law, 0, axis)
        return out


def within_law(group: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each code's probability within its cell: its noisy count clipped at 0 over the cell's
    sum; uniform over the cell when no count of it is positive."""
    w = np.maximum(np.asarray(y, dtype=np.float64), 0.0)
    total = np.bincount(group, weights=w)[group]
    size = np.bincount(group).astype(np.float64)[group]
    return np.where(total > 0, w / np.where(total > 0, total, 1.0), 1.0 / size)


def merge_low(y: np.ndarray, threshold: float) -> np.ndarray:
    """Unordered codes (categories, a missing code): those whose noisy count is below
    ``threshold`` share one cell, the last, when there are at least two of them and one code
    stays; the others keep a cell each, in order."""
    low = np.asarray(y, dtype=np.float64) < threshold
    if low.sum() < 2 or low.all():
        return np.arange(len(low), dtype=np.int64)
    group = np.empty(len(low), dtype=np.int64)
    group[~low] = np.arange(int((~low).sum()))
    group[low] = int((~low).sum())
    return group


def merge_runs(y: np.ndarray, threshold: float) -> np.ndarray:
    """Ordered codes (numeric bins): runs of adjacent bins, left to right, each closed at the
    first bin where its noisy count (clipped at 0) reaches ``threshold``; a last run below it
    joins the one before. A bin reaching the threshold alone keeps its own cell."""
    w = np.maximum(np.asarray(y, dtype=np.float64), 0.0)
    group = np.zeros(len(w), dtype=np.int64)
    g, acc = 0, 0.0
    for i, v in enumerate(w):
        group[i] = g
        acc += v
        if acc >= threshold and i < len(w) - 1:
            g, acc = g + 1, 0.0
    if acc < threshold and g > 0:
        group[group == g] = g - 1
    return group


def compression_rule(
    one_way: Mapping[str, np.ndarray],
    sigma: float,
    ordered: Mapping[str, int] | None = None,
    threshold_sd: float = COMPRESS_SD,
) -> Compression:
    """The model's cells from the noisy one-way counts ``one_way`` and their public noise scale
    ``sigma`` only: post-processing, so it costs no privacy.

    A code whose noisy count is below ``threshold_sd * sigma`` cannot be told from an empty
    one at that noise, so it does not get a cell of its own (McKenna et al.'s MST
    ``compress_domain``; dpmm's ``DomainCompressor``): a marginal measured later spreads its
    noise over fewer cells and AIM's selection penalty sqrt(2/pi) sigma d_r shrinks with d_r.
    The first ``ordered[a]`` codes of column ``a`` are bins in order, merged in runs of
    adjacent bins (:func:`merge_runs`); the other codes in one cell (:func:`merge_low`).
    Within a cell, codes follow their noisy counts (:func:`within_law`).
    """
    threshold = threshold_sd * sigma
    groups, law = {}, {}
    for a, y in one_way.items():
        y = np.asarray(y, dtype=np.float64)
        m = int((ordered or {}).get(a, 0))
        head = merge_runs(y[:m], threshold) if m else np.zeros(0, dtype=np.int64)
        tail = merge_low(y[m:], threshold) + (int(head.max()) + 1 if m else 0)
        group = np.concatenate([head, tail]).astype(np.int64)
        if group.max() + 1 < len(y):
            groups[a] = group
            law[a] = within_law(group, y)
    return Compression(groups, law)


def compress_model(
    est: Estimator,
    state: PGMState,
    answers: Mapping[Clique, np.ndarray],
    sizes: dict[str, int],
    sigma: float,
    ordered: Mapping[str, int] | None,
) -> tuple[Estimator, PGMState, dict[Clique, np.ndarray], dict[str, int]]:
    """AIM after its one-way measurements, on the compressed domain of
    :func:`compression_rule`: a new estimator and state whose one-way measurements are the
    noisy counts summed over each cell (a merged cell's sum has noise variance m sigma^2 for m
    codes, and is weighted as one of scale sigma), and the count tables re-expressed on the
    cells. Unchanged when nothing is merged."""
    one_way = {m.clique[0]: m.y for m in state.measurements}
    comp = compression_rule(one_way, sigma, ordered)
    if not comp:
        return est, state, dict(answers), sizes
    new_sizes = comp.sizes(sizes)
    new_est = Estimator(new_sizes, est.iters, est.known_total)
    new_state = PGMState(new_sizes, compression=comp)
    for m in state.measurements:
        new_est.measure(new_state, m.clique, comp.table(m.clique, m.y, sizes), m.sigma)
    tables = {cl: comp.table(cl, t, sizes) for cl, t in answers.items()}
    return new_est, new_state, tables, new_sizes


# -- workloads -----------------------------------------------------------------------------
def all_pairs(columns: Sequence[str]) -> list[tuple[Clique, float]]:
    """The default workload: every 2-way marginal with weight 1 (thesis section 2.4.2)."""
    return [(c, 1.0) for c in itertools.combinations(columns, 2)]


def downward_closure(cliques: Sequence[Clique]) -> list[Clique]:
    """W+ of Def. 2.4.4: every non-empty subset of a workload clique, smallest first."""
    out: set[Clique] = set()
    for cl in cliques:
        for r in range(1, len(cl) + 1):
            out.update(itertools.combinations(cl, r))
    return sorted(out, key=lambda c: (len(c), c))


def workload_weights(workload: Sequence[tuple[Clique, float]]) -> dict[Clique, float]:
    """w_r = sum over s in W of c_s |r cap s|, for r in W+ (Algorithm 4, lines 7-9).

    Since |r cap s| = sum over a in r of [a in s], w_r = sum over a in r of w_a with
    w_a = sum over s containing a of c_s: one pass over W, not |W+| |W| set intersections.
    """
    per_attr: dict[str, float] = {}
    for s, c in workload:
        for a in dict.fromkeys(s):
            per_attr[a] = per_attr.get(a, 0.0) + c
    closure = downward_closure([cl for cl, _ in workload])
    return {r: float(sum(per_attr[a] for a in dict.fromkeys(r))) for r in closure}


def needed_marginals(
    columns: Sequence[str], workload: Sequence[tuple[Clique, float]]
) -> list[Clique]:
    """The marginals AIM and MWEM may score or measure: the one-way marginals and W+."""
    return downward_closure([*((a,) for a in columns), *(cl for cl, _ in workload)])


ROUND_WORK = 225_000
MIN_ROUND_ITERS = 50


def default_round_iters(pgm_iters: int, k: int) -> int:
    """Mirror-descent iterations per round inside the selection loop, by a public rule.

    min(pgm_iters, max(50, 225,000 / k^2)) for k columns: every iteration touches each of the
    model's O(k) cliques and AIM runs O(k) rounds (T = 16 k budgeted), so the loop's work
    grows as k^2 x iterations; the cap keeps it at what 1000 iterations cost on 15 columns
    (up to 15 columns, Adult included, nothing changes; 90 iterations at 50 columns). Each
    round is warm-started from the last, and the final estimate runs ``pgm_iters``
    iterations. It reads only the public width, and the estimate is post-processing: the
    privacy accounting is unchanged.
    """
    return min(int(pgm_iters), max(MIN_ROUND_ITERS, ROUND_WORK // max(k, 1) ** 2))


def cells(sizes: dict[str, int], clique: Clique) -> int:
    """d_r: the number of cells of the marginal on ``clique``."""
    return int(np.prod([sizes[a] for a in clique], dtype=np.int64))


# -- the model -----------------------------------------------------------------------------
class Estimator:
    """Private-PGM estimation (:mod:`synthcert.synthesizers._pgm_estimation`, warm-started)."""

    def __init__(self, sizes: dict[str, int], iters: int, known_total: float | None) -> None:
        self.mbi = load_mbi()
        self.sizes = sizes
        self.domain = self.mbi.Domain(list(sizes), [sizes[a] for a in sizes])
        self.iters = iters
        self.known_total = known_total

    def fit(self, state: PGMState, iters: int | None = None) -> CalibratedTree:
        """theta_t = argmin sum_i ||M_{r_i} p - y_i||^2 / sigma_i^2 over the marginal polytope.

        Algorithm 4 line 16 writes the weights as 1/sigma_i; the Gaussian log-likelihood (and
        Private-PGM) weights squared residuals by 1/sigma_i^2, which we use. The total is the
        known number of rows without DP, else estimated from the noisy measurements.
        """
        total = self.known_total or minimum_variance_total(state.measurements)
        problem = MirrorDescent(self.sizes, state.measurements, total)
        state.potentials, state.calib = problem.run(iters or self.iters, warm=state.potentials)
        bad = [c for c, f in state.calib.marginals.items() if not np.all(np.isfinite(f.values))]
        if bad:  # stop at the round where it happens, naming public cliques only
            raise NumericalError(
                f"Private-PGM estimation after {len(state.measurements)} measurement(s) gave "
                f"non-finite marginals on the clique(s) {sorted(bad)}"
            )
        return state.calib

    def measure(self, state: PGMState, clique: Clique, y: np.ndarray, sigma: float) -> None:
        """Add a (noisy) measurement of the marginal on ``clique`` with noise scale ``sigma``."""
        y = np.asarray(y, dtype=np.float64).ravel()
        state.measurements.append(Measurement(clique, y, float(sigma)))
        state.selected.append(clique)
        state.sigmas.append(float(sigma))

    def model_size_mb(self, cliques: Sequence[Clique]) -> float:
        """JT-SIZE of Algorithm 4 line 13: megabytes of the junction tree's clique tables
        (mbi's ``hypothetical_model_size``, computed by :class:`ModelSize`)."""
        return ModelSize(self.sizes, cliques).megabytes()


def admissible(
    candidates: Sequence[Clique], est: Estimator, state: PGMState, limit_mb: float
) -> list[Clique]:
    """C_t (Algorithm 4 line 13): candidates keeping JT-SIZE within the limit.

    A candidate inside an already measured clique adds nothing to the model, so it is always
    admissible (as in the reference implementation).
    """
    current = list(dict.fromkeys(state.selected))
    free = set(downward_closure(current))
    size = ModelSize(est.sizes, current)
    return [cl for cl in candidates if cl in free or size.fits(cl, limit_mb)]


def l1_errors(
    candidates: Sequence[Clique],
    answers: dict[Clique, np.ndarray],
    calib: CalibratedTree,
    model: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """||p_r(D) - p_r(theta)||_1 for each candidate, in counts.

    ``model``: the model's marginals on the candidates (``calib.project_many``), if already
    projected.

    Raises
    ------
    NumericalError
        When a model marginal is not finite (named by its public clique, never its value).
    """
    model = calib.project_many(candidates) if model is None else model
    errors = np.array(
        [np.abs(answers[r] - m).sum() for r, m in zip(candidates, model, strict=True)]
    )
    if not np.all(np.isfinite(errors)):
        bad = [r for r, e in zip(candidates, errors, strict=True) if not np.isfinite(e)]
        raise NumericalError(
            f"candidate scoring: the model's marginals on {bad[:3]} are not finite"
        )
    return errors


def unmeasured(candidates: Sequence[Clique], state: PGMState) -> list[Clique]:
    """Without DP: the candidates not measured yet (a measured marginal is known exactly, so
    measuring it again adds nothing; the estimate only has to fit it)."""
    measured = set(state.selected)
    return [r for r in candidates if r not in measured]


def measure_one_way_exactly(
    est: Estimator,
    state: PGMState,
    answers: Mapping[Clique, np.ndarray],
    columns: Sequence[str],
    iters: int,
) -> None:
    """Without DP: every one-way marginal measured exactly (scale 1; they cost nothing), then
    the model fitted with ``iters`` iterations."""
    for a in columns:
        est.measure(state, (a,), answers[(a,)], 1.0)
    est.fit(state, iters)


def measure_gaussian(
    est: Estimator,
    state: PGMState,
    clique: Clique,
    counts: np.ndarray,
    sigma: float,
    *,
    rho: float,
    rng: np.random.Generator,
    accountant: PrivacyAccountant,
) -> None:
    """y = x_r + N(0, sigma^2) by the rho-zCDP Gaussian mechanism (L2 sensitivity 1), recorded
    in ``accountant`` and added to ``state`` as a measurement of scale ``sigma``."""
    y = gaussian_mechanism(
        counts, 1.0, rho=rho, integer=True, rng=rng, accountant=accountant,
        name=f"gaussian:{'x'.join(clique)}",
    )  # fmt: skip
    est.measure(state, clique, y, sigma)


@dataclass(frozen=True)
class MechanismInputs:
    """What a selection loop (:func:`run_aim`, :func:`run_mwem`) is given: the data, the
    budget and its randomness, and the public tuning.

    Parameters
    ----------
    answers : mapping of clique to numpy.ndarray
        The count tables (float, axes in clique order) of :func:`needed_marginals`.
    n : int
        Rows the counts are taken from.
    sizes : dict of str to int
        The number of codes of each column, in column order.
    workload : sequence of (clique, weight)
        The marginals of interest and their weights.
    rho : float or None
        The rho-zCDP budget; None runs without noise.
    accountant : PrivacyAccountant
        Records every noisy step.
    rng : numpy.random.Generator
        The secret randomness of the selections and the noise.
    max_model_size : float
        The junction tree's size limit in MB (AIM: MAX-SIZE; MWEM: the final limit).
    rounds : int, optional
        T (the mechanism's default when None).
    measure_share : float, default 0.9
        Share of each round's budget spent on the Gaussian measurement.
    pgm_iters : int, default 1000
        Mirror-descent iterations of the final estimate.
    round_iters : int, optional
        Iterations inside the selection loop (default :func:`default_round_iters`).
    progress : callable, optional
        Called with a line per round.
    """

    answers: Mapping[Clique, np.ndarray]
    n: int
    sizes: dict[str, int]
    workload: Sequence[tuple[Clique, float]]
    rho: float | None
    accountant: PrivacyAccountant
    rng: np.random.Generator
    max_model_size: float
    rounds: int | None = None
    measure_share: float = 0.9
    pgm_iters: int = 1000
    round_iters: int | None = None
    progress: Progress | None = None

    def start(self) -> tuple[Estimator, PGMState, int, Progress]:
        """A run's estimator, its empty state, the iterations per round and the progress call.

        Without DP the estimator knows the total (``n`` rows); with DP it estimates it from
        the noisy measurements.
        """
        est = Estimator(self.sizes, self.pgm_iters, None if self.rho is not None else float(self.n))
        round_iters = self.round_iters or default_round_iters(self.pgm_iters, len(self.sizes))
        return est, PGMState(self.sizes), round_iters, self.progress or (lambda _msg: None)


# -- AIM -----------------------------------------------------------------------------------
def run_aim(
    run: MechanismInputs,
    *,
    compress: bool = False,
    ordered: Mapping[str, int] | None = None,
) -> PGMState:
    """AIM (thesis Algorithms 4-6; McKenna et al. 2022). ``run.rho`` None runs without noise.

    DP: T = 16 k rounds budgeted (k attributes), sigma_0 = sqrt(T / (2 measure_share rho)),
    epsilon_0 = sqrt(8 (1 - measure_share) rho / T); one-way marginals first (Algorithm 5), then
    selection by the exponential mechanism on w_r (||x_r - y_r||_1 - sqrt(2/pi) sigma d_r),
    measurement, estimation, annealing (Algorithm 6), until rho is spent exactly.
    Without DP: one-way marginals, then the worst-approximated admissible candidate not yet
    measured, by w_r ||x_r - y_r||_1, for ``rounds`` rounds (default k), measured exactly,
    stopping early when every candidate is matched or measured.

    ``compress`` (DP only): after the one-way measurements, the model's domain merges the codes
    whose noisy one-way count is below 3 sigma (:func:`compression_rule`; the first
    ``ordered[a]`` codes of column ``a`` are ordered bins, merged with their neighbours), and
    every later marginal is measured on the merged cells; the state keeps the
    :class:`Compression` by which sampled cells are decompressed.
    """
    t0 = time.perf_counter()
    answers, n, sizes, rho = run.answers, run.n, run.sizes, run.rho
    columns = list(sizes)
    k = len(columns)
    weights = workload_weights(run.workload)
    candidates = list(weights)
    est, state, round_iters, say = run.start()

    if rho is None:
        measure_one_way_exactly(est, state, answers, columns, round_iters)  # Algorithm 5
        for t in range(run.rounds or k):
            cand = unmeasured(admissible(candidates, est, state, run.max_model_size), state)
            if not cand:
                break
            w = np.array([weights[r] for r in cand])
            err = w * l1_errors(cand, answers, state.calib)  # type: ignore[arg-type]
            if err.max() <= 1e-6 * n:
                break
            r = cand[int(np.argmax(err))]
            est.measure(state, r, answers[r], 1.0)
            est.fit(state, round_iters)
            say(f"round {t + 1}/{run.rounds or k}: measured {r}")
        est.fit(state, run.pgm_iters)
        state.seconds = time.perf_counter() - t0
        return state

    T = run.rounds or 16 * k
    if (
        k * run.measure_share >= T
    ):  # the k one-way measurements would spend k * measure_share / T >= all of rho
        raise AssumptionError(
            f"AIM with rounds={T} cannot measure the {k} one-way marginals within the budget: "
            f"they alone cost {k * run.measure_share / T:.3g} of rho; use rounds >= "
            f"{math.floor(k * run.measure_share) + 1}",
            assumption="rounds > number of columns * measure_share",
            admissible=f"rounds >= {math.floor(k * run.measure_share) + 1}",
        )
    sigma = math.sqrt(T / (2.0 * run.measure_share * rho))
    eps = math.sqrt(8.0 * (1.0 - run.measure_share) * rho / T)
    rho_used = 0.0
    for a in columns:  # Algorithm 5: one-way marginals with sigma_0
        measure_gaussian(
            est, state, (a,), answers[(a,)], sigma,
            rho=1.0 / (2.0 * sigma**2), rng=run.rng, accountant=run.accountant,
        )  # fmt: skip
        rho_used += 1.0 / (2.0 * sigma**2)
    if compress:  # post-processing of the noisy one-way counts: no privacy cost
        est, state, answers, sizes = compress_model(est, state, answers, sizes, sigma, ordered)
    est.fit(state, round_iters)
    sensitivity = max(abs(w) for w in weights.values())
    t = 0
    terminate = False
    while not terminate:
        t += 1
        remaining = rho - rho_used
        # Algorithm 6 lines 8-10: if two more rounds do not fit, spend everything now
        if remaining <= 2.0 * (1.0 / (2.0 * sigma**2) + eps**2 / 8.0):
            sigma = math.sqrt(1.0 / (2.0 * run.measure_share * remaining))
            eps = math.sqrt(8.0 * (1.0 - run.measure_share) * remaining)
            terminate = True
        rho_used += eps**2 / 8.0 + 1.0 / (2.0 * sigma**2)
        limit = run.max_model_size * rho_used / rho
        cand = admissible(candidates, est, state, limit)
        w = np.array([weights[r] for r in cand])
        bias = SQRT_2_OVER_PI * sigma * np.array([cells(sizes, r) for r in cand])
        model = state.calib.project_many(cand)  # type: ignore[union-attr]
        scores = w * (l1_errors(cand, answers, state.calib, model) - bias)  # type: ignore[arg-type]
        i = exponential_mechanism(
            scores,
            sensitivity,
            eps,
            rng=run.rng,
            accountant=run.accountant,
            name="exponential:select",
        )
        # auditor only (privacy/audit_hook.py; no-op otherwise): scores = w |x - model|_1 - w bias
        record_selection(
            "exponential:select", eps, sensitivity, scores, i,
            queries=cand, model=model, weights=w, offsets=w * bias,
        )  # fmt: skip
        r = cand[i]
        before = state.calib.project(r)  # type: ignore[union-attr]
        measure_gaussian(
            est, state, r, answers[r], sigma,
            rho=1.0 / (2.0 * sigma**2), rng=run.rng, accountant=run.accountant,
        )  # fmt: skip
        after = est.fit(state, round_iters).project(r)
        say(f"round {t}: measured {r}, sigma={sigma:.3g}, {rho_used / rho:.0%} of the budget spent")
        # Algorithm 6 lines 1-3: anneal when the new measurement barely moved the model
        if np.abs(after - before).sum() <= SQRT_2_OVER_PI * sigma * cells(sizes, r):
            sigma /= 2.0
            eps *= 2.0
    if round_iters != run.pgm_iters:
        est.fit(state, run.pgm_iters)
    state.seconds = time.perf_counter() - t0
    return state


# -- MWEM+PGM ------------------------------------------------------------------------------
def run_mwem(run: MechanismInputs) -> PGMState:
    """MWEM+PGM (McKenna et al. 2019, section 6; Hardt et al. 2012, section 3.3).

    T rounds (default k); each spends rho/T: epsilon = sqrt(8 (1 - measure_share) rho/T) on the
    exponential mechanism with score ||x_r - y_r||_1 - d_r over workload marginals whose
    junction tree stays within max_model_size * t / T megabytes, and sigma =
    sqrt(1 / (2 measure_share rho/T)) on the measurement. The first selection compares against the
    uniform distribution of total 1 (nothing is known yet). Without DP: the one-way marginals
    are measured exactly first (they cost nothing), then the argmax of ||x_r - y_r||_1 over
    the marginals not measured yet (:func:`unmeasured`) within the whole size limit from the
    first round (the growing limit shares a budget; without DP there is none).
    """
    t0 = time.perf_counter()
    answers, n, sizes, rho = run.answers, run.n, run.sizes, run.rho
    k = len(sizes)
    T = run.rounds or k
    candidates = [cl for cl, _ in run.workload]
    est, state, round_iters, say = run.start()
    uniform = {a: np.zeros(s) for a, s in sizes.items()}
    state.calib = calibrate(
        {(a,): v for a, v in uniform.items()}, sizes, 1.0 if rho is not None else float(n)
    )
    if rho is not None:
        rho_t = rho / T
        sigma = math.sqrt(1.0 / (2.0 * run.measure_share * rho_t))
        eps = math.sqrt(8.0 * (1.0 - run.measure_share) * rho_t)
    else:  # without DP the one-way marginals cost nothing: measure them exactly first
        measure_one_way_exactly(est, state, answers, list(sizes), round_iters)
    for t in range(1, T + 1):
        limit = run.max_model_size * (t / T if rho is not None else 1.0)
        cand = admissible(candidates, est, state, limit)
        if rho is None and not (cand := unmeasured(cand, state)):
            if round_iters != run.pgm_iters:  # every admissible marginal is known exactly
                est.fit(state, run.pgm_iters)
            break
        if not cand:
            raise AssumptionError(
                f"no workload marginal fits a junction tree of {limit:.3g} MB in round {t} of {T}",
                assumption="some candidate marginal fits max_model_size * t / T",
                admissible="a larger max_model_size, or fewer rounds",
            )
        model = state.calib.project_many(cand)
        err = l1_errors(cand, answers, state.calib, model)
        if rho is None:
            if err.max() <= 1e-6 * n:
                if round_iters != run.pgm_iters:  # the final estimate, as after the last round
                    est.fit(state, run.pgm_iters)
                break
            r = cand[int(np.argmax(err))]
            est.measure(state, r, answers[r], 1.0)
        else:
            size = np.array([cells(sizes, c) for c in cand], dtype=np.float64)
            scores = err - size
            i = exponential_mechanism(
                scores, 1.0, eps, rng=run.rng, accountant=run.accountant, name="exponential:select"
            )
            # auditor only (privacy/audit_hook.py; no-op otherwise): scores = |x - model|_1 - d_r
            record_selection(
                "exponential:select", eps, 1.0, scores, i,
                queries=cand, model=model, weights=np.ones(len(cand)), offsets=size,
            )  # fmt: skip
            r = cand[i]
            measure_gaussian(
                est,
                state,
                r,
                answers[r],
                sigma,
                rho=run.measure_share * rho_t,
                rng=run.rng,
                accountant=run.accountant,
            )
        est.fit(state, round_iters if t < T else run.pgm_iters)
        say(f"round {t}/{T}: measured {r}" + (f", {t / T:.0%} of the budget spent" if rho else ""))
    state.seconds = time.perf_counter() - t0
    return state
