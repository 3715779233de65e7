"""Base for frozen result dataclasses: ``to_dict()`` gives JSON-ready values, ``from_dict()``
reads them back.

Every result synthcert returns is a frozen dataclass deriving from :class:`Result`. Its
``to_dict()`` is the JSON contract of the result (what the command line prints and writes) and
``from_dict(json.loads(json.dumps(r.to_dict())))`` gives back a result equal to ``r``: the type
hints of the fields say how each JSON value is rebuilt (nested results, tuples, dicts of
results, numpy arrays, enums and the non-finite floats that JSON cannot spell).

JSON spelling of the values JSON lacks (written by :func:`jsonable`, read by :meth:`from_dict`):

======================  =================================================================
value                   JSON
======================  =================================================================
``inf`` / ``-inf``      the strings ``"inf"`` / ``"-inf"``
``nan``                 ``null`` (read back as ``nan`` where the field is a ``float``)
tuple, numpy array      a list (rebuilt as the hinted tuple or array)
numpy scalar            the Python number
enum member             its value
nested result           a JSON object (rebuilt through the nested type's ``from_dict``)
======================  =================================================================
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import types
import typing
from typing import Any, Self

import numpy as np

from synthcert.errors import DataError

_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def jsonable(value: Any) -> Any:
    """Convert a value to plain JSON types.

    Parameters
    ----------
    value : Any
        A result, a dataclass, a dict, list or tuple of them, a numpy scalar or array, an enum
        member or a plain value.

    Returns
    -------
    Any
        The same content as dicts, lists, str, int, float, bool and None only; ``inf`` and
        ``-inf`` become the strings ``"inf"``/``"-inf"`` and ``nan`` becomes ``None``.

    Examples
    --------
    >>> jsonable({"a": (1, float("inf")), "b": np.arange(2)})
    {'a': [1, 'inf'], 'b': [0, 1]}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, Result):
            return value.to_dict()
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
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


def _float(value: Any) -> Any:
    """A JSON number, ``"inf"``/``"-inf"`` or ``null`` (NaN) as a float; anything else as is."""
    if value is None:
        return math.nan
    if isinstance(value, str) and value in _NONFINITE:
        return _NONFINITE[value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def _array(value: Any) -> np.ndarray:
    """A (nested) JSON list as a numpy array: ``null`` entries are NaN, "inf" strings infinite."""

    def numbers(v: Any) -> Any:
        if isinstance(v, list):
            return [numbers(x) for x in v]
        if v is None or (isinstance(v, str) and v in _NONFINITE):
            return _float(v)
        return v

    return np.asarray(numbers(value))


def _is_result_type(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _build(cls: type, value: dict[str, Any]) -> Any:
    """A dataclass from its JSON object: a result's own ``from_dict``, else field by field."""
    if issubclass(cls, Result):
        return cls.from_dict(value)
    return _from_fields(cls, value)


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(jsonable(a), sort_keys=True) == json.dumps(jsonable(b), sort_keys=True)


def _revive_union(options: list[Any], value: Any) -> Any:
    """One member of a union: the dataclass whose JSON the object is, else the first that fits."""
    if isinstance(value, dict):
        built = []
        for option in options:
            if _is_result_type(option):
                try:
                    built.append(_build(option, value))
                except (TypeError, ValueError, KeyError):
                    continue
        for candidate in built:  # e.g. NumericColumn | DatetimeColumn: told apart by "kind"
            if _same_json(candidate, value):
                return candidate
        if built:
            return built[0]
    for option in options:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if option is float and (number or (isinstance(value, str) and value in _NONFINITE)):
            return _float(value)
        if option is np.ndarray and isinstance(value, list):
            return _array(value)
        origin = typing.get_origin(option) or option
        if origin in (tuple, list) and isinstance(value, list):
            return _revive(option, value)
        if origin is dict and isinstance(value, dict):
            return _revive(option, value)
    return value


def _expect(kind: type, value: Any, hint: Any) -> None:
    """Refuse a JSON value of the wrong shape for its field (a list where an object belongs)."""
    if not isinstance(value, kind):
        name = getattr(hint, "__name__", None) or str(hint)
        json_kind = "an array" if kind is list else "an object"
        raise DataError(f"{name} is written as {json_kind}, not {type(value).__name__}")


def _revive(hint: Any, value: Any) -> Any:
    """Rebuild ``value`` (as written by :func:`jsonable`) as the type ``hint`` names."""
    if hint is Any or hint is typing.Any:
        return value
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        return _revive(options[0], value) if len(options) == 1 else _revive_union(options, value)
    if hint is float:
        return _float(value)
    if value is None:
        return None
    if origin is typing.Literal:
        return value
    if origin in (tuple, list) or hint in (tuple, list, np.ndarray):
        _expect(list, value, hint)
    if origin is dict or (_is_result_type(hint) and not _is_result_type(type(value))):
        _expect(dict, value, hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_revive(args[0], v) for v in value)
        if args:
            return tuple(_revive(a, v) for a, v in zip(args, value, strict=True))
        return tuple(value)
    if origin is list:
        (inner,) = typing.get_args(hint) or (Any,)
        return [_revive(inner, v) for v in value]
    if origin is dict:
        key, inner = typing.get_args(hint) or (str, Any)
        return {_revive(key, k): _revive(inner, v) for k, v in value.items()}
    if hint is np.ndarray:
        return _array(value)
    if _is_result_type(hint) and isinstance(value, dict):
        return _build(hint, value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if hint is int and isinstance(value, str):
        return int(value)  # a dict key written by jsonable
    if hint is tuple and isinstance(value, list):
        return tuple(value)
    return value


def _from_fields(cls: type, data: dict[str, Any]) -> Any:
    """The dataclass ``cls`` from a JSON object, each field rebuilt from its type hint."""
    if not isinstance(data, dict):
        raise DataError(f"{cls.__name__} is read from a JSON object, not {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    names = {f.name for f in fields}
    unknown = set(data) - names
    if unknown:
        raise DataError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
    required = {
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    missing = required - set(data)
    if missing:
        raise DataError(f"{cls.__name__} needs the field(s) {sorted(missing)}")
    return cls(**{k: _revive(hints[k], v) for k, v in data.items()})


@dataclasses.dataclass(frozen=True)
class Result:
    """Mixin for frozen result records that write JSON and read it back.

    Subclasses are frozen dataclasses with type hints on every field; the hints are what
    :meth:`from_dict` reads. A subclass whose :meth:`to_dict` writes more than its fields (a
    derived figure) or less (an empty part left out) overrides :meth:`from_dict` to match.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Bound(Result):
    ...     epsilon: float
    ...     orders: tuple[float, ...]
    >>> b = Bound(float("inf"), (2.0, 4.0))
    >>> b.to_dict()
    {'epsilon': 'inf', 'orders': [2.0, 4.0]}
    >>> Bound.from_dict(b.to_dict()) == b
    True
    """

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-serialisable values.

        Returns
        -------
        dict[str, Any]
            One key per field; values as :func:`jsonable` writes them.
        """
        return jsonable({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Read back what :meth:`to_dict` wrote.

        Parameters
        ----------
        data : dict[str, Any]
            The JSON object (``json.loads`` of ``json.dumps(result.to_dict())``). Fields with
            a default may be absent.

        Returns
        -------
        Self
            The result, each field rebuilt from its type hint.

        Raises
        ------
        DataError
            ``data`` is not an object, names a field the type does not have (unknown keys
            are an error, not ignored) or lacks a field without a default.
        """
        return _from_fields(cls, data)


__all__ = ["Result", "jsonable"]
