"""Provenance of a release: synthcert version, command line, seed, input checksum and time."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from synthcert._version import __version__
from synthcert.data.io import file_sha256


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed, shell-quoted; the program path shortened to ``synthcert``."""
    args = list(sys.argv if argv is None else argv)
    if args and Path(args[0]).name in ("synthcert", "__main__.py", "synthcert.exe"):
        args[0] = "synthcert"
    return shlex.join(args)


def now_iso() -> str:
    """The current time in UTC, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def collect_provenance(
    *,
    certificate: Mapping[str, Any] | None = None,
    input_file: str | os.PathLike | None = None,
    command: str | None = None,
    seed: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Provenance record for the report: values from the certificate win over the current process.

    The certificate's ``synthcert_version``, ``command``, ``seed``, ``input_file``,
    ``input_sha256`` and ``created`` describe the release itself; what the certificate lacks is
    filled in from this process (its command line, the current time) and, when ``input_file``
    exists, its checksum is computed here. Only the file *name* is kept, never its content.
    """
    cert = dict(certificate or {})
    prov: dict[str, Any] = {
        "synthcert_version": cert.get("synthcert_version") or __version__,
        "command": cert.get("command") or command or command_line(),
        "seed": cert.get("seed", seed),
        "input_file": cert.get("input_file") or (str(input_file) if input_file else None),
        "input_sha256": cert.get("input_sha256"),
        "created": cert.get("created") or now_iso(),
        "output_file": cert.get("output_file"),
        "report_generated": now_iso(),
        "report_synthcert_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }
    if seed is not None and prov["seed"] is None:
        prov["seed"] = seed
    if prov["input_sha256"] is None and input_file is not None and Path(input_file).is_file():
        prov["input_sha256"] = file_sha256(input_file)
    if extra:
        prov.update({k: v for k, v in extra.items() if v is not None})
    return prov
