"""``fit(table)`` of a synthesizer fitted from marginal counts: count in memory, then fit.

The counts themselves (:class:`~synthcert.statistics.sources.CountSource`,
:class:`~synthcert.statistics.sources.CodesCounts`) live in ``synthcert.statistics``, which the
engines share with the models.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from synthcert.statistics.sources import CodesCounts


def fit_from_table(synth: Any, table: pd.DataFrame) -> Any:
    """``fit(table)`` of a synthesizer that fits from marginal counts: discretise on its public
    bins, count in memory, ``fit_counts``; ``rows_dropped_missing_`` and ``values_filled_``
    (private) count the rows the missing-value policy dropped and the values it filled."""
    codes, dropped, filled = synth.discretizer.transform_report(table)
    synth.fit_counts(CodesCounts(codes, synth.discretizer.cardinalities))
    synth.rows_dropped_missing_ = dropped
    synth.values_filled_ = filled
    return synth
