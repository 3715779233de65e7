"""DP quantile bins: bin edges that follow a column's shape, paid from a declared share of epsilon.

A numeric column declared ``"bins": "dp-quantile", "bin_count": k`` in the schema (or every
``"scale": "log"`` column, the schema's public mark of a long tail, when asked for) is cut at
k - 1 differentially private quantiles of its values, at levels j/k, j = 1..k-1, instead of
equal-width bins of its public bounds. Each quantile is the exponential mechanism over a
*public* candidate grid with the rank-interval score of :mod:`synthcert.privacy.domain`
(:func:`~synthcert.privacy.domain.dp_quantile`; McSherry & Talwar 2007, Thm 6; Smith 2011; one
quantile at a time as in Gillenwater, Joseph & Kulesza 2021, section 2), the same mechanism
``--private-domain`` uses for bounds, here with a public base measure (:func:`base_measure`:
each candidate weighted by the length of [lower, upper] it stands for, on the column's scale),
so that the draw follows the data's shape rather than the grid's density.

**Neighbouring relation.** Both of synthcert's: add/remove one record ("unbounded") and
replace one record ("bounded"). The score u(c) = -max(0, #{x < c} - q m, q m - #{x <= c})
(m the column's non-missing count) moves by at most max(q, 1 - q) <= 1 when one record is
added or removed (a missing value counts in neither rank nor m), and by at most 1 when one is
replaced, so Delta u = 1 under both and a quantile at epsilon_q is epsilon_q-DP.

**Public.** The column's bounds (declared public, or DP estimates of ``--private-domain``, which
runs first), the bin count k, the declared share, the candidate grid (:func:`edge_grid`: built
from the bounds and fixed constants only), and the post-processing rules. **Private.** The
values, m, and which candidates score best. The published edges (in the schema of the run's
report) are the mechanism's output.

**Edges without reading data for free.** The k - 1 draws are sorted, values equal to one
another or outside the open interval (lower, upper) are merged or dropped, and the bounds are
added: a strictly increasing tuple lower < e_1 < ... < upper (:func:`finish_edges`). This is
post-processing of the DP draws and the public bounds; when every draw falls on a bound, the
one interior edge is the public midpoint of the bounds (on the column's scale). Heavy ties
(a value held by many records) therefore give fewer than k bins, never an empty one chosen by
looking at the data.

**Accounting (basic composition, thesis Prop. 2.3.16).** The step's budget is
SHARE x epsilon of the requested epsilon, split equally over the columns and, within a column,
over its k - 1 quantiles in proportion to 1 / min(q, 1 - q) (:func:`level_budgets`); each
quantile is recorded in a
:class:`~synthcert.privacy.accountant.PrivacyAccountant` as an exponential-mechanism step, so
the step is (SHARE x epsilon)-DP, pure. The synthesizer's fit gets the rest of epsilon (and all
of delta), so the run's claim, the basic composition of the two, is the requested total
(:meth:`QuantileBins.compose`). The step adds no delta and keeps the synthesizer's neighbouring
relation. The accounting assumes that the bounds, k, SHARE and the choice of columns are fixed
without looking at the table (declared in the schema and on the command line), that
``--private-domain``'s own estimate of the bounds is paid separately (it is: its ledger and
:func:`~synthcert.privacy.domain.compose_claim`), and that the randomness comes from the run's
secret seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol, Self, TypeVar

import numpy as np
import pandas as pd

from synthcert.data.discretize import without_atoms
from synthcert.data.encode import numeric_values
from synthcert.data.schema import DEFAULT_QUANTILE_BINS, Column, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError, ParameterError
from synthcert.privacy.accountant import TOLERANCE, PrivacyAccountant, Spent
from synthcert.privacy.bins_step import BinsStep
from synthcert.privacy.claims import Assumption, PrivacyClaim
from synthcert.privacy.domain import (
    add_to_grid,
    default_grid,
    dp_quantile,
    grid_ranks,
    range_grid,
)

BINS_MECHANISM = "exponential mechanism (DP quantiles: bin edges)"
SCALE_POINTS = 1001  # candidates equally spaced on a log column's transformed scale
Rng = np.random.Generator


def quantile_levels(k: int) -> np.ndarray:
    """The levels j/k, j = 1..k-1, of the interior edges of k bins."""
    if k < 2:
        raise ParameterError(f"quantile bins need at least 2 bins, got {k}")
    return np.arange(1, k) / k


def level_budgets(levels: np.ndarray, epsilon: float) -> np.ndarray:
    """epsilon_j = epsilon w_j / sum(w), w_j = 1 / min(q_j, 1 - q_j): a public split of a
    column's budget over its quantile levels that sums to epsilon.

    Beyond the data every candidate scores -min(q, 1 - q) m, so the chance that a level's draw
    lands there falls like exp(-epsilon_j min(q_j, 1 - q_j) m / 2) (the bound behind
    :func:`~synthcert.privacy.domain.reliable_rows`); this split makes that exponent the same
    for every level. An equal split leaves the extreme levels (0.05, 0.95 of 20 bins) ten
    times more exposed than the median, and one edge far in an empty tail makes a wide bin
    whose uniform draws move the top decile.
    """
    q = np.asarray(levels, dtype=np.float64)
    w = 1.0 / np.minimum(q, 1.0 - q)
    return epsilon * w / w.sum()


def edge_grid(column: NumericColumn) -> np.ndarray:
    """The public candidates for a column's interior edges: sorted, strictly inside
    (lower, upper).

    The union of :func:`~synthcert.privacy.domain.default_grid` (relative resolution 0.1% to
    1%), 1,001 equally spaced points of [lower, upper] (every integer of an integer column when
    there are at most 100,001; :func:`~synthcert.privacy.domain.range_grid`), and for a log
    column 1,001 points equally spaced on its scale (log(1 + x - lower), or asinh(x)). Integer
    columns keep integers in [ceil(lower) + 1, upper), so every bin [e_b, e_{b+1}) holds an
    integer. Depends on the column's public declaration only.
    """
    lo, hi = float(column.lower), float(column.upper)
    parts = [default_grid(integer=column.integer), range_grid(lo, hi, integer=column.integer)]
    if column.scale != "linear":
        t0, t1 = column.model_bounds
        parts.append(column.from_model(np.linspace(t0, t1, SCALE_POINTS)))
    grid = np.unique(np.concatenate(parts))
    if column.integer:
        grid = np.unique(np.round(grid))
        grid = grid[(grid >= math.ceil(lo) + 1) & (grid < hi)]
    else:
        grid = grid[(grid > lo) & (grid < hi)]
    return grid


def base_measure(column: NumericColumn, grid: np.ndarray) -> np.ndarray:
    """Public weights of the candidates: the length, on the column's scale (x, or
    log(1 + x - lower) for a log column), of the part of [lower, upper] nearest each one.

    With these weights the exponential mechanism draws, in effect, from a density on the
    column's scale (Smith 2011's continuous form) rather than from the grid's points, so a
    dense stretch of the grid where the data have no mass (the 10^-6..10^2 decades of the
    default grid below a wage) does not attract the quantiles. Depends on the column's
    declaration and the grid only.
    """
    t = column.to_model(grid)
    t0, t1 = column.model_bounds
    cuts = np.concatenate([[t0], (t[1:] + t[:-1]) / 2.0, [t1]])
    mu = np.diff(cuts)
    return np.maximum(mu, np.finfo(np.float64).tiny)


def finish_edges(column: NumericColumn, draws: Iterable[float]) -> tuple[float, ...]:
    """Public post-processing of the DP draws into strictly increasing edges lower..upper.

    Sorted, duplicates merged, values on or outside the bounds dropped; when nothing is left,
    the single interior edge is the public midpoint of the bounds on the column's scale.
    """
    lo, hi = float(column.lower), float(column.upper)
    inner = np.unique(np.asarray(list(draws), dtype=np.float64))
    inner = inner[(inner > lo) & (inner < hi)]
    if inner.size == 0:
        t0, t1 = column.model_bounds
        mid = float(column.from_model(np.array([(t0 + t1) / 2.0]))[0])
        inner = np.array([min(max(mid, np.nextafter(lo, hi)), np.nextafter(hi, lo))])
    return (lo, *(float(e) for e in inner), hi)


def dp_bin_edges(
    below: np.ndarray,
    upto: np.ndarray,
    m: int,
    grid: np.ndarray,
    column: NumericColumn,
    k: int,
    epsilon: float,
    *,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
) -> tuple[float, ...]:
    """Edges of k DP quantile bins of one column: k - 1 quantiles, the budget split over the
    levels by :func:`level_budgets`.

    Parameters
    ----------
    below, upto
        #{x < c_j} and #{x <= c_j} for the candidates c_j of ``grid`` (private counts).
    m
        The column's number of non-missing values (private).
    grid
        The public candidates (:func:`edge_grid`).
    column
        The column (public bounds and scale).
    k
        Number of bins asked for (public).
    epsilon
        The column's budget; epsilon-DP in total by basic composition.
    rng, accountant
        Randomness, and the accountant that records each quantile.

    Returns
    -------
    tuple of float
        Strictly increasing edges from ``column.lower`` to ``column.upper``
        (:func:`finish_edges`); at most k + 1 of them.
    """
    levels = quantile_levels(k)
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ParameterError(f"quantile bins need a finite epsilon > 0, got {epsilon}")
    if len(grid) == 0:
        return finish_edges(column, ())
    name = f"{BINS_MECHANISM}: {column.name}"
    base = base_measure(column, grid)
    draws = [
        dp_quantile(
            below,
            upto,
            m,
            grid,
            float(q),
            float(eps_q),
            rng=rng,
            accountant=accountant,
            name=name,
            base=base,
        )
        for q, eps_q in zip(levels, level_budgets(levels, epsilon), strict=True)
    ]
    return finish_edges(column, draws)


# --------------------------------------------------------------------------------------------
# what the bins steps share (quantile bins here, tree bins in privacy.tree_bins)
# --------------------------------------------------------------------------------------------
class ChunkCounts(Protocol):
    """Private counts of a bins step that grow by one input chunk at a time."""

    def update(self, chunk: pd.DataFrame) -> Self:
        """Add one chunk."""
        ...


Counts = TypeVar("Counts", bound=ChunkCounts)


def parsed_values(chunk: pd.DataFrame, column: NumericColumn) -> np.ndarray:
    """The column's values in one chunk, on the encoder's public rules
    (:func:`~synthcert.data.encode.numeric_values`: missing and unparsable values are NaN).

    Raises
    ------
    DataError
        When the input has no such column.
    """
    if column.name not in chunk.columns:
        raise DataError(f"the input has no column {column.name!r}")
    return numeric_values(chunk[column.name], column)


def column_values(chunk: pd.DataFrame, column: NumericColumn) -> np.ndarray:
    """The column's values in one chunk that its bins hold, on the encoder's public rules
    (:func:`~synthcert.data.encode.numeric_values`: missing and unparsable values are NaN),
    with a value equal to one of the column's atoms NaN too: its code is its own
    (:func:`~synthcert.data.discretize.without_atoms`), so a bins step skips it like a missing
    value (one record still changes at most one count).

    Raises
    ------
    DataError
        When the input has no such column.
    """
    return without_atoms(parsed_values(chunk, column), column)


def read_counts(counts: Counts, chunks: Callable[[], Iterable[pd.DataFrame]]) -> Counts:
    """``counts`` updated with every chunk of one streamed pass over the input (``chunks`` is
    called once)."""
    for chunk in chunks():
        counts.update(chunk)
    return counts


def step_rng(seed: np.random.SeedSequence | None) -> Rng:
    """The step's generator: one child spawned from the run's secret seed sequence (fresh OS
    entropy without one), so the step's noise is independent of the synthesizer's."""
    seq = seed if seed is not None else np.random.SeedSequence()
    return np.random.default_rng(seq.spawn(1)[0])


def with_columns(schema: Schema, done: Mapping[str, Column]) -> Schema:
    """``schema`` with each column named in ``done`` replaced by its new version, in order."""
    new: list[Column] = [done.get(c.name, c) for c in schema.columns]
    return replace(schema, columns=tuple(new))


def undeclared_share(bins: str, names: Iterable[str], budget: str) -> AssumptionError:
    """The refusal of a DP run whose schema asks for ``bins`` of the columns ``names`` without a
    declared share of ``budget`` to pay them from (the share is public: it is never chosen
    by looking at the data)."""
    return AssumptionError(
        f"the schema asks for {bins} of {', '.join(names)}: declare the share "
        f"of {budget} they cost with --param dp_bins=SHARE",
        assumption=f"a declared share of {budget} for {bins}",
        admissible="--param dp_bins=0.1, or explicit public bins in the schema",
    )


@dataclass
class EdgeCounts:
    """Rank counts of the requested columns on their public edge grids, chunk by chunk.
    Private: never published."""

    columns: tuple[NumericColumn, ...]
    grids: dict[str, np.ndarray] = field(init=False)
    cells: dict[str, np.ndarray] = field(init=False)
    ties: dict[str, np.ndarray] = field(init=False)
    nonmissing: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.grids = {c.name: edge_grid(c) for c in self.columns}
        self.cells = {k: np.zeros(len(g) + 1, dtype=np.int64) for k, g in self.grids.items()}
        self.ties = {k: np.zeros(len(g), dtype=np.int64) for k, g in self.grids.items()}
        self.nonmissing = dict.fromkeys(self.grids, 0)

    def update(self, chunk: pd.DataFrame) -> EdgeCounts:
        """Add one chunk (missing and unparsable values skipped, by public rule)."""
        for col in self.columns:
            x = column_values(chunk, col)
            self.nonmissing[col.name] += add_to_grid(
                x, self.grids[col.name], self.cells[col.name], self.ties[col.name]
            )
        return self

    def ranks(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(#{x < c_j}, #{x <= c_j}) on the column's grid."""
        return grid_ranks(self.cells[name], self.ties[name])


