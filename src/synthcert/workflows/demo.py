"""The demo workflow: a certified release of a built-in table, then a budget-sized release.

The demo table's generator is public (:func:`~synthcert.data.datasets.make_demo_table`), so its
size and a lower bound on its encoded covariance's smallest eigenvalue
(:data:`~synthcert.data.datasets.DEMO_SIGMA`) are public knowledge: both are declared, as a
real release declares them from a codebook. The releases draw their randomness from OS
entropy, as a real release must; only the table has a seed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from synthcert.workflows.release import ReleaseResult

DEMO_ROWS = 200_000
DEMO_TABLE_SEED = 2023
DEMO_BUDGET = {"epsilon": 1.0, "delta": 1e-10}


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
    """

    table_path: Path
    schema_path: Path
    rows: int
    full: ReleaseResult
    budgeted: ReleaseResult


def run_demo(
    out: str | os.PathLike,
    *,
    rows: int = DEMO_ROWS,
    table_seed: int = DEMO_TABLE_SEED,
    command: str = "synthcert demo",
) -> DemoRun:
    """Write the demo table and its schema to ``out``, then release from it twice.

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

    Returns
    -------
    DemoRun
        The paths written and both releases' results (rows out, certificates).

    Raises
    ------
    BudgetError
        If ``rows`` is so small that the (1, 1e-10) budget allows no record.

    Examples
    --------
    >>> import tempfile
    >>> run = run_demo(tempfile.mkdtemp(), rows=100_000)
    >>> run.full.certificate.n_out, run.budgeted.certificate.epsilon <= 1.0
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
    return DemoRun(table_path, schema_path, rows, full, budgeted)


__all__ = ["DEMO_ROWS", "DEMO_TABLE_SEED", "DemoRun", "run_demo"]
