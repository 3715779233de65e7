"""Base for frozen result dataclasses: ``to_dict()`` gives JSON-ready values, ``from_dict()``
reads them back (nested results, tuples and non-finite floats included)."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any, Self

import numpy as np


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, nested dataclasses and non-finite floats to JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _revive(hint: Any, value: Any) -> Any:
    """Rebuild ``value`` (as written by :func:`jsonable`) as the type ``hint`` names."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        for option in options:  # a nested result first, then plain values
            if isinstance(option, type) and issubclass(option, Result) and isinstance(value, dict):
                return option.from_dict(value)
        return _revive(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = typing.get_args(hint)
        inner = args[0] if args else Any
        return tuple(_revive(inner, v) for v in value)
    if isinstance(hint, type) and issubclass(hint, Result) and isinstance(value, dict):
        return hint.from_dict(value)
    if hint is float and isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    return value


@dataclasses.dataclass(frozen=True)
class Result:
    """Mixin for frozen result records."""

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a dict of JSON-serialisable values."""
        return jsonable(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Read back what :meth:`to_dict` wrote (unknown keys are an error, not ignored)."""
        hints = typing.get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        return cls(**{k: _revive(hints[k], v) for k, v in data.items()})
