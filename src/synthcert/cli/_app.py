"""The typer applications every command module registers on."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

import typer

app = typer.Typer(
    name="synthcert",
    help=(
        "Release synthetic tabular data with a privacy guarantee that is measured, not assumed."
        "\n\n"
        "Start with `synthcert release --help` (certified release without added noise) or "
        "`synthcert privacy account --help` (the certificate alone, no data needed)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
reproduce_app = typer.Typer(
    help="Regenerate the tables and figures of the seed papers.", no_args_is_help=True
)
app.add_typer(reproduce_app, name="reproduce")
schema_app = typer.Typer(
    help="Draft a schema from a table (every command checks the schema it is given).",
    no_args_is_help=True,
)
app.add_typer(schema_app, name="schema")
privacy_app = typer.Typer(
    help="Privacy figures without data: certificates, budgets, the audit of the bounds.",
    no_args_is_help=True,
)
app.add_typer(privacy_app, name="privacy")


def privacy_command(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a data-free command as ``synthcert privacy NAME``, and keep ``synthcert NAME``
    as a hidden alias for one release (it prints a note on stderr, then runs the command)."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        privacy_app.command(name)(func)

        @functools.wraps(func)
        def alias(*args: Any, **kwargs: Any) -> Any:
            from synthcert.cli._options import deprecated

            deprecated(f"`synthcert {name}`", f"use `synthcert privacy {name}`")
            return func(*args, **kwargs)

        app.command(name, hidden=True)(alias)
        return func

    return register


def reflow(text: str | None) -> str | None:
    """A docstring as help text: each paragraph on one line (the terminal wraps it), blank
    lines between paragraphs kept, indentation removed."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text))
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


def reflow_help(typer_app: typer.Typer) -> None:
    """Give every command of ``typer_app`` (and of its groups) its docstring reflowed as help:
    the hard line breaks of a docstring otherwise cut sentences in the middle at 80 columns."""
    for info in typer_app.registered_commands:
        if info.help is None and info.callback is not None:
            info.help = reflow(inspect.getdoc(info.callback))
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            reflow_help(group.typer_instance)
