"""Lazy public names of a package (PEP 562): a submodule is imported on first use only."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` whose public ``name`` lives in the
    submodule ``exports[name]``; a loaded name is kept in ``namespace`` (the package's
    ``globals()``), so later look-ups are plain attribute reads."""

    def get(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*namespace, *exports})

    return get, names
