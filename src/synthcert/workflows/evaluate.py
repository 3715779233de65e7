"""The evaluate workflow: measure a synthetic table against the real one, write the files.

Every figure comes from :func:`synthcert.utility.evaluate` (in memory, or on an engine for
tables larger than memory); the files (``evaluation.json``, ``columns.csv``, the figures, the
internal report) are written through :class:`~synthcert.workflows.artefacts.Publication`,
which refuses any output that would overwrite an input. They describe the real table: they are
for the operator, never for publication.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synthcert._result import Result
from synthcert.data.schema import Schema
from synthcert.utility.results import UtilityEvaluation
from synthcert.workflows.artefacts import Publication
from synthcert.workflows.job_inputs import Execution, TableSource

Table = TableSource | str | os.PathLike
FILES = (
    "evaluation.json",
    "columns.csv",
    "column_distances.png",
    "marginals.png",
    "correlation_difference.png",
    "association_difference.png",
)


@dataclass(frozen=True)
class EvaluationRun(Result):
    """What the evaluate workflow measured, and the files it wrote (in order)."""

    evaluation: UtilityEvaluation
    files: tuple[str, ...] = field(default_factory=tuple)


def run_evaluation(
    real: Table,
    synthetic: Table,
    schema: Schema,
    *,
    holdout: Table | None = None,
    target: str | list[str] | None = None,
    bins: int | None = None,
    binning: str = "quantile",
    seed: int = 0,
    execution: Execution | None = None,
    out: str | os.PathLike | None = None,
    report: str | os.PathLike | None = None,
    command: str = "",
) -> EvaluationRun:
    """Evaluate ``synthetic`` against ``real`` and write the evaluation's files.

    In memory (``execution.engine == "local"``, the default) every figure of thesis
    section 4.3.3 is computed: one-way distances (Defs. 4.3.1-4.3.4), correlation and
    association differences, and with ``target`` and ``holdout`` LightGBM efficacy. On another
    engine (``"dask"``) the tables are read in partitions and only the one-way distances and
    the numeric correlation difference are computed.

    Parameters
    ----------
    real, synthetic
        The real table the synthesizer was fitted on, and the synthetic one
        (:class:`TableSource` or a path; a source's ``csv`` options are used to read it).
    schema
        The public schema.
    holdout
        Real rows the synthesizer never saw (the efficacy models' test set).
    target
        Column(s) to predict for machine-learning efficacy (needs ``holdout``).
    bins
        Bins per numeric column (default: the discretizer's 20).
    binning
        ``"quantile"`` (default): numeric bins at the real column's quantiles, in memory;
        ``"public"``: the schema's public bins. An engine run uses the public bins.
    seed
        Seed of the LightGBM models (not a secret: nothing is released).
    execution
        ``Execution(engine="dask", scheduler=...)`` for tables larger than memory.
    out
        A folder for ``evaluation.json``, ``columns.csv`` and the figures (PNG); in memory
        all of them, on an engine ``evaluation.json`` only.
    report
        Also write the INTERNAL HTML report of the evaluation (it describes the real table).
    command
        The command line, for the run's private record.

    Returns
    -------
    EvaluationRun
        ``evaluation`` (the figures) and ``files`` (the paths written, in order).

    Raises
    ------
    DataError
        Efficacy without held-out rows, an unknown target, an empty table, or an output that
        would overwrite an input.
    ParameterError
        Efficacy asked of an engine run.

    Examples
    --------
    >>> from synthcert.workflows.evaluate import run_evaluation
    >>> run = run_evaluation("real.csv", "fake.csv", schema, out="evaluation/")  # doctest: +SKIP
    >>> run.files[0]  # doctest: +SKIP
    'evaluation/evaluation.json'
    """
    from synthcert.utility.evaluate import evaluate as measure

    execution = execution or Execution()
    # every table is read as the schema's "csv" section says, unless its source names options
    sources = [TableSource.of(t).reading(schema) for t in (real, synthetic)]
    hold = TableSource.of(holdout).reading(schema) if holdout is not None else None
    folder = Path(out) if out is not None else None
    pub = Publication.start(
        inputs=[p for s in (*sources, *([hold] if hold else [])) for p in s.inputs()],
        seed=None,
        command=command,
        public=[],
        private=[  # refused before any work if one of them is an input
            *([folder / name for name in FILES] if folder is not None else []),
            *([Path(report)] if report is not None else []),
        ],
    )
    options: dict[str, Any] = {} if bins is None else {"bins": bins}
    with pub.timed("evaluate"):
        if execution.engine == "local":
            result = measure(
                sources[0].read(),
                sources[1].read(),
                schema,
                target=target or None,
                holdout=hold.read() if hold is not None else None,
                seed=seed,
                binning=binning,
                **options,
            )
        else:
            result = measure(
                sources[0].path,  # type: ignore[arg-type]
                sources[1].path,  # type: ignore[arg-type]
                schema,
                target=target or None,
                csv=sources[0].csv,
                engine=execution.engine,
                scheduler=execution.scheduler,
                **options,
            )
    files: list[Path] = []
    if folder is not None:
        files += write_evaluation(pub, result, folder, schema)
    if report is not None:
        files.append(
            pub.internal_report(
                report,
                certificate=None,
                evaluation=result.to_dict(),
                schema=schema,
                with_record=False,
            )
        )
    return EvaluationRun(result, tuple(str(f) for f in files))


def write_evaluation(
    pub: Publication, result: UtilityEvaluation, folder: Path, schema: Schema
) -> list[Path]:
    """``evaluation.json``; in memory also ``columns.csv`` and the figures."""
    files = [pub.json(result, folder / "evaluation.json")]
    if result.streamed:
        return files
    from synthcert.utility import plots

    files.append(pub.table(result.column_table(), folder / "columns.csv"))
    files.append(
        pub.figure(
            lambda p: plots.plot_column_distances(result, p), folder / "column_distances.png"
        )
    )
    files.append(
        pub.figure(
            lambda p: plots.plot_marginals(result, p, schema=schema), folder / "marginals.png"
        )
    )
    if len(result.correlation.columns) >= 2:
        files.append(
            pub.figure(
                lambda p: plots.plot_matrix_difference(
                    result.correlation, p, title="Correlation of numeric columns"
                ),
                folder / "correlation_difference.png",
            )
        )
    if result.association is not None:
        association = result.association
        files.append(
            pub.figure(
                lambda p: plots.plot_matrix_difference(
                    association, p, title="Association (r, Cramér's V, correlation ratio)"
                ),
                folder / "association_difference.png",
            )
        )
    return files


__all__ = ["EvaluationRun", "run_evaluation", "write_evaluation"]
