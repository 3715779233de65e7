"""Machine-learning efficacy: train on synthetic, test on held-out real rows (thesis section 4.3.3,
E_ml, with LightGBM as in the thesis; RMSE for a numeric target, ROC AUC for a categorical one).

The thesis tests on the original table the synthesizer was fitted on; here the test rows are
held out from the synthesizer, so a synthesizer that memorises its input gains nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result, jsonable
from synthcert.data.encode import category_codes, numeric_values, prepare_frame
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError, import_extra


@dataclass(frozen=True)
class Efficacy(Result):
    """Scores on the held-out real rows of a model trained on synthetic and one trained on real.

    ``metric`` is ``"rmse"`` (lower is better, in the target's units) or ``"auc"`` (higher is
    better; macro one-vs-rest for more than two classes). ``real`` is ``None`` when no real
    training rows were given.
    """

    target: str
    task: str
    metric: str
    synthetic: float
    real: float | None
    n_train_synthetic: int
    n_train_real: int | None
    n_test: int
    note: str = ""

    @property
    def gap(self) -> float | None:
        """How much worse the synthetic-trained model is (positive = worse), in metric units."""
        if self.real is None:
            return None
        return self.synthetic - self.real if self.metric == "rmse" else self.real - self.synthetic

    def to_dict(self) -> dict[str, Any]:
        """The fields plus ``gap``."""
        return {**super().to_dict(), "gap": jsonable(self.gap)}  # ±inf as "inf"/"-inf"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Efficacy:
        """Read back :meth:`to_dict`: ``gap`` is derived from the scores, so it is dropped."""
        return super().from_dict({k: v for k, v in data.items() if k != "gap"})


def _lightgbm() -> Any:
    return import_extra(
        "lightgbm", "machine-learning efficacy needs LightGBM: pip install 'synthcert[ml]'"
    )


def feature_frame(frame: pd.DataFrame, schema: Schema, target: str) -> pd.DataFrame:
    """Features as LightGBM takes them: floats, and categoricals on the declared categories."""
    data: dict[str, Any] = {}
    for col in schema.columns:
        if col.name == target:
            continue
        if isinstance(col, NumericColumn):
            data[col.name] = numeric_values(frame[col.name], col)
        else:
            codes = category_codes(frame[col.name], col)
            data[col.name] = pd.Categorical.from_codes(codes, categories=list(col.categories))
    return pd.DataFrame(data, index=None)


def _xy(
    table: pd.DataFrame, schema: Schema, target: str, label: str
) -> tuple[pd.DataFrame, np.ndarray]:
    frame, _ = prepare_frame(table, schema)
    if len(frame) == 0:
        missing = table[[c for c in schema.names if c in table.columns]].isna().mean()
        worst = ", ".join(f"{n} {m:.0%}" for n, m in missing.nlargest(3).items() if m > 0)
        raise DataError(
            f"efficacy needs at least one complete row in every table; the {label} table has "
            "none (every row misses a column of the schema"
            + (f"; the most often missing: {worst}" if worst else "")
            + "): drop such columns from the schema to measure efficacy"
        )
    frame = frame.reset_index(drop=True)
    col = schema.column(target)
    y = (
        numeric_values(frame[target], col)
        if isinstance(col, NumericColumn)
        else category_codes(frame[target], col)
    )
    return feature_frame(frame, schema, target), y


def rmse(y: np.ndarray, pred: np.ndarray) -> float:
    """sqrt((1/n) sum (y_i - f(x_i))^2) (thesis section 4.3.3)."""
    return float(np.sqrt(np.mean(np.square(np.asarray(y, float) - np.asarray(pred, float)))))


def macro_auc(y: np.ndarray, proba: np.ndarray) -> float:
    """ROC AUC of class 1 for two classes, else the macro mean of one-vs-rest AUCs.

    ``proba[:, c]`` is the score of class code ``c``; classes absent from ``y`` are skipped.
    """
    from sklearn.metrics import roc_auc_score

    k = proba.shape[1]
    if k == 2:
        return float(roc_auc_score(y == 1, proba[:, 1]))
    present = [c for c in range(k) if 0 < np.count_nonzero(y == c) < len(y)]
    aucs = [roc_auc_score(y == c, proba[:, c]) for c in present]
    return float(np.mean(aucs))


def _fit_score(
    X: pd.DataFrame,
    y: np.ndarray,
    X_test: pd.DataFrame,
    y_test: np.ndarray,
    column: NumericColumn | CategoricalColumn,
    *,
    seed: int,
    n_jobs: int,
    params: dict[str, Any],
) -> tuple[float, str]:
    lgb = _lightgbm()
    kw = {"random_state": seed, "n_jobs": n_jobs, "verbose": -1, **params}
    if isinstance(column, NumericColumn):
        model = lgb.LGBMRegressor(**kw).fit(X, y)
        return rmse(y_test, model.predict(X_test)), ""
    k = len(column.categories)
    classes = np.unique(y)
    if len(classes) < 2:
        # A constant predictor ranks nothing: its AUC is exactly 1/2.
        return 0.5, (
            f"the training rows hold the single class {column.categories[classes[0]]!r}; "
            "a constant predictor scores AUC 0.5"
        )
    if len(np.unique(y_test)) < 2:  # refuse before fitting a model whose score is undefined
        raise DataError(
            f"the held-out rows hold a single class of {column.name!r}; AUC is undefined"
        )
    model = lgb.LGBMClassifier(**kw).fit(X, y)
    proba = np.zeros((len(X_test), k))
    proba[:, model.classes_] = model.predict_proba(X_test)
    return macro_auc(y_test, proba), ""


def efficacy(
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame,
    schema: Schema,
    target: str,
    *,
    real_train: pd.DataFrame | None = None,
    seed: int = 0,
    n_jobs: int = 1,
    params: dict[str, Any] | None = None,
) -> Efficacy:
    """Train LightGBM on ``synthetic`` (and on ``real_train``), score both on ``holdout``."""
    column = schema.column(target)
    if len(schema.columns) < 2:
        raise DataError("efficacy needs at least one feature column besides the target")
    params = dict(params or {})
    X_test, y_test = _xy(holdout, schema, target, "holdout")
    X_syn, y_syn = _xy(synthetic, schema, target, "synthetic")
    score, note = _fit_score(
        X_syn, y_syn, X_test, y_test, column, seed=seed, n_jobs=n_jobs, params=params
    )
    real_score: float | None = None
    n_real: int | None = None
    if real_train is not None:
        X_real, y_real = _xy(real_train, schema, target, "real")
        real_score, _ = _fit_score(
            X_real, y_real, X_test, y_test, column, seed=seed, n_jobs=n_jobs, params=params
        )
        n_real = len(y_real)
    numeric = isinstance(column, NumericColumn)
    return Efficacy(
        target=target,
        task="regression" if numeric else "classification",
        metric="rmse" if numeric else "auc",
        synthetic=score,
        real=real_score,
        n_train_synthetic=len(y_syn),
        n_train_real=n_real,
        n_test=len(y_test),
        note=note,
    )
