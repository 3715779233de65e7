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


def test_ctgan_epochs_reach_the_progress_callback_with_and_without_dp(tmp_path):
    """CTGAN trains for minutes: each epoch is reported (the count is public, the losses are
    not), without DP through ctgan's own training loop too."""
    import pytest

    pytest.importorskip("ctgan")
    pytest.importorskip("opacus")
    schema = Schema((CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v"))))
    people = tmp_path / "people.csv"
    pd.DataFrame({"a": ["x", "y"] * 30, "b": ["u", "v", "v"] * 20}).to_csv(people, index=False)
    tiny = {"epochs": 3, "embedding_dim": 8, "generator_dim": (16,), "discriminator_dim": (16,)}
    for epsilon in (None, 4.0):
        seen: list[str] = []
        budget = Budget(epsilon=epsilon, delta=1e-5 if epsilon else None, n_out=10, min_rows=60)
        synthesize(
            people, schema, "ctgan", tmp_path / "synthetic.csv", budget,
            Execution(progress=lambda stage, done, total, seen=seen: seen.append(stage)),
            seed=7, params=dict(tiny, batch_size=20),
        )  # fmt: skip
        epochs = [s for s in seen if s.startswith("fit: epoch")]
        assert epochs == ["fit: epoch 1/3", "fit: epoch 2/3", "fit: epoch 3/3"], (epsilon, seen)
    import ctgan.synthesizers.ctgan as module
    from tqdm import tqdm

    assert module.tqdm is tqdm  # put back after the fit
