"""`synthcert synthesizers` and `synthcert synthesize`: any registered synthesizer."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import typer
from rich.progress import Progress, TaskID
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
)
from synthcert.cli._options import (
    EncodingOpt,
    EngineOpt,
    JsonOpt,
    NaOpt,
    NoHeaderOpt,
    OutOpt,
    ParamOpt,
    ReportOpt,
    SchedulerOpt,
    SchemaOpt,
    SepOpt,
    csv_options,
)
from synthcert.data.io import CsvOptions, is_parquet, read_table, write_table
from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.registry import REGISTRY, accepted_params, make_synthesizer

IN_MEMORY_MAX_ROWS = 10**7  # a single Parquet file with more rows is counted, not loaded


@app.command("synthesizers")
@handle_errors
def synthesizers_command(json_out: JsonOpt = False) -> None:
    """List every registered synthesizer with its privacy model."""
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
            help="Rows to synthesize (default: as many as the input; 1e5 style accepted).",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Random seed: same seed, same output.")
    ] = None,
    param: ParamOpt = None,
    engine: EngineOpt = "local",
    scheduler: SchedulerOpt = None,
    report: ReportOpt = None,
    no_header: NoHeaderOpt = False,
    sep: SepOpt = ",",
    na_value: NaOpt = None,
    encoding: EncodingOpt = "utf-8",
    json_out: JsonOpt = False,
) -> None:
    """Fit a registered synthesizer on INPUT, sample rows, write them atomically to OUT.

    Prints the privacy budget actually spent (the accountant's ledger of a DP fit), or for
    'gaussian' its inherent-RDP certificate for the rows released. 'gaussian' always streams
    the input. gaussian-copula, privbayes, mwem-pgm and aim fit from marginal counts on the
    public bins, counted by engine passes over the input (never loaded whole) with --engine
    dask, or when INPUT is a folder, a glob or a Parquet file of more than 10^7 rows; a single
    smaller file fits in memory (for privbayes, mwem-pgm and aim the fit is the same; the
    copula's counted fit uses binned marginals and Kendall taus). ctgan fits in memory only.
    With --out a folder, the rows are drawn and written part by part on the engine (chunk i
    from child i of the seed), the same rows on any number of workers.
    """
    sch = Schema.load(schema)
    eps = parse_float(epsilon) if epsilon is not None else None
    dlt = parse_float(delta) if delta is not None else None
    if eps is not None and not eps < float("inf"):
        eps = None  # epsilon = inf means no DP
    params = parse_params(param)
    fit_seed, sample_seed = np.random.SeedSequence(seed).spawn(2)
    if "seed" in accepted_params(synthesizer) and "seed" not in params:
        params["seed"] = int(fit_seed.generate_state(1)[0])  # the fit's noise and choices
    synth = make_synthesizer(synthesizer, sch, epsilon=eps, delta=dlt, **params)
    csv = csv_options(no_header, sep, na_value, encoding, sch.csv_names)
    streamed = isinstance(synth, GaussianSynthesizer)
    counted = hasattr(synth, "fit_counts") and (engine != "local" or partitioned_input(input))
    if engine != "local" and not (streamed or counted):
        raise SynthcertError(
            f"--engine {engine} fits only synthesizers whose fit is a reduction over the rows "
            f"(gaussian, gaussian-copula, privbayes, mwem-pgm, aim); {synthesizer!r} trains on "
            "rows in memory: use --engine local"
        )
    from synthcert.engine import fit_gaussian, is_dataset_target, open_engine, sample_partitioned

    partitioned = is_dataset_target(out)
    with (
        progress_bar(disable=json_out, unit="") as bar,
        open_engine(engine, scheduler, notify=notify) as eng,
    ):
        task = bar.add_task(f"fitting {synthesizer}")
        t0 = time.perf_counter()
        if streamed:
            fit_gaussian(input, synth, csv=csv, engine=eng)
            rows_in = synth.fit_.n
        elif counted:
            rows_in = fit_from_counts(synth, input, csv, eng, bar, task)
        else:
            table = read_table(input, csv)
            rows_in = len(table)
            synth.fit(table)
        t_fit = time.perf_counter() - t0
        n = parse_count(n_out) if n_out is not None else rows_in
        bar.update(task, description=f"sampling {n:,} rows")
        t0 = time.perf_counter()
        if partitioned:  # drawn and written part by part on the engine
            sample_partitioned(
                synth, n, out, seed=sample_seed, engine=eng, protect=[input], manifest_seed=seed,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )  # fmt: skip
        else:
            syn = synth.sample(n, seed=sample_seed)
            bar.update(task, description=f"writing {out}")
            write_table(syn, out, protect=[input])
        t_sample = time.perf_counter() - t0
    spent = budget_report(synth, n)
    if report is not None:
        from synthcert.report.build import write_report

        write_report(
            report,
            certificate=report_certificate(synthesizer, spent, rows_in, n),
            schema=sch,
            protect=[input],
        )
    payload = {
        "synthesizer": synthesizer,
        "rows_in": rows_in,
        "rows_out": n,
        "output": str(out),
        "seconds_fit": t_fit,
        "seconds_sample": t_sample,
        "params": synth.params(),
        **spent,
    }
    if json_out:
        emit_json(payload)
        return
    rows = [
        ("synthesizer", synthesizer),
        ("rows in / out", f"{rows_in:,} / {n:,}"),
        ("fit / sample time", f"{t_fit:.2f} s / {t_sample:.2f} s"),
        ("privacy model", spent["privacy"]["model"]),
        ("epsilon spent", spent["privacy"]["epsilon"]),
        ("delta", spent["privacy"]["delta"]),
    ]
    if spent.get("requested"):
        rows.append(("requested (epsilon, delta)", spent["requested"]))
    if spent.get("ledger"):
        rows.append(("mechanisms run", len(spent["ledger"])))
    if spent["privacy"].get("note"):
        rows.append(("note", spent["privacy"]["note"]))
    rows.append(("synthetic rows", str(out)))
    console.print(key_value_table("synthcert synthesize", rows))


def partitioned_input(path: str) -> bool:
    """True for inputs read in partitions: a folder, a glob, or Parquet of > 10^7 rows."""
    if any(ch in path for ch in "*?[") or Path(path).is_dir():
        return True
    if not (is_parquet(path) and Path(path).is_file()):
        return False
    try:
        return pq.ParquetFile(path).metadata.num_rows > IN_MEMORY_MAX_ROWS
    except (pa.ArrowInvalid, OSError):
        return False  # the in-memory reader reports what is wrong with the file


def fit_from_counts(
    synth: Any, input: str, csv: CsvOptions, engine: Any, bar: Progress, task: TaskID
) -> int:
    """``synth.fit_counts`` from passes of the opened ``engine`` over ``input``; rows counted."""
    from synthcert.engine import EngineCounts

    def on_rows(done: int, total: int | None) -> None:
        bar.update(task, description=f"counting, pass {source.passes + 1}: {done:,} rows")

    source = EngineCounts(input, synth.discretizer, engine=engine, csv=csv, progress=on_rows)
    synth.fit_counts(source)
    return source.rows


def budget_report(synth: Any, n_out: int) -> dict[str, Any]:
    """The budget spent: the accountant's totals and ledger, or the Gaussian certificate."""
    accountant = getattr(synth, "accountant", None)
    if accountant is not None:
        spent = accountant.check_within_budget()
        return {
            "privacy": synth.privacy.to_dict(),
            "requested": {"epsilon": accountant.epsilon, "delta": accountant.delta}
            if accountant.epsilon is not None
            else None,
            "spent": spent.to_dict(),
            "ledger": [e.to_dict() for e in accountant.ledger],
        }
    if hasattr(synth, "certificate"):
        cert = synth.certificate(n_out)
        return {
            "privacy": {
                "model": "inherent-rdp",
                "epsilon": cert.epsilon,
                "delta": cert.delta,
                "alpha": cert.alpha,
                "epsilon_rdp": cert.epsilon_rdp,
                "note": getattr(cert, "reason", "") or "",
            },
            "certificate": cert.to_dict() if hasattr(cert, "to_dict") else str(cert),
        }
    return {"privacy": synth.privacy.to_dict()}


def report_certificate(name: str, spent: dict[str, Any], rows_in: int, n_out: int) -> dict:
    """What the HTML report shows as the run's guarantee: the certificate, or what was spent."""
    if "certificate" in spent and isinstance(spent["certificate"], dict):
        return {"synthesizer": name, **spent["certificate"]}
    privacy = spent["privacy"]
    return {
        "synthesizer": name,
        "n": rows_in,
        "n_out": n_out,
        "epsilon": privacy.get("epsilon"),
        "delta": privacy.get("delta"),
        "privacy_model": privacy.get("model"),
        "warnings": [privacy["note"]] if privacy.get("note") else [],
    }
