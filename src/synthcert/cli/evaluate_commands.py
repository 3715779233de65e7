"""Commands ``synthcert evaluate`` (utility of one synthetic table) and ``synthcert reproduce
utility`` (the privacy-utility study of thesis chapter 4)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from synthcert.cli._app import app, reproduce_app
from synthcert.cli._common import (
    console,
    emit_json,
    format_value,
    handle_errors,
    key_value_table,
    parse_count,
    parse_float,
    progress_bar,
    warn,
)
from synthcert.cli._options import (
    EngineOpt,
    InternalDirOpt,
    JsonOpt,
    OldCsvFlags,
    OldInternalFlags,
    SchemaOpt,
    load_schema,
    option_group,
)

TargetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--target",
        help="Column to predict for machine-learning efficacy (repeatable): LightGBM RMSE for a "
        "numeric target, ROC AUC for a categorical one. Needs --holdout.",
    ),
]


@app.command("evaluate")
@handle_errors
@option_group("old_internal", OldInternalFlags)
@option_group("old_csv", OldCsvFlags)
def evaluate_command(
    real: Annotated[
        Path, typer.Argument(help="The real table the synthesizer was fitted on (CSV/Parquet).")
    ],
    synth: Annotated[
        Path,
        typer.Argument(
            help="The synthetic table (CSV/Parquet), laid out as synthcert writes it (a header "
            "line, ',' separated) whatever the schema's \"csv\" section, whose encoding and "
            "missing-value tokens apply."
        ),
    ],
    schema: SchemaOpt,
    target: TargetOpt = None,
    holdout: Annotated[
        Path | None,
        typer.Option(
            "--holdout",
            help="Real rows the synthesizer never saw: the test set of the efficacy models.",
        ),
    ] = None,
    private_dir: InternalDirOpt = None,
    bins: Annotated[int, typer.Option("--bins", help="Bins per numeric column.")] = 20,
    binning: Annotated[
        str,
        typer.Option(
            "--binning",
            help="Numeric bins: 'quantile' (at the real column's quantiles, so long tails are "
            "seen; the evaluation is internal) or 'public' (the schema's public bins, as the "
            "thesis). Partitioned (dask) runs use the public bins.",
        ),
    ] = "quantile",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the LightGBM models.")] = 0,
    engine: EngineOpt = "local",
    as_json: JsonOpt = False,
    old_internal: OldInternalFlags = OldInternalFlags(),
    old_csv: OldCsvFlags = OldCsvFlags(),
) -> None:
    """Measure what a synthetic table is still good for, against the real one.

    Per column: L1, L2 and Hellinger distances of the one-way distributions (numeric columns on
    20 bins at the real column's quantiles, or with --binning public on the schema's public
    bins; categorical on the declared categories) and
    Wasserstein-1 (numeric: raw values, in the column's units). Then the absolute difference
    of the numeric correlation matrices and of a mixed-type association matrix (Cramér's V,
    correlation ratio). With --target and --holdout: LightGBM trained on synthetic vs on real,
    both tested on the held-out rows. 0 means identical; see docs/utility.md.

    With --engine dask (or for inputs larger than memory) the tables are read in partitions:
    one-way distances and the numeric correlation difference only. The real and held-out tables
    are read as the schema's "csv" section says; the synthetic one is laid out as synthcert
    writes it (a header line, ',' separated), in the section's encoding.
    --private-dir DIR receives evaluation.json, columns.csv, the figures (PNG) and
    internal-report.html.
    """
    from synthcert.data.io import CsvOptions
    from synthcert.report.provenance import command_line
    from synthcert.workflows.evaluate import run_evaluation
    from synthcert.workflows.job_inputs import Execution, TableSource

    sch = load_schema(schema, old_csv=old_csv)
    folder, internal = old_internal.outputs(private_dir)
    engine_name, address = old_internal.engine(engine)
    opts = sch.read_options()
    run = run_evaluation(
        TableSource(real, csv=opts),
        # laid out as synthesize and release write it: a header line, ',' separated
        TableSource(
            synth,
            csv=sch.reading_text(CsvOptions(encoding=opts.encoding, na_values=opts.na_values)),
        ),
        sch,
        holdout=TableSource(holdout, csv=opts) if holdout is not None else None,
        target=target or None,
        bins=bins,
        binning=binning,
        seed=seed,
        execution=Execution(engine=engine_name, scheduler=address),
        out=folder,
        report=internal,
        command=command_line(),
    )
    result, files = run.evaluation, run.files
    if as_json:
        emit_json(result)
        return
    print_distances(result)
    for note in result.notes:
        warn(note)
    if result.efficacy:
        eff = Table(
            title=f"Train on synthetic, test on {result.n_holdout} held-out real rows (LightGBM)",
            title_justify="left",
        )
        for head in ("target", "metric", "trained on synthetic", "trained on real", "gap"):
            eff.add_column(head)
        for e in result.efficacy.values():
            eff.add_row(
                e.target,
                f"{e.metric} ({'lower' if e.metric == 'rmse' else 'higher'} is better)",
                format_value(e.synthetic),
                format_value(e.real),
                format_value(e.gap),
            )
            if e.note:
                warn(f"{e.target}: {e.note}")
        console.print(eff)
    if files:
        console.print("wrote " + ", ".join(str(f) for f in files))


def print_distances(result) -> None:
    """The per-column distance table and the summary."""
    table = Table(title="One-way marginal distances (0 = identical)", title_justify="left")
    for head in ("column", "kind", "L1", "L2", "Hellinger", "Wasserstein", "W / range"):
        table.add_column(head, justify="left" if head in ("column", "kind") else "right")
    for c in result.columns.values():
        table.add_row(
            c.name,
            c.kind,
            *(
                f"{v:.4g}"
                for v in (c.l1, c.l2, c.hellinger, c.wasserstein, c.wasserstein_normalized)
            ),
        )
    console.print(table)
    console.print(
        key_value_table(
            f"Summary ({result.n_real} real rows, {result.n_synthetic} synthetic rows)",
            list(result.summary.items()),
        )
    )


SHORT_NAMES = {
    "summary.l1_categorical_mean": "L1 cat",
    "summary.hellinger_categorical_mean": "Hel cat",
    "summary.l1_numeric_mean": "L1 num",
    "summary.hellinger_numeric_mean": "Hel num",
    "summary.wasserstein_numeric_mean": "W num",
    "summary.correlation_abs_diff_mean": "|ΔR|",
    "summary.association_abs_diff_mean": "|ΔA|",
}


def summary_table(study) -> Table:
    """The headline figures of the study (means over runs) as a rich table."""
    from synthcert.reproduce.utility import summary_frame

    wide = summary_frame(study)
    metric = dict(zip(study.targets, study.metrics, strict=True))
    table = Table(
        title="Utility by synthesizer and ε (mean over runs; distances: lower is better)",
        title_justify="left",
    )
    table.add_column("synthesizer")
    table.add_column("ε", justify="right")
    for col in wide.columns:
        if col in SHORT_NAMES:
            head = SHORT_NAMES[col]
        else:
            t = col.removeprefix("efficacy.").removesuffix(".synthetic")
            head = f"{t} {metric.get(t, '').upper()}"
        table.add_column(head, justify="right")
    for (name, eps), row in wide.iterrows():
        e = "∞" if math.isinf(eps) else f"{eps:g}"
        table.add_row(name, e, *("-" if v != v else f"{v:.3g}" for v in row.to_numpy()))
    real = ", ".join(f"{t} {metric[t].upper()} {v:.4g}" for t, v in study.real_efficacy.items())
    const = ", ".join(
        f"{t} {metric[t].upper()} {v:.4g}" for t, v in study.constant_efficacy.items()
    )
    table.caption = (
        f"LightGBM trained on the real training rows: {real}; "
        f"a model ignoring the features: {const}"
    )
    return table


def _parse_list(text: str | None, parse) -> list | None:
    if text is None or not text.strip():
        return None
    return [parse(t.strip()) for t in text.split(",") if t.strip()]


@reproduce_app.command("utility")
@handle_errors
def reproduce_utility(
    dataset: Annotated[
        str, typer.Option("--dataset", help="adult (held-out: adult.test) or california.")
    ] = "adult",
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the JSON, the CSV table and the figures.")
    ] = Path("utility-study"),
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="2,000 training and 2,000 held-out rows, 2 runs, epsilon in {inf, 4, 1}, "
            "lighter synthesizer settings: a few minutes on 2 cores.",
        ),
    ] = False,
    synthesizers: Annotated[
        str | None,
        typer.Option(
            "--synthesizers",
            help="Comma-separated registry names (default: every registered synthesizer that "
            "imports; the others are listed as unavailable).",
        ),
    ] = None,
    epsilons: Annotated[
        str | None,
        typer.Option("--epsilons", help="Comma-separated, e.g. 'inf,8,4,2,1' (the default)."),
    ] = None,
    delta: Annotated[str, typer.Option("--delta", help="delta of (epsilon, delta)-DP.")] = "1e-5",
    runs: Annotated[
        str | None, typer.Option("--runs", help="Runs per cell (Algorithm 9's N; default 5).")
    ] = None,
    rows: Annotated[
        str | None,
        typer.Option("--rows", help="Cap on training rows (and held-out rows), e.g. 1e4."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of splits, fits and samples.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", help="LightGBM threads.")] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Thesis chapter 4 on public data: synthesizers x epsilon x N runs, Figs. 4.3/4.4/4.9/4.10.

    Synthesizers are fitted on the training rows and evaluated against them (marginals,
    correlations); LightGBM efficacy is tested on held-out real rows. 'gaussian' has no epsilon
    (its privacy is certified from its sampling) and runs at epsilon = inf only.
    """
    from synthcert.reproduce.utility import run_utility_study, write_study

    cap = parse_count(rows) if rows is not None else None
    with progress_bar(disable=as_json, unit="runs") as bar:
        task = bar.add_task("loading", total=None)

        last = {"label": "", "start": time.perf_counter()}

        def progress(label: str, done: int, total: int) -> None:
            if label != last["label"]:
                if last["label"] and not as_json:
                    seconds = time.perf_counter() - last["start"]
                    bar.console.print(f"done {last['label']} ({seconds:.0f} s)", highlight=False)
                last.update(label=label, start=time.perf_counter())
            bar.update(task, description=label, completed=done, total=total)

        study = run_utility_study(
            dataset,
            synthesizers=_parse_list(synthesizers, str),
            epsilons=_parse_list(epsilons, parse_float),
            delta=parse_float(delta),
            n_runs=parse_count(runs) if runs is not None else None,
            n_train=cap,
            n_test=cap,
            quick=quick,
            seed=seed,
            n_jobs=jobs,
            progress=progress,
        )
    paths = write_study(study, out)
    if as_json:
        emit_json({**study.to_dict(), "files": {k: str(v) for k, v in paths.items()}})
        return
    for name, reason in study.unavailable.items():
        warn(escape(f"{name} not run: {reason}"))
    for c in study.cells:
        for err in c.errors:
            eps = "∞" if math.isinf(c.epsilon) else f"{c.epsilon:g}"
            warn(escape(f"{c.synthesizer} at ε={eps}: {c.n_runs - c.n_ok} run(s) failed: {err}"))
    console.print(
        f"[bold]{study.dataset}[/bold]: {study.n_train} training rows, {study.n_holdout} "
        f"held-out rows, {study.n_runs} run(s) per cell, δ = {study.delta:g}"
    )
    console.print(summary_table(study))
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
