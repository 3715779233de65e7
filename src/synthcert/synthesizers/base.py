"""The one interface every synthesizer implements, scikit-learn style, and its privacy record.

A synthesizer is an *estimator* (the conventions of scikit-learn's ``BaseEstimator``):

* ``__init__`` stores every argument, unchanged, under its own name and does nothing else (no
  validation, no encoder built), so :meth:`Synthesizer.get_params` is read off the constructor
  signature and ``type(s)(**s.get_params())`` is an unfitted copy (a clone);
* :meth:`Synthesizer.validate_params` checks the stored parameters; every fit route calls it
  first (``ParameterError`` for an option synthcert does not accept, ``AssumptionError`` only
  for an assumption of a theorem, e.g. a non-positive epsilon);
* :meth:`Synthesizer.fit` (validate, forget any earlier fit, ``_fit``, mark fitted) and
  :meth:`Synthesizer.sample` (fitted?, ``n >= 0``, ``_sample``, the schema's columns and
  dtypes) do the common work; a subclass implements ``_fit(table)`` and ``_sample(n, seed)``.

Fitted state lives in attributes with a trailing underscore (``mean_``, ``tables_``...) and in
memory only. :func:`synthcert.testing.check_synthesizer` checks all of this for any class.
"""

from __future__ import annotations

import inspect
import operator
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Self

import numpy as np
import pandas as pd

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import check_missing_policy, missing_policy_for, typed_frame
from synthcert.data.schema import CategoricalColumn, Schema
from synthcert.errors import DataError, ParameterError, SynthcertError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.claims import (
    Assumption,
    PrivacyClaim,
    domain_assumption,
    dp_claim,
    flags_assumption,
    no_privacy_claim,
)
from synthcert.seeding import Seed

DEFAULT_DELTA = 1e-5  # delta of the (epsilon, delta)-DP synthesizers when none is given


class NotFittedError(SynthcertError, RuntimeError):
    """``sample`` (or a fitted-only method) was called before ``fit``."""


def constructor_params(cls: type) -> list[str]:
    """Names of the parameters of ``cls.__init__`` (without ``self``), in signature order.

    A ``**kwargs`` is followed up the MRO (a subclass ``__init__(self, schema, *, extra=None,
    **kwargs)`` passes the rest on to its parent), so a third-party subclass written that way
    still lists every parameter it accepts.

    Parameters
    ----------
    cls : type
        The synthesizer class.

    Returns
    -------
    list of str
        Parameter names, the first class's first, without repeats.

    Examples
    --------
    >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
    >>> constructor_params(PrivBayesSynthesizer)[:3]
    ['schema', 'epsilon', 'delta']
    """
    return list(constructor_signature(cls))


def constructor_signature(cls: type) -> dict[str, inspect.Parameter]:
    """The parameters of ``cls.__init__`` by name (:func:`constructor_params`' order), with
    their defaults (``inspect.Parameter.empty`` when required).

    Examples
    --------
    >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
    >>> constructor_signature(PrivBayesSynthesizer)["theta"].default
    4.0
    """
    found: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if init is object.__init__:
            break
        params = inspect.signature(init).parameters
        for n, p in params.items():
            if n != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and n not in found:
                found[n] = p
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            break
    return found


def check_bins(bins: int) -> None:
    """Refuse fewer than 2 public bins per numeric column (a discretisation needs 2 cells).

    Raises
    ------
    ParameterError
        ``"bins must be at least 2, got <bins>"``.
    """
    if not bins >= 2:
        raise ParameterError(f"bins must be at least 2, got {bins}")


def check_share(label: str, share: float) -> None:
    """Refuse a budget share outside the open interval (0, 1) (both parts must get some budget).

    Parameters
    ----------
    label : str
        How the message names the share (the parameter's name, possibly explained).
    share : float
        The share.

    Raises
    ------
    ParameterError
        ``"<label> must lie in (0, 1), got <share>"``.
    """
    if not 0 < share < 1:
        raise ParameterError(f"{label} must lie in (0, 1), got {share}")


