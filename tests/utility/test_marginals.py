"""One-way marginal distances: hand-computed and scipy values, invariants, the thesis's slip."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.spatial.distance import euclidean

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.utility.marginals import (
    compare_marginals,
    hellinger_distance,
    l1_distance,
    l2_distance,
    quantile_edges,
    wasserstein_categorical,
    wasserstein_on_support,
)

probability = st.lists(st.floats(0.0, 1.0), min_size=2, max_size=8).filter(lambda v: sum(v) > 0.01)


def _norm(v):
    a = np.asarray(v, float)
    return a / a.sum()


def test_hellinger_hand_values():
    assert hellinger_distance([1, 0], [0, 1]) == pytest.approx(1.0)
    assert hellinger_distance([0.3, 0.7], [0.3, 0.7]) == 0.0
    # sqrt(1 - sqrt(1/2)): (sqrt .5 - 1)^2 + (sqrt .5)^2 = 2 - sqrt 2, halved, rooted.
    assert hellinger_distance([0.5, 0.5], [1, 0]) == pytest.approx(math.sqrt(1 - math.sqrt(0.5)))


def test_hellinger_corrects_the_thesis_slip():
    """Def. 4.3.2 as printed, (sum sqrt x - sqrt y)^2, is 0 for two disjoint distributions."""
    p, q = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    printed = (np.sqrt(p) - np.sqrt(q)).sum() ** 2
    assert printed == 0.0
    assert hellinger_distance(p, q) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(probability, probability)
def test_hellinger_matches_scipy_and_bounds(a, b):
    k = min(len(a), len(b))
    if sum(a[:k]) <= 0.01 or sum(b[:k]) <= 0.01:
        return
    p, q = _norm(a[:k]), _norm(b[:k])
    h = hellinger_distance(p, q)
    assert h == pytest.approx(euclidean(np.sqrt(p), np.sqrt(q)) / math.sqrt(2), abs=1e-12)
    # H^2 = 1 - Bhattacharyya coefficient; H^2 <= TV <= sqrt(2) H.
    assert h**2 == pytest.approx(1 - np.sqrt(p * q).sum(), abs=1e-12)
    tv = 0.5 * l1_distance(p, q)
    assert h**2 <= tv + 1e-12
    assert tv <= math.sqrt(2) * h + 1e-12
    assert 0 <= h <= 1 + 1e-12
    assert l2_distance(p, q) <= l1_distance(p, q) + 1e-12


def test_wasserstein_on_support_matches_scipy_and_hand():
    support = np.array([0.0, 1.0, 2.0])
    # Move 0.5 of mass from 0 to 2: cost 0.5 * 2 = 1.
    assert wasserstein_on_support(support, [0.5, 0, 0.5], [0, 0, 1]) == pytest.approx(1.0)
    p, q = np.array([0.2, 0.3, 0.5]), np.array([0.6, 0.1, 0.3])
    assert wasserstein_on_support(support, p, q) == pytest.approx(
        stats.wasserstein_distance(support, support, p, q)
    )
    # On a line, W1 = integral of |F_p - F_q|: here 0.4 + 0.2 = 0.6.
    assert wasserstein_on_support(support, p, q) == pytest.approx(0.6)


def test_categorical_wasserstein_is_total_variation():
    assert wasserstein_categorical([0.5, 0.5, 0], [0, 0.5, 0.5]) == pytest.approx(0.5)


def _toy_schema():
    return Schema(
        (
            NumericColumn("x", 0.0, 10.0, atoms=()),  # no atom: the bins alone
            CategoricalColumn("c", ("a", "b", "z")),
        )
    )


def test_compare_marginals_hand_example():
    schema = _toy_schema()
    real = pd.DataFrame({"x": [0.0, 0.0, 1.0, 1.0], "c": ["a", "a", "b", "b"]})
    synth = pd.DataFrame({"x": [1.0, 1.0, 1.0, 1.0], "c": ["a", "b", "b", "z"]})
    res = compare_marginals(real, synth, schema, bins=10, binning="public")
    x, c = res.columns["x"], res.columns["c"]
    # x: bins of width 1 -> real 1/2 in bin 0, 1/2 in bin 1; synthetic all in bin 1.
    assert x.l1 == pytest.approx(1.0)
    assert x.l2 == pytest.approx(math.sqrt(0.5))
    assert x.hellinger == pytest.approx(math.sqrt(1 - math.sqrt(0.5)))
    assert x.wasserstein == pytest.approx(0.5)  # raw values, in the column's units
    assert x.wasserstein == pytest.approx(stats.wasserstein_distance([0, 0, 1, 1], [1] * 4))
    assert x.wasserstein_binned == pytest.approx(0.5)  # bin centres 0.5 and 1.5
    assert x.wasserstein_normalized == pytest.approx(0.05)
    # c: real (1/2, 1/2, 0), synthetic (1/4, 1/2, 1/4).
    assert c.l1 == pytest.approx(0.5)
    assert c.l2 == pytest.approx(math.sqrt(0.125))
    assert c.wasserstein == pytest.approx(0.25)
    assert res.summary["l1_numeric_mean"] == pytest.approx(1.0)
    assert res.summary["l1_categorical_mean"] == pytest.approx(0.5)
    assert res.summary["wasserstein_numeric_mean"] == pytest.approx(0.05)


def test_uses_public_bounds_not_data_range():
    """Values far outside the data but inside the public bounds change the binned figures."""
    schema = Schema((NumericColumn("x", 0.0, 100.0, atoms=()),))
    real = pd.DataFrame({"x": np.linspace(0, 4.9, 50)})  # all in the first bin of width 5
    synth = pd.DataFrame({"x": np.linspace(0.1, 4.8, 50)})
    res = compare_marginals(real, synth, schema, binning="public")
    assert res.columns["x"].l1 == 0.0  # same bin, different values
    assert res.columns["x"].wasserstein > 0


def test_quantile_bins_see_a_long_tail_the_public_bins_hide():
    """Lognormal values over public bounds 100x their median: on 20 equal-width bins the whole
    bulk is one bar, so a synthetic table that gets the tail wrong looks perfect; on the real
    column's quantile bins the error shows, and each bin holds ~1/20 of the real rows."""
    rng = np.random.default_rng(3)
    schema = Schema((NumericColumn("wage", 0.0, 1_000.0),))
    real = pd.DataFrame({"wage": np.clip(rng.lognormal(1.0, 1.0, 20_000), 0, 1_000)})
    synth = pd.DataFrame({"wage": np.clip(rng.lognormal(1.0, 0.5, 20_000), 0, 1_000)})
    public = compare_marginals(real, synth, schema, binning="public").columns["wage"]
    quant = compare_marginals(real, synth, schema, binning="quantile")
    q = quant.columns["wage"]
    assert public.l1 < 0.01
    assert q.l1 > 0.3
    # 20 quantile bins, then the code of the atom 0 (the lower bound), which no value holds
    assert quant.binning == "quantile" and len(q.real) == 21 and len(q.edges) == 21
    assert q.real[-1] == 0.0
    assert q.edges[0] == 0.0 and q.edges[-1] == 1_000.0
    np.testing.assert_allclose(q.real[:20], 1 / 20, atol=2e-3)
    assert compare_marginals(real, real, schema).columns["wage"].l1 == 0.0


