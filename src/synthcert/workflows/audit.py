"""The audit workflow: play the Setsubun game on a table and write its files.

The game itself is the audit package's (:func:`synthcert.audit.run_audit`, Algorithms 7-8 of
seed 003); its files (``result.json``, ``at_risk.csv``, ``ims.csv``, the figures) are written
by :func:`synthcert.audit.write_audit`. This workflow reads the table, runs the game on the
engine asked for, refuses outputs that would overwrite the input before any work is done, and
writes the internal report through :class:`~synthcert.workflows.artefacts.Publication`.
The audit's files describe the real table: they are for the operator, never for publication.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synthcert.data.schema import Schema
from synthcert.workflows.artefacts import Publication
from synthcert.workflows.job_inputs import Budget, Execution, TableSource

FILES = ("result.json", "at_risk.csv", "ims.csv", "im_histograms.png", "roc.png")


@dataclass(frozen=True)
class AuditRun:
    """The audit's result (``synthcert.audit.AuditResult``) and the files written, by kind."""

    result: Any
    files: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The JSON of ``synthcert audit --json``: the summary without the raw IMs, and the
        files written."""
        from synthcert.audit import audit_summary

        doc = audit_summary(self.result)
        doc.pop("ims", None)
        doc["files"] = dict(self.files)
        return doc


def audit(
    source: TableSource | str | os.PathLike,
    schema: Schema,
    synthesizer: str,
    out: str | os.PathLike,
    budget: Budget | None = None,
    execution: Execution | None = None,
    *,
    params: dict[str, Any] | None = None,
    target: str | int = "mah-max",
    attacks: str = "all",
    trials: int = 3,
    generations: int = 100,
    seed: int = 0,
    report: str | os.PathLike | None = None,
    command: str = "",
) -> AuditRun:
    """Play the Setsubun game (thesis ch. 3) against ``synthesizer`` fitted on the table.

    Can an attacker tell, from the synthetic data alone, whether the most exposed record was
    in the training table? Each attack's membership scores give an AUC with a bootstrap
    interval, TPRs at low FPR and an empirical lower bound on epsilon.

    Parameters
    ----------
    source
        The private table (:class:`TableSource` with CSV options, or a path).
    schema
        The public schema.
    synthesizer
        A registry name (gaussian, gaussian-copula, privbayes, mwem-pgm, aim, ctgan).
    out
        The folder for ``result.json``, ``at_risk.csv``, ``ims.csv`` and the two figures.
    budget
        ``epsilon`` and ``delta`` of the synthesizer (None: no DP noise).
    execution
        ``engine`` (``"local"`` worker processes or ``"dask"``), ``scheduler``, ``workers``
        and ``progress`` (stage ``"audit"``, in generated tables). The IMs do not depend on
        them.
    params
        Extra synthesizer parameters.
    target
        random, mah-max, iforest, ocsvm, divergence, or a row position of the table.
    attacks
        Comma-separated attack names, ``"thesis"`` or ``"all"``.
    trials, generations
        Extractions N_exp, and synthetic tables N_gen per fit and side.
    seed
        Seed of every random draw of the game (an audit releases nothing).
    report
        Also write the INTERNAL HTML report of the audit.
    command
        The command line, for the run's private record.

    Returns
    -------
    AuditRun
        ``result`` (:class:`synthcert.audit.AuditResult`) and ``files`` (kind -> path).

    Raises
    ------
    DataError
        An output that would overwrite the input, or a malformed table.
    ParameterError
        A budget field the audit does not use (sigma, min_rows, ...).
    SynthcertError
        An unknown synthesizer, attack or target.

    Examples
    --------
    >>> from synthcert.workflows.audit import audit
    >>> run = audit(
    ...     "people.csv", schema, "privbayes", "audit/", Budget(epsilon=1.0)
    ... )  # doctest: +SKIP
    >>> sorted(run.files)  # doctest: +SKIP
    ['at_risk', 'histograms', 'ims', 'result', 'roc']
    """
    from synthcert.audit import run_audit, write_audit

    budget = budget or Budget()
    budget.refuse_unused("audit", "epsilon", "delta")
    execution = execution or Execution()
    source = TableSource.of(source).reading(schema)
    folder = Path(out)
    pub = Publication.start(
        inputs=source.inputs(),
        seed=None,
        command=command,
        public=[],
        private=[*(folder / name for name in FILES), *([Path(report)] if report else [])],
    )
    table = source.read()
    with pub.timed("audit"):
        result = run_audit(
            table,
            schema,
            synthesizer,
            epsilon=budget.epsilon,
            delta=budget.delta,
            synthesizer_params=dict(params or {}),
            target=target,
            attacks=attacks,
            trials=trials,
            generations=generations,
            workers=execution.workers or 1,
            seed=seed,
            progress=execution.stage("audit"),
            engine=execution.engine,
            scheduler=execution.scheduler,
        )
    paths = write_audit(result, folder, protect=tuple(pub.inputs))
    files = {k: str(v) for k, v in paths.items()}
    if report is not None:
        from synthcert.audit import audit_summary

        files["report"] = str(
            pub.internal_report(
                report,
                certificate=None,
                audit=audit_summary(result),
                schema=schema,
                with_record=False,
            )
        )
    return AuditRun(result, files)


__all__ = ["AuditRun", "audit"]
