"""The one folder of a run's private outputs (``--private-dir DIR``), with fixed file names.

Everything a run writes that must not be published goes to one folder the operator names, so
that a single rule keeps it apart from the public outputs: the folder is refused when it is a
public output, lies inside a public output folder, holds a public output, or is the folder a
public file is written to (a folder that is likely to be shared whole). Inside it the file
names are fixed:

=========================  =============================================================
``record.json``            the private run record (seed if given, rows read, used, dropped
                           or clipped, timings, the input's path and hash, the ledger)
``internal-report.html``   the internal report (the public report plus the private facts),
                           written when a report is asked for (``--report``)
``params.npz``             the fitted mean and covariance of a release
                           (``--param save_params=true``)
``error.json``             the private detail of a refusal (a measured eigenvalue, a row)
``evaluation.json`` ...    the files of ``evaluate`` and ``audit`` (they describe the real
                           table: internal by nature)
=========================  =============================================================

Every file in it is written atomically with mode 0600; the folder is created with mode 0700.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

from synthcert.errors import DataError

RECORD = "record.json"
INTERNAL_REPORT = "internal-report.html"
PARAMS = "params.npz"
ERROR = "error.json"

_PREPARED: set[Path] = set()  # folders checked against this process's public outputs


class _Member:
    """A file of the folder with a fixed name, read as an attribute: ``DIR / name``."""

    def __init__(self, name: str, doc: str) -> None:
        self.name = name
        self.__doc__ = doc

    @overload
    def __get__(self, folder: None, owner: type | None = None) -> _Member: ...
    @overload
    def __get__(self, folder: PrivateDir, owner: type | None = None) -> Path: ...
    def __get__(self, folder: PrivateDir | None, owner: type | None = None) -> Path | _Member:
        return self if folder is None else folder.path / self.name


@dataclass(frozen=True)
class PrivateDir:
    """A folder for a run's private outputs, with the fixed file names of this module.

    Examples
    --------
    >>> PrivateDir("private").record
    PosixPath('private/record.json')
    """

    path: Path

    def __init__(self, path: str | os.PathLike) -> None:
        object.__setattr__(self, "path", Path(path))

    record = _Member(RECORD, "The private run record.")
    internal_report = _Member(INTERNAL_REPORT, "The internal report.")
    params = _Member(PARAMS, "The generative parameters of a release.")
    error = _Member(ERROR, "The private detail of a refusal.")

    @property
    def prepared(self) -> bool:
        """True once :meth:`prepare` has checked and created the folder in this process."""
        return self.path.resolve() in _PREPARED

    def prepare(self, public: Sequence[str | os.PathLike]) -> Path:
        """Check the folder against the public outputs, then create it (mode 0700).

        Raises
        ------
        DataError
            The folder is a public output, lies inside one, holds one or is the folder a public
            file is written to; or the path exists and is not a folder.
        """
        target = self.path.resolve()
        for p in public:
            pub = Path(p).resolve()
            if target == pub or pub in target.parents or target in pub.parents:
                raise DataError(
                    f"--private-dir {str(self.path)!r} would hold or sit inside the public output "
                    f"{str(p)!r}; name a folder that is never published"
                )
        if self.path.exists() and not self.path.is_dir():
            raise DataError(f"--private-dir {str(self.path)!r} exists and is not a folder")
        # mkdir is atomic: two runs racing to create it both succeed, neither truncates a file
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        _PREPARED.add(target)
        return self.path


__all__ = ["ERROR", "INTERNAL_REPORT", "PARAMS", "RECORD", "PrivateDir"]
