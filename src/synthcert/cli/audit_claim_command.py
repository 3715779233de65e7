"""``synthcert audit-claim``: the worst-case audit of a DP claim, on tables built from the public
schema alone (issue 26). It reads no private table, so everything it prints and writes is
public."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    key_value_table,
    parse_count,
    parse_float,
    parse_params,
    progress_bar,
    warn,
)
from synthcert.cli._options import EngineOpt, JsonOpt, ParamOpt, SchedulerOpt

DEFAULT_RUNS_TEXT = "1000"


@app.command("audit-claim")
@handle_errors
def audit_claim_command(
    synthesizer: Annotated[
        str,
        typer.Option(
            "--synthesizer",
            help="Registry name of a DP synthesizer: privbayes, gaussian-copula, mwem-pgm, aim, "
            "ctgan; or gaussian (the certified release on the theorem's worst pair, --param "
            "n=, d=, sigma=, n_out=; no --epsilon).",
        ),
    ],
    epsilon: Annotated[
        str | None, typer.Option("--epsilon", help="The DP budget the synthesizer is run with.")
    ] = None,
    schema: Annotated[
        Path | None,
        typer.Option(
            "--schema",
            help="PUBLIC schema JSON: the pair of neighbouring tables is built from its bounds "
            "and categories alone (no data is read). Not needed with --design anchor.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    delta: Annotated[
        str | None,
        typer.Option("--delta", help="delta of (epsilon, delta)-DP, for synthesizers that use it."),
    ] = None,
    param: ParamOpt = None,
    runs: Annotated[
        str,
        typer.Option(
            "--runs",
            help="Independent fits per side (with and without the canary). Default 1000; the "
            "ceiling printed says how much more runs could show.",
        ),
    ] = DEFAULT_RUNS_TEXT,
    claimed_epsilon: Annotated[
        str | None,
        typer.Option(
            "--claimed-epsilon",
            help="The epsilon to test (default: the synthesizer's own claim). Set it below "
            "--epsilon to check that the audit catches an over-spending synthesizer.",
        ),
    ] = None,
    statistic: Annotated[
        str | None,
        typer.Option(
            "--statistic",
            help="white-box (the fit's noisy measurements, through the auditing hook; the "
            "default where the synthesizer exposes them) or black-box (synthetic rows in the "
            "canary's cell).",
        ),
    ] = None,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            help="Synthetic rows drawn per fit for the black-box statistic (0: draw none; "
            "white-box only).",
        ),
    ] = 1000,
    design: Annotated[
        str,
        typer.Option(
            "--design",
            help="domain (m copies of the schema's lowest corner plus a canary at its highest "
            "corner) or anchor (ten all-zero records plus an all-ones canary over three binary "
            "columns).",
        ),
    ] = "domain",
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            help="Seed of the runs. NOT secret: the audit touches no private data, so the seed "
            "is published with the result and anyone can re-run it.",
        ),
    ] = 0,
    confidence: Annotated[
        str, typer.Option("--confidence", help="Confidence of the lower bounds.")
    ] = "0.95",
    workers: Annotated[
        int | None, typer.Option("--workers", help="Worker processes (default: every core).")
    ] = None,
    engine: EngineOpt = "local",
    scheduler: SchedulerOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Folder for result.json and tradeoff.png (both public).", file_okay=False
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Audit a synthesizer's DP claim on a worst-case pair built from the public schema.

    The synthesizer is fitted --runs times on each of two neighbouring tables (under its own
    neighbouring relation: one record replaced, or added/removed): a repeated record at the
    lowest corner of the domain and a canary at the highest corner. A test statistic per fit
    gives an epsilon lower bound at the claim's delta (Clopper-Pearson at --confidence), set
    beside the claim and beside the CEILING (what an optimal test could prove with as many runs,
    from the mechanism's own privacy-loss distribution). violation = lower bound > claim.

    The result is PUBLIC: no private table is read, the seed is not secret. Example:

        synthcert audit-claim --schema s.json --synthesizer privbayes --epsilon 1 --json
    """
    from synthcert.audit.claim.run import run_claim_audit
    from synthcert.data.io import write_text
    from synthcert.data.schema import Schema
    from synthcert.errors import ParameterError

    if find_spec("dp_accounting") is None:
        raise ParameterError(
            "audit-claim computes ceilings and trade-off curves with dp-accounting: "
            "pip install 'synthcert[audit]'"
        )
    if design == "domain" and schema is None and synthesizer != "gaussian":
        raise ParameterError("--schema is needed with --design domain (the default)")
    k = parse_count(runs)
    loaded = Schema.load(schema) if schema is not None and design == "domain" else None
    with progress_bar(disable=json_out, unit="fits") as bar:
        task = bar.add_task(f"audit-claim {synthesizer}", total=2 * k)
        audit = run_claim_audit(
            synthesizer,
            loaded,
            epsilon=parse_float(epsilon) if epsilon is not None else None,
            delta=parse_float(delta) if delta is not None else None,
            params=parse_params(param),
            runs=k,
            claimed_epsilon=parse_float(claimed_epsilon) if claimed_epsilon else None,
            statistic=statistic,
            design=design,
            seed=seed,
            samples=samples,
            confidence=parse_float(confidence),
            workers=workers,
            engine=engine,
            scheduler=scheduler,
            progress=lambda n: bar.advance(task, n),
            notify=None if json_out else warn,
        )
    result = audit.result
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_text(json.dumps(result.to_dict(), indent=2) + "\n", out / "result.json")
        _figure(audit, out / "tradeoff.png")
    if json_out:
        emit_json(result)
        return
    _print(result, out)


