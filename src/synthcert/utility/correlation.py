"""Differences of correlation structure: numeric correlation matrices (thesis Definition 4.3.4)
and a mixed-type association matrix (Cramér's V, correlation ratio) so categorical structure
is checked too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.encode import category_codes, numeric_values, prepare_frame
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema


def correlation_matrix(X: np.ndarray) -> np.ndarray:
    """Pearson correlation R_ij of the columns of X (thesis Definition 4.3.4).

    A column of zero variance has no defined correlation; it is given correlation 0 with every
    other column (and 1 with itself), which is what a constant column "explains" of the others.
    """
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    norms = np.sqrt(np.square(centred).sum(axis=0))
    safe = np.where(norms > 0, norms, 1.0)
    Z = centred / safe
    R = Z.T @ Z
    R[:, norms == 0] = 0.0
    R[norms == 0, :] = 0.0
    np.fill_diagonal(R, 1.0)
    return np.clip(R, -1.0, 1.0)


def cramers_v(a: np.ndarray, b: np.ndarray, ka: int, kb: int) -> float:
    """Cramér's V = sqrt(chi^2 / (n (min(r, c) - 1))) of two code vectors (no bias correction).

    Categories absent from both are left out of the table; V is 0 when either variable takes a
    single observed value.
    """
    table = np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb).astype(np.float64)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    r, c = table.shape
    if min(r, c) < 2:
        return 0.0
    n = table.sum()
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / n
    chi2 = float((np.square(table - expected) / expected).sum())
    return float(np.sqrt(min(1.0, chi2 / (n * (min(r, c) - 1)))))


def correlation_ratio(codes: np.ndarray, y: np.ndarray, k: int) -> float:
    """Correlation ratio eta = sqrt(between-group / total sum of squares) of y grouped by codes."""
    y = np.asarray(y, dtype=np.float64)
    total = float(np.square(y - y.mean()).sum())
    if total <= 0:
        return 0.0
    counts = np.bincount(codes, minlength=k).astype(np.float64)
    sums = np.bincount(codes, weights=y, minlength=k)
    present = counts > 0
    means = sums[present] / counts[present]
    between = float((counts[present] * np.square(means - y.mean())).sum())
    return float(np.sqrt(min(1.0, between / total)))


@dataclass(frozen=True)
class MatrixDifference(Result):
    """Two matrices over the same columns and |real - synthetic|, with its mean and maximum.

    ``mean`` and ``max`` are taken over the off-diagonal pairs i < j (the diagonal is 1 in
    both matrices and would only dilute the mean); both are ``None`` with fewer than 2 columns.
    """

    columns: tuple[str, ...]
    real: np.ndarray
    synthetic: np.ndarray
    abs_diff: np.ndarray
    mean: float | None
    max: float | None


def matrix_difference(columns: list[str], real: np.ndarray, synth: np.ndarray) -> MatrixDifference:
    """Elementwise |R_orig - R_syn| (thesis section 4.3.3, E_cor) and its off-diagonal summary."""
    diff = np.abs(real - synth)
    iu = np.triu_indices(len(columns), k=1)
    pairs = diff[iu]
    return MatrixDifference(
        columns=tuple(columns),
        real=real,
        synthetic=synth,
        abs_diff=diff,
        mean=float(pairs.mean()) if pairs.size else None,
        max=float(pairs.max()) if pairs.size else None,
    )


def _numeric_matrix(frame: pd.DataFrame, cols: list[NumericColumn]) -> np.ndarray:
    return np.column_stack([numeric_values(frame[c.name], c) for c in cols])


def correlation_difference(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema
) -> MatrixDifference:
    """|R^orig - R^syn| over the numeric columns (thesis section 4.3.3, Fig. 4.10)."""
    cols = schema.numeric
    names = [c.name for c in cols]
    if not cols:
        empty = np.zeros((0, 0))
        return matrix_difference(names, empty, empty)
    rf, _ = prepare_frame(real, schema)
    sf, _ = prepare_frame(synthetic, schema)
    return matrix_difference(
        names,
        correlation_matrix(_numeric_matrix(rf, cols)),
        correlation_matrix(_numeric_matrix(sf, cols)),
    )


def association_matrix(frame: pd.DataFrame, schema: Schema) -> np.ndarray:
    """Mixed-type association: Pearson r (numeric pairs), Cramér's V (categorical pairs),
    correlation ratio eta (categorical-numeric pairs); 1 on the diagonal."""
    k = len(schema.columns)
    values: list[np.ndarray] = []
    for col in schema.columns:
        if isinstance(col, NumericColumn):
            values.append(numeric_values(frame[col.name], col))
        else:
            values.append(category_codes(frame[col.name], col))
    num_idx = [i for i, c in enumerate(schema.columns) if isinstance(c, NumericColumn)]
    A = np.eye(k)
    if num_idx:
        R = correlation_matrix(np.column_stack([values[i] for i in num_idx]))
        A[np.ix_(num_idx, num_idx)] = R
    for i, ci in enumerate(schema.columns):
        for j in range(i + 1, k):
            cj = schema.columns[j]
            if isinstance(ci, CategoricalColumn) and isinstance(cj, CategoricalColumn):
                v = cramers_v(values[i], values[j], len(ci.categories), len(cj.categories))
            elif isinstance(ci, CategoricalColumn):
                v = correlation_ratio(values[i], values[j], len(ci.categories))
            elif isinstance(cj, CategoricalColumn):
                v = correlation_ratio(values[j], values[i], len(cj.categories))
            else:
                continue
            A[i, j] = A[j, i] = v
    return A


def association_difference(
    real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema
) -> MatrixDifference:
    """|A^orig - A^syn| of the mixed-type association matrices over all columns."""
    rf, _ = prepare_frame(real, schema)
    sf, _ = prepare_frame(synthetic, schema)
    return matrix_difference(
        schema.names, association_matrix(rf, schema), association_matrix(sf, schema)
    )
