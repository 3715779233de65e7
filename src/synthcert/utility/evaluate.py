"""The whole utility evaluation of a synthetic table against a real one (thesis section 4.3.3):
one-way marginal distances, correlation and association differences, and ML efficacy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthcert._result import Result
from synthcert.data.discretize import DEFAULT_BINS
from synthcert.data.schema import Schema
from synthcert.errors import DataError
from synthcert.utility.correlation import (
    MatrixDifference,
    association_difference,
    correlation_difference,
)
from synthcert.utility.efficacy import Efficacy, efficacy
from synthcert.utility.marginals import ColumnDistance, compare_marginals
from synthcert.utility.repeat import flatten_figures


@dataclass(frozen=True)
class UtilityEvaluation(Result):
    """Everything the evaluation measured; ``to_dict()`` is the JSON of ``synthcert evaluate``.

    JSON keys: ``columns`` (per column ``l1``, ``l2``, ``hellinger``, ``wasserstein`` and more),
    ``summary`` (means over categorical / numeric columns and the correlation differences),
    ``correlation`` and ``association`` (matrices), ``efficacy`` (per target, when one is given).
    """

    columns: dict[str, ColumnDistance]
    summary: dict[str, float | None]
    correlation: MatrixDifference
    association: MatrixDifference
    efficacy: dict[str, Efficacy]
    bins: int
    n_real: int
    n_synthetic: int
    n_holdout: int | None

    def to_dict(self) -> dict[str, Any]:
        """JSON shape of issue #8 (``efficacy`` only when a target was given)."""
        d = super().to_dict()
        d["efficacy"] = {k: v.to_dict() for k, v in self.efficacy.items()}
        if not self.efficacy:
            d.pop("efficacy")
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UtilityEvaluation:
        """Read back :meth:`to_dict` (an absent ``efficacy`` is the empty one it left out)."""
        return super().from_dict({"efficacy": {}, **data})

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
            {k: v for k, v in c.to_dict().items() if k not in ("real", "synthetic")}
            for c in self.columns.values()
        ]
        return pd.DataFrame(rows)


def evaluate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    *,
    target: str | Sequence[str] | None = None,
    holdout: pd.DataFrame | None = None,
    bins: int = DEFAULT_BINS,
    seed: int = 0,
    n_jobs: int = 1,
    real_baseline: bool = True,
) -> UtilityEvaluation:
    """Compare ``synthetic`` with ``real`` (the rows the synthesizer was fitted on).

    With ``target``, also train LightGBM on ``synthetic`` (and, if ``real_baseline``, on
    ``real``) and test on ``holdout``, real rows the synthesizer never saw; efficacy is refused
    without them, because testing on the synthesizer's own input rewards memorisation.
    """
    targets = [target] if isinstance(target, str) else list(target or [])
    for t in targets:
        schema.column(t)  # names the unknown column
    if targets and holdout is None:
        raise DataError(
            "machine-learning efficacy needs held-out real rows the synthesizer never saw "
            "(pass holdout= / --holdout); testing on the synthesizer's own input rewards "
            "memorisation"
        )
    marg = compare_marginals(real, synthetic, schema, bins=bins)
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
    )