def requested_columns(schema: Schema, *, log_columns: bool = False) -> list[NumericColumn]:
    """Columns that ask for DP quantile bins: ``"bins": "dp-quantile"``, and with
    ``log_columns`` every column on a log scale (``log`` or ``signed-log``) without explicit
    edges (given
    :data:`~synthcert.data.schema.DEFAULT_QUANTILE_BINS` bins)."""
    out = []
    for c in schema.numeric:
        if c.quantile_bins is not None:
            out.append(c)
        elif log_columns and c.scale != "linear" and c.bins is None:
            out.append(replace(c, quantile_bins=DEFAULT_QUANTILE_BINS))
    return out


@dataclass(frozen=True)
class QuantileBins(BinsStep):
    """The outcome of the quantile-bins step (:class:`~synthcert.privacy.bins_step.BinsStep`:
    the schema with DP edges, the budget split, the step's ledger and totals), with the step's
    epsilon and the total it is a share of."""

    STEP = "quantile bins"

    epsilon: float = 0.0  # the step's budget, SHARE x the requested epsilon
    total_epsilon: float | None = None  # the epsilon SHARE is a share of

    def composed(self, claim: PrivacyClaim, stated: float, spent: Spent) -> PrivacyClaim:
        """The claim of this step followed by the synthesizer (basic composition, thesis
        Prop. 2.3.16): (epsilon_b + epsilon_s, delta_s), stated as the epsilon the step was
        given (the requested total, or what ``--private-domain`` left, whose
        :func:`~synthcert.privacy.domain.compose_claim` then adds its part), which the two are
        checked not to exceed."""
        bins = Assumption(
            "quantile_bins",
            {"columns": list(self.columns), "share": self.share},
            "dp-estimate",
            "bin edges of these columns are DP quantiles (exponential mechanism on a public "
            "grid within the column's bounds) paid from this share of epsilon",
        )
        return compose_basic(claim, spent.epsilon, stated, BINS_MECHANISM, bins, f"the {self.STEP}")


