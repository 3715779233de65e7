"""Per-table point and variance estimates q_i, u_i for the combining rules (seed 004, §3.1).

Each function takes the list of m synthetic tables and computes, on every table as if it were
real data, the usual estimate and its estimated sampling variance: a mean (s^2/n_syn), a
proportion (p(1-p)/n_syn) or an ordinary-least-squares coefficient (sigma_hat^2 (X^T X)^-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.errors import DataError
from synthcert.inference.combining import CombinedEstimate, Method, combine


@dataclass(frozen=True)
class TableEstimates(Result):
    """q_i and u_i for one scalar estimand over m synthetic tables, and the tables' sizes."""

    estimand: str
    q: tuple[float, ...]
    u: tuple[float, ...]
    n_syn: tuple[int, ...]

    @property
    def common_n_syn(self) -> int:
        """The shared number of rows per table; refuses when the tables differ in size."""
        if len(set(self.n_syn)) != 1:
            raise DataError(
                f"the synthetic tables have different sizes {sorted(set(self.n_syn))}; "
                "T_s and T_PPD assume one n_syn per table"
            )
        return self.n_syn[0]

    def combine(
        self, *, method: Method, n_org: int | None = None, level: float = 0.95
    ) -> CombinedEstimate:
        """Apply a combining rule of seed 004 §3 to these estimates."""
        n_syn = self.common_n_syn if method in ("plug-in", "posterior-predictive") else None
        if method == "fully-synthetic" and n_org is not None:
            n_syn = self.common_n_syn
        return combine(self.q, self.u, method=method, n_syn=n_syn, n_org=n_org, level=level)


def _tables(tables: Sequence[pd.DataFrame] | pd.DataFrame) -> list[pd.DataFrame]:
    if isinstance(tables, pd.DataFrame):
        tables = [tables]
    tables = list(tables)
    if not tables:
        raise DataError("need at least one synthetic table")
    return tables


def _numeric(table: pd.DataFrame, column: str, i: int) -> np.ndarray:
    if column not in table.columns:
        raise DataError(f"synthetic table {i} has no column {column!r}")
    col = table[column]
    if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        raise DataError(f"column {column!r} of synthetic table {i} is not numeric")
    values = col.to_numpy(dtype=float)
    if np.isnan(values).any():
        raise DataError(f"column {column!r} of synthetic table {i} has missing values")
    return values


def mean_estimates(tables: Sequence[pd.DataFrame] | pd.DataFrame, column: str) -> TableEstimates:
    """q_i = mean of ``column`` in table i, u_i = s_i^2 / n_syn_i (seed 004 §3.1).

    s_i^2 is the sample variance (denominator n_syn_i - 1), so u_i is the usual estimate of
    the variance of a mean, computed as if table i were real data; pass the result to
    :meth:`TableEstimates.combine` (or :func:`combine`).

    Parameters
    ----------
    tables : sequence of pandas.DataFrame, or one DataFrame
        The m synthetic tables.
    column : str
        A numeric column without missing values.

    Returns
    -------
    TableEstimates
        ``q``, ``u`` and the table sizes ``n_syn``, for the estimand ``mean(column)``.

    Raises
    ------
    DataError
        No table, a table without ``column``, a non-numeric column or one with missing
        values, or a table with fewer than 2 rows.

    Examples
    --------
    >>> import pandas as pd
    >>> tables = [pd.DataFrame({"x": [1.0, 2, 3, 4]}), pd.DataFrame({"x": [2.0, 3, 4, 5]})]
    >>> est = mean_estimates(tables, "x")
    >>> est.estimand, est.q, est.n_syn
    ('mean(x)', (2.5, 3.5), (4, 4))
    >>> round(est.u[0], 4)  # s^2 = 5/3, over n = 4
    0.4167
    >>> est.combine(method="plug-in", n_org=4).estimate
    3.0
    """
    q, u, sizes = [], [], []
    for i, table in enumerate(_tables(tables)):
        x = _numeric(table, column, i)
        if x.size < 2:
            raise DataError(f"synthetic table {i} has fewer than 2 rows")
        q.append(float(x.mean()))
        u.append(float(x.var(ddof=1) / x.size))
        sizes.append(int(x.size))
    return TableEstimates(f"mean({column})", tuple(q), tuple(u), tuple(sizes))