def _figure(audit, path: Path) -> None:
    """The trade-off figure (the pair's curve when dp-accounting can compose its event)."""
    from synthcert.audit.claim.events import event_pld
    from synthcert.audit.claim.plots import tradeoff_figure
    from synthcert.privacy.tradeoff import claim_tradeoff, pld_tradeoff

    pair_curve = None
    if audit.event is not None:
        try:
            pair_curve = pld_tradeoff(event_pld(audit.event))
        except Exception:  # an event without a PLD here: the claim's curve only
            pair_curve = None
    tradeoff_figure(audit.result, claim_tradeoff(audit.claim), path, pair_curve=pair_curve)


def _print(result, out: Path | None) -> None:
    """The console summary: the three numbers, the two gaps and the verdict."""
    rows = [
        ("synthesizer", f"{result.synthesizer} ({result.neighbouring} neighbours)"),
        ("design", result.design),
        ("statistic", result.statistic),
        ("runs per side", result.runs),
        ("claimed epsilon", result.claimed_epsilon),
        ("delta", result.delta),
        ("epsilon lower bound", result.epsilon_lower_bound),
        ("ceiling (optimal test, same runs)", result.ceiling),
        ("gap: the test (ceiling - lb)", result.gap_test),
        ("gap: mechanism and runs (claim - ceiling)", result.gap_mechanism_runs),
    ]
    if result.claimed_mu is not None or result.mu_lower_bound is not None:
        rows += [
            ("claimed mu (sqrt(2 rho))", result.claimed_mu),
            ("mu lower bound", result.mu_lower_bound),
            ("mu ceiling", result.mu_ceiling),
        ]
    rows += [
        ("confidence", result.confidence),
        ("seconds", round(result.seconds, 2)),
    ]
    if result.reason:
        rows.append(("note", result.reason))
    console.print(key_value_table("audit-claim (public: no private data was read)", rows))
    if result.violation:
        console.print(
            f"[red bold]VIOLATION[/red bold]: the lower bound {result.epsilon_lower_bound:.4g} "
            f"exceeds the claimed epsilon {result.claimed_epsilon:g} at "
            f"{100 * result.confidence:g}% confidence."
        )
    else:
        console.print("[green]no violation[/green]: the runs do not refute the claim.")
    if out is not None:
        console.print(f"wrote {out / 'result.json'} and {out / 'tradeoff.png'}")
