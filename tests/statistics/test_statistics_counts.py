"""Counts on public bins: clique counts, the mergeable marginal and one-way accumulators."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.statistics import (
    CodesCounts,
    HistogramAccumulator,
    MarginalCounts,
    clique_counts,
)


def random_codes(seed: int, n: int, cards: list[int]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, k, n) for k in cards])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 300))
def test_clique_counts_equal_a_group_by(seed, n):
    cards = [3, 4, 2]
    codes = random_codes(seed, n, cards)
    got = clique_counts(codes, (2, 0), (2, 3))
    ref = np.zeros((2, 3), dtype=np.int64)
    if n:
        grouped = pd.DataFrame(codes).groupby([2, 0]).size()
        for (a, b), v in grouped.items():
            ref[a, b] = v
    assert got.dtype == np.int64 and np.array_equal(got, ref) and got.sum() == n


def test_merged_chunks_equal_one_pass_in_any_order():
    cards = [3, 4, 2]
    codes = random_codes(1, 1_000, cards)
    shapes = {(0, 1): (3, 4), (2,): (2,), (1, 2, 0): (4, 2, 3)}
    whole = MarginalCounts(shapes).update(codes)
    pieces = [MarginalCounts(shapes).update(codes[i : i + 300]) for i in range(0, 1_000, 300)]
    merged = MarginalCounts(shapes)
    for p in reversed(pieces):
        merged.merge(p)
    for clique in shapes:
        assert np.array_equal(merged.table(clique), whole.table(clique))
    assert merged.rows == whole.rows == merged.rows_read == 1_000


def test_rows_read_counts_the_rows_the_policy_dropped():
    mc = MarginalCounts({(0,): (2,)}).update(np.array([[0], [1]]), read=5)
    h = HistogramAccumulator([2]).update(np.array([[0], [1]]), read=5)
    assert (mc.rows, mc.rows_read) == (h.rows, h.rows_read) == (2, 5)


def test_histograms_are_the_one_way_marginal_counts():
    cards = [3, 4, 2]
    codes = random_codes(2, 777, cards)
    h = (
        HistogramAccumulator(cards)
        .update(codes[:400])
        .merge(HistogramAccumulator(cards).update(codes[400:]))
    )
    mc = MarginalCounts({(j,): (k,) for j, k in enumerate(cards)}).update(codes)
    source = CodesCounts(codes, cards).marginal([(j,) for j in range(3)])
    for j in range(3):
        assert np.array_equal(h.counts[j], mc.table((j,)))
        assert np.array_equal(h.counts[j], source[(j,)])
        assert np.array_equal(h.counts[j], np.bincount(codes[:, j], minlength=cards[j]))
    assert h.rows == 777
