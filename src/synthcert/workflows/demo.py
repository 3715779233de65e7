"""The demo workflow: the main job end to end on a built-in table.

1. a certified release of the demo table, then a budget-sized release;
2. a DP synthesis with AIM at ε = 1, gated by the worst-case audit
   (:func:`~synthcert.workflows.audit_gate.audit_gate`, run before any data is read);
3. the utility evaluation of the AIM output against its input (internal: ``private/``);
4. the public report of the AIM release (its attack-risk figure draws the gate's point).

The demo table's generator is public (:func:`~synthcert.data.datasets.make_demo_table`), so its
size and a lower bound on its encoded covariance's smallest eigenvalue
(:data:`~synthcert.data.datasets.DEMO_SIGMA`) are public knowledge: both are declared, as a
real release declares them from a codebook. The AIM step runs on a smaller draw of the same
generator restricted to :data:`AIM_COLUMNS` (its size is public too, so it is the declared
number of output rows), with small public settings (:data:`AIM_PARAMS`) that keep the demo
and its audit within two minutes on two cores. The releases draw their randomness from OS
entropy, as a real release must; only the tables and the audit have seeds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from synthcert.workflows.release import ReleaseResult

if TYPE_CHECKING:
    from synthcert.audit.claim.result import ClaimAuditResult
    from synthcert.workflows.evaluate import EvaluationRun
    from synthcert.workflows.synthesize import SynthesisResult

DEMO_ROWS = 200_000
DEMO_TABLE_SEED = 2023
DEMO_BUDGET = {"epsilon": 1.0, "delta": 1e-10}
AIM_ROWS = 20_000
"""Rows of the AIM step's table (public: its generator is); δ = 1e-6 is below 1 / AIM_ROWS."""
AIM_BUDGET = {"epsilon": 1.0, "delta": 1e-6}
AIM_COLUMNS = ("age", "years_of_education", "hours_per_week")
AIM_PARAMS = {"bins": 8, "rounds": 3, "pgm_iters": 50}
"""Public AIM settings: 8 bins a column, 3 selection rounds (the fewest that measure the three
one-way marginals at ε = 1), 50 inference iterations."""
AUDIT_RUNS = 100
"""Fits per side of the audit gate (about 30 s on two busy cores at :data:`AIM_PARAMS`)."""


@dataclass(frozen=True)
class DemoRun:
    """What :func:`run_demo` wrote and released.

    Attributes
    ----------
    table_path, schema_path : pathlib.Path
        The demo table (Parquet) and its public schema.
    rows : int
        Rows of the demo table (public: its generator is).
    full : ReleaseResult
        As many synthetic rows as input rows, with their certificate.
    budgeted : ReleaseResult
        The largest release an (epsilon = 1, delta = 1e-10) budget allows.
    aim : SynthesisResult or None
        The AIM synthesis at ε = 1 (None when the demo ran with ``aim=False``).
    gate : ClaimAuditResult or None
        The worst-case audit that gated the AIM step (public; drawn on the report).
    evaluation : EvaluationRun or None
        The utility of the AIM output against its input (files under ``private/``).
    report_path : pathlib.Path or None
        The public report of the AIM release.
    """

    table_path: Path
    schema_path: Path
    rows: int
    full: ReleaseResult
    budgeted: ReleaseResult
    aim: SynthesisResult | None = None
    gate: ClaimAuditResult | None = None
    evaluation: EvaluationRun | None = None
    report_path: Path | None = None


