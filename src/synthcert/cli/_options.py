"""Option groups shared by several commands: schema, outputs, engine, deprecated aliases."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

import typer

if TYPE_CHECKING:
    from synthcert.data.io import CsvOptions
    from synthcert.data.schema import Schema
    from synthcert.workflows.private_dir import PrivateDir

F = TypeVar("F", bound=Callable[..., Any])

SchemaOpt = Annotated[
    Path,
    typer.Option(
        "--schema",
        help="Schema JSON: each column numeric with PUBLIC lower/upper bounds, or categorical "
        "with its public categories (draft one with `synthcert schema infer`).",
        exists=True,
        dir_okay=False,
    ),
]
InputArg = Annotated[
    str, typer.Argument(help="Input table: CSV or Parquet file, directory or glob.")
]  # the table release and synthesize read
NoHeaderOpt = Annotated[
    bool,
    typer.Option("--no-header", help="The CSV has no header row (names come from the schema)."),
]
SepOpt = Annotated[str, typer.Option("--sep", help="CSV field separator.")]
NaOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--na-value", help="Token meaning 'missing' (repeatable). Default: '', ?, NA, NaN."
    ),
]
EncodingOpt = Annotated[str, typer.Option("--encoding", help="CSV text encoding.")]
MissingOpt = Annotated[
    str,
    typer.Option(
        "--missing",
        help="Missing values: 'model' them in nullable columns (a row missing a value of "
        "another input column, not under the schema's drop list, is dropped), 'drop' every "
        "incomplete row, or 'fail' on a missing value outside a nullable column. Text in a "
        "numeric column and an undeclared category count as missing. Under bounded "
        "neighbours (n public) 'model' gives such a value of a non-nullable column its "
        'PUBLIC fill instead (the column\'s declared "fill", else its first category or the '
        "midpoint of its bounds): no row is dropped or refused.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]
LogOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--log",
        metavar="COLUMN",
        help='Declare "scale": "log" for this numeric column (repeatable): PUBLIC knowledge '
        "such as amounts with a long right tail (`schema infer` hints at columns that look "
        "so), never read from the table.",
    ),
]


def declare_log(schema: Schema, names: list[str] | None) -> Schema:
    """``schema`` with ``"scale": "log"`` declared for each named numeric column (--log).

    Raises
    ------
    ParameterError
        A name that is not a numeric column of the schema.
    """
    from dataclasses import replace

    from synthcert.data.schema import NumericColumn
    from synthcert.errors import ParameterError

    if not names:
        return schema
    numeric = {c.name for c in schema.numeric}
    bad = [n for n in dict.fromkeys(names) if n not in numeric]
    if bad:
        raise ParameterError(
            f"--log names {', '.join(map(repr, bad))}, not a numeric column of the schema"
        )
    cols = tuple(
        replace(c, scale="log") if isinstance(c, NumericColumn) and c.name in names else c
        for c in schema.columns
    )
    return replace(schema, columns=cols)


def csv_options(
    no_header: bool,
    sep: str,
    na_values: list[str] | None,
    encoding: str,
    names: list[str] | None = None,
) -> CsvOptions:
    """Build CsvOptions from the CSV flags of ``schema infer``."""
    from synthcert.data.io import DEFAULT_NA_VALUES, CsvOptions

    return CsvOptions(
        header=not no_header,
        sep=sep,
        na_values=tuple(na_values) if na_values else DEFAULT_NA_VALUES,
        encoding=encoding,
        names=names if no_header else None,
    )


def deprecated(flag: str, instead: str) -> None:
    """Say on stderr that ``flag`` is a deprecated alias (the note names no value)."""
    from synthcert.cli._common import err_console

    err_console.print(
        f"note: {flag} is deprecated and will be removed in the next release; {instead}",
        soft_wrap=True,
        markup=False,
    )


def schema_with_csv(
    schema: Schema,
    no_header: bool = False,
    sep: str | None = None,
    na_values: list[str] | None = None,
    encoding: str | None = None,
) -> Schema:
    """The schema whose ``"csv"`` section is overridden by the deprecated CSV flags given.

    The flags are hidden aliases kept for one release: each one given prints a note.
    """
    from dataclasses import replace

    from synthcert.data.io import CsvOptions

    given = {
        "header": False if no_header else None,
        "sep": sep,
        "na_values": tuple(na_values) if na_values else None,
        "encoding": encoding,
    }
    given = {k: v for k, v in given.items() if v is not None}
    if not given:
        return schema
    flags = {"header": "--no-header", "sep": "--sep", "na_values": "--na-value",
             "encoding": "--encoding"}  # fmt: skip
    for key in given:
        deprecated(flags[key], f'declare "{key}" in the schema\'s "csv" section instead')
    return replace(schema, csv=replace(schema.csv or CsvOptions(), **given))


def load_schema(
    path: Path, log: list[str] | None = None, old_csv: OldCsvFlags | None = None
) -> Schema:
    """The ``--schema`` file with the deprecated ``--log`` and CSV flags (``old_csv``) applied.

    Each deprecated flag given prints its note (``--log`` first): :func:`declare_log`, then
    :func:`schema_with_csv`.
    """
    from synthcert.data.schema import Schema

    if log:
        deprecated("--log", 'declare "scale": "log" in the schema instead')
    csv = old_csv or OldCsvFlags()
    schema = declare_log(Schema.load(path), log)
    return schema_with_csv(schema, csv.no_header, csv.sep, csv.na_value, csv.encoding)


def parse_engine(text: str) -> tuple[str, str | None]:
    """``local``, ``dask`` (a new LocalCluster on 127.0.0.1) or a Dask scheduler address.

    Examples
    --------
    >>> parse_engine("local"), parse_engine("tcp://10.0.0.5:8786")
    (('local', None), ('dask', 'tcp://10.0.0.5:8786'))
    """
    value = str(text).strip()
    if value in ("local", "dask"):
        return value, None
    if "://" in value or ":" in value:
        return "dask", value
    raise typer.BadParameter(
        f"unknown engine {text!r}: the engine is 'local', 'dask' or a Dask scheduler address "
        "(tcp://HOST:PORT)"
    )


def check_missing_policy(value: str) -> str:
    """Validate --missing."""
    if value not in ("model", "drop", "fail"):
        raise typer.BadParameter("--missing must be 'model', 'drop' or 'fail'")
    return value


ReportOpt = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Also write the self-contained HTML report of this run to this file "
        "(see `synthcert report`).",
        dir_okay=False,
    ),
]
EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        help="local (this process: threads, streaming partitions), dask (a new LocalCluster on "
        "127.0.0.1) or the address of a running Dask scheduler (tcp://HOST:PORT). Same results "
        "either way.",
    ),
]
SchedulerOpt = Annotated[
    str | None, typer.Option("--scheduler", hidden=True, help="Deprecated: --engine ADDRESS.")
]
PrivateDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--private-dir",
        metavar="DIR",
        help="Folder for every PRIVATE output of the run (created, mode 0700; files 0600): "
        "record.json (the run record: rows read and used, values filled, values clipped by "
        "a release, the privacy ledger, timings, the input's hash, "
        "a given seed), internal-report.html (with --report), error.json (why a table was "
        "refused). Refused if it is, holds or sits in a public output or its folder. Never "
        "publish it.",
        file_okay=False,
    ),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="Extra synthesizer parameter key=value (repeatable), e.g. --param degree=2 "
        "--param noise=staircase, or --param marginals=beta for the thesis's copula.",
    ),
]
OutOpt = Annotated[
    str,
    typer.Option(
        "--out",
        help="Output file (.csv or .parquet), or a folder (a path ending in / or an "
        "existing folder) for a partitioned Parquet dataset with a _manifest.json.",
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help="A SECRET seed, for reproducing a run: written only to the private record. Anyone "
        "who knows it can undo the release's randomness, so a guessable seed (7, a date) voids "
        "the guarantee. Default: 128 bits of OS entropy, never written anywhere.",
    ),
]
MinRowsOpt = Annotated[
    str | None,
    typer.Option(
        "--min-rows",
        help="PUBLIC lower bound on the number of rows of the input (unbounded neighbours hide "
        "the exact size): the default number of rows released by a DP synthesizer under "
        "add/remove neighbours (under replace-one neighbours, and without DP, n is released: a "
        "note says so); the Gaussian release evaluates its guarantee at it and refuses a "
        "smaller table (a DP synthesizer's guarantee holds at any size).",
    ),
]
PrivateRecordOpt = Annotated[
    Path | None,
    typer.Option("--private-record", hidden=True, help="Deprecated: --private-dir DIR."),
]
ShowPrivateOpt = Annotated[
    bool, typer.Option("--show-private", hidden=True, help="Deprecated: --private-dir DIR.")
]
InternalReportOpt = Annotated[
    Path | None,
    typer.Option("--internal-report", hidden=True, help="Deprecated: --private-dir DIR."),
]


def hidden(*flags: str, metavar: str | None = None) -> typer.models.OptionInfo:
    """A deprecated alias kept for one release: not listed by ``--help``."""
    return typer.Option(*flags, hidden=True, metavar=metavar, help="Deprecated alias.")


# The CSV flags, hidden: the schema's "csv" section says how a table is read.
OldNoHeaderOpt = Annotated[bool, hidden("--no-header")]
OldSepOpt = Annotated[str | None, hidden("--sep")]
OldNaOpt = Annotated[list[str] | None, hidden("--na-value")]
OldEncodingOpt = Annotated[str | None, hidden("--encoding")]
OldLogOpt = Annotated[list[str] | None, hidden("--log")]  # "scale": "log" in the schema


@dataclass(frozen=True)
class OldCsvFlags:
    """The hidden CSV flags of the commands that read a table (one option group: see
    :func:`option_group`); :func:`load_schema` applies them to the schema's "csv" section."""

    no_header: OldNoHeaderOpt = False
    sep: OldSepOpt = None
    na_value: OldNaOpt = None
    encoding: OldEncodingOpt = None


