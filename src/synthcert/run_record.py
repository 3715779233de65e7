"""The private run record: everything a run knows that is not public.

The seed, the table size under add/remove neighbours, the counts of dropped, clipped or unknown
values, the smallest eigenvalue measured, the input's path and hash, the command line and the
timings all change (or may change) when one record changes, so none of them is published. They
are written only where the operator asks (``--private-dir DIR``: ``DIR/record.json``, mode
0600, refused inside a public output folder) and never shown on the console.
"""

from __future__ import annotations

import json
import os
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
    """What one run knows beyond its public artefacts (never published).

    Written only where the operator asks (:func:`write_private_json`, mode 0600); ``to_dict``
    and ``from_dict`` round-trip.

    Attributes
    ----------
    command : str
        The command (or workflow) that ran, e.g. ``"release_frame"``.
    started : str
        UTC start time to the second (:func:`now_utc`).
    seed_source : str
        ``"os-entropy"`` (the default secret seed) or ``"user"``.
    seed_entropy : str or None
        The seed's entropy as text: with it the run can be replayed, so it is secret.
    inputs : tuple of str, default ()
        Paths of the input files.
    input_sha256 : str or None, default None
        SHA-256 of the inputs (:func:`synthcert.data.io.file_sha256`).
    facts : dict, default {}
        What the fit learnt about the table (rows used, dropped and clipped values, the
        smallest eigenvalue...).
    timings : dict of str to float, default {}
        Seconds per stage.
    ledger : tuple of dict, default ()
        The privacy-accounting entries of the run.
    warnings : tuple of str, default ()
        Warnings raised during the run.
    notice : str, default :data:`PRIVATE_BANNER`
        The banner every private file carries.
    record_schema_version : int, default 1
        Version of this JSON layout.

    Examples
    --------
    >>> record = RunRecord("release", "2026-01-01T00:00:00+00:00", "os-entropy", "0x2a")
    >>> record.notice
    'private: do not publish'
    >>> RunRecord.from_dict(record.to_dict()) == record
    True
    """

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
    """Refuse a private file that is a public artefact, lies inside a public output folder, or
    sits in the same folder as a published file (a folder that is likely to be shared whole)."""
    target = path.resolve()
    for p in public:
        pub = Path(p).resolve()
        if target == pub or pub in target.parents or target.parent == pub.parent:
            raise DataError(
                f"the private file {str(path)!r} would be written into or beside the public "
                f"output {str(p)!r}; write it to a folder that is never published"
            )


def write_private_json(
    payload: Any,
    path: str | os.PathLike,
    *,
    public: Sequence[str | os.PathLike] = (),
    protect: Sequence[str | os.PathLike] = (),
) -> Path:
    """Write ``payload`` as JSON with mode 0600 throughout, atomically (temp file, rename)."""
    from synthcert.data.io import write_text

    target = Path(path)
    refuse_inside_public(target, public)
    return write_text(
        json.dumps(jsonable(payload), indent=2) + "\n", target, protect=protect, private=True
    )


__all__ = [
    "PRIVATE_BANNER",
    "RunRecord",
    "now_utc",
    "refuse_inside_public",
    "today_utc",
    "write_private_json",
]
