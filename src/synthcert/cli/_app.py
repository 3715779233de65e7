"""The typer applications every command module registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="synthcert",
    help=(
        "Release synthetic tabular data with a privacy guarantee that is measured, not assumed.\n\n"
        "Start with `synthcert release --help` (certified release without added noise) or "
        "`synthcert account --help` (the certificate alone, no data needed)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
reproduce_app = typer.Typer(
    help="Regenerate the tables and figures of the seed papers.", no_args_is_help=True
)
app.add_typer(reproduce_app, name="reproduce")
schema_app = typer.Typer(help="Draft and check schema files.", no_args_is_help=True)
app.add_typer(schema_app, name="schema")
