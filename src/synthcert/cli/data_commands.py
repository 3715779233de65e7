"""``synthcert schema infer`` and ``synthcert demo``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from synthcert.cli._app import app, schema_app
from synthcert.cli._common import console, emit_json, handle_errors, warn
from synthcert.cli._options import EncodingOpt, JsonOpt, NaOpt, NoHeaderOpt, SepOpt, csv_options
from synthcert.cli.release_command import print_release
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import read_table, write_table, write_text
from synthcert.data.schema import infer_schema
from synthcert.release import release

DEMO_SIGMA = 0.02


@schema_app.command("infer")
@handle_errors
def schema_infer(
    input: Annotated[str, typer.Argument(help="CSV or Parquet table.")],
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="Column to leave out (repeatable).")
    ] = None,
    max_categories: Annotated[
        int, typer.Option(help="More distinct text values than this is an error.")
    ] = 50,
    no_header: NoHeaderOpt = False,
    sep: SepOpt = ",",
    na_value: NaOpt = None,
    encoding: EncodingOpt = "utf-8",
) -> None:
    """Draft a schema from the data. Every bound it writes is marked "source": "data".

    Data-derived bounds leak the minimum and maximum of the table: replace them with public
    ones (a codebook, legal ranges) and set "source": "public" before a release.
    """
    df = read_table(input, csv_options(no_header, sep, na_value, encoding))
    schema = infer_schema(df, max_categories=max_categories, drop=tuple(drop or ()))
    warn("all bounds and categories were taken from the data; replace them by public ones")
    if out is None:
        sys.stdout.write(schema.to_json())
    else:
        write_text(schema.to_json(), out, protect=[input])
        console.print(f"schema written to {out}")


@app.command("demo")
@handle_errors
def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder for the demo's files.")] = Path(
        "demo-output"
    ),
    rows: Annotated[int, typer.Option(help="Rows of the built-in census-like table.")] = 200_000,
    seed: Annotated[
        int,
        typer.Option(
            help="Seed of the demo TABLE (its generator is public). The releases draw their "
            "randomness from OS entropy, as a real release must."
        ),
    ] = 2023,
    json_out: JsonOpt = False,
) -> None:
    """The main job on a built-in table: certified release, then a budget-sized release.

    Makes a deterministic census-like table (6 correlated, bounded numeric columns), writes it
    with its public schema, releases as many synthetic rows as input rows and reports their
    epsilon, then releases the largest number of rows an (epsilon=1, delta=1e-10) budget allows.
    The table's size is public here (its generator is), so it is declared as --min-rows.
    """
    out.mkdir(parents=True, exist_ok=True)
    table_path, schema_path = out / "demo_input.parquet", out / "demo_schema.json"
    schema = demo_schema()
    write_table(make_demo_table(rows, seed=seed), table_path)
    write_text(schema.to_json(), schema_path)
    # The demo table's generator is public, so a lower bound on its encoded covariance's
    # smallest eigenvalue (about 0.021) is public knowledge: declare sigma = 0.02.
    full = release(
        table_path,
        schema,
        out / "synthetic_all_rows.csv",
        sigma=DEMO_SIGMA,
        min_rows=rows,
        command="synthcert demo",
    )
    budgeted = release(
        table_path,
        schema,
        out / "synthetic_eps1.csv",
        epsilon=1.0,
        delta=1e-10,
        sigma=DEMO_SIGMA,
        min_rows=rows,
        command="synthcert demo",
    )
    if json_out:
        emit_json({"all_rows": full.certificate, "budget_eps1": budgeted.certificate})
        return
    console.print(f"[bold]Demo table:[/bold] {table_path} ({rows:,} rows), schema {schema_path}\n")
    console.print("[bold]1. Release as many rows as the input:[/bold]")
    print_release(full)
    console.print("\n[bold]2. Release what an (epsilon = 1, delta = 1e-10) budget allows:[/bold]")
    print_release(budgeted)
