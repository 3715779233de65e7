"""Exceptions that carry a message a user can act on.

A message is public: a refusal is itself a signal an attacker can read, so a message never
carries a value of the private table (a row index, a measured eigenvalue, a count). What the
operator needs to fix the input goes into ``private_detail``, which the command line writes
only to ``error.json`` in the run's ``--private-dir``.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class SynthcertError(Exception):
    """Base class: every error synthcert raises on purpose derives from it."""

    def __init__(self, message: str = "", *, private_detail: str | None = None) -> None:
        super().__init__(message)
        self.private_detail = private_detail


class DataError(SynthcertError, ValueError):
    """The input table or schema is malformed (names the column or file)."""


class AssumptionError(SynthcertError, ValueError):
    """An assumption of a theorem fails; the message says which and what would satisfy it."""

    def __init__(
        self,
        message: str,
        *,
        assumption: str = "",
        admissible: str = "",
        private_detail: str | None = None,
    ) -> None:
        super().__init__(message, private_detail=private_detail)
        self.assumption = assumption
        self.admissible = admissible


class ParameterError(SynthcertError, ValueError):
    """A parameter or option value is not one synthcert accepts (names it and the choices).

    Distinct from :class:`AssumptionError`: a bad option is a typo the user fixes, not a theorem
    whose assumption the data or the declared bounds fail.
    """


def check_choice(what: str, value: object, choices: tuple[str, ...] | list[str]) -> None:
    """Refuse an option value outside its choices, naming them (a :class:`ParameterError`).

    >>> check_choice("noise", "gaussian", ("laplace", "staircase"))
    Traceback (most recent call last):
    ...
    synthcert.errors.ParameterError: unknown noise 'gaussian'; choose one of laplace, staircase
    """
    if value not in choices:
        raise ParameterError(f"unknown {what} {value!r}; choose one of {', '.join(choices)}")


def import_extra(module: str, message: str) -> ModuleType:
    """Import an optional dependency, or raise a :class:`SynthcertError` with ``message`` (which
    says what needs it and the ``pip install 'synthcert[extra]'`` that brings it)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise SynthcertError(message) from exc


class BudgetError(SynthcertError, ValueError):
    """A privacy budget cannot be met (for example it allows zero records)."""


class NumericalError(SynthcertError, FloatingPointError):
    """A computation produced a non-finite value; the message names the stage, never a value."""
