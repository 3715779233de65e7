"""DP tree bins (synthcert.privacy.tree_bins): sensitivity, accounting, decoding law, tails."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from synthcert.data.discretize import (
    Discretizer,
    bin_values,
    cell_capacity,
    fine_edges,
    numeric_bin_codes,
)
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema, column_to_dict
from synthcert.errors import AssumptionError
from synthcert.privacy import tree_bins
from synthcert.privacy.accountant import rho_from_epsilon_delta, zcdp_epsilon
from synthcert.privacy.claims import dp_claim
from synthcert.privacy.tree_bins import (
    GAUSSIAN_MECHANISM,
    LAPLACE_MECHANISM,
    CellCounts,
    allocate,
    consistent_tree,
    leaf_cuts,
    level_counts,
    requested_columns,
    sensitivity,
    split_levels,
    tree_bin_column,
    tree_bins_step,
    trim_empty_ends,
)

DEPTH = 6
COL = NumericColumn("v", -5.0, 20.0)


def tree_of(values: list[float | None], column: NumericColumn = COL) -> np.ndarray:
    counts = CellCounts((column,), depth=DEPTH)
    counts.update(pd.DataFrame({"v": pd.Series(values, dtype="float64")}))
    return level_counts(counts.leaves["v"])


values_st = st.lists(
    st.one_of(st.none(), st.floats(-100.0, 100.0, allow_nan=False)), min_size=0, max_size=30
)
value_st = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False))


@settings(max_examples=80, deadline=None)
@given(values_st, value_st, st.data())
def test_one_record_changes_one_count_per_level(values, extra, data):
    """Add/remove one record: every level changes by at most 1 in one count (L1 <= L, L2^2 <=
    L); replace one: at most one unit moved per level (L1 <= 2L, L2^2 <= 2L). Missing values
    and values outside the bounds (clipped to an end cell) included."""
    base = tree_of(values)
    added = tree_of([*values, extra])
    diff = np.abs(added - base)
    per_level = [lv.sum() for lv in split_levels(diff)]
    assert all(d <= 1 for d in per_level)
    assert diff.sum() <= sensitivity(DEPTH, "unbounded", 1)
    assert np.sum(diff**2) <= sensitivity(DEPTH, "unbounded", 2) ** 2
    if values:
        i = data.draw(st.integers(0, len(values) - 1))
        replaced = tree_of([*values[:i], extra, *values[i + 1 :]])
        diff = np.abs(replaced - base)
        assert all(lv.sum() <= 2 and lv.max(initial=0) <= 1 for lv in split_levels(diff))
        assert diff.sum() <= sensitivity(DEPTH, "bounded", 1)
        assert np.sum(diff**2) <= sensitivity(DEPTH, "bounded", 2) ** 2


def test_sensitivities_are_the_stated_ones():
    assert sensitivity(10, "unbounded", 1) == 10 and sensitivity(10, "bounded", 1) == 20
    assert sensitivity(10, "unbounded", 2) ** 2 >= 10 and sensitivity(10, "bounded", 2) ** 2 >= 20
    assert sensitivity(10, "bounded", 2) == pytest.approx(math.sqrt(20))


def test_consistent_tree_is_consistent_and_exact_without_noise():
    rng = np.random.default_rng(0)
    leaves = rng.integers(0, 50, 2**DEPTH)
    exact = split_levels(level_counts(leaves))
    assert all(np.allclose(a, b) for a, b in zip(consistent_tree(exact), exact, strict=True))
    noisy = [lv + rng.normal(0, 5, lv.shape) for lv in exact]
    hbar = consistent_tree(noisy)
    for parent, kids in itertools.pairwise(hbar):
        assert np.allclose(parent, kids.reshape(-1, 2).sum(axis=1))


def test_allocation_keeps_every_leaf_estimate_and_cuts_at_leaves():
    """Exact counts: the dense cells are resolved down to the last level, a stretch below
    theta is one leaf that keeps its count (spread by capacity), the empty rest is leaves of
    no mass, and the bins are runs of whole leaves."""
    leaves = np.zeros(2**DEPTH)
    leaves[:8] = [100, 300, 500, 300, 100, 50, 20, 5]
    est = split_levels(level_counts(leaves).astype(float))
    mass, edges = allocate(est, np.ones(2**DEPTH), split_at=30.0)
    assert mass.sum() == pytest.approx(leaves.sum())
    assert np.allclose(mass[:6], leaves[:6])  # each cell of >= theta is its own leaf
    assert mass[6:8].tolist() == pytest.approx(
        [12.5, 12.5]
    )  # 20 + 5 < theta: one leaf, by capacity
    assert np.all(mass[8:] == 0)
    assert edges[:8].tolist() == [0, 1, 2, 3, 4, 5, 6, 8]
    cuts = leaf_cuts(mass, edges, 4, 30.0)
    assert cuts[0] == 0 and cuts[-1] == 2**DEPTH and len(cuts) - 1 <= 4
    assert set(cuts.tolist()) <= set(edges.tolist())
    assert np.array_equal(leaf_cuts(mass, edges, len(edges) - 1, 30.0), edges)


def test_a_sparse_stretch_beside_a_dense_one_keeps_its_mass():
    """Noise-free estimates: a sparse stretch (each of its nodes below theta) beside a dense
    one keeps its own mass, where a floor on every child moved it all to the dense side (the
    6,000-row California bias: 10 % of longitude's rows squeezed into a few cells)."""
    leaves = np.zeros(2**DEPTH)
    leaves[:16] = 12.0  # 192 rows thinly spread: below theta = 200, beside 3,000 rows
    leaves[16:18] = [2000.0, 1000.0]
    est = split_levels(level_counts(leaves).astype(float))
    mass, _ = allocate(est, np.ones(2**DEPTH), split_at=200.0)
    assert mass[:16].sum() == pytest.approx(192.0)
    assert np.allclose(mass[:16], 12.0)
    assert mass[16:18].tolist() == pytest.approx([2000.0, 1000.0])


@pytest.mark.parametrize(
    "column",
    [
        NumericColumn("w", 0.0, 1e6),
        NumericColumn("w", 0.0, 1e6, scale="log"),
        NumericColumn("w", 0.5, 90.0, integer=True),
        NumericColumn("w", -3.0, 2000.0, integer=True, scale="log"),
    ],
    ids=["linear", "log", "integer", "integer-log"],
)
def test_decoding_stays_in_the_bounds_and_in_its_bin(column):
    rng = np.random.default_rng(1)
    x = np.clip(rng.lognormal(3, 1.5, 20_000) + column.lower, column.lower, column.upper)
    counts = CellCounts((column,), depth=8)
    counts.update(pd.DataFrame({"w": x}))
    col = tree_bin_column(
        column, counts.leaves["w"], 0.05, noise="gaussian", neighboring="unbounded",
        bins=12, rng=rng,
    )  # fmt: skip
    assert col.bins_source == "dp" and col.cell_mass is not None
    k = len(col.bins) - 1
    b = rng.integers(0, k, 20_000)
    frac = np.concatenate([[0.0, np.nextafter(1.0, 0.0), 1.0], rng.random(20_000 - 3)])
    y = bin_values(col, k, b, frac)
    assert np.all((y >= column.lower) & (y <= column.upper))
    assert np.array_equal(numeric_bin_codes(y, col, k), b)
    if column.integer:
        assert np.array_equal(y, np.round(y))


def test_decoding_draws_a_cell_by_its_mass_then_uniformly_within():
    """Chi-square on the fine cells of one bin, and KS of the position within a cell."""
    col = NumericColumn("w", 0.0, 16.0)
    mass = np.array([0, 1, 4, 0, 2, 8, 1, 0, 3, 3, 0, 0, 6, 1, 0, 1], dtype=float)
    col = replace(col, bins=(0.0, 8.0, 16.0), cell_mass=tuple(mass / mass.sum()), bins_source="dp")
    rng = np.random.default_rng(2)
    n = 40_000
    y = bin_values(col, 2, np.zeros(n, dtype=np.int64), rng.random(n))
    cells = np.floor(y).astype(int)
    assert cells.max() < 8
    observed = np.bincount(cells, minlength=8)
    expected = mass[:8] / mass[:8].sum() * n
    assert np.all(observed[expected == 0] == 0)
    keep = expected > 0
    assert stats.chisquare(observed[keep], expected[keep]).pvalue > 1e-3
    assert stats.kstest(y - cells, "uniform").pvalue > 1e-3


def test_a_bin_without_mass_is_decoded_by_capacity():
    col = NumericColumn("w", 0.0, 4.0, integer=True)
    edges = fine_edges(col, 4)
    assert np.array_equal(cell_capacity(col, edges), [1, 1, 1, 2])
    col = replace(col, bins=(0.0, 2.0, 4.0), cell_mass=(1.0, 0.0, 0.0, 0.0), bins_source="dp")
    y = bin_values(col, 2, np.ones(3000, dtype=np.int64), np.random.default_rng(3).random(3000))
    assert set(np.unique(y)) == {2.0, 3.0, 4.0}


def test_a_long_tail_keeps_the_top_bin_empty_range_empty():
    """Lognormal wages in public bounds [0, 1e6]: the top bin spans most of the range; decoded
    within it by the fine cells' DP mass, almost no value lands above the largest real value,
    where uniform decoding within the bin would put most of the top bin's rows."""
    rng = np.random.default_rng(4)
    x = np.minimum(rng.lognormal(10.0, 0.8, 40_000), 1e6)
    column = NumericColumn("w", 0.0, 1e6)
    counts = CellCounts((column,))
    counts.update(pd.DataFrame({"w": x}))
    rho = 0.1 * rho_from_epsilon_delta(1.0, 1e-6) / 5  # a tenth of AIM's rho, five columns
    col = tree_bin_column(
        column, counts.leaves["w"], rho, noise="gaussian", neighboring="unbounded", bins=20,
        rng=rng,
    )  # fmt: skip
    top_lo = col.bins[-2]
    assert 1e6 - top_lo > 0.5 * 1e6  # a wide top bin
    disc = Discretizer(Schema((col,)))
    y = disc.inverse_transform(disc.transform(pd.DataFrame({"w": x})), rng)["w"].to_numpy()
    in_top = y >= top_lo
    assert in_top.mean() > 0.01
    assert np.mean(y > x.max()) < 1e-3
    uniform_share = (1e6 - x.max()) / (1e6 - top_lo)
    assert uniform_share > 0.5  # what uniform decoding would have put there, within the bin
    assert np.quantile(y, 0.5) == pytest.approx(np.quantile(x, 0.5), rel=0.1)


def frame(n: int = 3000, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "w": np.minimum(rng.lognormal(9, 1, n), 5e5),
            "h": rng.integers(0, 80, n),
            "c": rng.choice(["a", "b"], n),
        }
    )


