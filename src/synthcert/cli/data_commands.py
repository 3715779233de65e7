"""``synthcert schema infer`` and ``synthcert demo``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from synthcert.cli._app import app, schema_app
from synthcert.cli._claims import with_claim
from synthcert.cli._common import (
    console,
    emit_json,
    err_console,
    handle_errors,
    key_value_table,
    risk_row,
    warn,
)
from synthcert.cli._options import (
    EncodingOpt,
    JsonOpt,
    LogOpt,
    NaOpt,
    NoHeaderOpt,
    SepOpt,
    csv_options,
)

if TYPE_CHECKING:
    from synthcert.data.infer import SchemaDraft

DRAFT_MAX_ROWS = 200_000  # synthcert.data.infer.DEFAULT_MAX_ROWS (tests check they agree)


@schema_app.command("infer")
@handle_errors
def schema_infer(
    input: Annotated[str, typer.Argument(help="CSV or Parquet table (file, folder or glob).")],
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
    drop: Annotated[
        list[str] | None, typer.Option("--drop", help="Column to leave out (repeatable).")
    ] = None,
    log: LogOpt = None,
    public_kinds: Annotated[
        bool,
        typer.Option(
            "--public-kinds",
            help="Declare, after review, that each column's kind (numeric, datetime with its "
            "unit, categorical with its dtype) and the dropped columns are public knowledge "
            "(a codebook), not read from the data. Without it a DP run on the draft refuses "
            "them: one record can flip a kind.",
        ),
    ] = False,
    max_categories: Annotated[
        int,
        typer.Option(
            help="Text columns with at most this many distinct values are categorical; with "
            "more, they are categorical only as a code list (at most 250 values, each in 10 "
            "rows or more on average), else dropped as free text."
        ),
    ] = 50,
    max_integer_categories: Annotated[
        int, typer.Option(help="Integer columns with at most this many values are categorical.")
    ] = 10,
    max_rows: Annotated[
        int,
        typer.Option(help="Read at most this many rows, in chunks (0: the whole table)."),
    ] = DRAFT_MAX_ROWS,
    no_header: NoHeaderOpt = False,
    sep: SepOpt = ",",
    na_value: NaOpt = None,
    encoding: EncodingOpt = "utf-8",
    json_out: JsonOpt = False,
) -> None:
    """Draft a whole schema in one run: a decision and a reason for every column.

    Identifiers, free text, constant and empty columns are dropped (listed under "drop");
    columns with missing values are nullable. Every bound, category list and missing share is
    read from the data and marked so: replace them with public ones (a codebook, legal
    ranges) and set "source": "public" before a DP synthesis or a release. The decisions go
    to stderr as a table (stdout keeps the schema JSON), or with --json to stdout with the
    schema. A column whose median lies in the lowest 5% of its range gets a hint (scale_hint
    "log", or "signed-log" when it holds negative numbers), never a scale: declare it (--log
    for "log") if it is public knowledge.
    The CSV options given here (--sep, --no-header, --na-value, --encoding) are written to the
    draft's "csv" section, which every command then reads the table with.
    """
    from dataclasses import replace

    from synthcert.data.infer import draft_schema
    from synthcert.data.io import CsvOptions, iter_table_chunks, write_text

    opts = csv_options(no_header, sep, na_value, encoding)
    chunks = iter_table_chunks(
        input,
        csv=opts,
        chunk_rows=min(max_rows, 100_000) if max_rows else 100_000,
        as_text=True,  # as written: a code 01247 keeps its zero
    )
    draft = draft_schema(
        chunks,
        max_rows=max_rows or None,
        max_categories=max_categories,
        max_integer_categories=max_integer_categories,
        drop=tuple(drop or ()),
        log_scale=tuple(log or ()),
    )
    if public_kinds and draft.schema is not None:
        draft = replace(draft, schema=draft.schema.with_public_kinds())
    if draft.schema is not None and replace(opts, names=None) != CsvOptions():
        # how the table was read is part of its description: the schema's "csv" section
        draft = replace(draft, schema=replace(draft.schema, csv=replace(opts, names=None)))
    if json_out:
        if out is not None and draft.schema is not None:
            write_text(draft.schema.to_json(), out, protect=[input])
        emit_json(draft.to_dict())
    else:
        print_decisions(draft)
    schema = draft.require_schema()
    warn("all bounds, categories and missing shares were taken from the data; replace them")
    hinted = [d for d in draft.decisions if d.scale_hint and d.name not in (log or ())]
    if logs := [d.name for d in hinted if d.scale_hint == "log"]:
        flags = " ".join(f"--log {shlex.quote(name)}" for name in logs)
        warn(f"long right tails in {', '.join(logs)}: add {flags} if that is public knowledge")
    if signed := [d.name for d in hinted if d.scale_hint == "signed-log"]:
        warn(
            f'long tails through 0 in {", ".join(signed)}: declare "scale": "signed-log" '
            "for them in the schema if that is public knowledge"
        )
    if json_out:
        return
    if out is None:
        sys.stdout.write(schema.to_json())
    else:
        write_text(schema.to_json(), out, protect=[input])
        err_console.print(f"schema written to {out}")


def print_decisions(draft: SchemaDraft) -> None:
    """The decisions as a table on stderr."""
    table = Table(title=f"schema draft ({draft.rows_read:,} rows read)", title_justify="left")
    for head in ("column", "decision", "kept", "nullable", "reason"):
        table.add_column(head)
    for d in draft.decisions:
        table.add_row(
            escape(d.name),
            d.decision,
            "yes" if d.kept else "[yellow]dropped[/yellow]",
            f"{d.missing_share:.1%}" if d.nullable else "",
            escape(d.reason),
        )
    err_console.print(table)


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
    aim_rows: Annotated[
        int, typer.Option(help="Rows of the AIM step's table (same public generator).")
    ] = 20_000,
    audit_runs: Annotated[
        int, typer.Option(help="Fits per side of the worst-case audit that gates AIM.")
    ] = 100,
    json_out: JsonOpt = False,
) -> None:
    """The main job on a built-in table: certified releases, an audited AIM synthesis, its
    evaluation and its public report.

    Makes a deterministic census-like table (6 correlated, bounded numeric columns), writes it
    with its public schema, releases as many synthetic rows as input rows and reports their
    epsilon, then releases the largest number of rows an (epsilon=1, delta=1e-10) budget allows.
    Then runs the worst-case audit of AIM at (epsilon=1, delta=1e-6) on three columns, and only
    if the audit does not refute the claim synthesizes with AIM, evaluates the output against
    its input (private/) and writes the public report. The tables' sizes are public here (their
    generator is), so they are declared.
    """
    from synthcert.cli.release_command import print_release
    from synthcert.workflows.demo import run_demo

    run = run_demo(out, rows=rows, table_seed=seed, aim_rows=aim_rows, audit_runs=audit_runs)
    aim, gate = run.aim, run.gate
    assert aim is not None and gate is not None and run.evaluation is not None
    claim = aim.summary.claim
    steward = {
        "report": str(run.report_path),
        "rows_released": aim.summary.rows_out,
        "epsilon": claim.epsilon,
        "delta": claim.delta,
        "tpr_at_1pct": claim.risk.tpr_at_fpr["0.01"] if claim.risk.tpr_at_fpr else None,
        "risk_sentence": claim.risk.sentence,
    }
    if json_out:
        # each release carries its own claim under "claim"
        emit_json(
            {
                **{
                    name: with_claim(cert, cert.claim)
                    for name, cert in (
                        ("all_rows", run.full.certificate),
                        ("budget_eps1", run.budgeted.certificate),
                    )
                },
                "aim": {**with_claim(aim.summary, claim), "audit_gate": gate.to_dict()},
                "evaluation": list(run.evaluation.files),
                "steward": steward,
            }
        )
        return
    console.print(
        f"[bold]Demo table:[/bold] {run.table_path} ({rows:,} rows), schema {run.schema_path}\n"
    )
    console.print("[bold]1. Release as many rows as the input:[/bold]")
    print_release(run.full)
    console.print("\n[bold]2. Release what an (epsilon = 1, delta = 1e-10) budget allows:[/bold]")
    print_release(run.budgeted)
    lb = "-" if gate.epsilon_lower_bound is None else f"{gate.epsilon_lower_bound:.4g}"
    console.print(
        f"\n[bold]3. AIM at epsilon = 1, gated by the worst-case audit:[/bold] epsilon >= {lb} "
        f"measured ({gate.runs} runs per side, {100 * gate.confidence:g}% confidence): claim "
        "not refuted"
    )
    utility = Path(run.evaluation.files[0]).parent
    console.print(f"   utility evaluation (internal, do not publish): {utility}")
    console.print(
        key_value_table(
            "what a data steward needs",
            [
                ("public report", steward["report"]),
                ("rows released", f"{aim.summary.rows_out:,}"),
                ("guarantee", f"({claim.epsilon:g}, {claim.delta:g})-DP"),
                risk_row(claim),
            ],
        )
    )
