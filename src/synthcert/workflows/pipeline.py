"""The one pipeline of ``release`` and ``synthesize``: open the run, fit, size and claim, sample,
publish, finish.

The certified release is the Gaussian synthesizer M_G sized to a budget (Theorem 3.1 /
Corollary 3.2), so both jobs are one sequence of steps, each written here once:

1. :meth:`RunOutputs.open` -- warn (a guessable user seed, a private file about to be
   written), expand the inputs and start the :class:`~synthcert.workflows.artefacts.Publication`
   (an output over an input, or a private path inside a public output, is refused before any
   work; the run's secret seed is drawn);
2. the job's own steps before the fit (``synthesize``: the DP domain and bins; building the
   model), outside this module;
3. :func:`run_pipeline` -- in one engine: fit (timed ``fit``), size the release and state its
   claim, draw the rows (timed ``sample``: a partitioned dataset part by part on the engine, or
   one file by the job's writer); then the job's public document, and the finish: the public
   report, the private files, the total time, the private run record, the internal report.

What differs between the jobs is a :class:`Route`: how the model is fitted (M_G from the
engine's merged moments; a registered synthesizer from moments, counts or rows), how the
release is sized and what its claim is (the largest n_out a budget allows, certified; or the
synthesizer's accountant composed with the DP pre-steps), how one output file is written, and
which public document is written (the certificate JSON; none besides the rows). The privacy
ledger and the audit gate, which run before any data is read, are
:meth:`synthcert.workflows.ledger_step.LedgerPolicy.guard`. Threads are the engine's only
(:func:`synthcert.engine.open_engine`); the pipeline runs its steps in this thread.
"""

from __future__ import annotations

import abc
import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from synthcert.data.io import expand_inputs
from synthcert.run_record import RunRecord
from synthcert.seeding import seed_warning
from synthcert.workflows.artefacts import Publication
from synthcert.workflows.job_inputs import Execution, TableSource

if TYPE_CHECKING:
    from synthcert.data.schema import Schema
    from synthcert.report.inputs import Released

F = TypeVar("F")  # what the fit learnt that sizing reads
P = TypeVar("P")  # the plan: the claim and what the public document needs
R = TypeVar("R", bound="Released")  # the public document (certificate or summary)


@dataclass(frozen=True)
class RunOutputs:
    """Where a run writes: the rows, the job's other public files, the report, private files.

    Attributes
    ----------
    out : Path
        The rows: a ``.csv``/``.parquet`` file, or a folder for a partitioned dataset.
    as_dataset : bool
        Write a partitioned Parquet dataset with a manifest (else one file).
    partition_rows : int or None
        Rows per output file of a dataset (None: the engine's plan).
    report, internal_report, private_record : path or None
        The public HTML report, the internal one, the private run record (mode 0600).
    public_extra, private_extra : tuple of Path
        The job's other public files (the certificate) and private files (the fitted
        parameters), checked with the rest before any work.

    Examples
    --------
    >>> outputs = RunOutputs.at("synthetic/", report="report.html")
    >>> outputs.out, outputs.as_dataset, outputs.public
    (PosixPath('synthetic'), True, [PosixPath('synthetic'), PosixPath('report.html')])
    """

    out: Path
    as_dataset: bool
    partition_rows: int | None = None
    report: str | os.PathLike | None = None
    internal_report: str | os.PathLike | None = None
    private_record: str | os.PathLike | None = None
    public_extra: tuple[Path, ...] = ()
    private_extra: tuple[Path, ...] = ()

    @classmethod
    def at(
        cls, out: str | os.PathLike, *, partitioned: bool | None = None, **paths: Any
    ) -> RunOutputs:
        """The outputs of a run writing its rows to ``out``: a dataset folder when
        ``partitioned``, or (None) when ``out`` names a folder (read before ``Path`` drops a
        trailing slash); ``paths`` are the other fields."""
        from synthcert.engine import is_dataset_target

        as_dataset = is_dataset_target(out) if partitioned is None else bool(partitioned)
        return cls(Path(out), as_dataset, **paths)

    @property
    def public(self) -> list[Path]:
        """The public outputs: the rows, the job's public files, the public report."""
        return [self.out, *self.public_extra, *([Path(self.report)] if self.report else [])]

    @property
    def private(self) -> list[Path]:
        """The private outputs: the record, the job's private files, the internal report."""
        named = (self.private_record, *self.private_extra, self.internal_report)
        return [Path(p) for p in named if p is not None]

    def open(
        self,
        source: TableSource,
        execution: Execution,
        *,
        seed: int | None,
        command: str,
        notes: Sequence[str] = (),
    ) -> Publication:
        """Step 1: warn (``notes``, then a guessable user seed), expand the input and start the
        publication (refusals of the output paths come before any data is read).

        Raises
        ------
        DataError
            No input file, an output over an input, or a private path inside a public one.
        """
        if execution.warn is not None:
            for note in (*notes, seed_warning(seed)):
                if note is not None:
                    execution.warn(note)
        inputs = expand_inputs(source.path)  # type: ignore[arg-type]
        return Publication.start(
            inputs=inputs, seed=seed, command=command, public=self.public, private=self.private
        )


