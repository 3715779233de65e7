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
from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthcert._result import Result
from synthcert.data.discretize import DEFAULT_BINS
from synthcert.data.io import CsvOptions
from synthcert.data.schema import Schema
from synthcert.errors import DataError, ParameterError
from synthcert.utility.correlation import (
    MatrixDifference,
    association_difference,
    correlation_difference,
)
from synthcert.utility.efficacy import Efficacy, efficacy
from synthcert.utility.marginals import Binning, ColumnDistance, compare_marginals
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
    if targets and holdout is None:
        raise DataError(
            "machine-learning efficacy needs held-out real rows the synthesizer never saw "
            "(pass holdout= / --holdout); testing on the synthesizer's own input rewards "
            "memorisation"
        )
    marg = compare_marginals(real, synthetic, schema, bins=bins, binning=binning)
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
    )


def _frame(table: Table, csv: CsvOptions | None) -> pd.DataFrame:
    """A frame as is; a path read whole."""
    if isinstance(table, pd.DataFrame):
        return table
    from synthcert.data.io import read_table

    return read_table(table, csv)
