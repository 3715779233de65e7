"""``synthcert release``: the certified release of synthetic rows without added noise."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._claims import emit_claim_json
from synthcert.cli._common import (
    console,
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
    check_missing_policy,
    deprecated,
    hidden,
    load_schema,
    option_group,
    parse_engine,
)
from synthcert.cli._params import RELEASE_PARAMS, merge_aliases, param_option, split_params
from synthcert.cli.ledger_command import LedgerOptions

if TYPE_CHECKING:
    from synthcert.audit.claim.result import ClaimAuditResult
    from synthcert.privacy.claims import PrivacyClaim
    from synthcert.run_record import RunRecord
    from synthcert.workflows.release import ReleaseResult

ReleaseParamOpt = Annotated[
    list[str] | None,
    param_option(RELEASE_PARAMS, "A rare setting (repeatable), e.g. --param n_out=5000."),
]


@app.command("release")
@handle_errors
@option_group("ledger_opts", LedgerOptions)
@option_group("old_csv", OldCsvFlags)
@option_group("old_private", OldPrivateFlags)
def release_command(
    input: InputArg,
    schema: SchemaOpt,
    out: OutOpt,
    sigma: Annotated[
        str | None,
        typer.Option(
            "--sigma",
            help="REQUIRED (or --param ridge=RHO). PUBLIC lower bound on the smallest "
            "eigenvalue of the encoded covariance of every table that differs from the input in "
            "one record (a table too close to it is refused). 'data' measures it on this table: "
            "then no guarantee is stated and no (epsilon, delta) is published.",
        ),
    ] = None,
    min_rows: MinRowsOpt = None,
    epsilon: Annotated[
        str | None,
        typer.Option(
            "--epsilon",
            help="Privacy budget: release the largest number of rows it allows (the floor), "
            "an (epsilon, delta)-DP budget with --delta or the default delta = 1/N^2. Without "
            "it, --param n_out rows (default --min-rows, or n under bounded neighbours) are "
            "released and the certificate says what they cost.",
        ),
    ] = None,
    delta: Annotated[
        str | None,
        typer.Option(
            "--delta",
            help="delta of (epsilon, delta)-DP. Default 1/N^2 (N = --min-rows, or n under "
            "bounded neighbours).",
        ),
    ] = None,
    private_dir: PrivateDirOpt = None,
    report: ReportOpt = None,
    param: ReleaseParamOpt = None,
    json_out: JsonOpt = False,
    # -- deprecated aliases (hidden; one release): each prints a note on stderr ---------------
    n_out: Annotated[str | None, hidden("--n-out")] = None,
    alpha: Annotated[str | None, hidden("--alpha")] = None,
    neighboring: Annotated[str | None, hidden("--neighboring")] = None,
    ridge: Annotated[str | None, hidden("--ridge")] = None,
    seed: Annotated[int | None, hidden("--seed")] = None,
    certificate: Annotated[Path | None, hidden("--certificate")] = None,
    conversion: Annotated[str | None, hidden("--conversion")] = None,
    missing: Annotated[str | None, hidden("--missing")] = None,
    old_csv: OldCsvFlags = OldCsvFlags(),
    chunk_rows: Annotated[str | None, hidden("--chunk-rows")] = None,
    save_private_params: Annotated[Path | None, hidden("--save-private-params")] = None,
    engine: Annotated[str | None, hidden("--engine")] = None,
    scheduler: SchedulerOpt = None,
    workers: Annotated[int | None, hidden("--workers")] = None,
    partition_rows: Annotated[str | None, hidden("--partition-rows")] = None,
    old_private: OldPrivateFlags = OldPrivateFlags(),
    log: OldLogOpt = None,
    ledger_opts: LedgerOptions = LedgerOptions(),
    audit_gate_runs: Annotated[
        int | None,
        typer.Option(
            "--audit-gate",
            help="Before reading any data, audit the certificate on the worst pair of this "
            "exact public configuration (audit-claim --synthesizer gaussian) with RUNS releases "
            "per side (e.g. 200); refuse if it refutes the certificate, else put its result in "
            "--json and on the public report. Any schema: the pair has its encoded dimension "
            "(docs/risk.md).",
        ),
    ] = None,
) -> None:
    """Fit the mean-and-covariance synthesizer, certify its inherent privacy, release rows.

    The certificate is (alpha, epsilon)-Renyi DP from the randomness of sampling alone
    (Miura et al., Theorem 3.1 / Corollary 3.2), converted to (epsilon, delta)-DP with the
    order alpha that minimises epsilon. Only the synthetic rows, the certificate (public
    fields only) and the public report are written; the mean and covariance never are. What
    the run learns about the table goes to --private-dir.

    How the input is read (separator, header, missing-value tokens, encoding) is the
    schema's "csv" section.

    Example: synthcert release people.csv --schema schema.json --sigma 0.01
    --min-rows 30000 --epsilon 1 --out synthetic.csv --private-dir private/
    """
    from synthcert.workflows.job_inputs import Budget, Execution, TableSource
    from synthcert.workflows.ledger_step import planned_release_claim
    from synthcert.workflows.release import default_certificate_path, release

    run, _ = split_params(param, RELEASE_PARAMS, others=False)
    aliases = (
        ("n_out", n_out, "--n-out"), ("neighboring", neighboring, "--neighboring"),
        ("ridge", ridge, "--ridge"), ("seed", seed, "--seed"),
        ("certificate", certificate, "--certificate"), ("missing", missing, "--missing"),
        ("chunk_rows", chunk_rows, "--chunk-rows"), ("engine", engine, "--engine"),
        ("engine", scheduler, "--scheduler"), ("workers", workers, "--workers"),
        ("partition_rows", partition_rows, "--partition-rows"),
    )  # fmt: skip
    merge_aliases(run, aliases, scheduler)
    for flag, value in (("--alpha", alpha), ("--conversion", conversion)):
        if value is not None:
            deprecated(flag, "alpha is chosen to minimise epsilon, and ckm is never looser")
    sch = load_schema(schema, log, old_csv)
    seed_value = run.get("seed")
    if seed_value is not None and (isinstance(seed_value, bool) or not isinstance(seed_value, int)):
        raise typer.BadParameter("--param seed must be a whole number")
    budget = Budget(
        sigma=parse_sigma(sigma),
        ridge=parse_float(str(run["ridge"])) if "ridge" in run else None,
        min_rows=parse_count(min_rows) if min_rows is not None else None,
        n_out=parse_count(str(run["n_out"])) if "n_out" in run else None,
        epsilon=parse_float(epsilon) if epsilon is not None else None,
        delta=parse_float(delta) if delta is not None else None,
        alpha=parse_float(alpha) if alpha is not None else None,
        neighboring=str(run.get("neighboring", "unbounded")),
        conversion=conversion or "ckm",
    )
    cert_path = Path(str(run["certificate"])) if "certificate" in run else None
    save_params = run.get("save_params", False)
    if not isinstance(save_params, bool):
        raise typer.BadParameter("--param save_params is true or false")
    if save_params and private_dir is None:
        raise typer.BadParameter("--param save_params=true writes to --private-dir: give it")
    pdir, record_path, internal_path = old_private.outputs(
        private_dir,
        [Path(out), cert_path or default_certificate_path(Path(out))],
        report,
        save_private_params,
    )
    params_path = save_private_params if pdir is None else (pdir.params if save_params else None)
    engine_name, address = parse_engine(str(run.get("engine", "local")))
    # privacy ledger (synthcert ledger show): checked before any data is read
    policy = ledger_opts.policy()

    def planned() -> PrivacyClaim:
        return planned_release_claim(budget)

    def audit() -> ClaimAuditResult:  # the worst-case audit (public), before reading any data
        from synthcert.workflows.audit_gate import release_audit_gate

        return release_audit_gate(sch, budget, runs=audit_gate_runs)  # type: ignore[arg-type]

    gate, reservation = policy.guard(  # checked, audited, then reserved (atomically)
        planned, budget.neighboring, None if audit_gate_runs is None else audit
    )
    with progress_bar(disable=json_out, unit="rows", counts=old_private.show_private) as bar:
        tasks: dict[str, int] = {}

        def on_progress(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(
                    "reading" if stage == "fit" else "sampling", total=total
                )
            bar.update(tasks[stage], completed=done, total=total)

        execution = Execution(
            engine=engine_name,
            scheduler=address,
            workers=parse_count(str(run["workers"])) if "workers" in run else None,
            chunk_rows=parse_count(str(run.get("chunk_rows", "1e6"))),
            partition_rows=(
                parse_count(str(run["partition_rows"])) if "partition_rows" in run else None
            ),
            progress=on_progress,
            notify=notify,
            warn=warn,
        )
        result = release(
            TableSource(input, csv=sch.read_options()),
            sch,
            out,
            budget,
            execution,
            seed=seed_value,
            missing=check_missing_policy(str(run.get("missing", "model"))),  # type: ignore[arg-type]
            certificate_path=cert_path,
            save_private_params=params_path,
            private_record=record_path,
            report=report,
            internal_report=internal_path,
            command=shlex.join(["synthcert", *sys.argv[1:]]),
            claim_audit=gate,
        )
    policy.record(result.certificate.claim, reservation)  # after rows and certificate
    if old_private.show_private:
        show_private_record(result.record)
    if json_out:
        emit_claim_json(result.certificate, result.certificate.claim, gate)
        return
    for path, what in ((report, "report"), (internal_path, "internal report (do not publish)")):
        if path is not None:
            console.print(f"{what} written to {path}")
    if record_path is not None:
        console.print(f"private run record written to {record_path} (do not publish)")
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
    claim = c.claim
    for note in claim.warnings:
        warn(note)
    if claim.epsilon is not None:
        guarantee = f"({claim.epsilon:.4g}, {claim.delta:.3g})-DP via {claim.conversion}"
    elif claim.epsilon_rdp is not None:
        guarantee = f"({claim.alpha:.4g}, {claim.epsilon_rdp:.4g})-RDP"
    else:
        guarantee = claim.guarantee
    size = (
        ("declared minimum table size", f"{c.min_rows:,}")
        if c.min_rows is not None
        else ("table size (public, bounded)", f"{c.n:,}" if c.n is not None else "-")
    )
    console.print(
        key_value_table(
            "synthcert release",
            [
                ("rows released", f"{claim.n_out:,}"),
                size,
                ("encoded dimension d", c.d),
                (
                    "sigma" if c.ridge is None else "ridge rho (unconditional)",
                    f"{c.sigma:.6g} (declared)"
                    if c.sigma is not None
                    else (f"{c.ridge:.6g}" if c.ridge is not None else "data"),
                ),
                ("neighbouring", claim.neighboring),
                ("alpha", claim.alpha),
                ("epsilon_RDP (all rows)", claim.epsilon_rdp),
                ("guarantee", guarantee),
                risk_row(claim),
                ("synthetic rows", result.output),
                ("certificate", result.certificate_path),
            ],
        )
    )
