"""Exceptions that carry a message a user can act on."""

from __future__ import annotations


class SynthcertError(Exception):
    """Base class: every error synthcert raises on purpose derives from it."""


class DataError(SynthcertError, ValueError):
    """The input table or schema is malformed (names the column, row or file)."""


class AssumptionError(SynthcertError, ValueError):
    """An assumption of a theorem fails; the message says which and what would satisfy it."""

    def __init__(self, message: str, *, assumption: str = "", admissible: str = "") -> None:
        super().__init__(message)
        self.assumption = assumption
        self.admissible = admissible


class BudgetError(SynthcertError, ValueError):
    """A privacy budget cannot be met (for example it allows zero records)."""
