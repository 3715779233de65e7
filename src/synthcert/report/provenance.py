"""Provenance of a release: public facts for the public report; the run record, internal only."""

from __future__ import annotations

import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synthcert._version import __version__
from synthcert.run_record import now_utc

PRIVATE_KEYS = ("command", "seed_source", "inputs", "input_sha256", "started")


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed, shell-quoted; the program path shortened to ``synthcert``."""
    args = list(sys.argv if argv is None else argv)
    if args and Path(args[0]).name in ("synthcert", "__main__.py", "synthcert.exe"):
        args[0] = "synthcert"
    return shlex.join(args)


def collect_provenance(
    *,
    certificate: Mapping[str, Any] | None = None,
    record: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Provenance rows for the report.

    Public (no ``record``): the synthcert version and the release date of the certificate:
    nothing that changes with the table or the moment of the run, so the public report of two
    neighbouring tables is the same file. Internal (a private run record given): also the
    command line, the source of randomness, the input files and their hash, the run's start
    time and this machine (never the seed itself).
    """
    cert = dict(certificate or {})
    prov: dict[str, Any] = {
        "synthcert_version": cert.get("synthcert_version") or __version__,
        "date": cert.get("date"),
    }
    if record is not None:
        prov.update({k: record.get(k) for k in PRIVATE_KEYS if record.get(k) is not None})
        prov["report_generated"] = now_utc()
        prov["report_synthcert_version"] = __version__
        prov["python"] = platform.python_version()
        prov["platform"] = platform.platform(terse=True)
    return {k: v for k, v in prov.items() if v is not None}
