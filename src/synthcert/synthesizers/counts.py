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


class FitFromTableMixin:
    """``_fit(table)`` of a synthesizer that fits from marginal counts on its public bins.

    Put before the synthesizer's base class (``class S(FitFromTableMixin, DPSynthesizer)``);
    the class provides ``discretizer`` and ``fit_counts`` (the route of
    :class:`~synthcert.statistics.protocols.FitsFromCounts`), and ``fit(table)`` is then
    :func:`fit_from_table`: the same counts as an engine's, counted in memory.
    """

    def _fit(self, table: pd.DataFrame) -> None:
        """Discretise ``table`` and fit from its counts (:meth:`fit_counts`).

        Missing values of nullable columns are one more category; ``rows_dropped_missing_``
        (private: run record only) counts the rows the missing-value policy dropped.
        """
        fit_from_table(self, table)