def proportion_estimates(
    tables: Sequence[pd.DataFrame] | pd.DataFrame, column: str, value: object
) -> TableEstimates:
    """q_i = share of rows with ``column == value`` in table i, u_i = q_i (1 - q_i) / n_syn_i."""
    q, u, sizes = [], [], []
    for i, table in enumerate(_tables(tables)):
        if column not in table.columns:
            raise DataError(f"synthetic table {i} has no column {column!r}")
        if len(table) < 1:
            raise DataError(f"synthetic table {i} is empty")
        p = float((table[column] == value).mean())
        q.append(p)
        u.append(p * (1.0 - p) / len(table))
        sizes.append(len(table))
    return TableEstimates(f"P({column} == {value!r})", tuple(q), tuple(u), tuple(sizes))


def regression_estimates(
    tables: Sequence[pd.DataFrame] | pd.DataFrame,
    outcome: str,
    predictors: Sequence[str],
    coefficient: str,
    *,
    intercept: bool = True,
) -> TableEstimates:
    """q_i = OLS coefficient of ``coefficient`` in table i, u_i its estimate sigma^2 (X^T X)^-1.

    For table i with design X (an intercept column first when ``intercept``) and outcome y,
    beta_hat = (X^T X)^-1 X^T y and u_i = sigma_hat^2 [(X^T X)^-1]_jj with
    sigma_hat^2 = ||y - X beta_hat||^2 / (n_syn_i - k), the textbook OLS variance computed
    as if table i were real data (seed 004 §3.1).

    Parameters
    ----------
    tables : sequence of pandas.DataFrame, or one DataFrame
        The m synthetic tables.
    outcome : str
        The numeric response column.
    predictors : sequence of str
        The numeric predictor columns.
    coefficient : str
        The coefficient to estimate: a predictor's name, or ``"(intercept)"``.
    intercept : bool, default True
        Fit an intercept.

    Returns
    -------
    TableEstimates
        ``q``, ``u`` and the table sizes ``n_syn`` for ``beta[coefficient]``.

    Raises
    ------
    DataError
        ``coefficient`` is not in the model, a column is absent, non-numeric or has missing
        values, a table has no more rows than coefficients, or the predictors are collinear.

    Examples
    --------
    >>> import pandas as pd
    >>> x = [0.0, 1.0, 2.0, 3.0]
    >>> tables = [pd.DataFrame({"x": x, "y": [1.0, 3, 5, 8]}),
    ...           pd.DataFrame({"x": x, "y": [0.0, 2, 4, 6.5]})]
    >>> est = regression_estimates(tables, "y", ["x"], "x")
    >>> [round(v, 4) for v in est.q], [round(v, 4) for v in est.u]
    ([2.3, 2.15], [0.03, 0.0075])
    """
    predictors = list(predictors)
    names = (["(intercept)"] if intercept else []) + predictors
    if coefficient not in names:
        raise DataError(f"coefficient {coefficient!r} is not one of {names}")
    j = names.index(coefficient)
    q, u, sizes = [], [], []
    for i, table in enumerate(_tables(tables)):
        y = _numeric(table, outcome, i)
        cols = [_numeric(table, p, i) for p in predictors]
        if intercept:
            cols.insert(0, np.ones_like(y))
        X = np.column_stack(cols) if cols else np.empty((y.size, 0))
        n_rows, k = X.shape
        if n_rows <= k:
            raise DataError(f"synthetic table {i} has {n_rows} rows for {k} coefficients")
        beta, _, rank, _ = np.linalg.lstsq(X, y, rcond=None)
        if rank < k:
            raise DataError(
                f"the predictors {predictors} are collinear in synthetic table {i}; "
                "drop one of them"
            )
        resid = y - X @ beta
        s2 = float(resid @ resid) / (n_rows - k)
        xtx_inv = np.linalg.inv(X.T @ X)
        q.append(float(beta[j]))
        u.append(float(s2 * xtx_inv[j, j]))
        sizes.append(int(n_rows))
    return TableEstimates(
        f"beta[{coefficient}] in {outcome} ~ {names}", tuple(q), tuple(u), tuple(sizes)
    )


__all__ = ["TableEstimates", "mean_estimates", "proportion_estimates", "regression_estimates"]