class Route(abc.ABC, Generic[F, P, R]):
    """What one job does at the pipeline's steps; :func:`run_pipeline` does the rest.

    ``model`` is the job's synthesizer, built (not yet fitted).
    """

    model: Any

    @abc.abstractmethod
    def fit(self, engine: Any) -> F:
        """Fit ``model`` on the input with ``engine``; return what :meth:`plan` reads."""

    @abc.abstractmethod
    def plan(self, pub: Publication, fitted: F) -> tuple[int, P]:
        """The number of rows to release and the claim (refusing when impossible); private
        facts of the fit go to ``pub``."""

    @abc.abstractmethod
    def write_file(
        self, n: int, out: Path, *, seed: np.random.SeedSequence, engine: Any, protect: list[Path]
    ) -> None:
        """Draw the ``n`` rows into one output file (never over a ``protect`` path)."""

    @abc.abstractmethod
    def publish(self, pub: Publication, plan: P) -> R:
        """After the rows: the job's public document (written or not), private facts to
        ``pub``."""

    def keep_private(self, pub: Publication) -> None:
        """Write the job's private files (after the public report); none by default."""


@contextlib.contextmanager
def run_engine(
    execution: Execution, *, workers: int | None = None, one_blas_thread: bool = False
) -> Iterator[Any]:
    """The run's engine (:func:`synthcert.engine.open_engine`): the threads of the run.

    ``one_blas_thread``: BLAS on one thread in the block, so the engine's threads are the only
    parallelism (the (m, d) x (d, d) products of M_G give the same bits on one BLAS thread).
    """
    from synthcert.engine import open_engine

    with contextlib.ExitStack() as stack:
        if one_blas_thread:
            from threadpoolctl import threadpool_limits

            stack.enter_context(threadpool_limits(1, user_api="blas"))
        yield stack.enter_context(
            open_engine(execution.engine, execution.scheduler, workers=workers,
                        notify=execution.notify)
        )  # fmt: skip


def run_pipeline(
    route: Route[F, P, R],
    pub: Publication,
    outputs: RunOutputs,
    execution: Execution,
    *,
    sample_seed: np.random.SeedSequence,
    schema: Schema,
    claim_audit: Any = None,
    started: float | None = None,
    workers: int | None = None,
    one_blas_thread: bool = False,
) -> tuple[R, RunRecord]:
    """Step 3: fit, size and claim, sample, publish, finish (the steps of both jobs).

    Parameters
    ----------
    route
        The job's fit, sizing and claim, file writer and public document.
    pub
        The run's publication (:meth:`RunOutputs.open`).
    outputs
        Where the run writes.
    execution
        Engine, scheduler, progress (stage ``sample`` of a dataset), ``notify``.
    sample_seed
        The secret seed of the rows (chunk i from child i).
    schema
        The public schema the model was fitted on (for the reports).
    claim_audit
        The public worst-case audit of the configuration, drawn on the public report.
    started
        ``time.perf_counter()`` at the start: the private timing ``total`` is recorded.
    workers, one_blas_thread
        See :func:`run_engine`.

    Returns
    -------
    tuple
        The public document and the private run record (written where the outputs say).
    """
    with run_engine(execution, workers=workers, one_blas_thread=one_blas_thread) as engine:
        with pub.timed("fit"):
            fitted = route.fit(engine)
        n, plan = route.plan(pub, fitted)
        with pub.timed("sample"):
            if outputs.as_dataset:  # drawn and written part by part on the engine
                from synthcert.engine import plan as engine_plan
                from synthcert.engine import sample_partitioned

                sample_partitioned(
                    route.model, n, outputs.out, seed=sample_seed,
                    partition_rows=outputs.partition_rows or engine_plan.DEFAULT_PARTITION_ROWS,
                    engine=engine, protect=pub.inputs, progress=execution.stage("sample"),
                )  # fmt: skip
            else:
                route.write_file(n, outputs.out, seed=sample_seed, engine=engine,
                                 protect=pub.inputs)  # fmt: skip
    released = route.publish(pub, plan)
    record = finish_run(
        pub, outputs, released=released, schema=schema, claim_audit=claim_audit,
        keep_private=route.keep_private, started=started,
    )  # fmt: skip
    return released, record


def finish_run(
    pub: Publication,
    outputs: RunOutputs,
    *,
    released: Released,
    schema: Schema | None,
    claim_audit: Any = None,
    keep_private: Callable[[Publication], None] | None = None,
    started: float | None = None,
) -> RunRecord:
    """The finish of a run, after its rows and public document: the public report, the private
    files (``keep_private(pub)``), the total time, the private record (written only where the
    operator named it) and the internal report (which carries the record)."""
    if outputs.report is not None:
        pub.public_report(
            outputs.report, certificate=released, schema=schema, claim_audit=claim_audit
        )
    if keep_private is not None:
        keep_private(pub)
    if started is not None:
        pub.timing("total", time.perf_counter() - started)
    # the public claim too, so that `report --internal --private-record` alone names it
    pub.facts["released"] = released.to_dict()
    record = pub.finish(outputs.private_record)
    if outputs.internal_report is not None:
        pub.internal_report(outputs.internal_report, certificate=released, schema=schema)
    return record


__all__ = ["Route", "RunOutputs", "finish_run", "run_engine", "run_pipeline"]
