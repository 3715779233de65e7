"""The private run record: everything a run knows that is not public.

The seed, the table size under add/remove neighbours, the counts of dropped, clipped or unknown
values, the smallest eigenvalue measured, the input's path and hash, the command line and the
timings all change (or may change) when one record changes, so none of them is published. They
are written only where the operator asks (``--private-record PATH``, JSON, mode 0600, refused
inside a public output folder) and shown on the console only behind ``--show-private``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from synthcert._result import Result, jsonable
from synthcert.errors import DataError

PRIVATE_BANNER = "private: do not publish"


@dataclass(frozen=True)
class RunRecord(Result):
    """What one run knows beyond its public artefacts (never published)."""

    command: str
    started: str
    seed_source: str  # "os-entropy" or "user"
    seed_entropy: str | None
    inputs: tuple[str, ...] = field(default_factory=tuple)
    input_sha256: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    ledger: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)
    notice: str = PRIVATE_BANNER
    record_schema_version: int = 1


def now_utc() -> str:
    """The current time in UTC, to the second (private: the run's time of day)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def today_utc() -> str:
    """Today's date in UTC (public: a date, no time of day)."""
    return datetime.now(UTC).date().isoformat()


def refuse_inside_public(path: Path, public: Sequence[str | os.PathLike]) -> None:
    """Refuse a private file that is a public artefact or lies inside a public output folder."""
    target = path.resolve()
    for p in public:
        pub = Path(p).resolve()
        if target == pub or pub in target.parents:
            raise DataError(
                f"the private record {str(path)!r} would be written into the public output "
                f"{str(p)!r}; write it somewhere that is never published"
            )


def write_private_json(
    payload: Any,
    path: str | os.PathLike,
    *,
    public: Sequence[str | os.PathLike] = (),
    protect: Sequence[str | os.PathLike] = (),
) -> Path:
    """Write ``payload`` as JSON with mode 0600, atomically (temp file, then rename)."""
    from synthcert.data.io import refuse_overwriting_inputs

    target = Path(path)
    refuse_inside_public(target, public)
    refuse_overwriting_inputs(target, protect)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(jsonable(payload), fh, indent=2)
            fh.write("\n")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return target


__all__ = [
    "PRIVATE_BANNER",
    "RunRecord",
    "now_utc",
    "refuse_inside_public",
    "today_utc",
    "write_private_json",
]
