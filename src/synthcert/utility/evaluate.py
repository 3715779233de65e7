"""The whole utility evaluation of a synthetic table against a real one (thesis section 4.3.3):
one-way marginal distances, correlation and association differences, and ML efficacy.

One entry point, :func:`evaluate`, with two ways of running: in memory (the default: every
figure), or on an engine (``engine="local"`` streaming partitions, or ``"dask"``) for tables
larger than memory, which computes the one-way distances and the numeric correlation
difference by mergeable reductions (:mod:`synthcert.utility.streamed`). Both return a
:class:`UtilityEvaluation`; the figures both compute agree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.errors import DataError, ParameterError
from synthcert.utility.correlation import (
    association_difference,
    correlation_difference,
)
from synthcert.utility.efficacy import Efficacy, efficacy
from synthcert.utility.marginals import Binning, compare_marginals
from synthcert.utility.results import UtilityEvaluation

Table = pd.DataFrame | str | os.PathLike


def evaluate(
    real: Table,
    synthetic: Table,
    schema: Schema,
    *,
    target: str | Sequence[str] | None = None,
    holdout: Table | None = None,
    bins: int = DEFAULT_BINS,
    binning: Binning = "quantile",
    seed: int = 0,
    n_jobs: int = 1,
    real_baseline: bool = True,
    engine: Any = None,
    scheduler: Any = None,
    csv: CsvOptions | None = None,
) -> UtilityEvaluation:
    """Compare ``synthetic`` with ``real`` (the rows the synthesizer was fitted on).

    Thesis Defs. 4.3.1-4.3.4: per column the L1, L2 and Hellinger distances of the one-way
    distributions on the public bins and the Wasserstein-1 distance; the mean and largest
    absolute difference of the numeric correlation matrices (and, in memory, of the mixed
    association matrices); with ``target``, machine-learning efficacy (section 4.3.3).

    Parameters
    ----------
    real, synthetic
        The tables: frames, or paths (CSV/Parquet file, folder or glob) read with ``csv``.
    schema
        The public schema (bins over the public bounds, the declared categories).
    target
        Column(s) to predict: LightGBM trained on ``synthetic`` (and on ``real`` when
        ``real_baseline``), tested on ``holdout``. In memory only.
    holdout
        Real rows the synthesizer never saw; required with ``target``.
    bins
        Bins per numeric column.
    binning
        ``"quantile"`` (default): numeric bins at the real column's quantiles, so a long tail
        is compared as finely as the bulk (the evaluation is internal, so its bins may come
        from the real table); ``"public"``: the schema's public bins (equal width over the
        bounds unless a scale or bins are declared), as in the thesis. An engine run uses
        the public bins (quantiles would need another pass) and says so in ``notes``.
    seed, n_jobs
        Seed and threads of the LightGBM models.
    engine
        None (default): in memory, every figure. ``"local"`` (streaming partitions),
        ``"dask"`` or an opened engine: one-way distances (numeric Wasserstein on the bin
        centres) and the correlation difference by reductions, for tables larger than
        memory; ``real`` and ``synthetic`` must then be paths.
    scheduler
        Dask scheduler address or client (``engine="dask"``).
    csv
        How to read CSV inputs.

    Returns
    -------
    UtilityEvaluation
        The figures (``to_dict()`` is the JSON of ``synthcert evaluate``).

    Raises
    ------
    DataError
        An unknown target, efficacy without held-out rows, or an empty table.
    ParameterError
        Efficacy or frames asked of an engine run.

    Examples
    --------
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> real, fake = make_demo_table(2_000, seed=1), make_demo_table(2_000, seed=2)
    >>> result = evaluate(real, fake, demo_schema())
    >>> result.summary["l1_numeric_mean"] < 0.1
    True
    """
    if engine is not None:
        if target:
            raise ParameterError(
                "--target (efficacy) trains models on rows in memory: use --engine local"
            )
        if any(isinstance(t, pd.DataFrame) for t in (real, synthetic)):
            raise ParameterError(
                "an engine reads the tables in partitions: give paths, or evaluate frames "
                "in memory (engine=None)"
            )
        from synthcert.utility.streamed import evaluate_on_engine

        return evaluate_on_engine(
            real, synthetic, schema, bins=bins, csv=csv, engine=engine, scheduler=scheduler
        )  # type: ignore[arg-type]
    real, synthetic = _frame(real, csv), _frame(synthetic, csv)
    holdout = None if holdout is None else _frame(holdout, csv)
    targets = [target] if isinstance(target, str) else list(target or [])
    for t in targets:
        schema.column(t)  # names the unknown column
    schema, notes = _shared_columns(schema, synthetic)
    if gone := [t for t in targets if t not in schema.names]:
        raise DataError(f"the synthetic table has no column {gone[0]!r} to train a model on")
    if targets and holdout is None:
        raise DataError(
            "machine-learning efficacy needs held-out real rows the synthesizer never saw "
            "(pass holdout= / --holdout); testing on the synthesizer's own input rewards "
            "memorisation"
        )
    marg = compare_marginals(real, synthetic, schema, bins=bins, binning=binning)
    notes = (*notes, *missing_notes(real, synthetic, schema, marg.n_real, marg.n_synthetic))
    corr = correlation_difference(real, synthetic, schema)
    assoc = association_difference(real, synthetic, schema)
    summary = dict(marg.summary)
    summary["correlation_abs_diff_mean"] = corr.mean
    summary["correlation_abs_diff_max"] = corr.max
    summary["association_abs_diff_mean"] = assoc.mean
    summary["association_abs_diff_max"] = assoc.max
    eff: dict[str, Efficacy] = {}
    for t in targets:
        eff[t] = efficacy(
            synthetic,
            holdout,
            schema,
            t,
            real_train=real if real_baseline else None,
            seed=seed,
            n_jobs=n_jobs,
        )
    return UtilityEvaluation(
        columns=marg.columns,
        summary=summary,
        correlation=corr,
        association=assoc,
        efficacy=eff,
        bins=bins,
        n_real=marg.n_real,
        n_synthetic=marg.n_synthetic,
        n_holdout=None if holdout is None else len(holdout),
        binning=marg.binning,
        notes=notes,
    )


COMPLETE_SHARE = 0.95  # below this share of complete rows, the evaluation says how few it used
MISSING_GAP = 0.05  # a column whose missing share differs by more than this is named


def missing_notes(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, n_real: int, n_synthetic: int
) -> tuple[str, ...]:
    """Notes on what the marginals leave out: how few complete rows they were measured on
    (a row with a missing value is left out of every figure), and each column whose share of
    missing values differs between the tables by more than :data:`MISSING_GAP`."""
    notes = []
    if n_real < COMPLETE_SHARE * len(real) or n_synthetic < COMPLETE_SHARE * len(synthetic):
        notes.append(
            f"the figures are measured on complete rows only: {n_real:,} of {len(real):,} real "
            f"rows and {n_synthetic:,} of {len(synthetic):,} synthetic rows (a row with a "
            "missing value is left out)"
        )
    for name in schema.names:
        fake, true = synthetic[name].isna().mean(), real[name].isna().mean()
        if abs(fake - true) > MISSING_GAP:
            notes.append(
                f"{name}: {fake:.1%} missing in the synthetic table, {true:.1%} in the real one"
            )
    return tuple(notes)


def _shared_columns(schema: Schema, synthetic: pd.DataFrame) -> tuple[Schema, tuple[str, ...]]:
    """The schema's columns the synthetic table has, and a note naming the others.

    A synthesizer may leave a column out of its output (``--param private_domain`` does when
    a DP category list keeps fewer than two values): the others are still measured. With no
    column in common, the schema is returned whole and reading the table names the gap.
    """
    absent = [n for n in schema.names if n not in synthetic.columns]
    if not absent or len(absent) == len(schema.names):
        return schema, ()
    note = (
        f"the synthetic table has no column {', '.join(absent)} (left out of the output, e.g. "
        "by --param private_domain): measured on the other columns"
    )
    return schema.select([n for n in schema.names if n not in absent]), (note,)


def _frame(table: Table, csv: CsvOptions | None) -> pd.DataFrame:
    """A frame as is; a path read whole."""
    if isinstance(table, pd.DataFrame):
        return table
    from synthcert.data.io import read_table

    return read_table(table, csv)
