"""Worst-case neighbouring tables built from the public schema alone (issue 26, part 2).

Differential privacy is a promise about *every* pair of neighbouring tables, so a claim can be
tested on a pair the auditor builds from the public domain: no private row is read, and the
audit's result can be published beside the claim. The design is the one of Annamalai, Ganev
and De Cristofaro (USENIX Security 2024) and of the dpmm audit (Ganev, Annamalai and Kulynych):
``m`` copies of one record ``x0`` and a canary ``x1`` that differs from ``x0`` in every column,
so every marginal the synthesizer measures sees the canary in a cell of its own.

* ``x0`` is the lowest corner of the domain: each categorical column's first category, each
  numeric column's lower bound (its first bin, declared bins included);
* ``x1`` is the opposite corner: the last category, the upper bound (the last bin).

Under the synthesizer's own neighbouring relation:

* bounded (replace one record, the size is public): ``D = (m + 1) x0``, ``D' = m x0 + x1``;
* unbounded (add or remove one record): ``D = m x0``, ``D' = D + x1``.

``D'`` (the canary present) is the side called IN. ``anchor`` is the fixed design of the
anchor (three binary columns, ten identical records plus one canary).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from synthcert.data.encode import typed_frame
from synthcert.data.schema import CategoricalColumn, Column, NumericColumn, Schema
from synthcert.errors import ParameterError

Neighbouring = Literal["bounded", "unbounded"]
DESIGNS = ("domain", "anchor")
DEFAULT_COPIES = 10


@dataclass(frozen=True)
class NeighbourPair:
    """A pair of neighbouring tables over a public schema, and the canary that tells them apart.

    Attributes
    ----------
    schema : Schema
        The schema both tables follow (public).
    without : pandas.DataFrame
        D, the table without the canary (OUT).
    with_canary : pandas.DataFrame
        D', the table with the canary (IN).
    base : pandas.DataFrame
        The repeated record x0 (one row).
    canary : pandas.DataFrame
        The canary x1 (one row).
    neighbouring : {"bounded", "unbounded"}
        The relation the pair is neighbouring under.
    copies : int
        m, the copies of x0 that D and D' share.
    design : {"domain", "anchor"}
        How the pair was built.
    """

    schema: Schema
    without: pd.DataFrame
    with_canary: pd.DataFrame
    base: pd.DataFrame
    canary: pd.DataFrame
    neighbouring: Neighbouring
    copies: int
    design: str

    def table(self, side: int) -> pd.DataFrame:
        """D' for ``side == 1`` (IN), D for ``side == 0`` (OUT)."""
        return self.with_canary if side else self.without


def _corner(col: Column, high: bool) -> float | int:
    """A column's value at the low or high corner of its public domain (a code for categories)."""
    if isinstance(col, CategoricalColumn):  # the schema guarantees two categories or more
        return len(col.categories) - 1 if high else 0
    if isinstance(col, NumericColumn):  # declared bin edges run from lower to upper too
        return float(col.upper) if high else float(col.lower)
    raise ParameterError(f"column {col.name!r}: unsupported column kind {type(col).__name__}")


def _rows(schema: Schema, pattern: list[bool]) -> pd.DataFrame:
    """Rows at the low (False) or high (True) corner, one per entry of ``pattern``."""
    data = {}
    for col in schema.columns:
        values = [_corner(col, high) for high in pattern]
        dtype = np.int64 if isinstance(col, CategoricalColumn) else np.float64
        data[col.name] = np.array(values, dtype=dtype)
    return typed_frame(schema, data)


def worst_case_pair(
    schema: Schema,
    neighbouring: str,
    *,
    copies: int = DEFAULT_COPIES,
    design: str = "domain",
) -> NeighbourPair:
    """The worst-case neighbouring pair of ``schema`` under ``neighbouring`` (module docstring).

    Parameters
    ----------
    schema : Schema
        The public schema (used as given: its bounds and categories are public).
    neighbouring : {"bounded", "unbounded"}
        The synthesizer's relation (its claim's ``neighboring``).
    copies : int, default 10
        m, the copies of the repeated record.
    design : str, default "domain"
        Recorded in the pair (``anchor_pair`` passes ``"anchor"``).

    Returns
    -------
    NeighbourPair
        D (OUT) and D' (IN).

    Raises
    ------
    ParameterError
        For another relation, fewer than one copy, or a column without two distinct values.

    Examples
    --------
    >>> from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
    >>> s = Schema((NumericColumn("x", 0, 5), CategoricalColumn("c", ("a", "b", "z"))))
    >>> pair = worst_case_pair(s, "bounded", copies=2)
    >>> pair.without["x"].tolist(), pair.with_canary["c"].tolist()
    ([0.0, 0.0, 0.0], ['a', 'a', 'z'])
    >>> len(worst_case_pair(s, "unbounded", copies=2).without)
    2
    """
    if neighbouring not in ("bounded", "unbounded"):
        raise ParameterError(
            f"the audit needs a bounded or unbounded neighbouring relation, got {neighbouring!r}"
        )
    if copies < 1:
        raise ParameterError(f"copies must be at least 1, got {copies}")
    base = _rows(schema, [False])
    canary = _rows(schema, [True])
    shared = [False] * copies
    without = _rows(schema, shared + ([False] if neighbouring == "bounded" else []))
    with_canary = _rows(schema, [*shared, True])
    return NeighbourPair(
        schema,
        without,
        with_canary,
        base,
        canary,
        neighbouring,
        copies,
        design,  # type: ignore[arg-type]
    )


def anchor_schema() -> Schema:
    """The anchor's domain: three binary columns ``a``, ``b``, ``c`` with categories 0 and 1."""
    return Schema(tuple(CategoricalColumn(name, ("0", "1")) for name in "abc"))


def anchor_pair(neighbouring: str, *, copies: int = DEFAULT_COPIES) -> NeighbourPair:
    """The anchor's pair: ten all-zero records plus one all-ones canary over three binary columns.

    Examples
    --------
    >>> pair = anchor_pair("unbounded")
    >>> len(pair.without), len(pair.with_canary), pair.canary.iloc[0].tolist()
    (10, 11, ['1', '1', '1'])
    """
    return worst_case_pair(anchor_schema(), neighbouring, copies=copies, design="anchor")


def build_pair(schema: Schema | None, neighbouring: str, design: str = "domain") -> NeighbourPair:
    """The pair of ``design``: ``"domain"`` (from ``schema``) or ``"anchor"`` (schema ignored).

    Raises
    ------
    ParameterError
        For an unknown design, or ``"domain"`` without a schema.
    """
    if design == "anchor":
        return anchor_pair(neighbouring)
    if design != "domain":
        raise ParameterError(f"unknown design {design!r}; choose one of {', '.join(DESIGNS)}")
    if schema is None:
        raise ParameterError("the domain design needs a schema (--schema)")
    return worst_case_pair(schema, neighbouring)


__all__ = [
    "DESIGNS",
    "NeighbourPair",
    "anchor_pair",
    "anchor_schema",
    "build_pair",
    "worst_case_pair",
]
