"""Conformance checks for synthesizers, as scikit-learn's ``check_estimator`` for estimators.

:func:`check_synthesizer` runs a battery of small named checks on a built-in fixture table (a
numeric, a categorical and a nullable numeric column) and raises :class:`AssertionError` naming
the first check that fails. Every registered synthesizer passes it (tests/test_conformance.py);
a contributor runs it on a new synthesizer before registering it::

    from synthcert.testing import check_synthesizer
    check_synthesizer(MySynthesizer)

The contract (see :mod:`synthcert.synthesizers.base`): ``__init__`` stores every argument
unchanged under its own name; ``get_params`` reads them back and ``type(s)(**s.get_params())``
is an unfitted clone; ``fit`` returns ``self`` and leaves the table alone; ``sample`` refuses
before ``fit``, returns ``n`` rows with the schema's columns and dtypes, the same rows for the
same seed and other rows for another; ``privacy_claim`` returns a :class:`PrivacyClaim` that
reads back; rows with missing values are modelled, not dropped silently.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.privacy.claims import PrivacyClaim
from synthcert.statistics.protocols import SamplesChunks
from synthcert.synthesizers.base import (
    NotFittedError,
    Synthesizer,
    constructor_params,
    frame_mismatch,
)

FIXTURE_ROWS = 120
SAMPLE_ROWS = 60


class CheckNotApplicableError(Exception):
    """A check that does not apply to this synthesizer (the message says why)."""


def fixture_schema() -> Schema:
    """The schema of the fixture table: ``x`` numeric, ``c`` categorical, ``z`` nullable.

    Examples
    --------
    >>> fixture_schema().names
    ['x', 'c', 'z']
    """
    return Schema(
        (
            NumericColumn("x", 0.0, 10.0),
            CategoricalColumn("c", ("a", "b", "c")),
            NumericColumn("z", 0.0, 1.0, nullable=True),
        )
    )


def fixture_table(rows: int = FIXTURE_ROWS) -> pd.DataFrame:
    """A small public table for the checks: correlated ``x`` and ``c``, ``z`` 25 % missing.

    Parameters
    ----------
    rows : int, default 120
        Number of rows.

    Returns
    -------
    pandas.DataFrame
        Columns ``x`` (float in [0, 10]), ``c`` (strings a, b, c) and ``z`` (float in [0, 1],
        every fourth value missing), the same table on every call.

    Examples
    --------
    >>> table = fixture_table()
    >>> len(table), int(table["z"].isna().sum())
    (120, 30)
    """
    rng = np.random.default_rng(20261123)
    x = rng.uniform(0.0, 10.0, rows)
    c = np.where(x < 3.0, "a", np.where(rng.uniform(size=rows) < 0.6, "b", "c"))
    z = np.clip(x / 10.0 + rng.normal(0.0, 0.2, rows), 0.0, 1.0)
    z[::4] = np.nan
    return pd.DataFrame({"x": x, "c": c, "z": z})


@dataclass
class Subject:
    """What the checks run on: the class, its constructor parameters, the table."""

    cls: type
    params: dict[str, Any]
    table: pd.DataFrame
    n: int = SAMPLE_ROWS
    _fitted: Any = field(default=None, repr=False)

    def build(self) -> Any:
        """A fresh, unfitted synthesizer."""
        return self.cls(**self.params)

    def fitted(self) -> Any:
        """A synthesizer fitted on a copy of the table (one fit, shared by the checks that
        only sample from it)."""
        if self._fitted is None:
            synth = self.build()
            synth.fit(self.table.copy(deep=True))
            self._fitted = synth
        return self._fitted


def _same(a: Any, b: Any) -> bool:
    """Parameter equality: identity, or ``==`` (arrays compared element-wise)."""
    if a is b:
        return True
    try:
        eq = a == b
        return bool(np.all(eq)) if isinstance(eq, np.ndarray) else bool(eq)
    except (TypeError, ValueError):
        return False


# -- the checks ----------------------------------------------------------------------------
def check_get_params_roundtrip(s: Subject) -> None:
    """``get_params`` lists every constructor parameter, and the constructor takes it back.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.build()
    params = synth.get_params()
    names = constructor_params(type(synth))
    assert set(params) == set(names), (
        f"get_params() keys {sorted(params)} are not the constructor's parameters {sorted(names)}"
    )
    for key, value in s.params.items():
        assert key in params, f"get_params() has no {key!r}"
        assert _same(params[key], value), f"get_params()[{key!r}] is not the value given"
    again = type(synth)(**params).get_params()
    assert set(again) == set(params), "the clone's get_params() has other keys"
    bad = [k for k in params if not _same(again[k], params[k])]
    assert not bad, f"type(s)(**s.get_params()) changed parameter(s) {bad}"


