"""A partitioned Parquet dataset (``part-00000.parquet``, ... plus ``_manifest.json``), atomically.

The parts are written into a hidden temporary folder beside the target; only when every part
is written and the manifest (row counts per part) is complete is the folder renamed into place,
so a reader never sees half a release. Arrow, Spark and Dask ignore files starting with ``_``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.io import expand_inputs
from synthcert.errors import DataError

MANIFEST = "_manifest.json"
FORMAT = "synthcert-partitioned-parquet"


@dataclass(frozen=True)
class PartInfo(Result):
    """One file of the dataset.

    Parameters
    ----------
    file : str
        Its name inside the folder (``part-NNNNN.parquet``).
    rows : int
        Its rows.
    """

    file: str
    rows: int


@dataclass(frozen=True)
class Manifest(Result):
    """What the dataset holds: its parts in order and their rows.

    Public facts only: the seed that drew the rows is secret and goes to the private run record.

    Parameters
    ----------
    format : str
        ``"synthcert-partitioned-parquet"``.
    rows : int
        Rows of all parts.
    columns : tuple of str
        Column names, in order.
    parts : tuple of PartInfo
        The files, in order, with their rows.
    chunk_rows : int, optional
        Rows per sampling chunk (with the seed, it determines the rows).
    synthcert_version : str
        The version that wrote the dataset.
    """

    format: str
    rows: int
    columns: tuple[str, ...]
    parts: tuple[PartInfo, ...]
    chunk_rows: int | None = None
    synthcert_version: str = __version__


def part_name(index: int) -> str:
    """The file name of part ``index``.

    Parameters
    ----------
    index : int
        Position of the part.

    Returns
    -------
    str
        ``part-NNNNN.parquet`` (five digits).

    Examples
    --------
    >>> part_name(7)
    'part-00007.parquet'
    """
    return f"part-{index:05d}.parquet"


def is_dataset_target(path: str | os.PathLike) -> bool:
    """Whether an output path names a dataset folder rather than a file.

    Parameters
    ----------
    path : str or path-like
        The output path as the user gave it (before ``Path`` drops a trailing slash).

    Returns
    -------
    bool
        True for an existing directory or a path ending in a separator.

    Examples
    --------
    >>> is_dataset_target("out/"), is_dataset_target("out.parquet")
    (True, False)
    """
    text = os.fspath(path)
    return Path(text).is_dir() or text.endswith(("/", os.sep))


def read_manifest(path: str | os.PathLike) -> Manifest:
    """The manifest of a dataset folder written by :class:`PartitionedDatasetWriter`.

    Parameters
    ----------
    path : str or path-like
        The dataset folder.

    Returns
    -------
    Manifest
        Its parts, rows, columns and chunk size.

    Raises
    ------
    DataError
        The folder has no manifest (it is not a synthcert dataset).
    """
    file = Path(path) / MANIFEST
    if not file.is_file():
        raise DataError(f"{str(path)!r} has no {MANIFEST}: not a synthcert dataset")
    return Manifest.from_dict(json.loads(file.read_text(encoding="utf-8")))


def _refuse_inputs_inside(target: Path, protect: Sequence[str | os.PathLike]) -> None:
    root = target.resolve()
    for p in protect:
        for src in expand_inputs(p):
            s = src.resolve()
            if s == root or root in s.parents:
                raise DataError(
                    f"output folder {str(target)!r} contains the input {str(src)!r}; "
                    "choose another output path"
                )


class PartitionedDatasetWriter:
    """Collect parts in a temporary folder; ``commit`` writes the manifest and renames it.

    Use ``part_path(i)`` for each part, then ``commit`` (or ``abort`` in a ``finally``: after a
    commit it does nothing). A previous dataset at ``path`` is replaced only by a commit.

    Parameters
    ----------
    path : str or path-like
        The dataset folder (new, empty, or a previous synthcert dataset).
    protect : sequence of path
        Inputs that must not lie inside ``path``.

    Raises
    ------
    DataError
        ``path`` is a file, a non-empty folder that is not a synthcert dataset, or contains
        one of ``protect``.
    """

    def __init__(self, path: str | os.PathLike, *, protect: Sequence = ()) -> None:
        self.path = Path(path)
        _refuse_inputs_inside(self.path, protect)
        if self.path.exists() and not self.path.is_dir():
            raise DataError(f"{str(self.path)!r} is a file; a partitioned output is a folder")
        foreign = self.path.is_dir() and not (self.path / MANIFEST).is_file()
        if foreign and any(self.path.iterdir()):
            raise DataError(
                f"{str(self.path)!r} is a non-empty folder that is not a synthcert dataset; "
                "refusing to replace it (choose a new or empty folder)"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", dir=self.path.parent))
        self._done = False

    def part_path(self, index: int) -> str:
        """Where part ``index`` goes (inside the temporary folder, visible to the workers)."""
        return str(self.tmp / part_name(index))

    def commit(
        self,
        rows: Sequence[int],
        columns: Sequence[str],
        *,
        chunk_rows: int | None = None,
    ) -> Manifest:
        """Write the manifest for parts ``0..len(rows)-1`` and move the folder into place.

        Parameters
        ----------
        rows : sequence of int
            Rows of each part, in order.
        columns : sequence of str
            Column names.
        chunk_rows : int, optional
            Rows per sampling chunk, recorded in the manifest.

        Returns
        -------
        Manifest
            What was written.

        Raises
        ------
        DataError
            A part file is missing (the release is incomplete).
        """
        parts = tuple(PartInfo(part_name(i), int(r)) for i, r in enumerate(rows))
        for p in parts:
            if not (self.tmp / p.file).is_file():
                raise DataError(f"part {p.file} was not written; the release is incomplete")
        manifest = Manifest(FORMAT, int(sum(rows)), tuple(columns), parts, chunk_rows)
        (self.tmp / MANIFEST).write_text(
            json.dumps(manifest.to_dict(), indent=2) + "\n", encoding="utf-8"
        )
        old = None
        if self.path.exists():  # a previous dataset (checked in __init__) or an empty folder
            old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.old.", dir=self.path.parent))
            os.replace(self.path, old / "dataset")
        os.replace(self.tmp, self.path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self._done = True
        return manifest

    def abort(self) -> None:
        """Delete the temporary folder (nothing is left behind)."""
        if not self._done:
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(self.tmp)
