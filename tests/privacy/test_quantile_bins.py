"""DP quantile bins: the edges' distribution on neighbouring tables, an independent computation
of their accuracy, the post-processing, the schema syntax and the ledger's composition."""

from __future__ import annotations

import itertools
import json
import math

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthcert.data.discretize import Discretizer
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.privacy.quantile_bins import (
    BINS_MECHANISM,
    EdgeCounts,
    base_measure,
    dp_bin_edges,
    edge_grid,
    finish_edges,
    quantile_bins_step,
    requested_columns,
)
from synthcert.synthesizers.pgm import AIMSynthesizer
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer

SMALL = NumericColumn("v", 0.0, 12.0, integer=True, quantile_bins=2)


def exact_pmf(values: np.ndarray, column: NumericColumn, q: float, epsilon: float) -> np.ndarray:
    """Pr[edge = c_j] of one DP q-quantile, computed independently: ranks by brute force,
    base measure from the cell boundaries, normalised in 50-digit arithmetic."""
    grid = edge_grid(column)
    m = len(values)
    lo, hi = float(column.lower), float(column.upper)
    mids = [(grid[j] + grid[j + 1]) / 2 for j in range(len(grid) - 1)]
    cuts = [lo, *mids, hi]
    with mpmath.workdps(50):
        weights = []
        for j, c in enumerate(grid):
            below = sum(1 for x in values if x < c)
            upto = sum(1 for x in values if x <= c)
            u = -max(0.0, below - q * m, q * m - upto)
            weights.append(mpmath.mpf(cuts[j + 1] - cuts[j]) * mpmath.exp(epsilon * u / 2))
        total = mpmath.fsum(weights)
        return np.array([float(w / total) for w in weights])


def mechanism_draws(values: np.ndarray, column: NumericColumn, eps: float, n: int, seed: int):
    """n single-edge draws (k = 2 bins) of the implementation, as edges."""
    counts = EdgeCounts((column,)).update(pd.DataFrame({column.name: values}))
    below, upto = counts.ranks(column.name)
    grid = counts.grids[column.name]
    rng = np.random.default_rng(seed)
    out = np.empty(n)
    for i in range(n):
        edges = dp_bin_edges(below, upto, len(values), grid, column, 2, eps, rng=rng)
        assert len(edges) == 3
        out[i] = edges[1]
    return out, grid


TABLE = np.array([1, 2, 2, 3, 4, 4, 4, 5, 7, 8, 9, 11], dtype=float)


def test_edge_distribution_matches_the_exact_exponential_mechanism():
    eps = 1.5
    draws, grid = mechanism_draws(TABLE, SMALL, eps, 20_000, seed=1)
    pmf = exact_pmf(TABLE, SMALL, 0.5, eps)
    observed = np.array([(draws == c).sum() for c in grid])
    assert observed.sum() == len(draws)  # every draw is a grid point strictly inside the bounds
    keep = pmf * len(draws) >= 5
    expected = pmf[keep] * len(draws)
    other = len(draws) - expected.sum()
    chi2 = stats.chisquare(
        np.append(observed[keep], len(draws) - observed[keep].sum()),
        np.append(expected, other),
    )
    assert chi2.pvalue > 1e-3
    # accuracy: the mean absolute rank error of the edge, exact vs simulated
    m = len(TABLE)
    rank_err = np.array(
        [max(0.0, (c > TABLE).sum() - m / 2, m / 2 - (c >= TABLE).sum()) for c in grid]
    )
    exact = float(pmf @ rank_err)
    sim = np.array([rank_err[np.searchsorted(grid, d)] for d in draws])
    assert abs(sim.mean() - exact) < 4 * sim.std() / math.sqrt(len(sim)) + 1e-12
    assert 0.3 < exact < 1.5  # the exact figure the simulation reproduces


