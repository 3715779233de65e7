"""Shared pieces of the command line: number parsing, JSON/rich output, error handling."""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from synthcert._result import jsonable
from synthcert.errors import SynthcertError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def parse_count(text: str) -> int:
    """Parse a whole number written as ``30162``, ``1e7`` or ``10_000``; refuse fractions."""
    try:
        value = float(str(text).replace("_", ""))
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a number") from exc
    if not math.isfinite(value) or value != math.floor(value) or value < 0:
        raise typer.BadParameter(f"{text!r} is not a non-negative whole number")
    return int(value)


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``key=value`` pairs; values parsed as JSON when they are JSON (numbers, true, null)."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--param expects key=value, got {item!r}")
        try:
            params[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            params[key.replace("-", "_")] = value
    return params


def parse_float(text: str) -> float:
    """Parse a float written as ``0.01``, ``1e-5`` or ``inf``."""
    try:
        return float(str(text).replace("_", ""))
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a number") from exc


def emit_json(payload: Any) -> None:
    """Print ``payload`` as indented JSON on stdout.

    A result that states a privacy claim (a ``claim`` attribute, or a ``claim`` key holding
    the claim's JSON) also carries the claim's attack-risk label at the top level, under
    ``risk`` (:mod:`synthcert.privacy.risk`).
    """
    claim = getattr(payload, "claim", None)
    if hasattr(payload, "to_dict"):
        payload = payload.to_dict()
    payload = jsonable(payload)
    if isinstance(payload, dict) and "risk" not in payload:
        risk = claim.risk.to_dict() if hasattr(claim, "risk") else None
        if risk is None and isinstance(payload.get("claim"), dict):
            risk = payload["claim"].get("risk")
        if risk is not None:
            payload = {**payload, "risk": risk}
    sys.stdout.write(json.dumps(payload, indent=2) + "\n")


def risk_row(claim: Any) -> tuple[str, str]:
    """The attack-risk sentence of a claim, as a row of a command's summary table."""
    return ("attack risk", claim.risk.sentence)


def key_value_table(title: str, rows: Iterable[tuple[str, Any]]) -> Table:
    """A two-column rich table of labelled values."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("", style="bold")
    table.add_column("")
    for key, value in rows:
        table.add_row(key, format_value(value))
    return table


def format_value(value: Any) -> str:
    """Human formatting: floats to 6 significant digits, None as a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={format_value(v)}" for k, v in value.items())
    return str(value)


def progress_bar(*, disable: bool = False, unit: str = "", counts: bool = True) -> Progress:
    """The progress display of every long command: on stderr, so stdout stays clean for JSON.

    ``counts=False`` shows a spinner, the stage and the elapsed time only: reading a private
    table, the number of rows read so far is n itself, which stays behind ``--show-private``.
    """
    columns = [SpinnerColumn(), TextColumn("[bold]{task.description}")]
    if counts:
        columns += [BarColumn(), MofNCompleteColumn(), TextColumn(unit)]
    columns += [TimeElapsedColumn()] + ([TimeRemainingColumn()] if counts else [])
    return Progress(*columns, console=err_console, transient=True, disable=disable)


def notify(text: str) -> None:
    """Print an engine status line (cluster address, dashboard) on stderr, unwrapped."""
    err_console.print(text, soft_wrap=True)


def warn(message: str) -> None:
    """Print a warning on stderr."""
    err_console.print(f"[yellow]warning:[/yellow] {escape(message)}")


PRIVATE_DETAIL_HINT = (
    "the details (which rows, columns or values) are for you only, never printed: rerun with "
    "--private-dir DIR to have them written to DIR/error.json"
)


def handle_errors(func: F) -> F:
    """Turn a SynthcertError into a one-paragraph message and exit code 2.

    The message is public (it names no value of the table); the error's private detail (a
    row, a measured eigenvalue) goes to ``--private-dir DIR/error.json`` once the folder has been
    checked against the public outputs (nothing is printed about it), or to the console with
    the deprecated ``--show-private``.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SynthcertError as exc:
            err_console.print(f"[red]error:[/red] {escape(str(exc))}")
            if exc.private_detail:
                write_private_detail(kwargs.get("private_dir"), str(exc), exc.private_detail)
            if exc.private_detail and "private_dir" in kwargs and kwargs["private_dir"] is None:
                # every raising site sets a detail or never does: this line follows the message
                err_console.print(PRIVATE_DETAIL_HINT)
            if exc.private_detail and kwargs.get("show_private"):
                show_private([("detail", exc.private_detail)])
            raise typer.Exit(code=2) from None

    return wrapper  # type: ignore[return-value]


def write_private_detail(private_dir: Any, message: str, detail: str) -> None:
    """Write a refusal's private detail to ``DIR/error.json`` (mode 0600), only into a private
    folder this run has already checked and created (:class:`PrivateDir`)."""
    if private_dir is None:
        return
    from synthcert.run_record import write_private_json
    from synthcert.workflows.private_dir import PrivateDir

    pdir = PrivateDir(private_dir)
    if pdir.prepared:
        write_private_json({"error": message, "detail": detail}, pdir.error)


def show_private(rows: Iterable[tuple[str, Any]]) -> None:
    """Print private facts on stderr under the label "private: do not publish"."""
    from synthcert.run_record import PRIVATE_BANNER

    table = key_value_table(f"[red]{PRIVATE_BANNER}[/red]", rows)
    err_console.print(table)
