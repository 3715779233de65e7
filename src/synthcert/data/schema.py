"""Schema: each column's kind and its PUBLIC bounds or categories (JSON file format)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.errors import DataError

Source = Literal["public", "data"]


@dataclass(frozen=True)
class NumericColumn(Result):
    """A numeric column with public bounds lower < upper; ``integer`` keeps integers on decode."""

    name: str
    lower: float
    upper: float
    integer: bool = False
    source: Source = "public"
    kind: str = "numeric"

    def __post_init__(self) -> None:
        if not (np.isfinite(self.lower) and np.isfinite(self.upper)):
            raise DataError(f"column {self.name!r}: bounds must be finite numbers")
        if not self.lower < self.upper:
            raise DataError(
                f"column {self.name!r}: lower bound {self.lower} must be below upper bound "
                f"{self.upper} (a column of one value carries no information; drop it)"
            )

    @property
    def width(self) -> int:
        """Number of encoded dimensions."""
        return 1


@dataclass(frozen=True)
class CategoricalColumn(Result):
    """A categorical column with its public list of categories (order fixes the encoding)."""

    name: str
    categories: tuple[str, ...]
    source: Source = "public"
    kind: str = "categorical"

    def __post_init__(self) -> None:
        object.__setattr__(self, "categories", tuple(str(c) for c in self.categories))
        if len(self.categories) < 2:
            raise DataError(
                f"column {self.name!r}: a categorical column needs at least two categories"
            )
        if len(set(self.categories)) != len(self.categories):
            raise DataError(f"column {self.name!r}: categories are not unique")

    @property
    def width(self) -> int:
        """Number of encoded dimensions (dummy coding with the first level dropped)."""
        return len(self.categories) - 1


Column = NumericColumn | CategoricalColumn


@dataclass(frozen=True)
class Schema(Result):
    """The columns a synthesizer models, in order, plus the input columns to drop."""

    columns: tuple[Column, ...]
    drop: tuple[str, ...] = field(default_factory=tuple)
    file_columns: tuple[str, ...] | None = None  # all names, in file order, for headerless CSV

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        if not names:
            raise DataError("the schema declares no columns")
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise DataError(f"the schema declares column(s) {sorted(dup)} twice")

    @property
    def csv_names(self) -> list[str]:
        """Column names of a headerless CSV: ``file_columns`` if declared, else the columns."""
        return list(self.file_columns) if self.file_columns is not None else self.names

    @property
    def names(self) -> list[str]:
        """Column names in order."""
        return [c.name for c in self.columns]

    @property
    def numeric(self) -> list[NumericColumn]:
        """The numeric columns."""
        return [c for c in self.columns if isinstance(c, NumericColumn)]

    @property
    def categorical(self) -> list[CategoricalColumn]:
        """The categorical columns."""
        return [c for c in self.columns if isinstance(c, CategoricalColumn)]

    @property
    def encoded_dim(self) -> int:
        """d, the dimension of the encoded points in [-1,1]^d."""
        return sum(c.width for c in self.columns)

    @property
    def bounds_source(self) -> Source:
        """``"data"`` if any bound or category list was taken from the data, else ``"public"``."""
        return "data" if any(c.source == "data" for c in self.columns) else "public"

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        for c in self.columns:
            if c.name == name:
                return c
        raise DataError(f"the schema has no column {name!r}")

    def select(self, names: list[str]) -> Schema:
        """A schema of the named columns only."""
        return Schema(tuple(self.column(n) for n in names), self.drop, self.file_columns)

    def to_json(self) -> str:
        """The schema file's JSON text."""
        cols = []
        for c in self.columns:
            d = c.to_dict()
            if isinstance(c, NumericColumn) and not c.integer:
                d.pop("integer")
            cols.append({"name": d.pop("name"), "kind": d.pop("kind"), **d})
        doc: dict[str, Any] = {"columns": cols, "drop": list(self.drop)}
        if self.file_columns is not None:
            doc["file_columns"] = list(self.file_columns)
        return json.dumps(doc, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schema:
        """Build from the parsed JSON of a schema file."""
        if not isinstance(data, dict) or "columns" not in data:
            raise DataError('a schema is a JSON object with a "columns" list')
        cols: list[Column] = []
        for i, spec in enumerate(data["columns"]):
            name = spec.get("name")
            if not name:
                raise DataError(f"schema column #{i} has no name")
            kind = spec.get("kind")
            source = spec.get("source", "public")
            if source not in ("public", "data"):
                raise DataError(f"column {name!r}: source must be 'public' or 'data'")
            if kind == "numeric":
                for key in ("lower", "upper"):
                    if key not in spec:
                        raise DataError(f"numeric column {name!r} needs a public {key!r} bound")
                cols.append(
                    NumericColumn(
                        name,
                        float(spec["lower"]),
                        float(spec["upper"]),
                        bool(spec.get("integer", False)),
                        source,
                    )
                )
            elif kind == "categorical":
                if "categories" not in spec:
                    raise DataError(f"categorical column {name!r} needs its list of categories")
                cols.append(CategoricalColumn(name, tuple(spec["categories"]), source))
            else:
                raise DataError(f"column {name!r}: kind must be 'numeric' or 'categorical'")
        file_columns = data.get("file_columns")
        return cls(
            tuple(cols),
            tuple(data.get("drop", ())),
            tuple(file_columns) if file_columns is not None else None,
        )

    @classmethod
    def load(cls, path: str | os.PathLike) -> Schema:
        """Read a schema JSON file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise DataError(f"schema file {str(path)!r} does not exist") from exc
        except json.JSONDecodeError as exc:
            raise DataError(f"schema file {str(path)!r} is not valid JSON: {exc}") from exc
        return cls.from_dict(data)


def infer_schema(
    df: pd.DataFrame, *, max_categories: int = 50, drop: tuple[str, ...] = ()
) -> Schema:
    """Draft a schema from the data; every bound and category list is marked ``source="data"``.

    Data-derived bounds leak information about the table: replace them by public ones
    (for example from a codebook) before a release.
    """
    cols: list[Column] = []
    for name in df.columns:
        if name in drop:
            continue
        s = df[name].dropna()
        if s.empty:
            raise DataError(f"column {name!r} has no non-missing value; drop it")
        numeric = pd.to_numeric(s, errors="coerce")
        if numeric.notna().all() and s.nunique() > min(max_categories, 2):
            lo, hi = float(numeric.min()), float(numeric.max())
            if lo == hi:
                raise DataError(f"column {name!r} holds the single value {lo}; drop it")
            integer = bool(np.all(np.mod(numeric.to_numpy(dtype=float), 1) == 0))
            cols.append(NumericColumn(str(name), lo, hi, integer, "data"))
        else:
            cats = sorted(str(v) for v in s.astype(str).unique())
            if len(cats) > max_categories:
                raise DataError(
                    f"column {name!r} has {len(cats)} distinct non-numeric values "
                    f"(more than {max_categories}); drop it or raise max_categories"
                )
            if len(cats) < 2:
                raise DataError(f"column {name!r} holds the single value {cats[0]!r}; drop it")
            cols.append(CategoricalColumn(str(name), tuple(cats), "data"))
    return Schema(tuple(cols), tuple(drop))
