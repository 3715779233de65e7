"""Marginal and correlation utility of tables too large for memory, through an engine.

One-way distributions come from histograms on the public bins and the numeric correlations
from the mergeable moments (``synthcert.engine``), so the real and synthetic tables are read
in partitions, locally or on a Dask cluster. Association matrices, raw-value Wasserstein
distances and efficacy need rows in memory. Called by :func:`synthcert.utility.evaluate` with
an engine; the result is the same :class:`~synthcert.utility.evaluate.UtilityEvaluation`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.utility.correlation import matrix_difference
from synthcert.utility.marginals import (
    distance_from_frequencies,
    relative,
    summarize,
)
from synthcert.utility.results import UtilityEvaluation

NOTE = (
    "streamed evaluation: numeric columns on their public bins (quantile bins of the real "
    "column need the rows in memory) and numeric Wasserstein distances on the bin centres; "
    "association matrices and efficacy need the rows in memory (use --engine local)"
)


def evaluate_on_engine(
    real: str | os.PathLike,
    synthetic: str | os.PathLike,
    schema: Schema,
    *,
    bins: int = DEFAULT_BINS,
    csv: CsvOptions | None = None,
    engine: Any = "local",
    scheduler: Any = None,
) -> UtilityEvaluation:
    """Thesis Defs. 4.3.1-4.3.4 (L1, L2, Hellinger, Wasserstein; |R_real - R_syn|) by reductions.

    Parameters
    ----------
    real, synthetic
        Paths (CSV/Parquet file, folder or glob) read in partitions.
    schema
        The public schema; numeric columns binned over their public bounds.
    bins
        Equal-width bins per numeric column.
    csv
        How to read CSV inputs.
    engine, scheduler
        ``"local"`` (threads, streaming), ``"dask"`` (at ``scheduler``) or an opened engine.

    Returns
    -------
    UtilityEvaluation
        No association matrix, efficacy or ``n_holdout``; ``notes`` says why.

    Raises
    ------
    DataError
        An empty table (nothing to compare).

    Examples
    --------
    >>> evaluate_on_engine("real.parquet", "synthetic.parquet", schema)  # doctest: +SKIP
    """
    from synthcert.engine import histograms, numeric_correlation, open_engine

    disc = Discretizer(schema, bins=bins, missing="drop")  # complete rows, as before
    with open_engine(engine, scheduler) as eng:
        h_real = histograms(real, disc, csv=csv, engine=eng)
        h_syn = histograms(synthetic, disc, csv=csv, engine=eng)
        pairs = zip(h_real.counts, h_syn.counts, strict=True)
        freqs = [(relative(p), relative(q)) for p, q in pairs]  # refuses an empty table
        names, r_real = numeric_correlation(real, schema, csv=csv, engine=eng)
        _, r_syn = numeric_correlation(synthetic, schema, csv=csv, engine=eng)
    columns = {
        col.name: distance_from_frequencies(col, p, q, bins=bins)
        for col, (p, q) in zip(schema.columns, freqs, strict=True)
    }
    correlation = matrix_difference(names, np.nan_to_num(r_real), np.nan_to_num(r_syn))
    summary = summarize(columns)
    summary["correlation_abs_diff_mean"] = correlation.mean
    summary["correlation_abs_diff_max"] = correlation.max
    return UtilityEvaluation(
        columns=columns,
        summary=summary,
        correlation=correlation,
        association=None,
        efficacy={},
        bins=bins,
        n_real=int(h_real.counts[0].sum()),
        n_synthetic=int(h_syn.counts[0].sum()),
        n_holdout=None,
        engine=engine if isinstance(engine, str) else type(engine).__name__,
        notes=(NOTE,),
    )


__all__ = ["NOTE", "evaluate_on_engine"]