@pytest.mark.parametrize("neighbour", ["add", "replace"])
def test_edges_on_neighbouring_tables_differ_by_at_most_e_epsilon(neighbour):
    eps = 2.0
    other = np.append(TABLE, 12.0) if neighbour == "add" else np.where(TABLE == 1, 12.0, TABLE)
    p = exact_pmf(TABLE, SMALL, 0.5, eps)
    p2 = exact_pmf(other, SMALL, 0.5, eps)
    loss = np.max(np.abs(np.log(p) - np.log(p2)))
    assert loss <= eps + 1e-9
    assert loss > 0.25 * eps  # the neighbours differ in the quantile: a real privacy loss
    # the implementation's distributions on the two tables: each matches its exact pmf, so
    # their ratio is bounded likewise; checked on well-populated edges
    n = 20_000
    d1, grid = mechanism_draws(TABLE, SMALL, eps, n, seed=2)
    d2, _ = mechanism_draws(other, SMALL, eps, n, seed=3)
    f1 = np.array([(d1 == c).mean() for c in grid])
    f2 = np.array([(d2 == c).mean() for c in grid])
    ok = (f1 * n >= 400) & (f2 * n >= 400)
    assert ok.sum() >= 3
    se = np.sqrt((1 - f1[ok]) / (f1[ok] * n) + (1 - f2[ok]) / (f2[ok] * n))
    assert np.all(np.abs(np.log(f1[ok] / f2[ok])) <= eps + 4 * se)
    assert np.allclose(f1, p, atol=0.02) and np.allclose(f2, p2, atol=0.02)


def test_base_measure_follows_the_scale_not_the_grid_density():
    col = NumericColumn("w", 0.0, 20_000.0, quantile_bins=10)
    grid = edge_grid(col)
    mu = base_measure(col, grid)
    assert mu.sum() == pytest.approx(20_000.0)
    below_100 = mu[grid < 100].sum() / mu.sum()
    assert 0.004 < below_100 < 0.006  # the dense default grid below 100 weighs 0.5%
    log = NumericColumn("w", 0.0, 20_000.0, scale="log", quantile_bins=10)
    mu_log = base_measure(log, edge_grid(log))
    assert mu_log.sum() == pytest.approx(math.log1p(20_000.0))


def test_accuracy_on_a_long_tail_against_exact_quantiles():
    rng = np.random.default_rng(4)
    x = np.round(np.exp(rng.normal(np.log(500), 0.6, 20_000)), 2)
    col = NumericColumn("w", 0.0, 20_000.0, quantile_bins=10)
    counts = EdgeCounts((col,)).update(pd.DataFrame({"w": x}))
    below, upto = counts.ranks("w")
    edges = dp_bin_edges(
        below, upto, len(x), counts.grids["w"], col, 10, 1.0, rng=np.random.default_rng(5)
    )
    assert len(edges) == 11
    # each interior edge's rank is within 2% of the table of its level j/10 (epsilon 1/9 each)
    ranks = np.array([(x < e).mean() for e in edges[1:-1]])
    assert np.max(np.abs(ranks - np.arange(1, 10) / 10)) < 0.02


def test_finish_edges_is_strictly_increasing_and_public_when_draws_collapse():
    col = NumericColumn("v", 0.0, 10.0)
    assert finish_edges(col, [3.0, 1.0, 3.0, 10.0, 0.0, 7.5]) == (0.0, 1.0, 3.0, 7.5, 10.0)
    assert finish_edges(col, [0.0, 10.0]) == (0.0, 5.0, 10.0)
    log = NumericColumn("v", 0.0, 99.0, scale="log")
    assert finish_edges(log, []) == pytest.approx((0.0, 9.0, 99.0))