def check_clone(s: Subject) -> None:
    """A clone of a fitted synthesizer is unfitted; ``set_params`` sets and returns self.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    fitted = s.fitted()
    clone = type(fitted)(**fitted.get_params())
    try:
        clone.sample(1, seed=0)
    except NotFittedError:
        pass
    else:
        raise AssertionError("a clone built from get_params() is already fitted")
    key, value = next(iter(fitted.get_params().items()))
    assert clone.set_params(**{key: value}) is clone, "set_params does not return self"
    assert _same(clone.get_params()[key], value), "set_params did not set the parameter"


class _Sentinel:
    """A value no validation accepts: __init__ must store it without looking at it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<sentinel {self.name}>"


def check_init_stores_args_only(s: Subject) -> None:
    """``__init__`` stores each argument unchanged under its own name and nothing else.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    names = list(s.build().get_params())
    sentinels = {k: _Sentinel(k) for k in names}
    try:
        synth = s.cls(**sentinels)
    except Exception as exc:
        raise AssertionError(
            f"__init__ validated or converted its arguments ({type(exc).__name__}: {exc}); "
            "validate in validate_params(), called by fit"
        ) from exc
    stored = vars(synth)
    for key, value in sentinels.items():
        assert key in stored and stored[key] is value, f"__init__ did not store {key!r} as given"
    extra = sorted(set(stored) - set(names))
    assert not extra, f"__init__ set attributes that are not parameters: {extra}"


def check_fit_returns_self(s: Subject) -> None:
    """``fit(table)`` returns the synthesizer itself.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.build()
    out = synth.fit(s.table.copy(deep=True))
    assert out is synth, f"fit returned {type(out).__name__}, not self"


def check_sample_before_fit(s: Subject) -> None:
    """``sample`` before ``fit`` raises :class:`NotFittedError`.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    try:
        s.build().sample(1, seed=0)
    except NotFittedError:
        return
    except Exception as exc:
        raise AssertionError(
            f"sample before fit raised {type(exc).__name__}, not NotFittedError"
        ) from exc
    raise AssertionError("sample before fit did not raise NotFittedError")


def _check_frame(synth: Any, out: Any, n: int, what: str) -> None:
    problem = frame_mismatch(out, synth.schema, n)
    assert problem is None, f"{what} {problem}"


def check_sample_shape(s: Subject) -> None:
    """``sample(n)`` has ``n`` rows, the schema's columns and dtypes (also for n = 0).

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.fitted()
    for n in (s.n, 0):
        _check_frame(synth, synth.sample(n, seed=1), n, f"sample({n})")


def check_seeded_sampling(s: Subject) -> None:
    """The same seed gives the same rows; different seeds give different rows.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.fitted()
    a = synth.sample(s.n, seed=11)
    b = synth.sample(s.n, seed=11)
    pd.testing.assert_frame_equal(a, b, obj="rows of the same seed")
    c = synth.sample(s.n, seed=12)
    assert not a.equals(c), "two different seeds gave the same rows"


def check_sample_chunk(s: Subject) -> None:
    """``sample_chunk(rows, SeedSequence)`` draws a chunk in the schema's form, seeded.

    Skipped (:class:`CheckNotApplicableError`) for a model without ``sample_chunk``.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.fitted()
    if not isinstance(synth, SamplesChunks):
        raise CheckNotApplicableError(
            f"{type(synth).__name__} has no sample_chunk(rows, seed) (the SamplesChunks "
            "protocol); Synthesizer.sample_chunk comes with the statistics layer"
        )
    a = synth.sample_chunk(s.n, np.random.SeedSequence(5))
    _check_frame(synth, a, s.n, "sample_chunk")
    b = synth.sample_chunk(s.n, np.random.SeedSequence(5))
    pd.testing.assert_frame_equal(a, b, obj="chunks of the same SeedSequence")


def check_privacy_claim(s: Subject) -> None:
    """``privacy_claim(n)`` is a :class:`PrivacyClaim` that reads back through ``to_dict``.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    synth = s.fitted()
    claim = synth.privacy_claim(s.n)
    assert isinstance(claim, PrivacyClaim), f"privacy_claim returned {type(claim).__name__}"
    assert claim.n_out == s.n, f"the claim is for {claim.n_out} rows, not {s.n}"
    back = PrivacyClaim.from_dict(claim.to_dict())
    assert back == claim, "PrivacyClaim.from_dict(claim.to_dict()) differs from the claim"


def check_fit_leaves_input_alone(s: Subject) -> None:
    """``fit`` does not modify the table it is given (values, dtypes, index).

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    table = s.table.copy(deep=True)
    s.build().fit(table)
    pd.testing.assert_frame_equal(table, s.table, obj="the table after fit")


