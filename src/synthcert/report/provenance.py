"""Provenance of a release: public facts for the public report; the run record, internal only."""

from __future__ import annotations

import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synthcert._version import __version__
from synthcert.report.inputs import Released, read_record
from synthcert.run_record import RunRecord, now_utc

PRIVATE_KEYS = ("command", "seed_source", "inputs", "input_sha256", "started")


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed, shell-quoted; the program path shortened to ``synthcert``.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv``).

    Returns
    -------
    str

    Examples
    --------
    >>> command_line(["/usr/bin/synthcert", "report", "--out", "my report.html"])
    "synthcert report --out 'my report.html'"
    """
    args = list(sys.argv if argv is None else argv)
    if args and Path(args[0]).name in ("synthcert", "__main__.py", "synthcert.exe"):
        args[0] = "synthcert"
    return shlex.join(args)


def _release_fact(certificate: Released | Mapping[str, Any] | None, key: str) -> Any:
    """``synthcert_version`` or ``date`` of the certificate (or of any document carrying them)."""
    if certificate is None:
        return None
    if isinstance(certificate, Mapping):
        return certificate.get(key)
    return getattr(certificate, key)


def collect_provenance(
    *,
    certificate: Released | Mapping[str, Any] | None = None,
    record: RunRecord | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Provenance rows for the report.

    Public (no ``record``): the synthcert version and the release date of the certificate:
    nothing that changes with the table or the moment of the run, so the public report of two
    neighbouring tables is the same file. Internal (a private run record given): also the
    command line, the source of randomness, the input files and their hash, the run's start
    time and this machine (never the seed itself).

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
        Gives the release's synthcert version and date.
    record : RunRecord, Mapping or None
        The private run record (its JSON object is read with ``RunRecord.from_dict``).

    Returns
    -------
    dict
        The facts that are known (None values left out).

    Raises
    ------
    DataError
        ``record`` is not a run record.
    """
    rec = read_record(record)
    prov: dict[str, Any] = {
        "synthcert_version": _release_fact(certificate, "synthcert_version") or __version__,
        "date": _release_fact(certificate, "date"),
    }
    if rec is not None:
        prov.update({k: getattr(rec, k) for k in PRIVATE_KEYS if getattr(rec, k) is not None})
        prov["report_generated"] = now_utc()
        prov["report_synthcert_version"] = __version__
        prov["python"] = platform.python_version()
        prov["platform"] = platform.platform(terse=True)
    return {k: v for k, v in prov.items() if v is not None}
