"""Marginal and correlation utility of tables too large for memory, through an engine.

One-way distributions come from histograms on the public bins and the numeric correlations
from the mergeable moments (``synthcert.engine``), so the real and synthetic tables are read
in partitions, locally or on a Dask cluster. Association matrices, raw-value Wasserstein
distances and efficacy need rows in memory and are left to :func:`synthcert.utility.evaluate`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthcert._result import Result
from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.utility.correlation import MatrixDifference, matrix_difference
from synthcert.utility.marginals import (
    ColumnDistance,
    distance_from_frequencies,
    relative,
    summarize,
)

NOTE = (
    "streamed evaluation: numeric Wasserstein distances are on the bin centres; association "
    "matrices and efficacy need the rows in memory (use --engine local)"
)


@dataclass(frozen=True)
class StreamedEvaluation(Result):
    """Per-column distances, their summaries and the correlation difference of two large tables."""

    columns: dict[str, ColumnDistance]
    summary: dict[str, float | None]
    correlation: MatrixDifference
    bins: int
    n_real: int
    n_synthetic: int
    engine: str
    notes: tuple[str, ...] = (NOTE,)


def evaluate_streamed(
    real: str | os.PathLike,
    synthetic: str | os.PathLike,
    schema: Schema,
    *,
    bins: int = DEFAULT_BINS,
    csv: CsvOptions | None = None,
    engine: Any = "local",
    scheduler: Any = None,
) -> StreamedEvaluation:
    """Thesis Defs. 4.3.1-4.3.4 (L1, L2, Hellinger, Wasserstein; |R_real - R_syn|) by reductions."""
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
    return StreamedEvaluation(
        columns=columns,
        summary=summary,
        correlation=correlation,
        bins=bins,
        n_real=int(h_real.counts[0].sum()),
        n_synthetic=int(h_syn.counts[0].sum()),
        engine=engine if isinstance(engine, str) else type(engine).__name__,
    )
