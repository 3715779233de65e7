"""Fitting from marginal counts: CodesCounts, and the count-based fits of PrivBayes, MWEM, AIM."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthcert.data.datasets import adult_schema
from synthcert.data.discretize import Discretizer
from synthcert.errors import DataError
from synthcert.statistics.sources import CodesCounts, CountSource, maximal_sets
from synthcert.synthesizers import _bayesnet
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer


def brute_counts(codes: np.ndarray, clique: tuple[int, ...], cards: list[int]) -> np.ndarray:
    out = np.zeros([cards[c] for c in clique], dtype=np.int64)
    np.add.at(out, tuple(codes[:, c] for c in clique), 1)
    return out


def test_codes_counts_count_maximal_sets_once_and_derive_the_rest():
    rng = np.random.default_rng(0)
    cards = [3, 4, 2, 5]
    codes = np.column_stack([rng.integers(0, k, 1000) for k in cards])
    src = CodesCounts(codes, cards)
    assert isinstance(src, CountSource) and src.rows == 1000
    want = [(0, 1, 2), (2, 0), (1,), (3, 1), (2, 1, 0)]
    got = src.marginal(want)
    # (2, 0), (1,) and (2, 1, 0) lie inside {0, 1, 2}: only the maximal sets are counted
    assert src.counted == [[(0, 1, 2), (1, 3)]]
    for clique in want:
        assert got[clique].dtype == np.int64
        np.testing.assert_array_equal(got[clique], brute_counts(codes, clique, cards))
    again = src.marginal([(0,), (1, 2), (3,)])
    assert src.passes == 1  # all inside counted sets
    np.testing.assert_array_equal(again[(3,)], np.bincount(codes[:, 3], minlength=5))
    got[(0, 1, 2)][:] = -1  # answers are copies: the cache is untouched
    np.testing.assert_array_equal(
        src.marginal([(0, 1, 2)])[(0, 1, 2)], brute_counts(codes, (0, 1, 2), cards)
    )
    src.marginal([(0, 3)])
    assert src.passes == 2 and src.counted[1] == [(0, 3)]
    with pytest.raises(DataError, match="distinct column positions"):
        src.marginal([(0, 0)])
    with pytest.raises(DataError, match="distinct column positions"):
        src.marginal([(4,)])
    assert maximal_sets([(0, 1), (1,), (0, 1), (2,), (1, 2)]) == [(0, 1), (1, 2)]


def test_a_source_on_other_bins_is_refused(adult):
    schema = adult_schema().select(["age", "sex"])
    codes = Discretizer(schema, bins=10).transform(adult.iloc[:100])
    with pytest.raises(DataError, match="discretizer"):
        PrivBayesSynthesizer(schema, bins=20).fit_counts(CodesCounts(codes, [10, 2]))


# sums over sample(500, seed=3) of fits made by the code before fit_counts existed (integers)
RECORDED = {
    # re-recorded when the Laplace counts became exact discrete Laplace noise (issue 16), and
    # again when the exponential mechanism of the structure search became exact (issue 25), and
    # when capital-gain and capital-loss (lower bound 0) got a code for their atom 0 (issue 27)
    "laplace": (
        dict(epsilon=1.0, seed=4),
        {"age": 20233, "fnlwgt": 154789695, "education": 1866, "occupation": 2190, "income": 112},
    ),
    "staircase": (
        dict(epsilon=2.0, noise="staircase", seed=5),
        {"age": 20226, "fnlwgt": 123589711, "education": 1775, "occupation": 2446, "income": 147},
    ),
    "exact-degree-1": (
        dict(degree=1, seed=2),
        {"age": 19208, "fnlwgt": 93664701, "education": 1710, "occupation": 2401, "income": 109},
    ),
}


@pytest.mark.parametrize("case", list(RECORDED))
def test_privbayes_fit_is_unchanged_by_fitting_from_counts(adult, case):
    params, sums = RECORDED[case]
    synth = PrivBayesSynthesizer(adult_schema(), **params).fit(adult.iloc[:3000])
    out = synth.sample(500, seed=3)
    got = {
        c: int(out[c].sum()) if out[c].dtype.kind == "i" else int(out[c].cat.codes.sum())
        for c in sums
    }
    assert got == sums


def test_privbayes_prefetch_and_stepwise_requests_give_the_same_fit(adult, monkeypatch):
    schema = adult_schema()
    table = adult.iloc[:3000]
    codes = Discretizer(schema).transform(table)
    cards = Discretizer(schema).cardinalities
    one = CodesCounts(codes, cards)
    a = PrivBayesSynthesizer(schema, seed=1).fit_counts(one)
    assert one.passes == 1 and len(one.counted[0]) == 455  # all 3-subsets of 15 columns
    monkeypatch.setattr(_bayesnet, "PREFETCH_CELLS", 0)
    steps = CodesCounts(codes, cards)
    b = PrivBayesSynthesizer(schema, seed=1).fit_counts(steps)
    assert steps.passes == len(cards) - 1  # one request per greedy step
    assert a.order_ == b.order_
    assert all(np.array_equal(x, y) for x, y in zip(a.tables_, b.tables_, strict=True))
    pd.testing.assert_frame_equal(a.sample(300, seed=2), b.sample(300, seed=2))
    c = PrivBayesSynthesizer(schema, seed=1).fit(table)
    pd.testing.assert_frame_equal(a.sample(300, seed=2), c.sample(300, seed=2))