def option_group(keyword: str, group: type[Any]) -> Callable[[F], F]:
    """Options shared by several commands, declared once: the command's parameter ``keyword``
    (annotated with the dataclass ``group``) stands, in ``--help`` and on the command line, for
    the fields of ``group`` (each annotated with its typer option; one without a default is a
    required option), and the command receives them as one ``group`` instance under
    ``keyword``.
    """
    hints = get_type_hints(group, include_extras=True)
    members = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if f.default is MISSING else f.default,
            annotation=hints[f.name],
        )
        for f in fields(group)
    ]

    def decorate(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)
        params: list[inspect.Parameter] = []
        for name, param in signature.parameters.items():
            params += members if name == keyword else [param]

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {p.name: kwargs.pop(p.name) for p in members if p.name in kwargs}
            return func(*args, **kwargs, **{keyword: group(**values)})

        command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command  # type: ignore[return-value]

    return decorate


def internal_outputs(
    private_dir: Path | None, out: Path | None, report: Path | None
) -> tuple[Path | None, Path | None]:
    """The folder and the internal report of ``evaluate`` and ``audit`` (internal by nature).

    ``--private-dir DIR`` holds the files and ``DIR/internal-report.html``; the old ``--out``
    (folder) and ``--report`` (internal report) are hidden aliases kept for one release.
    """
    from synthcert.workflows.private_dir import PrivateDir

    for flag, value in (("--out", out), ("--report", report)):
        if value is not None:
            deprecated(f"{flag} of this command", "use --private-dir DIR")
            if private_dir is not None:
                raise typer.BadParameter(f"{flag} and --private-dir both given: give one")
    if private_dir is None:
        return out, report
    pdir = PrivateDir(private_dir)
    pdir.prepare([])
    return pdir.path, pdir.internal_report


InternalDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--private-dir",
        metavar="DIR",
        help="Folder for the files of this command and internal-report.html: they describe the "
        "real table, so they are INTERNAL (created, mode 0700; every page of the report says "
        "'do not publish').",
        file_okay=False,
    ),
]
OldInternalOutOpt = Annotated[Path | None, hidden("--out")]
OldInternalReportOpt = Annotated[Path | None, hidden("--report")]


def merge_scheduler(engine: str, scheduler: str | None) -> tuple[str, str | None]:
    """``--engine`` (local, dask or an address) with the deprecated ``--scheduler ADDRESS``."""
    if scheduler is not None:
        deprecated("--scheduler", "use --engine ADDRESS")
        if engine not in ("local", "dask"):
            raise typer.BadParameter("--engine ADDRESS and --scheduler both given: give one")
        return "dask", scheduler
    return parse_engine(engine)


@dataclass(frozen=True)
class OldInternalFlags:
    """The hidden aliases of the internal commands (``evaluate``, ``audit``): ``--scheduler``
    and the old ``--out`` folder and ``--report`` (one option group: see :func:`option_group`).
    """

    scheduler: SchedulerOpt = None
    out: OldInternalOutOpt = None
    report: OldInternalReportOpt = None

    def outputs(self, private_dir: Path | None) -> tuple[Path | None, Path | None]:
        """The folder and the internal report: :func:`internal_outputs` with the old flags."""
        return internal_outputs(private_dir, self.out, self.report)

    def engine(self, engine: str) -> tuple[str, str | None]:
        """``--engine`` with the old ``--scheduler``: :func:`merge_scheduler`."""
        return merge_scheduler(engine, self.scheduler)