def sample_count(n: Any) -> int:
    """``n`` as a non-negative int (a bool or a float is refused).

    Raises
    ------
    ParameterError
        If ``n`` is not a whole number or is negative.
    """
    if isinstance(n, bool):
        raise ParameterError(f"n must be a whole number of rows, got {n!r}")
    try:
        count = operator.index(n)
    except TypeError:
        raise ParameterError(f"n must be a whole number of rows, got {n!r}") from None
    if count < 0:
        raise ParameterError(f"n must be non-negative, got {count}")
    return int(count)


def require_two_rows(n: int, model: str) -> None:
    """Refuse a fit on fewer than 2 complete rows: ``"<model> needs at least 2 complete rows"``
    (a :class:`~synthcert.errors.DataError`; the count, private, only in its detail)."""
    if n < 2:
        raise DataError(
            f"{model} needs at least 2 complete rows", private_detail=f"{n} complete rows"
        )


def cached_discretizer(synth: Any) -> Discretizer:
    """The :class:`Discretizer` of a synthesizer's ``schema``, ``bins`` and ``missing``.

    Built on first use and kept until one of the three parameters changes (``set_params``),
    so the constructor stores arguments only and engines can count on the public bins
    before the fit. ``missing="model"`` is ``"fill"`` under bounded neighbours
    (:func:`~synthcert.data.encode.missing_policy_for`).
    """
    policy = missing_policy_for(
        synth.missing,
        getattr(synth, "neighboring", "unbounded"),
        private=getattr(synth, "epsilon", None) is not None,
    )
    key = (synth.schema, int(synth.bins), policy)
    cached = synth.__dict__.get("_discretizer")
    if cached is None or cached[0][0] is not key[0] or cached[0][1:] != key[1:]:
        cached = (key, Discretizer(synth.schema, bins=key[1], missing=key[2]))
        synth.__dict__["_discretizer"] = cached
    return cached[1]


def schema_dtypes(schema: Schema) -> list[Any]:
    """The dtype of each column of a sampled frame (what :func:`typed_frame` gives)."""
    empty = {c.name: typed_empty(c) for c in schema.columns}
    return list(typed_frame(schema, empty).dtypes)


def frame_mismatch(out: Any, schema: Schema, n: int) -> str | None:
    """What keeps ``out`` from being ``n`` rows of ``schema`` (columns in order, declared
    dtypes), or None; the base class refuses such a sample and ``check_synthesizer`` fails it."""
    if not isinstance(out, pd.DataFrame):
        return f"returned {type(out).__name__}, not a DataFrame"
    if len(out) != n:
        return f"returned {len(out)} rows, not {n}"
    if list(out.columns) != schema.names:
        return f"returned columns {list(out.columns)}, not the schema's {schema.names}"
    want = schema_dtypes(schema)
    bad = [c for c, a, b in zip(schema.names, out.dtypes, want, strict=True) if a != b]
    if bad:
        return f"returned column(s) {bad} in other dtypes than the schema declares"
    return None


def typed_empty(col: Any) -> Any:
    """No values of a column: float (NaN-able) for numbers, int codes for categories."""
    return np.empty(0, np.int64 if isinstance(col, CategoricalColumn) else np.float64)


def _same(value: Any, default: Any) -> bool:
    """True if a parameter still has its default (no default: False)."""
    if default is inspect.Parameter.empty:
        return False
    try:
        return value is default or bool(value == default)
    except (TypeError, ValueError):
        return False