SCHEMA = Schema(
    (
        NumericColumn("w", 0.0, 5e5, tree_bins=10),
        NumericColumn("h", 0.0, 80.0, integer=True),
        CategoricalColumn("c", ("a", "b")),
    )
)


def test_gaussian_step_spends_its_share_of_rho_and_composes_in_zcdp():
    eps, delta = 1.0, 1e-6
    step = tree_bins_step(
        lambda: [frame()], SCHEMA, eps, delta, share=0.1, noise="gaussian",
        neighboring="unbounded", seed=np.random.SeedSequence(1),
    )  # fmt: skip
    rho = rho_from_epsilon_delta(eps, delta)
    assert step.columns == ("w",)
    assert sum(e.rho for e in step.ledger) == pytest.approx(0.1 * rho, rel=1e-12)
    assert all(e.kind == "zcdp" for e in step.ledger)
    rho_s = rho_from_epsilon_delta(step.synthesizer_epsilon, delta)
    assert rho_s + step.budget <= rho * (1 + 1e-12)
    assert rho_s == pytest.approx(0.9 * rho, rel=1e-6)
    synth_claim = dp_claim(
        epsilon=step.synthesizer_epsilon, delta=delta, rho=rho_s, neighboring="unbounded",
        n_out=10, mechanisms=("Gaussian noise (marginal measurements)",), assumptions=(),
    )  # fmt: skip
    claim = step.compose(synth_claim)
    assert (claim.model, claim.epsilon, claim.delta) == ("zcdp", eps, delta)
    assert claim.rho == rho  # the requested budget's rho, which the two do not exceed
    assert rho_s + sum(e.rho for e in step.ledger) <= rho
    assert zcdp_epsilon(claim.rho, delta) <= eps + 1e-9
    assert GAUSSIAN_MECHANISM in claim.mechanisms
    (bins,) = [a for a in claim.assumptions if a.name == "tree_bins"]
    assert bins.value["columns"] == ["w"] and bins.value["share"] == 0.1
    over = replace(synth_claim, rho=rho_s * 1.01)
    with pytest.raises(AssumptionError, match="more than"):
        step.compose(over)