def private_outputs(
    private_dir: Path | None,
    public: list[Path],
    report: Path | None,
    old: dict[str, Path | bool | None],
) -> tuple[PrivateDir | None, Path | None, Path | None]:
    """``--private-dir`` of ``release`` and ``synthesize``: the folder (checked against the
    ``public`` outputs and created), the run record and the internal report (with ``--report``).

    ``old`` maps the deprecated flags (``--private-record``, ``--internal-report``,
    ``--save-private-params``, ``--show-private``) to their values: each one given prints a
    note, and one that names a file is refused next to ``--private-dir``.
    """
    from synthcert.workflows.private_dir import PrivateDir

    for flag, value in old.items():
        if value:
            deprecated(flag, "use --private-dir DIR")
            if private_dir is not None and flag != "--show-private":
                raise typer.BadParameter(f"{flag} and --private-dir both given: give one")
    if private_dir is None:
        record, internal = old.get("--private-record"), old.get("--internal-report")
        return None, record or None, internal or None  # type: ignore[return-value]
    pdir = PrivateDir(private_dir)
    pdir.prepare([*public, *([report] if report is not None else [])])
    return pdir, pdir.record, pdir.internal_report if report is not None else None


@dataclass(frozen=True)
class OldPrivateFlags:
    """The hidden aliases of ``--private-dir`` of ``release`` and ``synthesize``:
    ``--private-record``, ``--internal-report`` and ``--show-private`` (one option group: see
    :func:`option_group`)."""

    private_record: PrivateRecordOpt = None
    internal_report: InternalReportOpt = None
    show_private: ShowPrivateOpt = False

    def outputs(
        self,
        private_dir: Path | None,
        public: list[Path],
        report: Path | None,
        save_private_params: Path | None = None,
    ) -> tuple[PrivateDir | None, Path | None, Path | None]:
        """The folder, the run record and the internal report: :func:`private_outputs` with the
        old flags (and ``release``'s old ``--save-private-params``)."""
        old = {
            "--private-record": self.private_record,
            "--internal-report": self.internal_report,
            "--save-private-params": save_private_params,
            "--show-private": self.show_private,
        }
        return private_outputs(private_dir, public, report, old)