def test_integer_edges_leave_an_integer_in_every_bin():
    col = NumericColumn("h", 0.5, 80.0, integer=True, quantile_bins=20)
    grid = edge_grid(col)
    assert grid[0] == 2.0 and grid[-1] == 79.0 and np.all(grid == np.round(grid))
    x = np.r_[np.full(500, 40.0), np.arange(1, 81, dtype=float)]  # a heavy tie at 40
    counts = EdgeCounts((col,)).update(pd.DataFrame({"h": x}))
    below, upto = counts.ranks("h")
    edges = dp_bin_edges(below, upto, len(x), grid, col, 20, 50.0, rng=np.random.default_rng(0))
    assert len(edges) < 21  # the tie merged edges
    ints = np.arange(0, 81)
    held = [int(((ints >= a) & (ints < b)).sum()) for a, b in itertools.pairwise(edges)]
    held[-1] += 1  # the last bin is closed: it holds its upper bound 80 too
    assert min(held) >= 1


def test_schema_syntax_round_trips():
    doc = {
        "columns": [
            {"name": "w", "kind": "numeric", "lower": 0, "upper": 9, "bins": "dp-quantile"},
            {
                "name": "d",
                "kind": "datetime",
                "lower": "2020-01-01",
                "upper": "2021-01-01",
                "bins": "dp-quantile",
                "bin_count": 5,
            },
        ]
    }
    schema = Schema.from_dict(doc)
    assert [c.quantile_bins for c in schema.numeric] == [20, 5]
    again = Schema.from_dict(json.loads(schema.to_json()))
    assert again == schema
    with pytest.raises(DataError):
        Schema.from_dict({"columns": [{**doc["columns"][0], "bins": "quantile"}]})
    with pytest.raises(DataError):
        NumericColumn("w", 0.0, 9.0, quantile_bins=1)
    # until estimated, the column has the public bins of its scale
    disc = Discretizer(schema.select(["w"]), bins=4)
    assert disc.cardinalities == [4 + len(schema.column("w").atom_values)]


def frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    w = np.exp(rng.normal(5.0, 0.8, n))
    return pd.DataFrame(
        {
            "w": np.clip(w, 0, 5_000),
            "h": rng.integers(1, 60, n),
            "g": rng.choice(["a", "b"], n),
        }
    )


def wage_schema() -> Schema:
    return Schema(
        (
            NumericColumn("w", 0.0, 5_000.0, quantile_bins=8),
            NumericColumn("h", 0.0, 60.0, integer=True, scale="log"),
            CategoricalColumn("g", ("a", "b")),
        )
    )


def test_ledger_composes_to_the_requested_budget_for_each_claim_model():
    df = frame()
    step = quantile_bins_step(
        lambda: [df.iloc[:300], df.iloc[300:]],
        wage_schema(),
        1.0,
        share=0.25,
        log_columns=True,
        seed=np.random.SeedSequence(9),
    )
    assert step.columns == ("w", "h")
    assert len(step.ledger) == 7 + 19
    assert sum(e.epsilon for e in step.ledger) == pytest.approx(0.25)
    assert step.spent.epsilon == pytest.approx(0.25)
    assert step.synthesizer_epsilon == pytest.approx(0.75)
    new = step.schema
    assert [c.bins_source for c in new.numeric] == ["dp", "dp"]
    assert all(np.all(np.diff(c.bins) > 0) for c in new.numeric)
    pb = PrivBayesSynthesizer(new, epsilon=step.synthesizer_epsilon, seed=1).fit(df)
    claim = step.compose(pb.privacy_claim(len(df)))
    assert (claim.model, claim.epsilon, claim.delta) == ("pure-dp", 1.0, 0.0)
    assert pb.accountant.spent().epsilon + step.spent.epsilon == pytest.approx(1.0)
    assert BINS_MECHANISM in claim.mechanisms
    aim = AIMSynthesizer(new, epsilon=step.synthesizer_epsilon, delta=1e-6, seed=1).fit(df)
    claim = step.compose(aim.privacy_claim(len(df)))
    assert (claim.model, claim.epsilon, claim.delta, claim.rho) == ("approx-dp", 1.0, 1e-6, None)
    # a claim that spends more than the rest is refused
    too_much = PrivBayesSynthesizer(new, epsilon=0.9, seed=1).fit(df)
    with pytest.raises(AssumptionError):
        step.compose(too_much.privacy_claim(len(df)))


