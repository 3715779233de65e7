"""Deprecated alias of :mod:`synthcert.privacy.gaussian_release` (kept for one release).

``synthcert.privacy.inherent`` held the three theorems of the Gaussian release in one module;
they now live one per module in :mod:`synthcert.privacy.gaussian_release` (Theorem 3.1,
Corollary 3.2, Theorem 3.2 of seed 001, the certificate). Every public name still reads from
here, with a :class:`DeprecationWarning`; import it from ``synthcert.privacy.gaussian_release``.
This module will be removed in the release after next.
"""

from __future__ import annotations

import warnings
from typing import Any

from synthcert.privacy import gaussian_release as _target


def __getattr__(name: str) -> Any:
    """The name from :mod:`synthcert.privacy.gaussian_release`, with a DeprecationWarning."""
    if name in _target.__all__:
        warnings.warn(
            f"synthcert.privacy.inherent is deprecated: import {name} from "
            "synthcert.privacy.gaussian_release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_target, name)
    raise AttributeError(f"module 'synthcert.privacy.inherent' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names of the package it stands for."""
    return sorted(_target.__all__)


__all__: list[str] = []  # nothing is re-exported by ``import *``: import the new package