def test_laplace_step_spends_its_share_of_epsilon_by_basic_composition():
    step = tree_bins_step(
        lambda: [frame()], SCHEMA, 2.0, None, share=0.25, noise="laplace",
        neighboring="bounded", default=True, seed=np.random.SeedSequence(2),
    )  # fmt: skip
    assert step.columns == ("w", "h")  # the default adds the undeclared integer column
    assert sum(e.epsilon for e in step.ledger) == pytest.approx(0.5)
    assert step.synthesizer_epsilon == pytest.approx(1.5)
    synth_claim = dp_claim(
        epsilon=1.5, delta=0.0, rho=None, neighboring="bounded", n_out=10,
        mechanisms=(), assumptions=(),
    )  # fmt: skip
    claim = step.compose(synth_claim)
    assert (claim.model, claim.epsilon, claim.rho) == ("pure-dp", 2.0, None)
    assert LAPLACE_MECHANISM in claim.mechanisms
    with pytest.raises(AssumptionError, match="more than"):
        step.compose(replace(synth_claim, epsilon=1.6))


def test_step_refusals_and_no_dp():
    with pytest.raises(AssumptionError, match="declare the share"):
        tree_bins_step(lambda: [frame()], SCHEMA, 1.0, 1e-6, share=None, noise="gaussian",
                       neighboring="unbounded")  # fmt: skip
    with pytest.raises(AssumptionError, match=r"\(0, 1\)"):
        tree_bins_step(lambda: [frame()], SCHEMA, 1.0, 1e-6, share=1.0, noise="gaussian",
                       neighboring="unbounded")  # fmt: skip
    read = []
    step = tree_bins_step(lambda: read.append(1) or [], SCHEMA, None, None, share=None,
                          noise="gaussian", neighboring="unbounded")  # fmt: skip
    assert step.columns == () and step.schema is SCHEMA and not read