class Synthesizer(ABC):
    """Base class of every synthesizer: ``fit(table) -> self``, ``sample(n, seed=...)``.

    Subclasses declare every parameter in ``__init__`` (the schema first), store each under its
    own name unchanged, and implement :meth:`_fit` and :meth:`_sample`; they override
    :meth:`validate_params` (calling ``super()``) to check their options.

    Parameters
    ----------
    schema : Schema
        The public schema: the columns, their bounds or categories, which may be missing.

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> from synthcert.synthesizers.gaussian import GaussianSynthesizer
    >>> synth = GaussianSynthesizer(Schema((NumericColumn("x", 0, 1),)), sigma=0.01)
    >>> synth.get_params()["sigma"]
    0.01
    >>> clone = type(synth)(**synth.get_params())
    >>> clone.get_params() == synth.get_params()
    True
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    privacy_model: ClassVar[str] = "none"
    # True when fit draws no randomness (same table, same fit): the audit then takes each
    # synthetic table as an independent run of the mechanism, else one run per fit
    deterministic_fit: ClassVar[bool] = False

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    # -- parameters (scikit-learn's get_params / set_params) -----------------------------
    def _store_params(self, params: Mapping[str, Any]) -> None:
        """Store each constructor argument under its own name, unchanged (the estimator
        convention of this module's docstring), in signature order.

        Called as ``self._store_params(locals())``, the first statement of an ``__init__``
        whose signature names every parameter: the signature stays what
        :func:`constructor_params`, :meth:`get_params` and the API reference read, and what
        ``get_params`` returns is exactly what the call passed.

        Parameters
        ----------
        params : mapping of str to object
            ``locals()`` at the start of ``__init__`` (``self`` is skipped).

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> s = PrivBayesSynthesizer(Schema((NumericColumn("x", 0, 1),)), bins=7)
        >>> s.bins, s.epsilon
        (7, None)
        """
        for name, value in params.items():
            if name != "self":
                setattr(self, name, value)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The constructor's parameter names (see :func:`constructor_params`)."""
        return constructor_params(cls)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """The constructor parameters, as stored (never a fitted parameter).

        Parameters
        ----------
        deep : bool, default False
            Accepted for scikit-learn compatibility; synthesizers hold no nested estimators.

        Returns
        -------
        dict
            ``{name: value}`` for every constructor parameter, the schema included, so that
            ``type(self)(**self.get_params())`` builds an unfitted copy.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> s = PrivBayesSynthesizer(Schema((NumericColumn("x", 0, 1),)), epsilon=1.0)
        >>> s.get_params()["epsilon"], s.get_params()["degree"]
        (1.0, None)
        """
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params: Any) -> Self:
        """Set constructor parameters by name (validated at the next fit).

        Returns
        -------
        Synthesizer
            ``self``.

        Raises
        ------
        ParameterError
            If a name is not a constructor parameter.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> s = PrivBayesSynthesizer(Schema((NumericColumn("x", 0, 1),)))
        >>> s.set_params(bins=10).bins
        10
        """
        valid = self._get_param_names()
        unknown = sorted(k for k in params if k not in valid)
        if unknown:
            raise ParameterError(
                f"{type(self).__name__} has no parameter(s) {unknown}; its parameters are "
                f"{', '.join(valid)}"
            )
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def validate_params(self) -> None:
        """Check the stored parameters (called first by every fit route).

        Raises
        ------
        ParameterError
            For an option value synthcert does not accept (a schema that is not a
            :class:`Schema`, an unknown missing-value policy, ...).
        AssumptionError
            For a parameter that breaks an assumption of the privacy theorem (subclasses).

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> PrivBayesSynthesizer(Schema((NumericColumn("x", 0, 1),)), bins=1).validate_params()
        Traceback (most recent call last):
        ...
        synthcert.errors.ParameterError: bins must be at least 2, got 1
        """
        if not isinstance(self.schema, Schema):
            raise ParameterError(
                f"schema must be a synthcert Schema, got {type(self.schema).__name__}"
            )
        if "missing" in self._get_param_names():
            try:
                check_missing_policy(self.missing)  # type: ignore[attr-defined]
            except SynthcertError as exc:
                raise ParameterError(str(exc)) from None

    def __repr__(self) -> str:
        """``Name(param=value, ...)`` with the parameters that differ from their defaults."""
        sig = inspect.signature(type(self).__init__).parameters
        shown = []
        for key, value in self.get_params().items():
            default = sig[key].default if key in sig else inspect.Parameter.empty
            if key == "schema":
                shown.append(
                    f"schema=<{len(value.columns)} columns>"
                    if isinstance(value, Schema)
                    else f"schema={value!r}"
                )
            elif not _same(value, default):
                shown.append(f"{key}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # -- fitting -------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Self:
        """Learn the generative parameters from ``table`` (columns as in the schema).

        Validates the parameters, forgets any earlier fit, then runs :meth:`_fit`.

        Parameters
        ----------
        table : pandas.DataFrame
            The private table; it is not modified.

        Returns
        -------
        Synthesizer
            ``self``, fitted.

        Raises
        ------
        ParameterError
            For an option value synthcert does not accept.
        AssumptionError
            When the data or a parameter fails an assumption of the privacy theorem.
        DataError
            For malformed input (too few complete rows, ...).

        Examples
        --------
        >>> import pandas as pd
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> schema = Schema((NumericColumn("x", 0, 1),))
        >>> synth = PrivBayesSynthesizer(schema).fit(pd.DataFrame({"x": [0.1, 0.5, 0.9]}))
        >>> synth.sample(2, seed=1).shape
        (2, 1)
        """
        self._start_fit()
        self._fit(table)
        return self._end_fit()

    def _start_fit(self) -> None:
        """Validate the parameters and forget an earlier fit (every fit route calls it)."""
        self.validate_params()
        self._fitted = False

    def _end_fit(self) -> Self:
        """Mark the fit complete."""
        self._fitted = True
        return self

    @abstractmethod
    def _fit(self, table: pd.DataFrame) -> None:
        """Learn the generative parameters (parameters already validated)."""

    # -- sampling ------------------------------------------------------------------------
    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Draw ``n`` synthetic rows with the schema's columns and dtypes.

        Parameters
        ----------
        n : int
            Number of rows (0 gives an empty frame with the schema's columns and dtypes).
        seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
            A secret seed; None draws 128 bits of OS entropy. The same seed gives the same rows.

        Returns
        -------
        pandas.DataFrame
            ``n`` rows, the schema's columns in order, in their declared dtypes.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ParameterError
            If ``n`` is negative or not a whole number.

        Examples
        --------
        >>> import pandas as pd
        >>> from synthcert.data.schema import CategoricalColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> schema = Schema((CategoricalColumn("c", ("a", "b")),))
        >>> synth = PrivBayesSynthesizer(schema).fit(pd.DataFrame({"c": ["a", "b", "a"]}))
        >>> synth.sample(3, seed=7).equals(synth.sample(3, seed=7))
        True
        """
        self._check_fitted()
        count = sample_count(n)
        out = self._sample(count, seed)
        self._check_output(out, count)
        return out

    @abstractmethod
    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Draw ``n`` rows (fitted and ``n >= 0`` already checked)."""

    def _check_output(self, out: pd.DataFrame, n: int) -> None:
        """A sampled frame must have ``n`` rows and the schema's columns in their dtypes."""
        problem = frame_mismatch(out, self.schema, n)
        if problem is not None:
            raise SynthcertError(f"{type(self).__name__}._sample {problem}")

    def sample_chunk(self, rows: int, seed: np.random.SeedSequence) -> pd.DataFrame:
        """One chunk of a chunked release: ``rows`` rows drawn from the child seed ``seed``.

        What the engines call (:class:`~synthcert.statistics.protocols.SamplesChunks`): chunk
        ``i`` of a release is ``sample_chunk(rows_i, child_i)``. The default is
        ``self.sample(rows, seed=seed)``; a model with its own chunk arithmetic overrides it.

        Parameters
        ----------
        rows : int
            Rows to draw (0 gives an empty frame with the schema's columns).
        seed : numpy.random.SeedSequence
            The chunk's child seed (secret).

        Returns
        -------
        pandas.DataFrame
            ``rows`` synthetic rows with the schema's columns and types.

        Raises
        ------
        NotFittedError
            The model is not fitted.
        """
        return self.sample(rows, seed=seed)

    # -- privacy -------------------------------------------------------------------------
    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        """The public claim of releasing ``n_out`` rows of this fit (none without DP).

        Parameters
        ----------
        n_out : int
            Number of rows released.

        Returns
        -------
        PrivacyClaim
            The claim; it reads back with ``PrivacyClaim.from_dict(claim.to_dict())``.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
        >>> PrivBayesSynthesizer(Schema((NumericColumn("x", 0, 1),))).privacy_claim(10).model
        'none'
        """
        return no_privacy_claim(n_out)

    def _check_fitted(self) -> None:
        if not getattr(self, "_fitted", False):
            raise NotFittedError(f"{type(self).__name__}.sample called before fit")


class DPSynthesizer(Synthesizer):
    """A synthesizer whose DP fit records every mechanism in ``self.accountant``.

    Subclasses take ``epsilon`` (None: no DP) and ``delta`` parameters, create the
    ``accountant`` in their fit, and declare their neighbouring relation and mechanisms; the
    claim is the *requested* budget (public), which
    :meth:`PrivacyAccountant.check_within_budget` guarantees the ledger does not exceed.
    ``default_delta`` is the delta used under DP when ``delta`` is None.
    """

    neighboring: ClassVar[str] = "unbounded"
    mechanisms: ClassVar[tuple[str, ...]] = ()
    default_delta: ClassVar[float | None] = None
    epsilon: float | None
    delta: float | None

    def target_delta(self) -> float | None:
        """The delta of the requested budget: ``delta``, or ``default_delta`` under DP.

        Returns
        -------
        float or None
            None without DP when no delta was given.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> from synthcert.synthesizers.pgm import AIMSynthesizer
        >>> AIMSynthesizer(Schema((NumericColumn("x", 0, 1),)), epsilon=1.0).target_delta()
        1e-05
        """
        if self.epsilon is not None and self.delta is None:
            return self.default_delta
        return self.delta

    def validate_params(self) -> None:
        """Check the schema and the budget (epsilon > 0, delta in [0, 1)).

        Raises
        ------
        AssumptionError
            If epsilon is not positive or delta is outside [0, 1) (the DP definition).
        ParameterError
            For the options of :meth:`Synthesizer.validate_params`.
        """
        super().validate_params()
        PrivacyAccountant(self.epsilon, self.target_delta())

    def new_accountant(self) -> PrivacyAccountant:
        """A fresh ledger for the requested budget (each fit starts one)."""
        return PrivacyAccountant(self.epsilon, self.target_delta())

    def claim_rho(self) -> float | None:
        """The zCDP rho of the requested budget, for synthesizers accounted in zCDP."""
        return None

    def claim_assumptions(self) -> tuple[Assumption, ...]:
        """Public assumptions: the domain, the neighbouring relation, n when it is public."""
        data_cols = [c.name for c in self.schema.columns if c.source == "data"]
        flags = flags_assumption(self.schema.data_flags)
        out = [
            domain_assumption(self.schema.bounds_source, data_cols),
            *([flags] if flags is not None else []),
            Assumption("neighboring", self.neighboring, "definition"),
        ]
        n = getattr(self, "n_", None)
        if self.neighboring == "bounded" and n is not None:
            out.append(Assumption("n", int(n), "definition", "bounded neighbouring keeps n public"))
        return tuple(out)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        """The requested (epsilon, delta) of the last fit, or no claim without epsilon.

        Parameters
        ----------
        n_out : int
            Number of rows released (sampling is post-processing: the claim does not grow).

        Returns
        -------
        PrivacyClaim
            A DP claim of the requested budget, or the no-privacy claim without epsilon.

        Raises
        ------
        NotFittedError
            With epsilon, before :meth:`fit`.
        BudgetError
            If the fit's ledger exceeds the requested budget.
        """
        if self.epsilon is None:
            return no_privacy_claim(n_out)
        self._check_fitted()
        spent = self.accountant.check_within_budget()
        delta = 0.0 if spent.delta == 0.0 else float(self.target_delta() or 0.0)
        return dp_claim(
            epsilon=float(self.epsilon),
            delta=delta,
            rho=self.claim_rho(),
            neighboring=self.neighboring,
            n_out=int(n_out),
            mechanisms=self.mechanisms,
            assumptions=self.claim_assumptions(),
        )
