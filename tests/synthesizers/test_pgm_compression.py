"""AIM's domain compression (``compress=True``): which codes merge, decompression, privacy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synth_checks import check_table

from synthcert.data.datasets import adult_schema
from synthcert.data.discretize import Discretizer
from synthcert.errors import ParameterError
from synthcert.privacy.accountant import rho_from_epsilon_delta
from synthcert.synthesizers._pgm_estimation import Measurement
from synthcert.synthesizers._pgm_mechanisms import (
    COMPRESS_SD,
    Estimator,
    PGMState,
    compress_model,
    compression_rule,
    merge_low,
    merge_runs,
)
from synthcert.synthesizers.pgm import AIMSynthesizer, MWEMPGMSynthesizer

COLUMNS = ["age", "race", "native-country", "income"]


@pytest.fixture(scope="module")
def rare(adult):
    """Adult columns with rare categories (native-country, race) and tree-less age bins."""
    schema = adult_schema().select(COLUMNS)
    return schema, adult[COLUMNS].iloc[:3000].reset_index(drop=True)


def test_unordered_codes_below_the_threshold_share_exactly_one_cell():
    rng = np.random.default_rng(0)
    for _ in range(200):
        y = rng.normal(0, 50, size=rng.integers(2, 12)) + rng.choice([0, 400], size=1)
        y = np.where(rng.random(len(y)) < 0.5, y, y + 500)
        group = merge_low(y, 150.0)
        low = y < 150.0
        if 2 <= low.sum() < len(y):
            # the merged cell is the last one and holds exactly the codes below the threshold
            assert set(np.flatnonzero(group == group.max())) == set(np.flatnonzero(low))
            # every other code keeps a cell of its own, in order
            assert np.array_equal(group[~low], np.arange((~low).sum()))
        else:
            assert np.array_equal(group, np.arange(len(y)))


def test_ordered_bins_merge_in_runs_of_adjacent_bins():
    rng = np.random.default_rng(1)
    for _ in range(200):
        y = rng.normal(200, 150, size=rng.integers(2, 20))
        group = merge_runs(y, 150.0)
        assert group[0] == 0 and np.all(np.diff(group) >= 0) and np.all(np.diff(group) <= 1)
        w = np.maximum(y, 0.0)
        sums = np.bincount(group, weights=w)
        if len(sums) > 1:  # every run reaches the threshold (the light last run was joined)
            assert np.all(sums >= 150.0)
        for g in range(len(sums)):
            members = np.flatnonzero(group == g)
            # inside a run, every bin before its closing bin is below the threshold; a bin
            # at or above it that starts a run closes it at once
            before = np.cumsum(w[members])[:-1]
            if g < len(sums) - 1:
                assert np.all(before < 150.0)
    assert merge_runs(np.array([500.0, 10.0, 20.0, 400.0, 5.0]), 100.0).tolist() == [
        0,
        1,
        1,
        1,
        1,
    ]
    assert merge_runs(np.array([500.0, 300.0, 200.0]), 100.0).tolist() == [0, 1, 2]


def test_compression_rule_merges_exactly_the_codes_below_three_sigma():
    sigma = 10.0
    y_cat = np.array([400.0, 29.0, -12.0, 31.0, 5.0, 250.0])  # 29, -12, 5 < 30 = 3 sigma
    y_bins = np.array([100.0, 12.0, 8.0, 15.0, 90.0, 60.0, 2.0])
    comp = compression_rule({"c": y_cat, "b": y_bins, "d": y_cat + 1000}, sigma, {"b": 7})
    assert set(comp.groups) == {"c", "b"}  # "d" has nothing below 3 sigma
    c = comp.groups["c"]
    assert set(np.flatnonzero(c == c.max())) == {1, 2, 4}
    assert c.tolist() == [0, 3, 3, 1, 3, 2]
    assert comp.groups["b"].tolist() == [0, 1, 1, 1, 2, 3, 3]  # 12+8+15 >= 30; 60+2 joined
    assert comp.sizes({"c": 6, "b": 7, "d": 6}) == {"c": 4, "b": 4, "d": 6}
    # the law within a cell is the noisy counts clipped at 0
    assert comp.law["c"][[1, 2, 4]] == pytest.approx([29 / 34, 0.0, 5 / 34])
    assert comp.law["c"][[0, 3, 5]] == pytest.approx([1.0, 1.0, 1.0])
    assert comp.law["b"][[1, 2, 3]] == pytest.approx([12 / 35, 8 / 35, 15 / 35])
    assert COMPRESS_SD == 3.0


def test_decompression_returns_only_codes_of_the_cell_by_the_law():
    y = np.array([400.0, 29.0, -12.0, 31.0, 5.0, 250.0])
    comp = compression_rule({"c": y}, 10.0)
    rng = np.random.default_rng(2)
    cells = rng.integers(0, 4, size=(40_000, 1))
    back = comp.expand_codes(cells, ["c"], rng)[:, 0]
    assert set(np.unique(back)) <= set(range(len(y)))
    assert np.array_equal(comp.groups["c"][back], cells[:, 0])  # each row stays in its cell
    merged = back[cells[:, 0] == 3]
    assert 2 not in merged  # a code whose noisy count is negative is never drawn
    share = np.mean(merged == 1)
    assert share == pytest.approx(29 / 34, abs=0.02)
    # a cell whose counts are all <= 0 is decompressed uniformly
    flat = compression_rule({"c": np.array([500.0, -3.0, -4.0, 0.0])}, 10.0)
    out = flat.expand_codes(np.full((30_000, 1), 1), ["c"], rng)[:, 0]
    assert set(np.unique(out)) == {1, 2, 3}
    assert np.bincount(out)[1:] / len(out) == pytest.approx([1 / 3] * 3, abs=0.02)


def test_tables_are_summed_over_cells_and_expanded_by_the_law():
    y = np.array([400.0, 29.0, -12.0, 31.0, 5.0, 250.0])
    comp = compression_rule({"a": y}, 10.0)
    counts = np.arange(6 * 3, dtype=float).reshape(6, 3)
    small = comp.table(("a", "z"), counts, {"a": 6, "z": 3})
    assert small.shape == (4, 3) and small.sum() == counts.sum()
    assert small[3].tolist() == (counts[1] + counts[2] + counts[4]).tolist()
    full = comp.expand_table(("z", "a"), small.T, {"a": 6, "z": 3})
    assert full.shape == (3, 6) and full.sum() == pytest.approx(counts.sum())
    assert full[:, [0, 3, 5]] == pytest.approx(counts[[0, 3, 5]].T)
    assert full[:, 2] == pytest.approx(0.0)  # the law of code 2 is 0


def test_the_rule_reads_the_noisy_measurements_only():
    """compress_model decides from the state's noisy one-way measurements and sigma: the exact
    counts (``answers``) do not change which codes merge or how cells decompress."""
    sizes = {"a": 5, "b": 3}
    noisy = {"a": np.array([300.0, 2.0, -7.0, 250.0, 10.0]), "b": np.array([200.0, 5.0, 8.0])}
    rng = np.random.default_rng(3)
    outs = []
    for _ in range(2):
        answers = {
            ("a",): rng.integers(0, 500, 5).astype(float),
            ("b",): rng.integers(0, 500, 3).astype(float),
            ("a", "b"): rng.integers(0, 50, (5, 3)).astype(float),
        }
        est = Estimator(dict(sizes), 10, None)
        state = PGMState(dict(sizes))
        state.measurements = [Measurement((a,), noisy[a], 10.0) for a in sizes]
        new_est, new_state, tables, new_sizes = compress_model(
            est, state, answers, dict(sizes), 10.0, {"a": 5}
        )
        comp = new_state.compression
        # a: runs [300], [2, -7, 250] (reaching 30), and the light last run [10] joins it
        assert new_sizes == {"a": 2, "b": 2} and new_est.sizes == new_sizes
        assert comp.groups["a"].tolist() == [0, 1, 1, 1, 1]
        assert tables[("a", "b")].shape == (2, 2)
        assert tables[("a", "b")].sum() == answers[("a", "b")].sum()
        # the new one-way measurements are the noisy counts summed over each cell
        y_a = next(m.y for m in new_state.measurements if m.clique == ("a",))
        assert y_a.tolist() == [300.0, 2.0 - 7.0 + 250.0 + 10.0]
        outs.append({a: (comp.groups[a].tolist(), comp.law[a].tolist()) for a in comp.groups})
    assert outs[0] == outs[1]


def test_aim_with_compression_spends_the_same_budget_and_samples_the_original_domain(rare):
    schema, df = rare
    kw = dict(epsilon=1.0, delta=1e-5, seed=11, rounds=12, pgm_iters=100)
    plain = AIMSynthesizer(schema, **kw).fit(df)
    comp = AIMSynthesizer(schema, compress=True, **kw).fit(df)
    cards = dict(zip(schema.names, Discretizer(schema).cardinalities, strict=True))
    assert comp.get_params()["compress"] is True
    rho = rho_from_epsilon_delta(1.0, 1e-5)
    for syn in (plain, comp):
        assert sum(e.rho for e in syn.accountant.ledger) == pytest.approx(rho, rel=1e-9)
    # the same seed draws the same one-way measurements with and without compression: the
    # merged cells are the rule applied to those noisy counts and their sigma, nothing else
    one_way = {m.clique[0]: m.y for m in plain.state_.measurements[: len(schema.names)]}
    expected = compression_rule(one_way, plain.state_.sigmas[0], {"age": cards["age"]})
    c = comp.state_.compression
    assert c.groups.keys() == expected.groups.keys()
    for a in c.groups:
        assert np.array_equal(c.groups[a], expected.groups[a])
        assert np.array_equal(c.law[a], expected.law[a])
    assert c and "native-country" in c.groups
    assert comp.state_.sizes["native-country"] < cards["native-country"]
    out = comp.sample(2000, seed=5)
    check_table(schema, out, 2000)
    codes = Discretizer(schema).transform(out)
    for j, name in enumerate(schema.names):
        assert codes[:, j].max() < cards[name]
    p = comp.model_marginal(["native-country", "income"])
    assert p.shape == (cards["native-country"], cards["income"])
    assert p.sum() == pytest.approx(1.0) and np.all(p >= 0)
    again = AIMSynthesizer(schema, compress=True, **kw).fit(df)
    pd.testing.assert_frame_equal(again.sample(500, seed=3), comp.sample(500, seed=3))


def test_compress_must_be_a_bool(rare):
    schema, df = rare
    with pytest.raises(ParameterError, match="compress must be true or false"):
        AIMSynthesizer(schema, epsilon=1.0, compress="yes").fit(df)


def test_mwem_pgm_refuses_compress(rare):
    """compress is AIM's: MWEM-PGM takes it in its signature (one documented signature for
    both) but refuses True instead of ignoring it."""
    schema, df = rare
    with pytest.raises(ParameterError, match="compress is an AIM parameter"):
        MWEMPGMSynthesizer(schema, epsilon=1.0, compress=True).fit(df)