def test_default_columns_skip_declared_bins_log_and_small_integer_ranges():
    schema = Schema(
        (
            NumericColumn("a", 0.0, 1.0),
            NumericColumn("b", 0.0, 1.0, scale="log"),
            NumericColumn("c", 0.0, 1.0, bins=(0.0, 0.5, 1.0)),
            NumericColumn("d", 1.0, 16.0, integer=True),
            NumericColumn("e", 0.0, 99.0, integer=True),
        )
    )
    assert [c.name for c in requested_columns(schema)] == []
    assert [c.name for c in requested_columns(schema, default=True)] == ["a", "e"]


def test_schema_file_round_trip():
    col = NumericColumn("w", 0.0, 10.0, tree_bins=7)
    d = column_to_dict(col)
    assert d["bins"] == "dp-tree" and d["bin_count"] == 7
    schema = Schema.from_dict({"columns": [d]})
    assert schema.numeric[0].tree_bins == 7
    done = replace(
        col, tree_bins=None, bins=(0.0, 5.0, 10.0), cell_mass=(0.5, 0.5), bins_source="dp"
    )
    again = Schema.from_dict({"columns": [column_to_dict(done)]}).numeric[0]
    assert again == done


@pytest.mark.parametrize("name", ["mwem-pgm", "privbayes"])
def test_synthesize_states_the_tree_bins_in_the_claim_and_the_ledger(tmp_path, name):
    """Through the workflow: the claim is the requested epsilon with the bins' mechanism and
    share; MWEM-PGM stays rho-zCDP with rho within the budget's, PrivBayes pure epsilon; the
    private ledger holds one bins entry per column, their total the declared share."""
    import json

    from synthcert import Budget, synthesize

    src = tmp_path / "in.csv"
    frame(600).to_csv(src, index=False)
    (tmp_path / "out").mkdir()
    (tmp_path / "private").mkdir()
    params = {"rounds": 2, "pgm_iters": 10} if name == "mwem-pgm" else {}
    result = synthesize(
        src, SCHEMA, name, tmp_path / "out" / "s.csv", Budget(epsilon=1.0, delta=1e-6, n_out=50),
        seed=3, params=params, dp_bins=0.1, dp_tree=True,
        private_record=tmp_path / "private" / "record.json",
    )  # fmt: skip
    claim = result.summary.claim
    assert claim.epsilon == 1.0
    record = json.loads((tmp_path / "private" / "record.json").read_text())
    bins = [e for e in record["ledger"] if e.get("step") == "bins"]
    assert [e["mechanism"].rsplit(": ", 1)[1] for e in bins] == ["w", "h"]
    (assumption,) = [a for a in claim.assumptions if a.name == "tree_bins"]
    assert assumption.value["columns"] == ["w", "h"] and assumption.value["share"] == 0.1
    if name == "mwem-pgm":
        rho = rho_from_epsilon_delta(1.0, 1e-6)
        assert claim.model == "zcdp" and GAUSSIAN_MECHANISM in claim.mechanisms
        assert sum(e["rho"] for e in bins) == pytest.approx(0.1 * rho)
        assert claim.rho == rho
        assert record["facts"]["spent"]["rho"] <= 0.9 * rho * (1 + 1e-6)
    else:
        assert claim.model == "pure-dp" and LAPLACE_MECHANISM in claim.mechanisms
        assert sum(e["epsilon"] for e in bins) == pytest.approx(0.1)
        assert record["facts"]["spent"]["epsilon"] <= 0.9 + 1e-9
    rows = pd.read_csv(tmp_path / "out" / "s.csv")
    assert rows["w"].between(0.0, 5e5).all() and rows["h"].between(0, 80).all()


