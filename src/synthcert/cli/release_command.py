"""``synthcert release``: the certified release of synthetic rows without added noise."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    risk_row,
    show_private,
    warn,
)
from synthcert.cli._options import (
    EncodingOpt,
    EngineOpt,
    InternalReportOpt,
    JsonOpt,
    LogOpt,
    MinRowsOpt,
    MissingOpt,
    NaOpt,
    NoHeaderOpt,
    OutOpt,
    PrivateRecordOpt,
    ReportOpt,
    SchedulerOpt,
    SchemaOpt,
    SeedOpt,
    SepOpt,
    ShowPrivateOpt,
    check_missing_policy,
    csv_options,
    declare_log,
)
from synthcert.cli.ledger_command import (
    LedgerOpt,
    LifetimeDeltaOpt,
    LifetimeEpsilonOpt,
    ledger_policy,
)

if TYPE_CHECKING:
    from synthcert.run_record import RunRecord
    from synthcert.workflows.release import ReleaseResult


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
            help="Rows to release (default: --min-rows under unbounded neighbours, n under "
            "bounded). The certificate reports what they cost.",
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
        str | None,
        typer.Option(
            "--delta",
            help="delta of (epsilon, delta)-DP. Default 1/N^2 (N = --min-rows, or n "
            "under bounded neighbours).",
        ),
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
            help="REQUIRED. PUBLIC lower bound on the smallest eigenvalue of the encoded "
            "covariance of every table that differs from the input in one record (a table "
            "too close to it is refused). 'data' measures it on this table: then no guarantee "
            "is stated and no (epsilon, delta) is published.",
        ),
    ] = None,
    ridge: Annotated[
        str | None,
        typer.Option(
            "--ridge",
            help="PUBLIC rho > 0: sample from N(mu, Sigma + rho I). The certificate then assumes "
            "nothing about the data (no sigma, no margin; docs/unconditional.md) at the cost "
            "of weaker correlations. Instead of --sigma.",
        ),
    ] = None,
    min_rows: MinRowsOpt = None,
    seed: SeedOpt = None,
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
    missing: MissingOpt = "model",
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
    internal_report: InternalReportOpt = None,
    private_record: PrivateRecordOpt = None,
    show_private: ShowPrivateOpt = False,
    log: LogOpt = None,
    ledger: LedgerOpt = None,
    lifetime_epsilon: LifetimeEpsilonOpt = None,
    lifetime_delta: LifetimeDeltaOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Fit the mean-and-covariance synthesizer, certify its inherent privacy, release rows.

    The certificate is (alpha, epsilon)-Renyi DP from the randomness of sampling alone
    (Miura et al., Theorem 3.1 / Corollary 3.2), converted to (epsilon, delta)-DP. Only the
    synthetic rows and the certificate (public fields only) are written; the mean and
    covariance never are. What the run learns about the table goes to --private-record.

    Example: synthcert release people.csv --schema schema.json --sigma 0.01
    --min-rows 30000 --epsilon 1 --out synthetic.csv --private-record run.json
    """
    from synthcert.data.schema import Schema
    from synthcert.workflows.ledger_step import planned_release_claim
    from synthcert.workflows.release import release
    from synthcert.workflows.values import Budget, Execution, TableSource

    sch = declare_log(Schema.load(schema), log)
    budget = Budget(
        sigma=parse_sigma(sigma),
        ridge=parse_float(ridge) if ridge is not None else None,
        min_rows=parse_count(min_rows) if min_rows is not None else None,
        n_out=parse_count(n_out) if n_out is not None else None,
        epsilon=parse_float(epsilon) if epsilon is not None else None,
        delta=parse_float(delta) if delta is not None else None,
        alpha=parse_float(alpha) if alpha is not None else None,
        neighboring=neighboring,
        conversion=conversion,
    )
    # privacy ledger (synthcert ledger show): checked before any data is read
    policy = ledger_policy(ledger, lifetime_epsilon, lifetime_delta)
    policy.check(lambda: planned_release_claim(budget), budget.neighboring)
    with progress_bar(disable=json_out, unit="rows", counts=show_private) as bar:
        tasks: dict[str, int] = {}

        def on_progress(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(
                    "reading" if stage == "fit" else "sampling", total=total
                )
            bar.update(tasks[stage], completed=done, total=total)

        execution = Execution(
            engine=engine,
            scheduler=scheduler,
            workers=workers,
            chunk_rows=parse_count(chunk_rows),
            partition_rows=parse_count(partition_rows) if partition_rows is not None else None,
            progress=on_progress,
            notify=notify,
            warn=warn,
        )
        result = release(
            TableSource(input, csv=csv_options(no_header, sep, na_value, encoding, sch.csv_names)),
            sch,
            out,
            budget,
            execution,
            seed=seed,
            missing=check_missing_policy(missing),  # type: ignore[arg-type]
            certificate_path=certificate,
            save_private_params=save_private_params,
            private_record=private_record,
            report=report,
            internal_report=internal_report,
            command=shlex.join(["synthcert", *sys.argv[1:]]),
        )
    policy.record(result.certificate.claim)  # after the rows and certificate were written
    if show_private:
        show_private_record(result.record)
    if json_out:
        emit_json(result.certificate)
        return
    for path, what in ((report, "report"), (internal_report, "internal report (do not publish)")):
        if path is not None:
            console.print(f"{what} written to {path}")
    if private_record is not None:
        console.print(f"private run record written to {private_record} (do not publish)")
    print_release(result)


def parse_sigma(text: str | None) -> float | str | None:
    """``--sigma``: a positive number, or ``data`` (measured on the table: no guarantee)."""
    if text is None or text.strip().lower() == "data":
        return None if text is None else "data"
    return parse_float(text)


def show_private_record(record: RunRecord) -> None:
    """The private facts of a run, on stderr, under the "do not publish" label."""
    rows = [(k, v) for k, v in record.facts.items()]
    rows += [(f"time: {k}", f"{v:.2f} s") for k, v in record.timings.items()]
    rows.append(("randomness", record.seed_source))
    show_private(rows)


def print_release(result: ReleaseResult) -> None:
    """The human summary of a release (public facts only)."""
    c = result.certificate
    for note in c.warnings:
        warn(note)
    if c.epsilon is not None:
        guarantee = f"({c.epsilon:.4g}, {c.delta:.3g})-DP via {c.conversion}"
    elif c.epsilon_rdp is not None:
        guarantee = f"({c.alpha:.4g}, {c.epsilon_rdp:.4g})-RDP"
    else:
        guarantee = c.guarantee
    size = (
        ("declared minimum table size", f"{c.min_rows:,}")
        if c.min_rows is not None
        else ("table size (public, bounded)", f"{c.n:,}" if c.n is not None else "-")
    )
    console.print(
        key_value_table(
            "synthcert release",
            [
                ("rows released", f"{c.n_out:,}"),
                size,
                ("encoded dimension d", c.d),
                (
                    "sigma" if c.ridge is None else "ridge rho (unconditional)",
                    f"{c.sigma:.6g} (declared)"
                    if c.sigma is not None
                    else (f"{c.ridge:.6g}" if c.ridge is not None else "data"),
                ),
                ("neighbouring", c.neighboring),
                ("alpha", c.alpha),
                ("epsilon_RDP (all rows)", c.epsilon_rdp),
                ("guarantee", guarantee),
                risk_row(c.claim),
                ("synthetic rows", result.output),
                ("certificate", result.certificate_path),
            ],
        )
    )
