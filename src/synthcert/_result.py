"""Base for frozen result dataclasses: ``to_dict()`` gives JSON-ready values."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples, nested dataclasses and non-finite floats to JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


@dataclasses.dataclass(frozen=True)
class Result:
    """Mixin for frozen result records."""

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a dict of JSON-serialisable values."""
        return jsonable(self)
