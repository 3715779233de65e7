"""When a computed value matches a printed one: rounding at the printed precision, or truncation."""

from __future__ import annotations

import math


def decimals(text: str) -> int:
    """Number of printed decimals of a number written like '2.3071' (0 for '375').

    Parameters
    ----------
    text : str
        A printed number.

    Returns
    -------
    int
        Digits after the decimal point.

    Examples
    --------
    >>> decimals("2.3071"), decimals("375")
    (4, 0)
    """
    return len(text.split(".")[1]) if "." in text else 0


def matches_printed(value: float, printed: str) -> bool:
    """True if ``value`` rounds to the printed figure at the printed precision.

    Parameters
    ----------
    value : float
        The computed value.
    printed : str
        The printed figure, e.g. ``2.3071`` or ``1.72e5``.

    Returns
    -------
    bool
        Whether ``value`` rounds to it.

    Examples
    --------
    >>> matches_printed(2.30714, "2.3071"), matches_printed(172222.4, "1.72e5")
    (True, True)
    """
    if "e" in printed:
        mant = printed.split("e")[0]
        digits = decimals(mant) + 1
        return f"{value:.{digits - 1}e}".replace("e+0", "e").replace("e+", "e") == printed
    return abs(value - float(printed)) <= 0.5 * 10 ** (-decimals(printed)) + 1e-12


def matches_truncated(value: float, printed: str) -> bool:
    """True if ``value`` cut (not rounded) to the printed decimals gives the printed figure.

    Parameters
    ----------
    value : float
        The computed value.
    printed : str
        The printed figure (fixed point).

    Returns
    -------
    bool
        Whether cutting ``value`` gives it.

    Examples
    --------
    >>> matches_truncated(0.5764617, "0.5764"), matches_printed(0.5764617, "0.5764")
    (True, False)
    """
    scale = 10 ** decimals(printed)
    return math.floor(value * scale + 1e-9) == round(float(printed) * scale)
