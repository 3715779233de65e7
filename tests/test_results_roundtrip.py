"""Every result type reads back what it writes: ``from_dict(json(to_dict(x))) == x``.

The result types are discovered, not listed: every class defined in a module of synthcert that
has a ``to_dict`` is tested. Instances come from hypothesis strategies derived from the
dataclass fields' type hints (floats with ±inf and NaN, tuples, dicts of nested results, numpy
arrays), or from a strategy in ``STRATEGIES`` for a type whose constructor validates its
values (the derived values would be refused). A class the derivation cannot handle (not a
dataclass, a hint it does not know) fails the test until it gets a strategy here; a new result
type whose ``from_dict`` does not read back its ``to_dict`` fails it too.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import json
import math
import pkgutil
import types
import typing
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import synthcert


def _discover() -> dict[str, type]:
    """Every class defined in synthcert with a ``to_dict`` (modules with a missing optional
    dependency are skipped; the base ``Result`` itself is not a result)."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(synthcert.__path__, "synthcert."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:  # an optional dependency (torch, ...) is missing
            if exc.name and exc.name.split(".")[0] == "synthcert":
                raise
            continue
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and obj.__module__ == module.__name__
                and callable(getattr(obj, "to_dict", None))
                and obj is not synthcert._result.Result
                and not inspect.isabstract(obj)  # a base (BinsStep): its subclasses are tested
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return dict(sorted(found.items()))


RESULT_TYPES = _discover()

# -- strategies --------------------------------------------------------------------------------
names = st.text("abcxyz_-é", min_size=1, max_size=5)
plain = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), names,
    st.floats(allow_nan=False, allow_infinity=False),
)  # fmt: skip  # JSON-native values: what an untyped (Any) field holds


def _numeric_column():
    from synthcert.data.schema import NumericColumn

    def build(name, lo, width, integer, nullable, scale, k, share):
        bins = None if k is None else tuple(np.linspace(lo, lo + width, k).tolist())
        return NumericColumn(name, lo, lo + width, integer, "public", "numeric", nullable, scale,
                             bins, share)  # fmt: skip

    return st.builds(
        build, names, st.floats(-1e6, 1e6), st.floats(0.5, 1e6), st.booleans(), st.booleans(),
        st.sampled_from(["linear", "log"]), st.none() | st.integers(3, 6),
        st.none() | st.floats(0, 1),
    )  # fmt: skip


def _datetime_column():
    from synthcert.data.schema import DatetimeColumn

    return st.builds(
        lambda name, lo, days, unit, nullable: DatetimeColumn(
            name, float(lo), float(lo + days), unit=unit, nullable=nullable
        ),
        names, st.integers(-20_000, 20_000), st.integers(1, 5_000), st.sampled_from(["D", "s"]),
        st.booleans(),
    )  # fmt: skip


def _categorical_column():
    from synthcert.data.schema import CategoricalColumn

    strings = st.lists(names, min_size=2, max_size=4, unique=True).map(tuple)
    integers = st.lists(st.integers(-9, 99), min_size=2, max_size=4, unique=True)
    return st.one_of(
        st.builds(lambda n, c: CategoricalColumn(n, c), names, strings),
        st.builds(lambda n, c: CategoricalColumn(n, tuple(map(str, c)), dtype="integer"),
                  names, integers),
        st.builds(lambda n, nl: CategoricalColumn(n, ("False", "True"), dtype="boolean",
                                                  nullable=nl), names, st.booleans()),
    )  # fmt: skip


def _schema():
    from synthcert.data.schema import Schema

    column = st.one_of(_numeric_column(), _datetime_column(), _categorical_column())
    return st.builds(
        lambda cols, drop, file_cols: Schema(tuple(cols), tuple(drop),
                                             (*[c.name for c in cols], *drop) if file_cols
                                             else None),
        st.lists(column, min_size=1, max_size=4, unique_by=lambda c: c.name),
        st.lists(st.text("pq", min_size=1, max_size=3), max_size=2, unique=True), st.booleans(),
    )  # fmt: skip


def _attack_params():
    from synthcert.audit.attacks import AttackParams

    pos = st.integers(1, 50)
    return st.builds(AttackParams, c1=pos, c2=pos, c3=pos, chunks=pos)