@pytest.mark.parametrize("dp_tree", [None, False])
def test_mwem_pgm_gets_tree_bins_by_default(tmp_path, dp_tree):
    """The default for AIM and MWEM-PGM: every numeric column without declared bins or a log
    scale, DEFAULT_SHARE of the rho; ``dp_tree=False`` keeps the public equal-width bins."""
    from synthcert import Budget, synthesize
    from synthcert.privacy.tree_bins import DEFAULT_SHARE

    schema = Schema(
        (
            NumericColumn("w", 0.0, 5e5),
            NumericColumn("l", 0.0, 5e5, scale="log"),
            NumericColumn("h", 0.0, 80.0, integer=True),
        )
    )
    src = tmp_path / "in.csv"
    frame(400).assign(l=lambda f: f["w"]).drop(columns="c").to_csv(src, index=False)
    (tmp_path / "out").mkdir()
    result = synthesize(
        src, schema, "mwem-pgm", tmp_path / "out" / "s.csv",
        Budget(epsilon=1.0, delta=1e-6, n_out=20), seed=4,
        params={"rounds": 2, "pgm_iters": 10}, dp_tree=dp_tree,
    )  # fmt: skip
    claim = result.summary.claim
    assert claim.model == "zcdp" and claim.rho == rho_from_epsilon_delta(1.0, 1e-6)
    bins = [a for a in claim.assumptions if a.name == "tree_bins"]
    if dp_tree is None:
        assert bins[0].value["columns"] == ["w", "h"]
        assert bins[0].value["share"] == DEFAULT_SHARE
    else:
        assert bins == [] and GAUSSIAN_MECHANISM not in claim.mechanisms


@pytest.mark.parametrize("values", [np.array([]), np.arange(16.0).repeat(200)])
def test_an_integer_column_gets_no_bin_without_an_integer(values):
    """An integer column declared ``"bins": "dp-tree"`` with 16 integers asked for 20 bins:
    a bin between two consecutive integers (no value can fall in it) is merged into a
    neighbour, with no mass (cuts spread evenly over the cells) and with mass."""
    col = NumericColumn("k", 0.0, 15.0, integer=True)
    counts = CellCounts((col,)).update(pd.DataFrame({"k": values}))
    edges = fine_edges(col, len(counts.leaves["k"]))  # the step's 2^10 cells
    cap = cell_capacity(col, edges)
    for seed in range(5):
        new = tree_bin_column(col, counts.leaves["k"], 1e-3, noise="gaussian",
                              neighboring="unbounded", bins=20,
                              rng=np.random.default_rng(seed))  # fmt: skip
        start = np.searchsorted(edges, np.asarray(new.bins))
        per_bin = np.add.reduceat(cap, start[:-1])
        assert len(per_bin) >= 2 and (per_bin > 0).all(), per_bin
        assert per_bin.sum() == 16


