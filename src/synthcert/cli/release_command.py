"""``synthcert release``: the certified release of synthetic rows without added noise."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    key_value_table,
    notify,
    parse_count,
    parse_float,
    progress_bar,
    warn,
)
from synthcert.cli._options import (
    EncodingOpt,
    EngineOpt,
    JsonOpt,
    MissingOpt,
    NaOpt,
    NoHeaderOpt,
    OutOpt,
    ReportOpt,
    SchedulerOpt,
    SchemaOpt,
    SepOpt,
    check_missing_policy,
    csv_options,
)
from synthcert.data.schema import Schema
from synthcert.release import ReleaseResult, release


@app.command("release")
@handle_errors
def release_command(
    input: Annotated[
        str, typer.Argument(help="Input table: CSV or Parquet file, directory or glob.")
    ],
    schema: SchemaOpt,
    out: OutOpt,
    n_out: Annotated[
        str | None,
        typer.Option(
            "--n-out",
            help="Rows to release (default: as many as the input). "
            "The certificate reports what they cost.",
        ),
    ] = None,
    epsilon: Annotated[
        str | None,
        typer.Option(
            "--epsilon",
            help="Privacy budget: release the largest number of rows it "
            "allows (the floor). With --delta (or the default delta=1/n^2): an "
            "(epsilon, delta)-DP budget; with --alpha and no --delta: an RDP budget.",
        ),
    ] = None,
    delta: Annotated[
        str | None, typer.Option("--delta", help="delta of (epsilon, delta)-DP. Default 1/n^2.")
    ] = None,
    alpha: Annotated[
        str | None,
        typer.Option(
            "--alpha", help="Renyi order alpha > 1 (default: chosen to minimise epsilon)."
        ),
    ] = None,
    neighboring: Annotated[
        str,
        typer.Option(
            "--neighboring",
            help="unbounded (add/remove a "
            "record; Theorem 3.1) or bounded (replace a record; Corollary 3.2) "
            "or bounded-direct.",
        ),
    ] = "unbounded",
    sigma: Annotated[
        str | None,
        typer.Option(
            "--sigma",
            help="PUBLIC lower bound on the "
            "smallest eigenvalue of the encoded covariance. Default: taken from the "
            "data (the certificate then says so).",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Random seed (recorded in the certificate).")
    ] = None,
    certificate: Annotated[
        Path | None,
        typer.Option(
            "--certificate",
            help="Where to write the certificate JSON (default: OUT's name + .certificate.json).",
        ),
    ] = None,
    conversion: Annotated[
        str,
        typer.Option(
            "--conversion",
            help="RDP to (epsilon, delta): ckm (Canonne-Kamath-Steinke, tighter) or mironov.",
        ),
    ] = "ckm",
    missing: MissingOpt = "drop",
    no_header: NoHeaderOpt = False,
    sep: SepOpt = ",",
    na_value: NaOpt = None,
    encoding: EncodingOpt = "utf-8",
    chunk_rows: Annotated[
        str,
        typer.Option(
            "--chunk-rows", help="Rows per chunk when streaming the input and the output."
        ),
    ] = "1e6",
    save_private_params: Annotated[
        Path | None,
        typer.Option(
            "--save-private-params",
            help="ALSO write the fitted mean and covariance to this "
            "PRIVATE file (never publish it).",
        ),
    ] = None,
    engine: EngineOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", help="Threads (local) or workers of a new LocalCluster (default: cores)."
        ),
    ] = None,
    partition_rows: Annotated[
        str | None,
        typer.Option(
            "--partition-rows",
            help="Rows per input partition and per output file of a partitioned output "
            "(default 4194304). The rows drawn do not depend on it.",
        ),
    ] = None,
    report: ReportOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Fit the mean-and-covariance synthesizer, certify its inherent privacy, release rows.

    The certificate is (alpha, epsilon)-Renyi DP from the randomness of sampling alone
    (Miura et al., Theorem 3.1 / Corollary 3.2), converted to (epsilon, delta)-DP. Only the
    synthetic rows and the certificate are written; the mean and covariance never are.
    """
    sch = Schema.load(schema)
    opts = csv_options(no_header, sep, na_value, encoding, sch.csv_names)
    if save_private_params is not None:
        warn(f"{save_private_params} will hold the generative parameters: keep it private")
    with progress_bar(disable=json_out, unit="rows") as bar:
        tasks: dict[str, int] = {}

        def on_progress(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(
                    "reading" if stage == "fit" else "sampling", total=total
                )
            bar.update(tasks[stage], completed=done, total=total)

        result = release(
            input,
            sch,
            out,
            n_out=parse_count(n_out) if n_out is not None else None,
            epsilon=parse_float(epsilon) if epsilon is not None else None,
            delta=parse_float(delta) if delta is not None else None,
            alpha=parse_float(alpha) if alpha is not None else None,
            neighboring=neighboring,
            sigma=parse_float(sigma) if sigma is not None else None,
            seed=seed,
            certificate_path=certificate,
            conversion=conversion,
            missing=check_missing_policy(missing),  # type: ignore[arg-type]
            csv=opts,
            chunk_rows=parse_count(chunk_rows),
            save_private_params=save_private_params,
            command=shlex.join(["synthcert", *sys.argv[1:]]),
            progress=on_progress,
            engine=engine,
            scheduler=scheduler,
            workers=workers,
            partition_rows=parse_count(partition_rows) if partition_rows is not None else None,
            notify=notify,
        )
    if report is not None:
        from synthcert.report.build import write_report

        write_report(report, certificate=result.certificate.to_dict(), schema=sch, protect=[input])
        if not json_out:
            console.print(f"report written to {report}")
    if json_out:
        emit_json(result.certificate)
        return
    print_release(result)


def print_release(result: ReleaseResult) -> None:
    """The human summary of a release."""
    c = result.certificate
    for note in c.warnings:
        warn(note)
    guarantee = f"({c.epsilon:.4g}, {c.delta:.3g})-DP" if c.epsilon is not None else "not converted"
    console.print(
        key_value_table(
            "synthcert release",
            [
                ("rows released", f"{c.n_out:,}"),
                ("input rows used", f"{c.n:,} ({c.rows_dropped_missing:,} dropped: missing)"),
                ("encoded dimension d", c.d),
                ("sigma", f"{c.sigma:.6g} ({c.sigma_source})"),
                ("neighbouring", c.neighboring),
                ("alpha", c.alpha),
                ("epsilon_RDP (all rows)", c.epsilon_rdp),
                (
                    "guarantee",
                    f"{guarantee} via {c.conversion}" if c.epsilon is not None else guarantee,
                ),
                ("synthetic rows", result.output),
                ("certificate", result.certificate_path),
            ],
        )
    )
