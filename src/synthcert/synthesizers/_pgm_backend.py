"""Loading JAX and mbi (Private-PGM 2.x) once per process, quietly, in float64."""

from __future__ import annotations

import contextlib
import warnings
from functools import cache
from types import ModuleType


@cache
def load_mbi() -> ModuleType:
    """Import mbi with JAX in float64 and the persistent compilation cache off.

    mbi warns that float32 can stall its estimators for large N and that the persistent cache
    is counterproductive for its many small programs; we follow both recommendations before
    the import, so neither warning fires. JIT compilations stay in memory for the process, so
    repeated fits with the same clique structure pay the compilation once.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    with contextlib.suppress(AttributeError):  # older JAX without the option
        jax.config.update("jax_enable_compilation_cache", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mbi
    return mbi
