"""``synthcert audit`` and ``synthcert reproduce setsubun``: the Setsubun game (seed 003, ch. 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from synthcert.cli._app import app, reproduce_app
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    parse_count,
    parse_float,
    parse_params,
    progress_bar,
    warn,
)
from synthcert.cli._options import (
    EngineOpt,
    InternalDirOpt,
    JsonOpt,
    OldCsvFlags,
    OldInternalFlags,
    ParamOpt,
    SchemaOpt,
    load_schema,
    option_group,
)


@app.command("audit")
@handle_errors
@option_group("old_internal", OldInternalFlags)
@option_group("old_csv", OldCsvFlags)
def audit_command(
    input: Annotated[
        str, typer.Argument(help="The private table (CSV or Parquet) the synthesizer is fitted on.")
    ],
    schema: SchemaOpt,
    synthesizer: Annotated[
        str,
        typer.Option(
            "--synthesizer",
            help="Registry name: gaussian, gaussian-copula, privbayes, mwem-pgm, aim, ctgan.",
        ),
    ],
    private_dir: InternalDirOpt = None,
    epsilon: Annotated[
        str | None,
        typer.Option("--epsilon", help="DP budget of the synthesizer (omit: no DP noise)."),
    ] = None,
    delta: Annotated[
        str | None, typer.Option("--delta", help="DP delta of the synthesizer, where it takes one.")
    ] = None,
    target: Annotated[
        str,
        typer.Option(
            "--target",
            help="Target choice: random, mah-max (largest Mahalanobis distance), iforest, ocsvm, "
            "divergence (largest Rényi divergence between the Gaussians fitted with and without "
            "the record), or a row number of INPUT (0-based).",
        ),
    ] = "mah-max",
    attacks: Annotated[
        str,
        typer.Option(
            "--attacks",
            help="Comma-separated attacks, 'thesis' (the ten of Table 3.1) or 'all' (adds "
            "statistics-calibrated).",
        ),
    ] = "all",
    trials: Annotated[
        str, typer.Option("--trials", help="Extractions N_exp (fits on D_pos and D_neg).")
    ] = "3",
    generations: Annotated[
        str, typer.Option("--generations", help="Synthetic tables N_gen per fit and side.")
    ] = "100",
    workers: Annotated[
        int, typer.Option("--workers", help="Worker processes; IMs do not depend on it.")
    ] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random draw of the game.")] = 0,
    param: ParamOpt = None,
    engine: EngineOpt = "local",
    json_out: JsonOpt = False,
    old_internal: OldInternalFlags = OldInternalFlags(),
    old_csv: OldCsvFlags = OldCsvFlags(),
) -> None:
    """Play the Setsubun game (thesis ch. 3): can an attacker tell from the synthetic data alone
    whether the most exposed record was used?

    Writes result.json (per attack: AUC with a bootstrap interval, TPR at 1 % and 0.1 % FPR, the
    empirical lower bound on epsilon), at_risk.csv (the 20 records most at risk: row and score,
    no values), ims.csv, im_histograms.png (D_pos red, D_neg blue), roc.png and
    internal-report.html to --private-dir DIR (REQUIRED). The table is read as the schema's
    "csv" section says.
    """
    from synthcert.report.provenance import command_line
    from synthcert.workflows.audit import audit
    from synthcert.workflows.job_inputs import Budget, Execution, TableSource

    sch = load_schema(schema, old_csv=old_csv)
    folder, internal = old_internal.outputs(private_dir)
    if folder is None:
        raise typer.BadParameter("give --private-dir DIR: the folder of the audit's files")
    engine_name, address = old_internal.engine(engine)
    budget = Budget(
        epsilon=parse_float(epsilon) if epsilon is not None else None,
        delta=parse_float(delta) if delta is not None else None,
    )
    with progress_bar(unit="tables") as bar:
        task = bar.add_task("Setsubun game", total=None)

        def tick(_stage: str, done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        run = audit(
            TableSource(input, csv=sch.read_options()),
            sch,
            synthesizer,
            folder,
            budget,
            Execution(engine=engine_name, scheduler=address, workers=workers, progress=tick),
            params=parse_params(param),
            target=target,
            attacks=attacks,
            trials=parse_count(trials),
            generations=parse_count(generations),
            seed=seed,
            report=internal,
            command=command_line(),
        )
    result = run.result
    for note in result.notes:
        warn(note)
    if json_out:
        emit_json(run.summary())
        return
    console.print(
        f"[bold]{result.synthesizer}[/bold] on {result.rows} rows (d = {result.encoded_dim}); "
        f"target row {result.target_row} by {result.target.method} "
        f"(Mahalanobis {result.target_mahalanobis:.2f}); {result.trials} x {result.generations} "
        f"tables per side in {result.elapsed_seconds:.0f} s"
    )
    tab = Table(title="Attack scores", title_justify="left")
    for col in ("attack", "AUC", "95% CI", "TPR@1%FPR", "TPR@0.1%FPR", "epsilon >="):
        tab.add_column(col, justify="right" if col != "attack" else "left")
    for name, s in result.attacks.items():
        tab.add_row(
            name,
            f"{s.auc:.3f}",
            f"[{s.auc_ci[0]:.3f}, {s.auc_ci[1]:.3f}]",
            f"{s.tpr_at_1pct_fpr:.3f}",
            f"{s.tpr_at_01pct_fpr:.3f}",
            "null" if s.epsilon_lower_bound is None else f"{s.epsilon_lower_bound:.3f}",
        )
    console.print(tab)
    reasons = {s.epsilon_bound.reason for s in result.attacks.values() if s.epsilon_bound.reason}
    for reason in sorted(reasons):
        console.print(f"epsilon lower bound null: {reason}")
    if result.privacy and result.privacy.get("epsilon") is not None:
        console.print(
            f"claimed guarantee: {result.privacy['model']} "
            f"epsilon = {result.privacy['epsilon']:.4g}"
            + (f", delta = {result.privacy['delta']:.3g}" if result.privacy.get("delta") else "")
        )
    console.print(f"wrote {', '.join(run.files.values())}")


@reproduce_app.command("setsubun")
@handle_errors
def reproduce_setsubun_command(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for aucs.csv, figure_3_3.png and grid.json.")
    ],
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Reduced grid for CI: 1,500 rows per dataset, 1 trial x 20 generations, "
            "gaussian-copula, privbayes and gaussian only.",
        ),
    ] = False,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes per audit.")] = 1,
    json_out: JsonOpt = False,
) -> None:
    """Thesis ch. 3 grid: Adult and California Housing x random / mah-max targets x the available
    synthesizers x the ten attacks; an AUC table and the Figure 3.3 bar chart."""
    from synthcert.reproduce.setsubun import THESIS_FINDINGS, reproduce_setsubun, summary_table

    with progress_bar(unit="tables") as bar:
        task = bar.add_task("grid", total=None)

        def tick(label: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, description=label)

        grid = reproduce_setsubun(out, quick=quick, workers=workers, progress=tick)
    for s in grid.skipped:
        warn(
            f"skipped {s.get('synthesizer')} {s.get('dataset', '')} {s.get('target', '')}: "
            f"{s['reason']}"
        )
    if json_out:
        emit_json(grid)
        return
    summary = summary_table(grid)
    tab = Table(title="Mean AUC over synthesizers (thesis Figure 3.3)", title_justify="left")
    for col in summary.columns:
        tab.add_column(str(col))
    for _, row in summary.iterrows():
        tab.add_row(*[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row.to_numpy()])
    console.print(tab)
    for ds, finding in THESIS_FINDINGS.items():
        console.print(f"thesis, {ds}: {finding}")
    for ds, m in grid.max_mahalanobis.items():
        console.print(
            f"largest Mahalanobis distance, {ds}: {m['ours']:.2f} here, {m['thesis']:.2f} in the "
            "thesis (full data)"
        )
    console.print(f"wrote {', '.join(grid.files.values())}")
