"""The result of a utility evaluation, :class:`UtilityEvaluation` (the JSON of ``synthcert
evaluate``), apart from the code that computes it: :mod:`synthcert.utility.evaluate` (in memory)
and :mod:`synthcert.utility.streamed` (on an engine) both return it, and neither imports the
other for it. ``synthcert.utility.evaluate.UtilityEvaluation`` still names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthcert._result import Result
from synthcert.utility.correlation import MatrixDifference
from synthcert.utility.efficacy import Efficacy
from synthcert.utility.marginals import ColumnDistance
from synthcert.utility.repeat import flatten_figures


@dataclass(frozen=True)
class UtilityEvaluation(Result):
    """Everything the evaluation measured; ``to_dict()`` is the JSON of ``synthcert evaluate``.

    JSON keys: ``columns`` (per column ``l1``, ``l2``, ``hellinger``, ``wasserstein`` and more),
    ``summary`` (means over categorical / numeric columns and the correlation differences),
    ``correlation`` and ``association`` (matrices), ``efficacy`` (per target, when one is given).
    An evaluation run on an engine has no ``association``, ``efficacy`` or ``n_holdout`` (they
    need the rows in memory) and says so in ``notes``; its JSON names the ``engine``.
    ``from_dict(to_dict())`` reads both shapes back.

    Attributes
    ----------
    columns : dict of str to ColumnDistance
        Per column: L1, L2, Hellinger and Wasserstein distances of the one-way distributions.
    summary : dict of str to float or None
        Means of the distances over categorical and numeric columns (None when there is no
        such column) and the mean and maximum absolute correlation/association differences.
    correlation : MatrixDifference
        Correlation matrices of the numeric columns and their absolute difference.
    association : MatrixDifference or None
        The mixed-type association matrices (None on an engine).
    efficacy : dict of str to Efficacy
        Machine-learning efficacy per target column (empty without a target).
    bins : int
        Bins per numeric column for the binned distances.
    n_real, n_synthetic : int
        Rows compared.
    n_holdout : int or None
        Held-out real rows for efficacy (None without one, and on an engine).
    engine : str or None, default None
        The engine the figures were computed on; None: in memory.
    notes : tuple of str, default ()
        What an engine run could not compute, and why.

    Examples
    --------
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> from synthcert.utility.evaluate import evaluate
    >>> result = evaluate(make_demo_table(500, seed=1), make_demo_table(500, seed=2), demo_schema())
    >>> result.n_real, result.bins, result.streamed, len(result.columns)
    (500, 20, False, 6)
    >>> 0 < result.summary["l1_numeric_mean"] < 0.5, result.summary["l1_categorical_mean"]
    (True, None)
    """

    columns: dict[str, ColumnDistance]
    summary: dict[str, float | None]
    correlation: MatrixDifference
    association: MatrixDifference | None
    efficacy: dict[str, Efficacy]
    bins: int
    n_real: int
    n_synthetic: int
    n_holdout: int | None
    engine: str | None = None  # None: in memory
    notes: tuple[str, ...] = ()
    binning: str = "public"  # numeric bins: "quantile" (of the real column) or "public"

    @property
    def streamed(self) -> bool:
        """True when the figures were computed on an engine (reductions over partitions)."""
        return self.engine is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of issue #8 (``efficacy`` only when a target was given); on an engine,
        the streamed shape (no association, efficacy or n_holdout; ``engine`` and ``notes``)."""
        d = super().to_dict()
        d["efficacy"] = {k: v.to_dict() for k, v in self.efficacy.items()}
        if not self.efficacy:
            d.pop("efficacy")
        # keys a shape does not have are left out only when empty, so from_dict reads back
        for key in ("association", "n_holdout") if self.streamed else ("engine", "notes"):
            if d.get(key) in (None, [], ()):
                d.pop(key, None)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UtilityEvaluation:
        """Read back :meth:`to_dict`: an absent ``efficacy`` is the empty one it left out, and
        the streamed shape's absent ``association`` and ``n_holdout`` are None."""
        return super().from_dict({"efficacy": {}, "association": None, "n_holdout": None, **data})

    def figures(self) -> dict[str, float]:
        """Flat ``{"summary.l1_numeric_mean": ..., "columns.age.l1": ...}`` for Algorithm 9."""
        out = flatten_figures({"summary": self.summary})
        for name, c in self.columns.items():
            for metric in ("l1", "l2", "hellinger", "wasserstein", "wasserstein_normalized"):
                out[f"columns.{name}.{metric}"] = getattr(c, metric)
        for target, e in self.efficacy.items():
            out[f"efficacy.{target}.synthetic"] = e.synthetic
            if e.real is not None:
                out[f"efficacy.{target}.real"] = e.real
        return out

    def column_table(self) -> pd.DataFrame:
        """One row per column: kind and every distance."""
        rows = [
            {k: v for k, v in c.to_dict().items() if k not in ("real", "synthetic", "edges")}
            for c in self.columns.values()
        ]
        return pd.DataFrame(rows)


__all__ = ["UtilityEvaluation"]
