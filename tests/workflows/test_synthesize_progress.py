"""synthesize reports each selection round of AIM and MWEM-PGM through Execution.progress."""

from __future__ import annotations

import pandas as pd

from synthcert.data.schema import CategoricalColumn, Schema
from synthcert.workflows.job_inputs import Budget, Execution
from synthcert.workflows.synthesize import synthesize


def test_pgm_rounds_and_budget_reach_the_progress_callback(tmp_path):
    schema = Schema((CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v"))))
    people = tmp_path / "people.csv"
    pd.DataFrame({"a": ["x", "y"] * 20, "b": ["u", "v"] * 20}).to_csv(people, index=False)
    seen: list[str] = []
    synthesize(
        people, schema, "mwem-pgm", tmp_path / "synthetic.csv",
        Budget(epsilon=1.0, delta=1e-6, n_out=10),
        Execution(progress=lambda stage, done, total: seen.append(stage)),
        seed=7, params={"pgm_iters": 20},
    )  # fmt: skip
    rounds = [s for s in seen if s.startswith("fit: round")]
    assert rounds[0].startswith("fit: round 1/2") and "50% of the budget spent" in rounds[0]
    assert "100% of the budget spent" in rounds[-1]
