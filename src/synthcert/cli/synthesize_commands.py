"""`synthcert synthesizers` and `synthcert synthesize`: any registered synthesizer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from synthcert.cli._app import app
from synthcert.cli._claims import emit_claim_json
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
    warn,
)
from synthcert.cli._options import (
    InputArg,
    JsonOpt,
    MinRowsOpt,
    OldCsvFlags,
    OldLogOpt,
    OldPrivateFlags,
    OutOpt,
    PrivateDirOpt,
    ReportOpt,
    SchedulerOpt,
    SchemaOpt,
    deprecated,
    hidden,
    load_schema,
    option_group,
    parse_engine,
)
from synthcert.cli._params import (
    SYNTHESIZE_PARAMS,
    merge_alias,
    merge_aliases,
    param_option,
    split_params,
)
from synthcert.cli.ledger_command import LedgerOptions
from synthcert.cli.release_command import show_private_record

if TYPE_CHECKING:
    from synthcert.audit.claim.result import ClaimAuditResult
    from synthcert.privacy.claims import PrivacyClaim

SynthParamOpt = Annotated[
    list[str] | None,
    param_option(
        SYNTHESIZE_PARAMS,
        "A synthesizer parameter or a rare setting (repeatable), e.g. --param degree=2, "
        "--param marginals=beta (the thesis's copula), --param sigma=0.01 (gaussian). "
        "Settings:",
    ),
]


def parse_domain_ranges(items: list[str] | None) -> dict[str, tuple[float, float]]:
    """``COL=LO:HI`` items of --domain-range as {column: (lo, hi)}."""
    ranges: dict[str, tuple[float, float]] = {}
    for item in items or []:
        name, eq, span = item.partition("=")
        lo, colon, hi = span.rpartition(":")
        if not (eq and colon and name and lo and hi):
            raise typer.BadParameter(f"domain_range expects COL=LO:HI, got {item!r}")
        ranges[name] = (parse_float(lo), parse_float(hi))
    return ranges


def parse_domain_shares(items: list[str] | None) -> dict[str, float]:
    """``COL=SHARE`` items of --domain-share as {column: share}."""
    shares: dict[str, float] = {}
    for item in items or []:
        name, eq, share = item.partition("=")
        if not (eq and name and share):
            raise typer.BadParameter(f"domain_share expects COL=SHARE, got {item!r}")
        if name in shares:
            raise typer.BadParameter(f"domain_share names {name!r} twice")
        shares[name] = parse_float(share)
    return shares


@app.command("synthesizers")
@handle_errors
def synthesizers_command(
    json_out: JsonOpt = False,
    params: Annotated[
        bool,
        typer.Option(
            "--params",
            help="Also list each synthesizer's parameters (for --param KEY=VALUE) with their "
            "defaults; loads every synthesizer (CTGAN needs the ctgan extra).",
        ),
    ] = False,
) -> None:
    """List every registered synthesizer with its privacy model (and, with --params, the
    parameters `synthesize --param KEY=VALUE` accepts)."""
    from synthcert.synthesizers.registry import REGISTRY, parameter_defaults

    rows = [
        {"name": info.name, "privacy": info.privacy, "description": info.description}
        | ({"parameters": parameter_defaults(info.name)} if params else {})
        for info in REGISTRY.values()
    ]
    if json_out:
        emit_json(rows)
        return
    table = Table(title="synthcert synthesizers", title_justify="left")
    columns = (
        ("name", "parameters (--param KEY=VALUE)") if params else ("name", "privacy", "description")
    )
    for col in columns:
        table.add_column(col)
    for row in rows:
        if params:
            shown = row["parameters"]
            text = ", ".join(f"{k}={v}" for k, v in shown.items())
            table.add_row(row["name"], text if isinstance(shown, dict) else str(shown))
        else:
            table.add_row(row["name"], row["privacy"], row["description"])
    console.print(table)


@app.command("synthesize")
@handle_errors
@option_group("ledger_opts", LedgerOptions)
@option_group("old_csv", OldCsvFlags)
@option_group("old_private", OldPrivateFlags)
def synthesize_command(
    input: InputArg,
    schema: SchemaOpt,
    synthesizer: Annotated[
        str, typer.Option("--synthesizer", help="A name from `synthcert synthesizers`.")
    ],
    out: OutOpt,
    epsilon: Annotated[
        str | None,
        typer.Option(
            "--epsilon",
            help="DP budget epsilon (omit for no DP noise). Not for 'gaussian', whose privacy "
            "is inherent: see its certificate.",
        ),
    ] = None,
    delta: Annotated[
        str | None,
        typer.Option(
            "--delta",
            help="delta of (epsilon, delta)-DP, for synthesizers that use it (default 1e-5); "
            "the pure-DP ones report delta = 0.",
        ),
    ] = None,
    min_rows: MinRowsOpt = None,
    private_dir: PrivateDirOpt = None,
    report: ReportOpt = None,
    param: SynthParamOpt = None,
    json_out: JsonOpt = False,
    # -- deprecated aliases (hidden; one release): each prints a note on stderr ---------------
    n_out: Annotated[str | None, hidden("--n-out")] = None,
    seed: Annotated[int | None, hidden("--seed")] = None,
    allow_data_domain: Annotated[bool, hidden("--allow-data-domain")] = False,
    private_domain: Annotated[str | None, hidden("--private-domain")] = None,
    domain_range: Annotated[list[str] | None, hidden("--domain-range")] = None,
    domain_share: Annotated[list[str] | None, hidden("--domain-share")] = None,
    dp_bins: Annotated[str | None, hidden("--dp-bins")] = None,
    dp_bins_log: Annotated[bool, hidden("--dp-bins-log")] = False,
    engine: Annotated[str | None, hidden("--engine")] = None,
    scheduler: SchedulerOpt = None,
    old_private: OldPrivateFlags = OldPrivateFlags(),
    old_csv: OldCsvFlags = OldCsvFlags(),
    log: OldLogOpt = None,
    ledger_opts: LedgerOptions = LedgerOptions(),
    audit_gate_runs: Annotated[
        int | None,
        typer.Option(
            "--audit-gate",
            help="Before reading any data, run the worst-case audit (audit-claim) of this exact "
            "configuration with RUNS fits per side (e.g. 200); refuse if it refutes the claim, "
            "else put its result in --json and on the public report.",
        ),
    ] = None,
) -> None:
    """Fit a registered synthesizer on INPUT, sample rows, write them atomically to OUT.

    Prints the privacy claim (the requested DP budget, which the accountant's ledger never
    exceeds; for 'gaussian' its inherent-RDP certificate). Public output holds no fact about
    the table: the ledger, the rows read and the timings go to --private-dir.

    'gaussian' always streams the input. gaussian-copula, privbayes, mwem-pgm and aim fit from
    marginal counts on the public bins, counted by engine passes over the input (never loaded
    whole) with --param engine=dask, or when INPUT is a folder, a glob or a Parquet file of
    more than 10^7 rows; a single smaller file fits in memory. ctgan fits in memory only. With
    --out a folder, the rows are drawn and written part by part on the engine. How the input
    is read (separator, header, missing-value tokens, encoding) is the schema's "csv" section.

    Example: synthcert synthesize people.csv --schema schema.json --synthesizer aim
    --epsilon 1 --delta 1e-6 --min-rows 30000 --out synthetic.csv --private-dir private/
    """
    from synthcert.report.provenance import command_line
    from synthcert.workflows.job_inputs import Budget, Execution, TableSource
    from synthcert.workflows.ledger_step import neighboring_of, planned_synthesis_claim
    from synthcert.workflows.synthesize import refuse_unsized, synthesize

    run, params = split_params(param, SYNTHESIZE_PARAMS, others=True)
    if seed is not None:  # the workflow takes a seed given as a parameter as the run's seed
        merge_alias(run, "seed", seed, "--seed")
    aliases = (
        ("n_out", n_out, "--n-out"), ("allow_data_domain", allow_data_domain,
        "--allow-data-domain"), ("private_domain", private_domain, "--private-domain"),
        ("dp_bins", dp_bins, "--dp-bins"), ("dp_bins_log", dp_bins_log, "--dp-bins-log"),
        ("engine", engine, "--engine"), ("engine", scheduler, "--scheduler"),
    )  # fmt: skip
    merge_aliases(run, aliases, scheduler)
    for key, values, flag in (
        ("domain_range", domain_range, "--domain-range"),
        ("domain_share", domain_share, "--domain-share"),
    ):
        if values:
            deprecated(flag, f"use --param {key}=COL=VALUE")
            run.setdefault(key, []).extend(values)
    if "seed" in run:
        params["seed"] = run.pop("seed")
    sch = load_schema(schema, log, old_csv)
    budget = Budget(
        epsilon=parse_float(epsilon) if epsilon is not None else None,
        delta=parse_float(delta) if delta is not None else None,
        n_out=parse_count(str(run["n_out"])) if "n_out" in run else None,
        min_rows=parse_count(min_rows) if min_rows is not None else None,
    )
    for key in ("allow_data_domain", "dp_bins_log", "dp_tree"):
        if not isinstance(run.get(key, False), bool):
            raise typer.BadParameter(f"--param {key} is true or false")
    _, record_path, internal_path = old_private.outputs(private_dir, [Path(out)], report)
    engine_name, address = parse_engine(str(run.get("engine", "local")))
    share = run.get("private_domain")
    bins_share = run.get("dp_bins")
    refuse_unsized(synthesizer, budget)  # before the ledger reserves the run
    # privacy ledger (synthcert ledger show): checked before any data is read
    policy = ledger_opts.policy()

    def planned() -> PrivacyClaim:
        return planned_synthesis_claim(synthesizer, sch, budget, params)

    def audit() -> ClaimAuditResult:  # the worst-case audit (public), before reading any data
        from synthcert.workflows.audit_gate import audit_gate

        return audit_gate(synthesizer, sch, budget, params, runs=audit_gate_runs)  # type: ignore[arg-type]

    gate, reservation = policy.guard(  # checked, audited, then reserved (atomically)
        planned, lambda: neighboring_of(synthesizer), None if audit_gate_runs is None else audit
    )
    with progress_bar(disable=json_out, counts=old_private.show_private) as bar:
        task = bar.add_task(f"fitting {synthesizer}")

        def on_stage(name: str, done: int, total: int | None) -> None:
            if name.startswith("fit: "):  # a selection round: the round and budget spent
                bar.update(task, description=f"{synthesizer} {name[5:]}")
                return
            text = "counting rows" if name == "count" else "sampling"
            bar.update(task, description=text, completed=done, total=total)

        result = synthesize(
            TableSource(input, csv=sch.read_options()),
            sch,
            synthesizer,
            out,
            budget,
            Execution(
                engine=engine_name, scheduler=address, progress=on_stage, notify=notify, warn=warn
            ),
            params=params,
            allow_data_domain=bool(run.get("allow_data_domain", False)),
            private_domain=parse_float(str(share)) if share is not None else None,
            domain_ranges=parse_domain_ranges(run.get("domain_range")),
            domain_shares=parse_domain_shares(run.get("domain_share")),
            dp_bins=parse_float(str(bins_share)) if bins_share is not None else None,
            dp_bins_log=bool(run.get("dp_bins_log", False)),
            dp_tree=None if run.get("dp_tree") is None else bool(run["dp_tree"]),
            report=report,
            internal_report=internal_path,
            private_record=record_path,
            command=command_line(),
            claim_audit=gate,
        )
    policy.record(result.summary.claim, reservation)  # after the rows were written
    if old_private.show_private:
        show_private_record(result.record)
    summary = result.summary
    if json_out:
        emit_claim_json(summary, summary.claim, gate)
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
    if record_path is not None:
        rows.append(("private run record", f"{record_path} (do not publish)"))
    console.print(key_value_table("synthcert synthesize", rows))