def run_demo(
    out: str | os.PathLike,
    *,
    rows: int = DEMO_ROWS,
    table_seed: int = DEMO_TABLE_SEED,
    command: str = "synthcert demo",
    aim: bool = True,
    aim_rows: int = AIM_ROWS,
    audit_runs: int = AUDIT_RUNS,
    workers: int | None = None,
) -> DemoRun:
    """Write the demo table and its schema to ``out``, release from it twice, then run the
    audit-gated AIM synthesis, its evaluation and its public report.

    Parameters
    ----------
    out : str or os.PathLike
        Folder for the demo's files (created if missing).
    rows : int
        Rows of the census-like demo table (6 correlated, bounded numeric columns).
    table_seed : int
        Seed of the demo TABLE (its generator is public); the releases use OS entropy.
    command : str
        The command line, for the run's provenance.
    aim : bool, default True
        Run the AIM step (gate, synthesis, evaluation, report).
    aim_rows : int
        Rows of the AIM step's table (a draw of the same public generator).
    audit_runs : int
        Fits per side of the audit gate.
    workers : int, optional
        Processes for the audit's fits (default: the cores).

    Returns
    -------
    DemoRun
        The paths written, both releases' results, and the AIM step's.

    Raises
    ------
    BudgetError
        If ``rows`` is so small that the (1, 1e-10) budget allows no record, or the audit
        refutes the AIM claim (then no data is read for it).

    Examples
    --------
    >>> import tempfile
    >>> run = run_demo(tempfile.mkdtemp(), rows=100_000, aim=False)
    >>> run.full.certificate.claim.n_out, run.budgeted.certificate.claim.epsilon <= 1.0
    (100000, True)
    """
    from synthcert.data.datasets import DEMO_SIGMA, demo_schema, make_demo_table
    from synthcert.data.io import write_table, write_text
    from synthcert.workflows.job_inputs import Budget
    from synthcert.workflows.release import release

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    table_path, schema_path = folder / "demo_input.parquet", folder / "demo_schema.json"
    schema = demo_schema()
    write_table(make_demo_table(rows, seed=table_seed), table_path)
    write_text(schema.to_json(), schema_path)
    full = release(
        table_path,
        schema,
        folder / "synthetic_all_rows.csv",
        Budget(sigma=DEMO_SIGMA, min_rows=rows),
        command=command,
    )
    budgeted = release(
        table_path,
        schema,
        folder / "synthetic_eps1.csv",
        Budget(**DEMO_BUDGET, sigma=DEMO_SIGMA, min_rows=rows),
        command=command,
    )
    if not aim:
        return DemoRun(table_path, schema_path, rows, full, budgeted)
    steps = run_aim_step(
        folder, aim_rows=aim_rows, table_seed=table_seed, audit_runs=audit_runs,
        workers=workers, command=command,
    )  # fmt: skip
    return DemoRun(table_path, schema_path, rows, full, budgeted, *steps)


def run_aim_step(
    folder: Path,
    *,
    aim_rows: int,
    table_seed: int,
    audit_runs: int,
    workers: int | None,
    command: str,
) -> tuple[SynthesisResult, ClaimAuditResult, EvaluationRun, Path]:
    """The audit gate, then AIM at ε = 1, its evaluation (``private/``) and its public report."""
    from synthcert.data.datasets import demo_schema, make_demo_table
    from synthcert.data.io import write_table, write_text
    from synthcert.data.schema import Schema
    from synthcert.workflows.audit_gate import audit_gate
    from synthcert.workflows.evaluate import run_evaluation
    from synthcert.workflows.job_inputs import Budget
    from synthcert.workflows.synthesize import synthesize

    schema = Schema(tuple(c for c in demo_schema().columns if c.name in AIM_COLUMNS))
    budget = Budget(**AIM_BUDGET, n_out=aim_rows)  # the table's size is public here
    # before any data is read: the worst-case audit of this exact configuration (public)
    gate = audit_gate("aim", schema, budget, dict(AIM_PARAMS), runs=audit_runs, workers=workers)
    private = folder / "private"
    private.mkdir(exist_ok=True)
    table_path, schema_path = folder / "aim_input.parquet", folder / "aim_schema.json"
    write_table(make_demo_table(aim_rows, seed=table_seed)[list(AIM_COLUMNS)], table_path)
    write_text(schema.to_json(), schema_path)
    synthetic, report = folder / "synthetic_aim_eps1.csv", folder / "report.html"
    result = synthesize(
        table_path, schema, "aim", synthetic, budget,
        params=dict(AIM_PARAMS), report=report, internal_report=private / "internal_report.html",
        private_record=private / "run_record.json", command=command, claim_audit=gate,
    )  # fmt: skip
    evaluation = run_evaluation(
        table_path, synthetic, schema, out=private / "evaluation", command=command
    )
    return result, gate, evaluation, report


__all__ = [
    "AIM_BUDGET",
    "AIM_COLUMNS",
    "AIM_PARAMS",
    "AIM_ROWS",
    "AUDIT_RUNS",
    "DEMO_ROWS",
    "DEMO_TABLE_SEED",
    "DemoRun",
    "run_aim_step",
    "run_demo",
]