def _ledger_entry():
    from synthcert.privacy.accountant import LedgerEntry

    def build(name, kind, eps, rho, delta, curve):
        orders, epsilons = zip(*curve, strict=True) if kind == "rdp" else ((), ())
        return LedgerEntry(name, kind, eps, rho, delta, tuple(orders), tuple(epsilons))

    finite = st.floats(0, 1e6)
    return st.builds(
        build, names,
        st.sampled_from(["pure", "exponential", "approx", "zcdp", "approx_zcdp", "rdp"]),
        st.none() | finite, st.none() | finite, st.floats(0, 1),
        st.lists(st.tuples(st.floats(1.01, 1e6), finite), min_size=1, max_size=3),
    )  # fmt: skip


def _strategy_for(cls: type) -> st.SearchStrategy | None:
    """The explicit strategy of a type whose constructor validates its values."""
    explicit: dict[str, Callable[[], st.SearchStrategy]] = {
        "synthcert.data.schema.NumericColumn": _numeric_column,
        "synthcert.data.schema.DatetimeColumn": _datetime_column,
        "synthcert.data.schema.CategoricalColumn": _categorical_column,
        "synthcert.data.schema.Schema": _schema,
        "synthcert.audit.attacks.AttackParams": _attack_params,
        "synthcert.privacy.accountant.LedgerEntry": _ledger_entry,
    }
    make = explicit.get(f"{cls.__module__}.{cls.__qualname__}")
    return make() if make is not None else None


class UnknownHintError(TypeError):
    """A field's type hint this derivation does not know: give the type a strategy."""


def from_hint(hint: Any, *, optional: bool = False, depth: int = 0) -> st.SearchStrategy:
    """Values of the type ``hint`` names (NaN only where a non-optional float can hold it: an
    optional float writes NaN and None alike as null)."""
    if hint is Any:
        return plain
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        nullable = type(None) in args
        opts = [from_hint(a, optional=nullable, depth=depth) for a in args if a is not type(None)]
        return st.one_of(*([st.none()] if nullable else []), *opts)
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(from_hint(args[0], depth=depth + 1), max_size=3).map(tuple)
        return st.tuples(*(from_hint(a, depth=depth + 1) for a in args))
    if origin is list:
        (inner,) = typing.get_args(hint)
        return st.lists(from_hint(inner, depth=depth + 1), max_size=3)
    if origin is dict:
        key, inner = typing.get_args(hint)
        return st.dictionaries(from_hint(key), from_hint(inner, depth=depth + 1), max_size=3)
    if hint is dict:
        return st.dictionaries(names, plain, max_size=3)
    if hint is list:
        return st.lists(plain, max_size=3)
    if hint is float:
        return st.floats(allow_nan=not optional)
    if hint is int:
        return st.integers(-(2**40), 2**40)
    if hint is bool:
        return st.booleans()
    if hint is str:
        return names
    if hint is np.ndarray:
        return hnp.arrays(
            st.sampled_from([np.float64, np.int64]),
            hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=3),
        )
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if isinstance(hint, type):
        explicit = _strategy_for(hint)
        if explicit is not None:
            return explicit
        if dataclasses.is_dataclass(hint):
            return st.deferred(lambda: from_fields(hint, depth + 1))
    raise UnknownHintError(f"no strategy for {hint!r}")


def from_fields(cls: type, depth: int = 0) -> st.SearchStrategy:
    """Instances of the dataclass ``cls`` built from strategies for each field's hint."""
    hints = typing.get_type_hints(cls)
    kwargs = {f.name: from_hint(hints[f.name], depth=depth) for f in dataclasses.fields(cls)}
    return st.builds(cls, **kwargs)


def strategy(cls: type) -> st.SearchStrategy:
    """The instances the round trip is tested on."""
    explicit = _strategy_for(cls)
    if explicit is not None:
        return explicit
    if not dataclasses.is_dataclass(cls):
        raise UnknownHintError(f"{cls.__qualname__} is not a dataclass: add a strategy for it")
    return from_fields(cls)


