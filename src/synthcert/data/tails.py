"""Long right tails in a fit without DP: the log scale read from the data.

A discretising synthesizer (PrivBayes, MWEM-PGM, AIM) bins a numeric column into equal-width
bins over its bounds (:mod:`synthcert.data.discretize`) and decodes a value uniformly within
its bin. When the bounds are set by a few large values (an amount, a cost, a count), nearly
every record falls in the first bin and the synthetic values spread over it: a cost with median
4,080 and one record at 14 million came out with a median near 600,000. With DP the defaults
are DP tree bins (AIM, MWEM-PGM) or a declared ``"scale": "log"``, because a DP fit may not
read its bins from the data. A fit without DP promises nothing about the data, so it may:
:func:`log_scale_long_tails` gives ``scale: log`` (``signed-log`` when the lower bound is
below 0) to each such column by the rule ``schema infer`` hints with (a median within the
lowest :data:`~synthcert.data.infer.TAIL_SPAN` of the bounds). A declared scale or bins is
never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np
import pandas as pd

from synthcert.data.encode import numeric_values
from synthcert.data.infer import has_long_tail, tail_scale
from synthcert.data.schema import DatetimeColumn, NumericColumn, Schema


def tail_candidates(schema: Schema) -> list[NumericColumn]:
    """The numeric columns whose scale may be read from the data: linear, without bins of
    their own (declared, DP quantiles or DP tree), not dates."""
    return [
        c
        for c in schema.numeric
        if not isinstance(c, DatetimeColumn)
        and c.scale == "linear"
        and c.bins is None
        and c.quantile_bins is None
        and c.tree_bins is None
    ]


def long_tailed(values: np.ndarray, column: NumericColumn) -> bool:
    """Whether the column's values have a long right tail within its bounds, by ``schema
    infer``'s rule (:func:`~synthcert.data.infer.has_long_tail`)."""
    present = values[~np.isnan(values)]
    if present.size == 0:
        return False
    median = float(np.median(np.clip(present, column.lower, column.upper)))
    return has_long_tail(median, column.lower, column.upper)


def log_scale_long_tails(
    schema: Schema, chunks: Callable[[], Iterable[pd.DataFrame]]
) -> tuple[Schema, tuple[str, ...]]:
    """The schema with a log scale on every candidate column with a long right tail
    (``log``, or ``signed-log`` below 0: :func:`~synthcert.data.infer.tail_scale`), and their
    names (for a fit WITHOUT DP only: the decision reads the data).

    Parameters
    ----------
    schema
        The schema of the fit.
    chunks
        Called once, when some column is a candidate: the input's chunks.

    Returns
    -------
    tuple of (Schema, tuple of str)
        The schema (unchanged when no column has a long tail) and the columns put on a log
        scale.

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> s = Schema((NumericColumn("cost", 0.0, 1e6), NumericColumn("age", 0.0, 100.0)))
    >>> t = pd.DataFrame({"cost": [10.0, 20.0, 30.0, 1e6], "age": [20.0, 40.0, 60.0, 80.0]})
    >>> log_scale_long_tails(s, lambda: [t])[1]
    ('cost',)
    """
    candidates = tail_candidates(schema)
    if not candidates:
        return schema, ()
    parts: dict[str, list[np.ndarray]] = {c.name: [] for c in candidates}
    for chunk in chunks():
        for c in candidates:
            parts[c.name].append(numeric_values(chunk[c.name], c))
    tailed = tuple(
        c.name
        for c in candidates
        if parts[c.name] and long_tailed(np.concatenate(parts[c.name]), c)
    )
    if not tailed:
        return schema, ()
    columns = tuple(
        replace(c, scale=tail_scale(c.lower)) if c.name in tailed else c for c in schema.columns
    )
    return replace(schema, columns=columns), tailed


__all__ = ["log_scale_long_tails", "long_tailed", "tail_candidates"]