def test_quantile_edges_merge_point_masses_and_keep_public_bins_when_constant():
    col = NumericColumn("x", 0.0, 10.0, integer=True)
    x = np.array([0] * 90 + [1] * 5 + [7] * 5, dtype=float)
    edges = quantile_edges(x, col, 20)
    assert edges[0] == 0.0 and edges[-1] == 10.0
    assert np.all(np.diff(edges) > 0) and set(edges) <= {0.0, 1.0, 7.0, 10.0}
    assert quantile_edges(np.zeros(10), col, 20) is None  # one bin: public bins instead
    schema = Schema((col,))
    res = compare_marginals(pd.DataFrame({"x": np.zeros(10)}), pd.DataFrame({"x": [9.0] * 10}),
                            schema, bins=5)  # fmt: skip
    assert len(res.columns["x"].real) == 5  # the public bins, and the error is seen
    assert res.columns["x"].l1 == pytest.approx(2.0)


def test_self_comparison_is_zero_on_adult(adult):
    from synthcert.data.datasets import adult_schema

    res = compare_marginals(adult, adult, adult_schema())
    for col in res.columns.values():
        for metric in ("l1", "l2", "hellinger", "wasserstein", "wasserstein_binned"):
            assert getattr(col, metric) == pytest.approx(0.0, abs=1e-12), (col.name, metric)
    assert all(v == pytest.approx(0.0, abs=1e-12) for v in res.summary.values())


def test_unknown_category_is_missing_and_empty_table_is_refused():
    schema = _toy_schema()
    real = pd.DataFrame({"x": [1.0], "c": ["a"]})
    # an undeclared category is a missing value (public rule): its row is dropped, so only
    # an empty table remains here
    with pytest.raises(DataError, match="empty"):
        compare_marginals(real, pd.DataFrame({"x": [1.0], "c": ["q"]}), schema)
    with pytest.raises(DataError, match="empty"):
        compare_marginals(real, pd.DataFrame({"x": [], "c": []}), schema)
