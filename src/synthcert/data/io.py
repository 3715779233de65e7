"""Reading tables (CSV, Parquet; whole or in chunks); atomic writes that never touch the input."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from synthcert.data.numbers import numbers_read_back
from synthcert.errors import DataError

TEXT_CHUNK_ROWS = 200_000  # CSV rows read as text at a time (data.io._csv_chunks)
DEFAULT_NA_VALUES: tuple[str, ...] = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL")
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class CsvOptions:
    """How to read a CSV file: header or none, separator, missing-value tokens, encoding.

    Parameters
    ----------
    header : bool, default True
        The first line holds the column names; with ``False`` pass ``names``.
    sep : str, default ","
        Field separator; a separator longer than one character is read by pandas' python
        engine (as a regular expression).
    na_values : sequence of str, default :data:`DEFAULT_NA_VALUES`
        Tokens read as a missing value (pandas' own default list is switched off).
    encoding : str, default "utf-8"
        Text encoding of the file.
    names : sequence of str or None, default None
        Column names of a file without a header line (ignored when ``header`` is True).
    skip_rows : int, default 0
        Lines to skip at the top of the file.
    text_columns : sequence of str, default ()
        Columns read as text, value by value (``dtype=str``). A schema's categorical columns
        are (:meth:`~synthcert.data.schema.Schema.read_options`): otherwise pandas infers one
        type per chunk, and one record (a blank, a word) changes how *every* value of the chunk
        reads ("1" becomes "1.0", "01" becomes "1"), so one record could move every category
        count. Not a schema file key.

    Examples
    --------
    >>> opts = CsvOptions(header=False, sep=";", names=["age", "sex"])
    >>> kwargs = opts.pandas_kwargs()
    >>> kwargs["header"], kwargs["sep"], kwargs["names"]
    (None, ';', ['age', 'sex'])
    """

    header: bool = True
    sep: str = ","
    na_values: Sequence[str] = field(default_factory=lambda: DEFAULT_NA_VALUES)
    encoding: str = "utf-8"
    names: Sequence[str] | None = None  # column names when the file has no header
    skip_rows: int = 0
    text_columns: Sequence[str] = ()  # read as text (a schema's categorical columns)

    def pandas_kwargs(self) -> dict:
        """Keyword arguments for ``pandas.read_csv``."""
        kwargs: dict = {
            "sep": self.sep,
            "na_values": list(self.na_values),
            "keep_default_na": False,
            "encoding": self.encoding,
            "skipinitialspace": True,
            "skiprows": self.skip_rows,
        }
        if self.header:
            kwargs["header"] = 0
        else:
            kwargs["header"] = None
            if self.names is not None:
                kwargs["names"] = list(self.names)
        if self.text_columns:
            kwargs["dtype"] = dict.fromkeys(self.text_columns, str)
        if len(self.sep) > 1:
            kwargs["engine"] = "python"
        else:
            kwargs["low_memory"] = False  # no DtypeWarning that one record's text would trigger
        return kwargs


def is_parquet(path: str | os.PathLike) -> bool:
    """True for a Parquet file or a directory of Parquet files."""
    p = Path(path)
    return p.suffix.lower() in PARQUET_SUFFIXES or (p.is_dir() and any(p.glob("*.parquet")))


def expand_inputs(path: str | os.PathLike) -> list[Path]:
    """A file, a directory of Parquet/CSV files or a glob pattern, as a sorted list of files."""
    text = str(path)
    if any(ch in text for ch in "*?["):
        files = sorted(Path(p) for p in glob.glob(text))
    elif Path(text).is_dir():
        files = sorted(
            p for p in Path(text).iterdir() if p.suffix.lower() in (*PARQUET_SUFFIXES, ".csv")
        )
    else:
        files = [Path(text)]
    if not files:
        raise DataError(f"no input file matches {text!r}")
    for f in files:
        if not f.is_file():
            raise DataError(f"input file {str(f)!r} does not exist")
    return files


def read_table(path: str | os.PathLike, csv: CsvOptions | None = None) -> pd.DataFrame:
    """Read a whole CSV or Parquet table (a file, directory or glob) into memory.

    Parameters
    ----------
    path : str or os.PathLike
        A CSV or Parquet file (``.parquet``/``.pq``), a directory of such files, or a glob
        pattern; several files are read in sorted order and concatenated.
    csv : CsvOptions or None, default None
        How to read CSV files (``None``: :class:`CsvOptions` defaults). Parquet ignores it.

    Returns
    -------
    pandas.DataFrame
        All rows, with a fresh ``RangeIndex``.

    Raises
    ------
    DataError
        No file matches ``path``, a file is missing, empty, has ragged rows, is not valid in
        the given encoding, or is not readable Parquet.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "people.csv"
    ...     _ = path.write_text("age,sex\\n34,F\\n?,M\\n", encoding="utf-8")
    ...     df = read_table(path)
    >>> df.shape, int(df["age"].isna().sum())
    ((2, 2), 1)
    """
    chunks = list(iter_table_chunks(path, csv=csv, chunk_rows=None))
    if len(chunks) == 1:
        return chunks[0]
    return pd.concat(chunks, ignore_index=True)


def iter_table_chunks(
    path: str | os.PathLike,
    *,
    csv: CsvOptions | None = None,
    chunk_rows: int | None = 1_000_000,
    as_text: bool = False,
) -> Iterator[pd.DataFrame]:
    """Yield the table in chunks of at most ``chunk_rows`` rows (``None``: one chunk per file).

    ``as_text`` reads every CSV column as text, as written (``01247`` keeps its zero; Parquet
    keeps its own types): for ``schema infer``, which parses numbers itself."""
    csv = csv or CsvOptions()
    for file in expand_inputs(path):
        if file.suffix.lower() in PARQUET_SUFFIXES:
            yield from _parquet_chunks(file, chunk_rows)
        else:
            yield from _csv_chunks(file, csv, chunk_rows, as_text)


def _parquet_chunks(file: Path, chunk_rows: int | None) -> Iterator[pd.DataFrame]:
    try:
        pf = pq.ParquetFile(file)
        if chunk_rows is None:
            yield pf.read().to_pandas()
            return
        for batch in pf.iter_batches(batch_size=chunk_rows):
            yield pa.Table.from_batches([batch]).to_pandas()
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"cannot read Parquet file {str(file)!r}: {exc}") from exc


def arrow_frame(batch: pa.RecordBatch) -> pd.DataFrame:
    """A Parquet record batch as the pandas frame the streamed paths encode.

    One block per column (``split_blocks=True``): no copy into a consolidated 2-D block, the
    same values.

    Parameters
    ----------
    batch : pyarrow.RecordBatch
        Consecutive rows read from a Parquet file.

    Returns
    -------
    pandas.DataFrame
        The same rows and columns.
    """
    return pa.Table.from_batches([batch]).to_pandas(split_blocks=True)


def _csv_chunks(
    file: Path, csv: CsvOptions, chunk_rows: int | None, as_text: bool = False
) -> Iterator[pd.DataFrame]:
    """The file's rows in chunks of ``chunk_rows`` (None: one frame), every column read as text
    and, unless ``as_text``, the columns of numbers converted by synthcert
    (:func:`~synthcert.data.numbers.numbers_read_back`): pandas 2.x's own number parsing can
    kill the process on one value (pandas-dev/pandas#63089), and no look at the file's bytes
    can tell what its tokenizer will make of quotes, line ends, encodings or compression. Text
    is read :data:`TEXT_CHUNK_ROWS` rows at a time (a string takes several times a float)."""
    if file.stat().st_size == 0:
        raise DataError(f"input file {str(file)!r} is empty")
    kwargs = {**csv.pandas_kwargs(), "dtype": str}
    texts = set(csv.text_columns)
    step = TEXT_CHUNK_ROWS if chunk_rows is None else min(int(chunk_rows), TEXT_CHUNK_ROWS)
    try:
        with pd.read_csv(file, chunksize=step, **kwargs) as reader:
            parts: list[pd.DataFrame] = []
            rows, shown = 0, False
            for part in reader:
                parts.append(part if as_text else numbers_read_back(part, texts))
                rows += len(part)
                while chunk_rows is not None and rows >= chunk_rows:  # chunks of exactly that
                    whole = _joined(parts)
                    yield whole.iloc[:chunk_rows].reset_index(drop=True)
                    rest = whole.iloc[chunk_rows:].reset_index(drop=True)
                    parts, rows, shown = ([rest] if len(rest) else []), len(rest), True
            if parts or not shown:
                yield _joined(parts) if parts else pd.read_csv(file, nrows=0, **kwargs)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"input file {str(file)!r} has no rows") from exc
    except pd.errors.ParserError as exc:
        # pandas names the line, which is a record's position (and a bound on n): private
        raise DataError(
            f"input file {str(file)!r} is malformed: a line has more or fewer fields than the "
            'header (ragged rows); fix the file or the "sep" of the schema\'s "csv" section',
            private_detail=str(exc),
        ) from exc
    except UnicodeDecodeError as exc:
        raise DataError(
            f"input file {str(file)!r} is not valid {csv.encoding}; pass the right encoding "
            '(`schema infer --encoding latin-1`, or "encoding" in the schema\'s "csv" section)'
        ) from exc


def _joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """One frame of consecutive parts (a column numeric in one part and text in another is
    text: each value keeps its own number, :func:`~synthcert.data.numbers.to_numeric_safe`)."""
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


@contextlib.contextmanager
def atomic_write_path(
    path: str | os.PathLike, *, protect: Sequence[str | os.PathLike] = (), private: bool = False
):
    """Yield a temporary path beside ``path``; rename it over ``path`` only if the block succeeds.

    ``protect`` lists input files that must never be overwritten: naming one of them as the
    output is refused before anything is written. A ``private`` file keeps the temporary
    file's mode 0600 from creation to rename (never readable by others, not even briefly).
    """
    target = Path(path)
    refuse_overwriting_inputs(target, protect)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if tmp.is_file() and not private:  # mkstemp creates 0600; public: 0666 & ~umask
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def save_figure(fig: Any, path: str | os.PathLike, *, dpi: int = 110) -> Path:
    """Write a matplotlib figure atomically; the format follows the file extension."""
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or "png"
    with atomic_write_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight")
    return path


def save_and_close_figure(fig: Any, path: str | os.PathLike, *, dpi: int) -> Path:
    """Write a pyplot figure atomically (:func:`save_figure`), then close it (frees pyplot's
    reference); returns the path."""
    import matplotlib.pyplot as plt

    path = save_figure(fig, path, dpi=dpi)
    plt.close(fig)
    return path


def refuse_overwriting_inputs(target: Path, protect: Sequence[str | os.PathLike]) -> None:
    """Raise DataError when ``target`` is one of the protected input files."""
    for p in protect:
        for src in expand_inputs(p) if Path(p).exists() or "*" in str(p) else [Path(p)]:
            if src.exists() and target.exists() and os.path.samefile(src, target):
                raise DataError(f"output {str(target)!r} is the input file; choose another path")
            if src.resolve() == target.resolve():
                raise DataError(f"output {str(target)!r} is the input file; choose another path")


def write_table(
    df: pd.DataFrame, path: str | os.PathLike, *, protect: Sequence[str | os.PathLike] = ()
) -> Path:
    """Write ``df`` atomically as CSV or Parquet, chosen by the file extension.

    The rows go to a temporary file beside ``path`` that is renamed over ``path`` only once
    it is complete, so a failed write never leaves a partial table.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (its index is not written).
    path : str or os.PathLike
        Output file: ``.parquet``/``.pq`` writes Parquet, any other suffix CSV. Missing parent
        folders are created.
    protect : sequence of str or os.PathLike, default ()
        Input files (or globs) that must never be overwritten.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    DataError
        ``path`` is one of the ``protect`` files.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_table(pd.DataFrame({"x": [1, 2]}), Path(tmp) / "out.csv")
    ...     out.name, out.read_text(encoding="utf-8")
    ('out.csv', 'x\\n1\\n2\\n')
    """
    target = Path(path)
    with atomic_write_path(target, protect=protect) as tmp:
        _write_frame(df, tmp, parquet=target.suffix.lower() in PARQUET_SUFFIXES)
    return target


def write_text(
    text: str, path: str | os.PathLike, *, protect: Sequence = (), private: bool = False
) -> Path:
    """Write a text file atomically (mode 0600 throughout when ``private``)."""
    with atomic_write_path(path, protect=protect, private=private) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def _write_frame(df: pd.DataFrame, tmp: Path, *, parquet: bool) -> None:
    if parquet:
        df.to_parquet(tmp, index=False)
    else:
        df.to_csv(tmp, index=False)


def parquet_writer(path: str | os.PathLike, schema: pa.Schema) -> pq.ParquetWriter:
    """A Parquet writer that dictionary-encodes every column but floating-point ones.

    Continuous draws almost never repeat, so a dictionary for them is built and then
    abandoned for every page: without it the file is smaller and written about 3x faster.
    The values written are the same.
    """
    floats = {f.name for f in schema if pa.types.is_floating(f.type)}
    return pq.ParquetWriter(
        path, schema, use_dictionary=[f.name for f in schema if f.name not in floats]
    )


class ChunkedTableWriter:
    """Write a table chunk by chunk to CSV or Parquet at a temporary path; rename on close."""

    def __init__(self, path: str | os.PathLike, *, protect: Sequence = ()) -> None:
        self.path = Path(path)
        self._ctx = atomic_write_path(self.path, protect=protect)
        self._tmp: Path = self._ctx.__enter__()
        self._parquet = self.path.suffix.lower() in PARQUET_SUFFIXES
        self._writer: pq.ParquetWriter | None = None
        self._first = True
        self.rows = 0

    def write(self, df: pd.DataFrame) -> None:
        """Append one chunk."""
        if self._parquet:
            table = pa.Table.from_pandas(df, preserve_index=False)
            if self._writer is None:
                self._writer = parquet_writer(self._tmp, table.schema)
            self._writer.write_table(table)
        else:
            df.to_csv(self._tmp, mode="w" if self._first else "a", header=self._first, index=False)
        self._first = False
        self.rows += len(df)

    def write_arrow(self, table: pa.Table) -> None:
        """Append one chunk already converted with ``pa.Table.from_pandas(df,
        preserve_index=False)`` (Parquet only: the same file as :meth:`write` of ``df``)."""
        if not self._parquet:
            raise DataError(f"{str(self.path)!r} is not Parquet: write frames to CSV")
        if self._writer is None:
            self._writer = parquet_writer(self._tmp, table.schema)
        self._writer.write_table(table)
        self._first = False
        self.rows += table.num_rows

    def close(self, *, ok: bool = True) -> None:
        """Finish: rename into place if ``ok``, else delete the temporary file."""
        if self._writer is not None:
            self._writer.close()
        if self._first and ok and not self._parquet:
            self._tmp.write_text("", encoding="utf-8")
        if ok:
            self._ctx.__exit__(None, None, None)
        else:
            err = RuntimeError("write aborted")
            with contextlib.suppress(RuntimeError):
                self._ctx.__exit__(RuntimeError, err, None)

    def __enter__(self) -> ChunkedTableWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(ok=exc_type is None)


def file_sha256(paths: str | os.PathLike | Sequence[str | os.PathLike]) -> str:
    """Hex SHA-256 of a file (or of several, concatenated in order), read in 1 MiB blocks."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
