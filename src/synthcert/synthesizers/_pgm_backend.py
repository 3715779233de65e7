"""Loading JAX and mbi (Private-PGM 2.x) once per process, quietly, in float64."""

from __future__ import annotations

import contextlib
import warnings
from functools import cache
from types import ModuleType


@cache
def load_mbi() -> ModuleType:
    """Import mbi with JAX in float64 and the persistent compilation cache off.

    synthcert uses mbi for its domains and junction trees (``make_junction_tree``,
    ``hypothetical_model_size``); the estimation runs in numpy
    (:mod:`synthcert.synthesizers._pgm_estimation`), so nothing is JIT-compiled per fit. mbi
    imports JAX and warns, at import, that float32 can stall its estimators for large N and
    that the persistent compilation cache is counterproductive for its many small programs; we
    follow both recommendations before the import, so neither warning fires.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    with contextlib.suppress(AttributeError):  # older JAX without the option
        jax.config.update("jax_enable_compilation_cache", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mbi
    return mbi