def check_missing_values(s: Subject) -> None:
    """Rows with a missing value are modelled, not dropped: some sampled values are missing.

    Parameters
    ----------
    s : Subject
        The class, its parameters and the table.

    Raises
    ------
    AssertionError
        If the synthesizer breaks the contract.
    """
    nullable = [c.name for c in s.params["schema"].columns if c.nullable]
    present = [c for c in nullable if s.table[c].isna().any()]
    if not present:
        raise CheckNotApplicableError("the table has no missing value in a nullable column")
    synth = s.fitted()
    dropped = getattr(synth, "rows_dropped_missing_", 0)
    assert not dropped, f"fit dropped {dropped} rows with missing values"
    out = synth.sample(max(s.n, 200), seed=3)
    for name in present:
        assert out[name].isna().any(), f"no missing value sampled in nullable column {name!r}"
        assert out[name].notna().any(), f"only missing values sampled in {name!r}"


CHECKS: tuple[Callable[[Subject], None], ...] = (
    check_get_params_roundtrip,
    check_init_stores_args_only,
    check_fit_returns_self,
    check_clone,
    check_sample_before_fit,
    check_sample_shape,
    check_seeded_sampling,
    check_sample_chunk,
    check_privacy_claim,
    check_fit_leaves_input_alone,
    check_missing_values,
)


@dataclass(frozen=True)
class ConformanceReport:
    """Which checks passed and which were skipped (with the reason)."""

    synthesizer: str
    passed: tuple[str, ...]
    skipped: dict[str, str] = field(default_factory=dict)


def check_synthesizer(
    synth_or_class: Synthesizer | type,
    *,
    params: Mapping[str, Any] | None = None,
    table: pd.DataFrame | None = None,
    n: int = SAMPLE_ROWS,
    checks: tuple[Callable[[Subject], None], ...] = CHECKS,
) -> ConformanceReport:
    """Run the conformance checks on a synthesizer class or instance.

    Parameters
    ----------
    synth_or_class : Synthesizer or type
        A class (built with ``params``) or an unfitted instance (its ``get_params()`` with
        ``params`` on top).
    params : mapping, optional
        Constructor parameters, e.g. tiny settings for a slow model. ``schema`` defaults to
        the fixture schema (:func:`fixture_schema`) when no ``table`` is given.
    table : pandas.DataFrame, optional
        The table to fit; default :func:`fixture_table`. With a table, give its schema in
        ``params`` (or on the instance).
    n : int, default 60
        Rows sampled by the checks.
    checks : tuple of callables, default :data:`CHECKS`
        The checks to run, each a function of a :class:`Subject`.

    Returns
    -------
    ConformanceReport
        The names of the checks that passed and of those skipped, with the reason (each
        skip is also issued as a ``UserWarning``).

    Raises
    ------
    AssertionError
        At the first failing check, its message starting with the check's name.

    Examples
    --------
    >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
    >>> report = check_synthesizer(PrivBayesSynthesizer, params={"bins": 8})  # doctest: +SKIP
    >>> "check_seeded_sampling" in report.passed  # doctest: +SKIP
    True
    """
    if isinstance(synth_or_class, type):
        cls, base = synth_or_class, {}
    else:
        cls, base = type(synth_or_class), dict(synth_or_class.get_params())
    merged = {**base, **dict(params or {})}
    if table is None:
        table = fixture_table()
        if "schema" not in dict(params or {}):
            merged["schema"] = fixture_schema()
    if "schema" not in merged:
        raise ValueError("give the table's schema in params (or check an instance)")
    subject = Subject(cls, merged, copy.deepcopy(table), n)
    passed: list[str] = []
    skipped: dict[str, str] = {}
    for check in checks:
        name = check.__name__
        try:
            check(subject)
        except CheckNotApplicableError as why:
            skipped[name] = str(why)
            warnings.warn(f"{cls.__name__}: {name} skipped: {why}", UserWarning, stacklevel=2)
            continue
        except AssertionError as exc:
            raise AssertionError(f"{name} failed for {cls.__name__}: {exc}") from exc
        except Exception as exc:
            raise AssertionError(
                f"{name} failed for {cls.__name__}: {type(exc).__name__}: {exc}"
            ) from exc
        passed.append(name)
    return ConformanceReport(cls.__name__, tuple(passed), skipped)


__all__ = [
    "CHECKS",
    "CheckNotApplicableError",
    "ConformanceReport",
    "Subject",
    "check_synthesizer",
    "fixture_schema",
    "fixture_table",
]