# -- equality ----------------------------------------------------------------------------------
def same(a: Any, b: Any, path: str = "") -> None:
    """Assert ``a`` and ``b`` are equal, NaN equal to NaN and arrays compared elementwise (the
    dataclass ``==`` cannot compare arrays and calls NaN unequal to itself)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), f"{path}: {type(b).__name__} is not an array"
        assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, f"{path}: {a!r} != {b!r}"
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f"{path}: {a!r} != {b!r}"
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} != {b!r}"
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), f"{path}: nan != {b!r}"
    elif isinstance(a, enum.Enum):
        assert a is b, f"{path}: {a!r} != {b!r}"
    else:
        assert isinstance(a, bool) == isinstance(b, bool), f"{path}: {a!r} != {b!r}"
        assert a == b, f"{path}: {a!r} != {b!r}"


def round_trip(x: Any) -> Any:
    """``from_dict`` of the JSON text of ``to_dict``."""
    text = json.dumps(x.to_dict(), allow_nan=False)  # strict JSON: no NaN/Infinity tokens
    return type(x).from_dict(json.loads(text))


# -- tests -------------------------------------------------------------------------------------
def test_discovery_finds_the_result_types():
    """The discovery sees the results the report and the command line read (a renamed module
    must not silently shrink the test)."""
    short = {k.rsplit(".", 1)[1] for k in RESULT_TYPES}
    assert {"Certificate", "PrivacyClaim", "RunRecord", "AuditResult", "UtilityEvaluation",
            "Schema", "CertificateCurves", "SynthesisSummary"} <= short  # fmt: skip
    assert len(RESULT_TYPES) >= 50


@pytest.mark.parametrize("name", list(RESULT_TYPES))
def test_from_dict_reads_back_to_dict(name):
    cls = RESULT_TYPES[name]
    assert "from_dict" in dir(cls), f"{name} has to_dict but no from_dict"
    try:
        strat = strategy(cls)
    except UnknownHintError as exc:
        pytest.fail(f"{name}: {exc}; add a strategy in STRATEGIES of this test")

    @settings(
        max_examples=15, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )  # fmt: skip
    @given(strat)
    def check(x):
        same(round_trip(x), x, cls.__name__)

    check()


def test_the_equality_check_can_fail():
    """``same`` tells apart what the round trip could confuse."""
    pairs = [
        ((1.0,), [1.0]),
        (np.array([1.0]), np.array([1])),
        (math.nan, None),
        (np.array([1.0, np.nan]), np.array([1.0, 2.0])),
        (True, 1),
        ({"a": 1}, {"b": 1}),
    ]
    for a, b in pairs:
        with pytest.raises(AssertionError):
            same(a, b)
    same(np.array([np.nan, np.inf]), np.array([np.nan, np.inf]))


def test_unknown_and_missing_fields_are_refused():
    from synthcert.errors import DataError
    from synthcert.privacy.claims import Assumption

    with pytest.raises(DataError, match="no field"):
        Assumption.from_dict({"name": "a", "value": 1, "source": "declared", "seed": 7})
    with pytest.raises(DataError, match="needs the field"):
        Assumption.from_dict({"name": "a", "value": 1})
    with pytest.raises(DataError, match="JSON object"):
        Assumption.from_dict([1, 2])  # type: ignore[arg-type]


def test_a_computed_certificate_curve_reads_back():
    """A real result (arrays with +inf for refused orders, nested conversions, a dict of
    arrays) survives the JSON round trip too."""
    from synthcert.privacy.budget import account
    from synthcert.privacy.claims import PrivacyClaim
    from synthcert.report.curves import certificate_curves
    from synthcert.workflows.release import Certificate

    acc = account(1000, 4, 0.05, n_out=200, delta=1e-5, neighboring="bounded")
    claim = PrivacyClaim("inherent-rdp", "differential privacy", "bounded", epsilon=acc.epsilon,
                         delta=1e-5, alpha=acc.alpha, epsilon_rdp=acc.epsilon_rdp, n_out=200,
                         conversion="ckm")  # fmt: skip
    cert = Certificate("gaussian", 4, 0.05, "declared", None, "public", None, 1000,
                       acc.epsilon_rdp_per_record, None, claim, "0.1.0", "2025-01-02")  # fmt: skip
    curves = certificate_curves(cert)
    assert np.isinf(curves.epsilon_rdp_per_record).any()  # orders beyond the theorem's limit
    same(round_trip(curves), curves)
    same(round_trip(cert), cert)
    # a certificate of an earlier version states its claim's fields flat: read the same
    doc = cert.to_dict()
    flat = {**{k: v for k, v in doc.items() if k != "claim"}, **doc["claim"]}
    assert Certificate.from_dict(flat) == cert
    assert set(doc) == {f.name for f in dataclasses.fields(Certificate)}


def test_a_derived_infinite_figure_is_written_as_json():
    """Efficacy's derived gap is infinite when a score is: it is written "-inf", not -Infinity
    (strict JSON), and dropped again on reading."""
    from synthcert.utility.efficacy import Efficacy

    e = Efficacy("income", "classification", "auc", math.inf, 0.5, 10, 10, 5)
    assert e.to_dict()["gap"] == "-inf"
    same(round_trip(e), e)