def noisy_synthesis_of_a_long_tail(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """6,000 lognormal rows (median about 3,000) under public bounds [0, 1.5e6], tree bins at a
    tenth of AIM's rho over ten columns, then rows drawn from the bins weighted by their noisy
    counts (noise sd 60, clipped at 0), as a synthesizer measuring them would: (real, drawn)."""
    rng = np.random.default_rng(seed)
    column = NumericColumn("w", 0.0, 1.5e6)
    x = np.minimum(rng.lognormal(8.0, 1.0, 6_000), 1.5e6)
    counts = CellCounts((column,))
    counts.update(pd.DataFrame({"w": x}))
    rho = 0.1 * rho_from_epsilon_delta(1.0, 1e-6) / 10
    col = tree_bin_column(
        column, counts.leaves["w"], rho, noise="gaussian", neighboring="unbounded", bins=20,
        rng=rng,
    )  # fmt: skip
    disc = Discretizer(Schema((col,)))
    k = len(col.bins) - 1
    weights = np.maximum(np.bincount(disc.transform(pd.DataFrame({"w": x}))[:, 0], minlength=k)
                         + rng.normal(0.0, 60.0, k), 0.0)  # fmt: skip
    b = rng.choice(k, 6_000, p=weights / weights.sum())
    return x, disc.inverse_transform(b[:, None], rng)["w"].to_numpy()


def test_the_tail_rule_leaves_no_outliers_in_an_empty_top(monkeypatch):
    """With the tail rule no drawn value lies beyond twice the largest real one (8 seeds) and
    the median holds; without it (end leaves kept as bins of noise-level mass), some do."""
    for seed in range(8):
        x, y = noisy_synthesis_of_a_long_tail(seed)
        assert np.mean(y > 2 * x.max()) == 0.0, seed
        assert np.median(y) == pytest.approx(np.median(x), rel=0.2)
    monkeypatch.setattr(tree_bins, "trim_empty_ends", lambda est, m, e, a, b: (m, e))
    beyond = [np.mean(y > 2 * x.max()) for x, y in map(noisy_synthesis_of_a_long_tail, range(8))]
    assert max(beyond) > 0.003


def test_the_tail_rule_keeps_a_sparse_end_of_real_rows():
    """Exact estimates: a narrow end leaf below theta but above one sd beside the resolved core
    is kept; an end leaf wider than the core is cleared and joins the next bin."""
    leaves = np.zeros(2**DEPTH)
    leaves[:8] = [400, 300, 300, 200, 0, 0, 60, 0]  # the core: cells 0-3; 60 rows in cell 6
    est = split_levels(level_counts(leaves).astype(float))
    mass, edges = allocate(est, np.ones(2**DEPTH), split_at=100.0)
    kept, _ = trim_empty_ends(est, mass, edges, 100.0, 50.0)
    assert kept[4:8].sum() == pytest.approx(60.0)  # a 4-cell end leaf, as wide as the core
    leaves[40] = 60.0  # a leaf of 32 cells above the 4-cell core and its end: cleared
    est = split_levels(level_counts(leaves).astype(float))
    mass, edges = allocate(est, np.ones(2**DEPTH), split_at=100.0)
    assert mass[32:].sum() == pytest.approx(60.0)
    cleared, cut = trim_empty_ends(est, mass, edges, 100.0, 50.0)
    assert cleared[32:].sum() == 0.0 and cleared[4:8].sum() == pytest.approx(60.0)
    assert cut[-2] < 32 and cut[-1] == 2**DEPTH


def test_the_tail_rule_on_forty_fresh_seeds():
    """The seeds the rule was not chosen on (100-139): no drawn value beyond twice the largest
    real one in any of them (the width test alone left such rows in 5 of these 40)."""
    beyond = [
        np.mean(y > 2 * x.max()) for x, y in map(noisy_synthesis_of_a_long_tail, range(100, 140))
    ]
    assert max(beyond) == 0.0


ZERO = NumericColumn("v", 0.0, 20.0)  # its bound 0 is an atom of the default rule
with_zeros_st = st.lists(
    st.one_of(st.none(), st.just(0.0), st.floats(-100.0, 100.0, allow_nan=False)), max_size=30
)


def released(values: list[float | None]) -> np.ndarray:
    """What the step releases for ZERO: its levels, then the count at its atom 0."""
    counts = CellCounts((ZERO,), depth=DEPTH)
    counts.update(pd.DataFrame({"v": pd.Series(values, dtype="float64")}))
    return np.concatenate([level_counts(counts.leaves["v"]), counts.atoms["v"]])


@settings(max_examples=80, deadline=None)
@given(with_zeros_st, st.one_of(st.none(), st.just(0.0), value_st), st.data())
def test_the_atom_count_keeps_the_sensitivity(values, extra, data):
    """A record at the atom (0, or below the bound and clipped to it) counts in the atom alone,
    any other in one cell per level: the released vector moves by at most the sensitivities
    of the levels alone, for add/remove and for replace."""
    base = released(values)
    diff = np.abs(released([*values, extra]) - base)
    assert diff.sum() <= sensitivity(DEPTH, "unbounded", 1)
    assert np.sum(diff**2) <= sensitivity(DEPTH, "unbounded", 2) ** 2
    if values:
        i = data.draw(st.integers(0, len(values) - 1))
        diff = np.abs(released([*values[:i], extra, *values[i + 1 :]]) - base)
        assert diff.sum() <= sensitivity(DEPTH, "bounded", 1)
        assert np.sum(diff**2) <= sensitivity(DEPTH, "bounded", 2) ** 2


def test_the_step_keeps_an_atom_with_records_and_drops_one_without():
    rng = np.random.default_rng(5)
    n = 4_000
    schema = Schema(
        (
            NumericColumn("gain", 0.0, 50_000.0),  # 60 % zeros
            NumericColumn("rooms", 0.0, 40_000.0),  # bound 0, no zero
            NumericColumn("spend", 0.0, 9_000.0, atoms=(0.0,)),  # declared: kept, not counted
        )
    )
    table = pd.DataFrame(
        {
            "gain": np.where(rng.random(n) < 0.6, 0.0, rng.lognormal(8, 1, n)).clip(0, 50_000),
            "rooms": rng.lognormal(7, 0.8, n).clip(1, 40_000),
            "spend": rng.gamma(2, 500, n).clip(1, 9_000),
        }
    )
    step = tree_bins_step(
        lambda: [table], schema, 1.0, 1e-6, share=0.1, noise="gaussian",
        neighboring="unbounded", default=True, seed=np.random.SeedSequence(4),
    )  # fmt: skip
    out = {c.name: c for c in step.schema.numeric}
    assert out["gain"].atoms == (0.0,) and out["rooms"].atoms == ()
    assert out["spend"].atoms == (0.0,)
    assert out["rooms"].atom_values == () and out["gain"].atom_values == (0.0,)
    # the decisions are DP outputs of the schema, written to the file like its bins
    again = Schema.from_dict(json.loads(step.schema.to_json()))
    assert again.column("rooms").atoms == () and again.column("gain").atoms == (0.0,)


def test_restoring_an_atom_adds_its_count_to_its_cell_at_every_level():
    leaves = np.arange(16, dtype=np.float64)
    levels = split_levels(level_counts(leaves))
    tree_bins.restore_atom(levels, 5, 7.0)
    expected = leaves.copy()
    expected[5] += 7.0
    for got, want in zip(levels, split_levels(level_counts(expected)), strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_dropped_atom_is_an_ordinary_value_of_its_cell_with_its_records():
    """A length of stay in whole days, 5 % of them 0, under a budget too small for the 3 sd
    atom test: when the atom is dropped its records go back to the cell holding 0, which then
    decodes to 0 about as often as the table holds it (the old step kept the cell empty, and
    no row ever came out at 0)."""
    column = NumericColumn("los_days", 0.0, 365.0, integer=True)
    rng = np.random.default_rng(0)
    days = (9 + rng.geometric(0.2, 3_800)).clip(1, 365).astype(np.float64)  # none in 1..9
    edges = fine_edges(column, 2**DEPTH)
    leaves = np.bincount(np.searchsorted(edges, days, side="right") - 1, minlength=2**DEPTH)
    shares = []
    for seed in range(40):
        out = tree_bin_column(
            column, leaves, 2e-4, noise="gaussian", neighboring="unbounded", bins=16,
            rng=np.random.default_rng(seed), atom_counts=np.array([200.0]),
        )  # fmt: skip
        if out.atoms:  # kept (its own code): the test is about the dropped ones
            continue
        zero_cell = np.searchsorted(edges, 0.0, side="right") - 1
        assert cell_capacity(out, edges)[zero_cell] >= 1  # 0 is a value of its cell again
        shares.append(out.cell_mass[zero_cell])
    assert len(shares) >= 20
    # the cell holding 0 (0 to 5 days, no record but the zeros) keeps the zeros' 200 of 4,000
    assert leaves[0] == 0
    assert abs(float(np.mean(shares)) - 0.05) < 0.02
