"""Algorithm 9: repeated synthesis, mean and standard deviation of every figure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.seeding import run_seeds
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.utility.marginals import compare_marginals
from synthcert.utility.repeat import aggregate, flatten_figures, repeat, repeat_synthesis


def test_flatten_and_aggregate_by_hand():
    flat = flatten_figures({"a": {"b": 1, "c": None, "d": True}, "e": 2.5, "f": "text"})
    assert flat == {"a.b": 1.0, "e": 2.5}
    agg = aggregate([{"x": 1.0, "y": 2.0}, {"x": 3.0}, {"x": 5.0, "y": math.nan}])
    assert agg.mean["x"] == 3.0
    assert agg.std["x"] == pytest.approx(np.std([1.0, 3.0, 5.0]))  # divisor N, as np.std
    assert agg.count == {"x": 3, "y": 1}
    assert agg.mean["y"] == 2.0 and agg.std["y"] == 0.0


def test_run_seeds_are_reproducible_and_distinct():
    assert run_seeds(7, 5) == run_seeds(7, 5)
    assert len(set(run_seeds(7, 5))) == 5
    assert run_seeds(7, 3) == run_seeds(7, 5)[:3]


def test_repeat_calls_n_times():
    seen = []
    res = repeat(lambda s: seen.append(s) or {"v": float(len(seen))}, 4, seed=1)
    assert len(seen) == 4 and res.n_runs == 4
    assert res.mean["v"] == 2.5


def test_repeat_synthesis_refits_each_run():
    schema = demo_schema()
    real = make_demo_table(2000, seed=1)
    fits = []

    def make(seed):
        fits.append(seed)
        return GaussianSynthesizer(schema)

    res = repeat_synthesis(
        make,
        real,
        lambda fake, s: compare_marginals(real, fake, schema).summary,
        n_runs=3,
        seed=0,
    )
    assert len(fits) == 3
    assert res.count["l1_numeric_mean"] == 3
    assert 0 < res.mean["l1_numeric_mean"] < 1
    assert res.std["l1_numeric_mean"] > 0  # fresh samples differ
    assert "l1_categorical_mean" not in res.mean  # None (no categorical column) is skipped