def test_the_step_reads_nothing_without_dp_and_refuses_an_undeclared_share():
    def never():
        raise AssertionError("the input was read")

    schema = wage_schema()
    step = quantile_bins_step(never, schema, None, share=None)
    assert step.schema == schema and step.ledger == () and step.columns == ()
    plain = Schema((NumericColumn("w", 0.0, 9.0),))
    assert quantile_bins_step(never, plain, 1.0, share=None).synthesizer_epsilon == 1.0
    with pytest.raises(AssumptionError, match="--param dp_bins=SHARE"):
        quantile_bins_step(never, schema, 1.0, share=None)
    with pytest.raises(AssumptionError, match="--epsilon"):
        quantile_bins_step(never, schema, None, share=0.1)
    with pytest.raises(AssumptionError, match="no budget"):
        quantile_bins_step(never, schema, 0.5, share=0.6, total_epsilon=1.0)
    assert [c.name for c in requested_columns(schema, log_columns=True)] == ["w", "h"]


@pytest.mark.parametrize("synthesizer", ["gaussian-copula", "mwem-pgm"])
def test_synthesize_pays_the_bins_from_the_budget_with_a_private_domain(tmp_path, synthesizer):
    from synthcert.workflows.job_inputs import Budget
    from synthcert.workflows.synthesize import synthesize

    df = frame(800, seed=1)
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    schema = Schema(
        (
            # bounds read from the data, but the flags declared (the rule would make w nullable)
            NumericColumn(
                "w", 0.0, 9_000.0, source="data", quantile_bins=6, nullable_source="public"
            ),
            NumericColumn("h", 0.0, 60.0, integer=True),
            CategoricalColumn("g", ("a", "b")),
        )
    )
    (tmp_path / "pub").mkdir()
    (tmp_path / "priv").mkdir()
    result = synthesize(
        src,
        schema,
        synthesizer,
        tmp_path / "pub" / "out.csv",
        Budget(epsilon=2.0, delta=1e-6, n_out=300),
        private_domain=0.1,
        dp_bins=0.3,
        private_record=tmp_path / "priv" / "run.json",
    )
    claim = result.summary.claim
    assert claim.epsilon == 2.0 and BINS_MECHANISM in claim.mechanisms
    ledger = json.loads((tmp_path / "priv" / "run.json").read_text())["ledger"]
    by_step: dict[str, float] = {}
    for e in ledger:
        by_step[e.get("step")] = by_step.get(e.get("step"), 0.0) + (e.get("epsilon") or 0.0)
    assert by_step["domain"] == pytest.approx(0.2)
    assert by_step["bins"] == pytest.approx(0.6)
    assert sum(1 for e in ledger if e.get("step") == "bins") == 5
    assert result.record.facts["spent"]["requested_epsilon"] == pytest.approx(1.2)
    out = pd.read_csv(tmp_path / "pub" / "out.csv")
    assert len(out) == 300 and np.isfinite(out["w"]).all()


def test_level_budgets_sum_to_the_column_budget_and_equalise_the_tail_exponent():
    from synthcert.privacy.quantile_bins import level_budgets, quantile_levels

    levels = quantile_levels(20)
    eps = level_budgets(levels, 0.3)
    assert eps.sum() == pytest.approx(0.3)
    exposure = eps * np.minimum(levels, 1 - levels)  # epsilon_j min(q_j, 1 - q_j)
    assert np.allclose(exposure, exposure[0])
    assert eps[0] / eps[9] == pytest.approx(10.0)  # level 0.05 against the median
    assert level_budgets(quantile_levels(2), 0.7) == pytest.approx([0.7])
