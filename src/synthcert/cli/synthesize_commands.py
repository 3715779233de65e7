"""`synthcert synthesizers` and `synthcert synthesize`: any registered synthesizer."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from synthcert.cli._app import app
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    key_value_table,
    notify,
    parse_count,
    parse_float,
    parse_params,
    progress_bar,
    risk_row,
    warn,
)
from synthcert.cli._options import (
    EncodingOpt,
    EngineOpt,
    InternalReportOpt,
    JsonOpt,
    LogOpt,
    MinRowsOpt,
    NaOpt,
    NoHeaderOpt,
    OutOpt,
    ParamOpt,
    PrivateRecordOpt,
    ReportOpt,
    SchedulerOpt,
    SchemaOpt,
    SeedOpt,
    SepOpt,
    ShowPrivateOpt,
    csv_options,
    declare_log,
)
from synthcert.cli.ledger_command import (
    LedgerOpt,
    LifetimeDeltaOpt,
    LifetimeEpsilonOpt,
    ledger_policy,
)
from synthcert.cli.release_command import show_private_record


def parse_domain_ranges(items: list[str] | None) -> dict[str, tuple[float, float]]:
    """``COL=LO:HI`` items of --domain-range as {column: (lo, hi)}."""
    ranges: dict[str, tuple[float, float]] = {}
    for item in items or []:
        name, eq, span = item.partition("=")
        lo, colon, hi = span.rpartition(":")
        if not (eq and colon and name and lo and hi):
            raise typer.BadParameter(f"--domain-range expects COL=LO:HI, got {item!r}")
        ranges[name] = (parse_float(lo), parse_float(hi))
    return ranges


def parse_domain_shares(items: list[str] | None) -> dict[str, float]:
    """``COL=SHARE`` items of --domain-share as {column: share}."""
    shares: dict[str, float] = {}
    for item in items or []:
        name, eq, share = item.partition("=")
        if not (eq and name and share):
            raise typer.BadParameter(f"--domain-share expects COL=SHARE, got {item!r}")
        if name in shares:
            raise typer.BadParameter(f"--domain-share names {name!r} twice")
        shares[name] = parse_float(share)
    return shares


@app.command("synthesizers")
@handle_errors
def synthesizers_command(json_out: JsonOpt = False) -> None:
    """List every registered synthesizer with its privacy model."""
    from synthcert.synthesizers.registry import REGISTRY

    rows = [
        {"name": info.name, "privacy": info.privacy, "description": info.description}
        for info in REGISTRY.values()
    ]
    if json_out:
        emit_json(rows)
        return
    table = Table(title="synthcert synthesizers", title_justify="left")
    for col in ("name", "privacy", "description"):
        table.add_column(col)
    for row in rows:
        table.add_row(row["name"], row["privacy"], row["description"])
    console.print(table)


@app.command("synthesize")
@handle_errors
def synthesize_command(
    input: Annotated[
        str, typer.Argument(help="Input table: CSV or Parquet file, directory or glob.")
    ],
    schema: SchemaOpt,
    synthesizer: Annotated[
        str, typer.Option("--synthesizer", help="A name from `synthcert synthesizers`.")
    ],
    out: OutOpt,
    epsilon: Annotated[
        str | None,
        typer.Option(
            "--epsilon",
            help="DP budget epsilon (omit for no DP noise). Not for "
            "'gaussian', whose privacy is inherent: see its certificate.",
        ),
    ] = None,
    delta: Annotated[
        str | None,
        typer.Option(
            "--delta",
            help="delta of (epsilon, delta)-DP, for synthesizers that use "
            "it (e.g. 1e-5); the pure-DP ones report delta = 0.",
        ),
    ] = None,
    n_out: Annotated[
        str | None,
        typer.Option(
            "--n-out",
            help="Rows to synthesize (1e5 style accepted). Default: --min-rows for the "
            "add/remove-neighbour DP synthesizers (aim, mwem-pgm, ctgan; their table size is "
            "private), else as many as the input.",
        ),
    ] = None,
    min_rows: MinRowsOpt = None,
    seed: SeedOpt = None,
    param: ParamOpt = None,
    allow_data_domain: Annotated[
        bool,
        typer.Option(
            "--allow-data-domain",
            help="Run a DP synthesizer on a schema whose bounds or categories were read from "
            "the data; the run then states no guarantee.",
        ),
    ] = False,
    private_domain: Annotated[
        str | None,
        typer.Option(
            "--private-domain",
            metavar="SHARE",
            help="Spend SHARE (0 < SHARE < 1) of --epsilon on a DP estimate of every "
            'data-derived ("source": "data") bound (DP quantiles on a public grid) and '
            "category list (DP frequency threshold; needs --delta), and fit with the rest. "
            "The claim states the total.",
        ),
    ] = None,
    domain_range: Annotated[
        list[str] | None,
        typer.Option(
            "--domain-range",
            metavar="COL=LO:HI",
            help="A PUBLIC range searched by --private-domain's quantiles for COL, instead of "
            "the default public grid (+-1.00..9.99 x 10^k, k = -6..12). Repeatable.",
        ),
    ] = None,
    domain_share: Annotated[
        list[str] | None,
        typer.Option(
            "--domain-share",
            metavar="COL=SHARE",
            help="The fraction (0 < SHARE, summing to at most 1) of the --private-domain budget "
            "spent on COL's bounds or category list; the rest is split by need (a numeric "
            "column's two DP quantiles weigh 1 each, a category list at least 2). A category "
            "list that keeps fewer than two values drops its column, with a warning. "
            "Repeatable.",
        ),
    ] = None,
    dp_bins: Annotated[
        str | None,
        typer.Option(
            "--dp-bins",
            metavar="SHARE",
            help="Spend SHARE (0 < SHARE < 1) of --epsilon on DP quantile bin edges of the "
            'columns whose schema says "bins": "dp-quantile" (with "bin_count"), and fit with '
            "the rest. The claim states the total.",
        ),
    ] = None,
    dp_bins_log: Annotated[
        bool,
        typer.Option(
            "--dp-bins-log",
            help='With --dp-bins: also DP quantile bins (20) for every "scale": "log" column '
            "(the schema's mark of a long tail).",
        ),
    ] = False,
    engine: EngineOpt = "local",
    scheduler: SchedulerOpt = None,
    report: ReportOpt = None,
    internal_report: InternalReportOpt = None,
    private_record: PrivateRecordOpt = None,
    show_private: ShowPrivateOpt = False,
    no_header: NoHeaderOpt = False,
    sep: SepOpt = ",",
    na_value: NaOpt = None,
    encoding: EncodingOpt = "utf-8",
    log: LogOpt = None,
    ledger: LedgerOpt = None,
    lifetime_epsilon: LifetimeEpsilonOpt = None,
    lifetime_delta: LifetimeDeltaOpt = None,
    audit_gate_runs: Annotated[
        int | None,
        typer.Option(
            "--audit-gate",
            help="Before reading any data, run the worst-case audit (audit-claim) of this exact "
            "configuration with RUNS fits per side (e.g. 200); refuse if it refutes the claim, "
            "else put its result in --json and on the public report.",
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Fit a registered synthesizer on INPUT, sample rows, write them atomically to OUT.

    Prints the privacy claim (the requested DP budget, which the accountant's ledger never
    exceeds; for 'gaussian' its inherent-RDP certificate). Public output holds no fact about
    the table: the ledger, the rows read and the timings go to --private-record.
    'gaussian' always streams the input. gaussian-copula, privbayes, mwem-pgm and aim fit from
    marginal counts on the public bins, counted by engine passes over the input (never loaded
    whole) with --engine dask, or when INPUT is a folder, a glob or a Parquet file of more than
    10^7 rows; a single smaller file fits in memory. ctgan fits in memory only. With --out a
    folder, the rows are drawn and written part by part on the engine.

    Example: synthcert synthesize people.csv --schema schema.json --synthesizer aim
    --epsilon 1 --delta 1e-6 --min-rows 30000 --out synthetic.csv
    """
    from synthcert.data.schema import Schema
    from synthcert.report.provenance import command_line
    from synthcert.workflows.ledger_step import neighboring_of, planned_synthesis_claim
    from synthcert.workflows.synthesize import synthesize
    from synthcert.workflows.values import Budget, Execution, TableSource

    sch = declare_log(Schema.load(schema), log)
    budget = Budget(
        epsilon=parse_float(epsilon) if epsilon is not None else None,
        delta=parse_float(delta) if delta is not None else None,
        n_out=parse_count(n_out) if n_out is not None else None,
        min_rows=parse_count(min_rows) if min_rows is not None else None,
    )
    # privacy ledger (synthcert ledger show): checked before any data is read
    policy = ledger_policy(ledger, lifetime_epsilon, lifetime_delta)
    policy.check(
        lambda: planned_synthesis_claim(synthesizer, sch, budget, parse_params(param)),
        lambda: neighboring_of(synthesizer),
    )
    gate = None
    if audit_gate_runs is not None:  # the worst-case audit (public), before reading any data
        from synthcert.workflows.audit_gate import audit_gate

        gate = audit_gate(synthesizer, sch, budget, parse_params(param), runs=audit_gate_runs)
    with progress_bar(disable=json_out, counts=show_private) as bar:
        task = bar.add_task(f"fitting {synthesizer}")

        def on_stage(name: str, done: int, total: int | None) -> None:
            if name.startswith("fit: "):  # a selection round: the round and budget spent
                bar.update(task, description=f"{synthesizer} {name[5:]}")
                return
            text = "counting rows" if name == "count" else "sampling"
            bar.update(task, description=text, completed=done, total=total)

        result = synthesize(
            TableSource(input, csv=csv_options(no_header, sep, na_value, encoding, sch.csv_names)),
            sch,
            synthesizer,
            out,
            budget,
            Execution(
                engine=engine, scheduler=scheduler, progress=on_stage, notify=notify, warn=warn
            ),
            seed=seed,
            params=parse_params(param),
            allow_data_domain=allow_data_domain,
            private_domain=parse_float(private_domain) if private_domain is not None else None,
            domain_ranges=parse_domain_ranges(domain_range),
            domain_shares=parse_domain_shares(domain_share),
            dp_bins=parse_float(dp_bins) if dp_bins is not None else None,
            dp_bins_log=dp_bins_log,
            report=report,
            internal_report=internal_report,
            private_record=private_record,
            command=command_line(),
            claim_audit=gate,
        )
    policy.record(result.summary.claim)  # after the rows were written
    if show_private:
        show_private_record(result.record)
    summary = result.summary
    if json_out:
        emit_json(summary if gate is None else {**summary.to_dict(), "audit_gate": gate})
        return
    claim = summary.claim
    for note in claim.warnings:
        warn(note)
    rows = [
        ("synthesizer", synthesizer),
        ("rows out", f"{summary.rows_out:,}"),
        ("privacy model", claim.model),
        ("guarantee", claim.guarantee),
        ("neighbouring", claim.neighboring),
        ("epsilon", claim.epsilon),
        ("delta", claim.delta),
    ]
    if summary.private_domain is not None:
        rows.append(("domain", f"DP estimate from {summary.private_domain:g} of epsilon"))
    if claim.rho is not None:
        rows.append(("rho (zCDP)", claim.rho))
    if claim.alpha is not None:
        rows.append(("alpha, epsilon_RDP", f"{claim.alpha:.4g}, {claim.epsilon_rdp:.4g}"))
    rows.append(risk_row(claim))
    if gate is not None:
        lb = "-" if gate.epsilon_lower_bound is None else f"{gate.epsilon_lower_bound:.4g}"
        rows.append(("worst-case audit", f"epsilon >= {lb} measured ({gate.runs} runs per side, "
                     f"{100 * gate.confidence:g}% confidence): claim not refuted"))  # fmt: skip
    rows.append(("synthetic rows", str(out)))
    if private_record is not None:
        rows.append(("private run record", f"{private_record} (do not publish)"))
    console.print(key_value_table("synthcert synthesize", rows))