def compose_basic(
    claim: PrivacyClaim,
    spent_epsilon: float,
    stated_epsilon: float,
    mechanism: str,
    assumption: Assumption,
    step: str,
) -> PrivacyClaim:
    """A pure-epsilon bins step followed by the synthesizer of ``claim``, by basic composition
    (thesis Prop. 2.3.16): (epsilon_b + epsilon_s, delta_s), stated as ``stated_epsilon``,
    which the two are checked not to exceed; no rho is stated.

    Raises
    ------
    AssumptionError
        If epsilon_b + epsilon_s exceeds ``stated_epsilon`` (``step`` names the bins step).
    """
    total = float(spent_epsilon) + float(claim.epsilon or 0.0)
    if total > stated_epsilon + TOLERANCE:
        raise AssumptionError(
            f"{step} and the synthesizer spend epsilon {total:.6g}, more than the "
            f"{stated_epsilon:.6g} they were given"
        )
    delta = float(claim.delta or 0.0)
    model = "pure-dp" if delta == 0.0 and claim.model == "pure-dp" else "approx-dp"
    return with_bins(
        claim, mechanism, assumption, model=model, epsilon=float(stated_epsilon), rho=None
    )


def with_bins(
    claim: PrivacyClaim, mechanism: str, assumption: Assumption, **figures: object
) -> PrivacyClaim:
    """``claim`` with a bins step's mechanism and assumption added and its ``figures``
    (model, epsilon, rho) replaced by the composed ones."""
    return replace(
        claim,
        mechanisms=tuple(sorted({*claim.mechanisms, mechanism})),
        assumptions=(*claim.assumptions, assumption),
        **figures,  # type: ignore[arg-type]
    )


