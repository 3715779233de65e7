"""The privacy parameters, named and checked once: the neighbouring relation, ε and δ.

:class:`Neighbouring` is the one vocabulary of neighbouring relations (a ``str`` enum: a member
*is* its value, so JSON, f-strings and comparisons with ``"unbounded"`` are unchanged).
:func:`check_epsilon` and :func:`check_delta` are the one validator of a budget, used by the
budget of a run (:class:`~synthcert.workflows.job_inputs.Budget`), the accountant, the conversions
and the mechanisms. One exception type, :class:`~synthcert.errors.ParameterError` (a value no
run accepts is an option to fix, not an assumption the data fail), and one interval:

* ε: a number > 0, finite unless the caller accepts ε = ∞ (``infinite=True``: no DP, as a
  :class:`~synthcert.workflows.job_inputs.Budget` or an accountant without a limit).
* δ: 0 ≤ δ < 1, where δ = 0 means pure DP; a mechanism or a conversion that needs δ > 0 (the
  Gaussian mechanism, RDP/zCDP → (ε, δ)-DP, DP-SGD, a stability threshold) asks for it with
  ``pure=False`` and is refused δ = 0 by name.

The texts name the parameter, the interval and the value the caller gave (a declared option,
never a value of the table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

from synthcert.errors import ParameterError, check_choice


class Neighbouring(StrEnum):
    """The neighbouring relation a privacy claim is stated for.

    ``UNBOUNDED``: add or remove one record (the table size is private); ``BOUNDED``: replace
    one record (the table size is public); ``NONE``: no relation, no privacy claimed.

    Examples
    --------
    >>> Neighbouring("bounded") is Neighbouring.BOUNDED, Neighbouring.UNBOUNDED == "unbounded"
    (True, True)
    >>> f"{Neighbouring.NONE}", [str(n) for n in Neighbouring]
    ('none', ['unbounded', 'bounded', 'none'])
    """

    UNBOUNDED = "unbounded"
    BOUNDED = "bounded"
    NONE = "none"


_VALUES = frozenset(n.value for n in Neighbouring)
# What a caller may pass where a relation is expected: the member or its value.
NeighbouringLike: TypeAlias = Neighbouring | Literal["unbounded", "bounded", "none"]
# The relations a DP mechanism is defined for (NONE claims nothing).
DP_RELATIONS: tuple[Neighbouring, ...] = (Neighbouring.UNBOUNDED, Neighbouring.BOUNDED)
# The relations the theorems of the Gaussian release take: "bounded-direct" is BOUNDED
# certified by the direct bound of the CSS 2022 version (seed 001, Theorem 3.2).
BOUNDED_DIRECT = "bounded-direct"
RELEASE_RELATIONS: tuple[str, ...] = (*DP_RELATIONS, BOUNDED_DIRECT)


def check_neighbouring(
    value: object, choices: tuple[str, ...] = DP_RELATIONS, what: str = "neighbouring relation"
) -> str:
    """``value`` if it is one of ``choices`` (members or plain strings), else a ParameterError.

    Examples
    --------
    >>> check_neighbouring("bounded")
    <Neighbouring.BOUNDED: 'bounded'>
    >>> check_neighbouring("swap")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    synthcert.errors.ParameterError: unknown neighbouring relation 'swap'; choose one of unbou...
    """
    check_choice(what, value, tuple(str(c) for c in choices))
    text = str(value)
    return Neighbouring(text) if text in _VALUES else text


def check_epsilon(epsilon: float, name: str = "epsilon", *, infinite: bool = False) -> float:
    """ε as a float, if it is a finite number > 0 (with ``infinite=True`` also ε = ∞: no DP).

    Examples
    --------
    >>> check_epsilon(1), check_epsilon(float("inf"), infinite=True)
    (1.0, inf)
    >>> check_epsilon(0.0)
    Traceback (most recent call last):
    ...
    synthcert.errors.ParameterError: epsilon must be > 0 and finite; got 0.0
    """
    value = _number(epsilon, name)
    if not (value > 0 and (infinite or math.isfinite(value))):
        finite = "" if infinite else " and finite"
        raise ParameterError(f"{name} must be > 0{finite}; got {epsilon}")
    return value


def check_delta(delta: float, name: str = "delta", *, pure: bool = True) -> float:
    """δ as a float, if 0 ≤ δ < 1 (δ = 0: pure DP); with ``pure=False``, if 0 < δ < 1.

    Examples
    --------
    >>> check_delta(0.0), check_delta(1e-6, pure=False)
    (0.0, 1e-06)
    >>> check_delta(1.0)
    Traceback (most recent call last):
    ...
    synthcert.errors.ParameterError: delta must be in [0, 1); got 1.0
    >>> check_delta(0.0, pure=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    synthcert.errors.ParameterError: delta must be in (0, 1) here (delta = 0, pure DP, is not ...
    """
    value = _number(delta, name)
    if not 0.0 <= value < 1.0:
        raise ParameterError(f"{name} must be in [0, 1); got {delta}")
    if not pure and value == 0.0:
        raise ParameterError(
            f"{name} must be in (0, 1) here ({name} = 0, pure DP, is not available); got {delta}"
        )
    return value


def _number(value: object, name: str) -> float:
    """``float(value)`` for a real number (NaN included), else a ParameterError naming it."""
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number; got {value!r}")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number; got {value!r}") from None


__all__ = [
    "BOUNDED_DIRECT",
    "DP_RELATIONS",
    "RELEASE_RELATIONS",
    "Neighbouring",
    "NeighbouringLike",
    "check_delta",
    "check_epsilon",
    "check_neighbouring",
]


GUARANTEE = "differential privacy"  # a claim's ``guarantee`` when its figures are one


@dataclass(frozen=True)
class ClaimFigures:
    """The figures of a privacy claim that its trade-off curve and attack-risk label read.

    :class:`~synthcert.privacy.claims.PrivacyClaim` has these attributes (and more); the curve
    (:mod:`synthcert.privacy.tradeoff`) and the label (:mod:`synthcert.privacy.risk`) read only
    these, so they sit below the claim, which states its label, without an import circle.

    Examples
    --------
    >>> ClaimFigures("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=0.0).rho is None
    True
    """

    model: str
    guarantee: str
    neighboring: str
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    alpha: float | None = None
    epsilon_rdp: float | None = None
