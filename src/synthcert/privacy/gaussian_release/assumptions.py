"""The vocabulary of the Gaussian release's theorems and the checks of their inputs.

The relations the theorems take (:data:`NEIGHBORINGS`: add/remove, replacement, replacement by
the direct bound of seed 001), how the bounded relation is certified (:data:`BOUNDED_METHODS`),
the equation each relation cites (:data:`EQUATIONS`), and the refusal of a malformed (n, d, σ).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from synthcert.errors import AssumptionError, check_choice
from synthcert.privacy.parameters import RELEASE_RELATIONS, NeighbouringLike, check_neighbouring

# add/remove, replacement, or replacement certified by the direct bound (seed 001)
Neighboring: TypeAlias = NeighbouringLike | Literal["bounded-direct"]


Variant = Literal["corrected", "paper"]


Method = Literal["exact", "corollary"]


NEIGHBORINGS: tuple[str, ...] = RELEASE_RELATIONS


# How the bounded relation is certified: the certified exact worst case (default, see
# privacy/bounded_exact.py) or Corollary 3.2 of seed 000 (corrected, or as printed via variant).
BOUNDED_METHODS: tuple[str, ...] = ("exact", "corollary")


DEFAULT_BOUNDED_METHOD = "exact"


EQUATIONS = {
    "unbounded": "Theorem 3.1 of Miura et al. (seed 000), assumption eq. (1)",
    "bounded": "Corollary 3.2 of Miura et al. (seed 000), eq. (3), assumption eq. (2)",
    "bounded-direct": "Theorem 3.2 of the CSS 2022 version (seed 001), Lemmas 4.6-4.9",
    "bounded-exact": (
        "exact bounded worst case: sup of the closed-form D_α (Prop. 4.1 of seed 000) over "
        "|u|², |v|² ≤ τ, certified by interval branch-and-bound (docs/accountant.md)"
    ),
}


def _check_inputs(n: ArrayLike, d: ArrayLike, sigma: ArrayLike) -> None:
    """Refuse malformed (n, d, σ): these are not assumptions of a theorem but input errors."""
    n_a, d_a, s_a = (np.asarray(v, dtype=float) for v in (n, d, sigma))
    if np.any(~np.isfinite(n_a)) or np.any(n_a < 1) or np.any(n_a != np.floor(n_a)):
        raise AssumptionError(
            "n must be a whole number ≥ 1", assumption="n ∈ ℕ, n ≥ 1", admissible="n ≥ 1"
        )
    if np.any(~np.isfinite(d_a)) or np.any(d_a < 1) or np.any(d_a != np.floor(d_a)):
        raise AssumptionError(
            "d must be a whole number ≥ 1", assumption="d ∈ ℕ, d ≥ 1", admissible="d ≥ 1"
        )
    if np.any(~np.isfinite(s_a)) or np.any(s_a <= 0):
        raise AssumptionError(
            "σ must be a positive number (a lower bound on the covariance eigenvalues)",
            assumption="σ > 0",
            admissible="σ ∈ (0, 1]",
        )


def check_method(method: str) -> None:
    """Refuse an unknown bounded-certificate method.

    Raises
    ------
    ParameterError
        When ``method`` is not one of :data:`BOUNDED_METHODS`.
    """
    check_choice("method for the bounded relation", method, BOUNDED_METHODS)


def check_neighboring(neighboring: str) -> None:
    """Refuse an unknown neighbouring relation.

    Raises
    ------
    ParameterError
        When ``neighboring`` is not one of :data:`NEIGHBORINGS`.
    """
    check_neighbouring(neighboring, NEIGHBORINGS)


__all__ = [
    "BOUNDED_METHODS",
    "DEFAULT_BOUNDED_METHOD",
    "EQUATIONS",
    "NEIGHBORINGS",
    "Method",
    "Neighboring",
    "Variant",
    "check_method",
    "check_neighboring",
]