def quantile_bins_step(
    chunks: Callable[[], Iterable[pd.DataFrame]],
    schema: Schema,
    epsilon: float | None,
    *,
    share: float | None,
    total_epsilon: float | None = None,
    log_columns: bool = False,
    seed: np.random.SeedSequence | None = None,
) -> QuantileBins:
    """DP quantile bins for every column that asks for them, before a synthesizer's fit.

    Parameters
    ----------
    chunks
        Called once, and only when some column is estimated: an iterable of the input's
        chunks (one streamed pass).
    schema
        The (public or DP) schema; its dp-quantile columns get ``bins`` = the DP edges and
        ``bins_source="dp"``.
    epsilon
        The synthesizer's epsilon before this step (None: no DP; the columns then keep the
        public bins of their scale and nothing is read).
    share
        The declared share in (0, 1) of ``total_epsilon`` spent here (``--dp-bins``).
    total_epsilon
        The epsilon the share is a share of (default ``epsilon``; the requested total when
        ``--private-domain`` already took its part).
    log_columns
        Also give DP quantile bins to every ``"scale": "log"`` column (``--dp-bins-log``).
    seed
        The run's secret seed sequence; one child is spawned, only when the step runs.

    Returns
    -------
    QuantileBins
        The new schema, the synthesizer's remaining epsilon and the step's ledger.

    Raises
    ------
    AssumptionError
        A DP run with dp-quantile columns but no share, or a share that leaves the
        synthesizer no budget.
    """
    cols = requested_columns(schema, log_columns=log_columns)
    if epsilon is None:
        if share is not None:
            raise AssumptionError(
                "--param dp_bins spends a share of the DP budget: give --epsilon",
                assumption="a DP budget",
                admissible="--epsilon E, or drop --param dp_bins",
            )
        return QuantileBins(schema=schema, synthesizer_epsilon=epsilon)
    if not cols:
        if share is not None:
            raise AssumptionError(
                '--param dp_bins: no column asks for DP quantile bins ("bins": "dp-quantile" in '
                'the schema, or "scale": "log" with --param dp_bins_log=true)',
                assumption="a column with dp-quantile bins",
                admissible="drop --param dp_bins",
            )
        return QuantileBins(schema=schema, synthesizer_epsilon=epsilon)
    names = tuple(c.name for c in cols)
    if share is None:
        raise undeclared_share("DP quantile bins", names, "epsilon")
    total = float(epsilon if total_epsilon is None else total_epsilon)
    step_eps = float(share) * total
    rest = float(epsilon) - step_eps
    if not (0 < share < 1) or not rest > 0:
        raise AssumptionError(
            f"--param dp_bins={share} leaves the synthesizer no budget (epsilon {epsilon:g} before "
            f"the step, {step_eps:g} for the bins)",
            assumption="0 < SHARE and the shares below 1 in total",
            admissible="for example --param dp_bins=0.1",
        )
    counts = read_counts(EdgeCounts(tuple(cols)), chunks)
    rng = step_rng(seed)
    accountant = PrivacyAccountant(step_eps, None)
    per_column = step_eps / len(cols)
    done: dict[str, NumericColumn] = {}
    for col in cols:
        below, upto = counts.ranks(col.name)
        k = int(col.quantile_bins or DEFAULT_QUANTILE_BINS)
        edges = dp_bin_edges(
            below,
            upto,
            counts.nonmissing[col.name],
            counts.grids[col.name],
            col,
            k,
            per_column,
            rng=rng,
            accountant=accountant,
        )
        done[col.name] = replace(col, bins=edges, quantile_bins=None, bins_source="dp")
    spent = accountant.check_within_budget()
    return QuantileBins(
        schema=with_columns(schema, done),
        columns=names,
        share=float(share),
        epsilon=step_eps,
        total_epsilon=total,
        stated_epsilon=float(epsilon),
        synthesizer_epsilon=rest,
        ledger=accountant.ledger,
        spent=spent,
    )


__all__ = [
    "BINS_MECHANISM",
    "ChunkCounts",
    "EdgeCounts",
    "QuantileBins",
    "base_measure",
    "column_values",
    "compose_basic",
    "dp_bin_edges",
    "edge_grid",
    "finish_edges",
    "level_budgets",
    "parsed_values",
    "quantile_bins_step",
    "quantile_levels",
    "read_counts",
    "requested_columns",
    "step_rng",
    "undeclared_share",
    "with_bins",
    "with_columns",
]
