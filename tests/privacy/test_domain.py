"""The DP domain step: quantile bounds on a public grid, the stability threshold, the budget.

The privacy tests compute each mechanism's output distribution exactly on neighbouring tables
(all add/remove and replace-one neighbours of small tables) and check the DP inequality; the
utility test checks the estimates on a large table at epsilon 1.
"""

from __future__ import annotations

import itertools
import json
import math

import mpmath
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.data.infer import draft_schema
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError, ParameterError
from synthcert.privacy.accountant import (
    PrivacyAccountant,
    rho_from_epsilon_delta,
    zcdp_epsilon,
)
from synthcert.privacy.claims import GUARANTEE, Assumption, dp_claim
from synthcert.privacy.domain import (
    DP_SOURCE,
    RANGE_POINTS,
    REFERENCE_CANDIDATES,
    THRESHOLD_MECHANISM,
    DomainBudget,
    DomainCounts,
    bounds_from_quantiles,
    category_weight,
    compose_claim,
    default_grid,
    discrete_gaussian,
    estimate_domain,
    gaussian_log_tail,
    gaussian_threshold,
    plan_budget,
    quantile_scores,
    range_grid,
    reliable_rows,
    stability_categories,
    threshold_sigma2,
)
from synthcert.privacy.integer_flag import MECHANISM as INTEGER_MECHANISM
from synthcert.privacy.integer_flag import PART as INTEGER_PART
from synthcert.privacy.magnitude_bounds import MECHANISM as BUCKET_MECHANISM
from synthcert.privacy.mechanisms import exponential_probabilities
from synthcert.workflows.synthesize import split_budget

# -- the public grid -----------------------------------------------------------------------------


def test_default_grid_is_fixed_sorted_and_holds_small_integers():
    g = default_grid()
    assert len(g) == 2 * 19 * 900 + 1 == 34201
    assert np.all(np.diff(g) > 0)
    assert g[0] == -9.99e12 and g[-1] == 9.99e12 and 0.0 in g
    assert all(float(k) in g and -float(k) in g for k in range(1, 1000))
    assert {1.01e-6, 1.05, 2.57e9} <= set(g)
    assert np.array_equal(default_grid(positive_only=True), g[g > 0])
    ints = default_grid(integer=True)
    assert np.all(ints == np.round(ints)) and np.all(np.diff(ints) > 0)
    assert {1.0, 0.0, -1.0} <= set(ints) and 0.5 not in ints
    assert all(float(k) in ints for k in range(1, 1000)) and len(ints) == 19999


def test_range_grid_is_integers_or_1001_points_and_refuses_empty_ranges():
    assert np.array_equal(range_grid(-0.5, 10.2, integer=True), np.arange(0.0, 11.0))
    g = range_grid(0.0, 1.0)
    assert len(g) == 1001 and g[0] == 0.0 and g[-1] == 1.0
    with pytest.raises(AssumptionError):
        range_grid(3.0, 3.0)


# -- the quantile score and its sensitivity ------------------------------------------------------


def ranks_of(x: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(#{x < c}, #{x <= c}) by brute force, independent of DomainCounts."""
    below = np.array([(x < c).sum() for c in grid])
    upto = np.array([(x <= c).sum() for c in grid])
    return below, upto


def counts_ranks(x: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    schema = Schema((NumericColumn("v", -1.0, 1.0, source="data"),))
    counts = DomainCounts(schema, {"v": (float(grid[0]), float(grid[-1]))})
    counts.grids["v"] = grid
    counts.cells["v"] = np.zeros(len(grid) + 1, dtype=np.int64)
    counts.ties["v"] = np.zeros(len(grid), dtype=np.int64)
    half = len(x) // 2  # two chunks: the counts add up
    counts.update(pd.DataFrame({"v": x[:half]})).update(pd.DataFrame({"v": x[half:]}))
    return counts.ranks("v")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-4, 14), min_size=1, max_size=30),
    st.integers(-6, 16),
    st.sampled_from([0.005, 0.3, 0.5, 0.995]),
)
def test_quantile_score_moves_by_at_most_one_for_every_neighbour(values, new, q):
    """Sensitivity 1 of u(c) = -dist(q m, [#{x < c}, #{x <= c}]) under add, remove and
    replace (the grid includes points on, between and outside the values)."""
    grid = np.arange(-5.0, 15.5, 0.5)
    x = np.array(values, dtype=float)
    below, upto = counts_ranks(x, grid)
    assert np.array_equal(np.stack([below, upto]), np.stack(ranks_of(x, grid)))
    u = quantile_scores(below, upto, len(x), q)
    neighbours = [np.append(x, new), x[1:], np.append(x[1:], new)]
    for y in neighbours:
        if len(y) == 0:
            continue
        v = quantile_scores(*ranks_of(y, grid), len(y), q)
        assert np.max(np.abs(u - v)) <= 1.0 + 1e-12


def test_quantile_mechanism_is_epsilon_dp_exactly_on_all_neighbours():
    """Pr[c | D] <= e^eps Pr[c | D'] for every candidate, for every neighbour of a table."""
    grid = np.arange(0.0, 11.0)
    x = np.array([1, 2, 2, 3, 5, 8, 8, 8, 9], dtype=float)
    eps = 0.7
    for q in (0.005, 0.5, 0.995):
        p = exponential_probabilities(quantile_scores(*ranks_of(x, grid), len(x), q), 1.0, eps)
        for new in range(-1, 12):
            for y in (np.append(x, new), np.delete(x, new % len(x)), np.append(x[1:], new)):
                pp = exponential_probabilities(
                    quantile_scores(*ranks_of(y, grid), len(y), q), 1.0, eps
                )
                assert np.max(np.abs(np.log(p) - np.log(pp))) <= eps + 1e-12


def test_bounds_post_processing_orders_widens_and_rounds():
    g = np.array([0.0, 1.0, 2.0, 3.0])
    assert bounds_from_quantiles(2.0, 1.0, g, False) == (1.0, 2.0)
    assert bounds_from_quantiles(1.0, 1.0, g, False) == (1.0, 2.0)
    assert bounds_from_quantiles(3.0, 3.0, g, False) == (2.0, 3.0)
    assert bounds_from_quantiles(1.2, 7.3, g, True) == (1.0, 8.0)


# -- the stability threshold ---------------------------------------------------------------------


def dgauss_tail(t: int, sigma2: float) -> mpmath.mpf:
    """Pr[Z >= t] for the discrete Gaussian N_Z(0, sigma^2), summed from its pmf with mpmath
    (the normaliser by Jacobi theta: sum_k q^(k^2), q = exp(-1/(2 sigma^2)))."""
    q = mpmath.exp(-1 / (2 * mpmath.mpf(sigma2)))
    norm = mpmath.jtheta(3, 0, q)
    stop = t + 40 * math.ceil(math.sqrt(sigma2)) + 40  # later terms < e^-800 of the first
    return mpmath.fsum(q ** (k * k) for k in range(t, stop)) / norm


@pytest.mark.parametrize("sigma2", [0.3, 2.0, 40.0, 900.0, 62_500.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9])
def test_gaussian_threshold_keeps_a_singleton_with_probability_at_most_delta(sigma2, delta):
    """Pr[1 + Z >= T] <= delta by the exact pmf, and T is the smallest such integer up to the
    tail bound's slack: one more than the exact smallest at most, and that only where the bound
    and the exact tail straddle delta (checked: within a factor of 1 + 3 / sigma + 1/sigma^2)."""
    with mpmath.workdps(40):
        t = gaussian_threshold(sigma2, delta)
        assert dgauss_tail(t - 1, sigma2) <= delta
        assert math.exp(gaussian_log_tail(t - 1, sigma2)) <= delta
        if t > 2:
            assert math.exp(gaussian_log_tail(t - 2, sigma2)) > delta * (1 - 1e-9)
        if t > 3:
            loose = 1 + 3 / math.sqrt(sigma2) + 1 / sigma2
            assert dgauss_tail(t - 3, sigma2) > delta or dgauss_tail(t - 2, sigma2) * loose > delta


@given(st.integers(1, 400), st.floats(0.05, 5e4))
@settings(max_examples=60, deadline=None)
def test_the_tail_bound_is_never_below_the_exact_tail(t, sigma2):
    with mpmath.workdps(30):
        assert mpmath.log(dgauss_tail(t, sigma2)) <= gaussian_log_tail(t, sigma2) + 1e-12


def test_discrete_gaussian_matches_its_pmf():
    rng = np.random.default_rng(5)
    sigma2, n = 4.0, 200_000
    z = discrete_gaussian(sigma2, n, rng)
    norm = sum(math.exp(-(k * k) / (2 * sigma2)) for k in range(-60, 61))
    for k in range(-8, 9):
        want = math.exp(-(k * k) / (2 * sigma2)) / norm
        got = float(np.mean(z == k))
        assert abs(got - want) < 5 * math.sqrt(want * (1 - want) / n), k


def kept_distribution(counts: dict[str, int], sigma2: float, threshold: int) -> dict:
    """Exact Pr[kept set = S] under independent discrete Gaussian noise (pmf summed with
    mpmath; values returned as floats)."""

    def keep(c: int) -> float:  # Pr[c + Z >= T] = Pr[Z >= T - c], Z symmetric
        t = threshold - c
        return float(dgauss_tail(t, sigma2)) if t >= 1 else 1 - float(dgauss_tail(1 - t, sigma2))

    keys = sorted(counts)
    probs = {k: keep(counts[k]) for k in keys}
    out = {}
    for bits in itertools.product([0, 1], repeat=len(keys)):
        prob = 1.0
        for b, k in zip(bits, keys, strict=True):
            prob *= probs[k] if b else 1 - probs[k]
        out[frozenset(k for b, k in zip(bits, keys, strict=True) if b)] = prob
    return out


def hockey_stick(a: dict, b: dict, eps: float) -> float:
    """sup_E Pr_a[E] - e^eps Pr_b[E] = sum_S max(0, a(S) - e^eps b(S))."""
    return sum(max(0.0, pa - math.exp(eps) * b.get(s, 0.0)) for s, pa in a.items())


@pytest.mark.parametrize("neighboring", ["bounded", "unbounded"])
def test_stability_histogram_is_dp_at_what_the_accountant_states(neighboring):
    """Every neighbour of small count tables: the exact hockey-stick divergence at the
    accountant's epsilon (approximate zCDP converted at delta) is at most delta."""
    rho, delta_c, delta = 0.5, 1e-4, 2e-4
    acc = PrivacyAccountant(10.0, delta)
    acc.record_approx_zcdp("list", rho, delta_c)
    eps = acc.spent().epsilon
    assert eps == pytest.approx(zcdp_epsilon(rho, delta - delta_c) - math.log1p(-delta_c))
    sigma2 = threshold_sigma2(rho, neighboring)
    t = gaussian_threshold(sigma2, delta_c)
    base = {"a": t, "b": 3, "c": 1}
    tables = [base, {"a": 1, "b": t + 2}, {"a": t, "b": t - 1, "c": t + 1}]
    worst = 0.0
    with mpmath.workdps(30):
        for d in tables:
            keys = [*d, "new"]
            neighbours = []
            if neighboring == "unbounded":
                for k in keys:
                    neighbours.append({**d, k: d.get(k, 0) + 1})
                    if k in d:
                        neighbours.append({**d, k: d[k] - 1})
            else:
                for out_k, in_k in itertools.product(d, keys):
                    if out_k != in_k:
                        neighbours.append({**d, out_k: d[out_k] - 1, in_k: d.get(in_k, 0) + 1})
            pd_ = kept_distribution(d, float(sigma2), t)
            for n in neighbours:
                n = {k: v for k, v in n.items() if v > 0}  # a value with count 0 is not observed
                pn = kept_distribution(n, float(sigma2), t)
                worst = max(worst, hockey_stick(pd_, pn, eps), hockey_stick(pn, pd_, eps))
    assert worst <= delta
    # the threshold carries the delta: two sigmas lower, the singleton alone breaks the claim
    lower = t - 2 * math.ceil(math.sqrt(sigma2))
    with mpmath.workdps(30):
        loose = kept_distribution({"a": 1}, float(sigma2), lower)
    assert hockey_stick(loose, {frozenset(): 1.0}, eps) > delta


def test_stability_categories_keep_frequent_values_and_drop_singletons():
    rng = np.random.default_rng(3)
    counts = {"north": 5000, "south": 3000, "east": 800, "atlantis": 1}
    acc = PrivacyAccountant(1.0, 1e-6)
    kept = stability_categories(
        counts, 0.5, 1e-7, neighboring="bounded", rng=rng, accountant=acc, name="list"
    )
    assert kept == ("east", "north", "south")
    (entry,) = acc.ledger
    assert (entry.kind, entry.rho, entry.delta) == ("approx_zcdp", 0.5, 1e-7)
    with pytest.raises(AssumptionError, match="rho > 0"):
        stability_categories(counts, 0.0, 1e-7, neighboring="bounded", rng=rng)


# -- the estimate on a large table, the budget and the claim -------------------------------------


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    rng = np.random.default_rng(2026)
    n = 200_000
    return pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "wage": rng.lognormal(6.2, 0.8, n),
            "score": rng.normal(0.0, 3.0, n),
            "region": rng.choice(["n", "s", "e", "w", "x"], n, p=[0.4, 0.3, 0.2, 0.0999, 0.0001]),
        }
    )


def test_estimates_are_close_to_the_truth_at_epsilon_one(big):
    schema = draft_schema(big).schema.with_public_kinds()  # kinds declared after review
    assert schema.bounds_source == "data"
    budget = plan_budget(schema, 1.0 - 1e-9, 1.0, 1e-6)  # the whole epsilon = 1 on the domain
    rng = np.random.default_rng(7)
    est = estimate_domain([big.iloc[:100_000], big.iloc[100_000:]], schema, budget,
                          neighboring="bounded", rng=rng)  # fmt: skip
    s = est.schema
    assert all(c.source == DP_SOURCE for c in s.columns)
    # the magnitude buckets holding 17..90: [10, 20), [20, 50), [50, 100)
    assert (s.column("age").lower, s.column("age").upper) == (10.0, 100.0)
    assert s.column("region").categories == ("e", "n", "s", "w")  # 20 records of "x" dropped
    for name in ("wage", "score"):
        col, x = s.column(name), big[name].to_numpy()
        below, above = float(np.mean(x < col.lower)), float(np.mean(x > col.upper))
        # only tails thinner than a bucket's threshold are cut, and the bounds stay within
        # one 1-2-5 step of the data's range
        assert below <= 0.001 and above <= 0.001, (name, below, above)
        assert col.upper <= 2.5 * x.max() and col.lower >= 2.5 * min(x.min(), 0.0)
    assert est.spent.epsilon == pytest.approx(1.0) and est.spent.delta == pytest.approx(1e-6)
    # a bucket histogram and an integer test per numeric column, one list
    assert len(est.ledger) == 3 + 3 + 1
    assert s.column("age").integer and not s.column("wage").integer
    assert not s.column("score").integer
    assert est.reliability_warning(len(big)) is None  # 200,000 rows at 1/7 per quantile


def test_reliability_warning_follows_the_flat_region_bound():
    """m >= 2 ln(K / 0.05) / (eps min(q, 1-q)); the warning names the size it needs (for the
    columns whose bounds are quantiles: here one given a public range of K = 1,001 points)."""
    k = 1001
    assert reliable_rows(0.1, 0.01, k) == pytest.approx(2 * math.log(k / 0.05) / 0.001)
    assert reliable_rows(0.1, 0.99, k) == pytest.approx(reliable_rows(0.1, 0.01, k))
    schema = Schema((NumericColumn("v", 0.0, 1.0, source="data"),))
    df = pd.DataFrame({"v": np.random.default_rng(0).uniform(0, 100, 2000)})
    ranges = {"v": (0.0, 1_000.0)}
    budget = plan_budget(schema, 0.5, 0.4, 0.0, ranges=ranges)
    est = estimate_domain([df], schema, budget, neighboring="bounded",
                          rng=np.random.default_rng(0), ranges=ranges)  # fmt: skip
    # each quantile runs at 0.1 less the part of the integer test (the column's flag is data's)
    need = reliable_rows(0.1 * (1 - INTEGER_PART), 0.01, k)
    assert est.candidates == k and est.rows == 2000
    note = est.reliability_warning(2000)
    assert note is not None and f"{math.ceil(need):,} rows" in note
    assert est.reliability_warning(math.ceil(need)) is None
    # the line printed before the run names the same size (a new user met two different ones)
    assert f"{math.ceil(need):,} rows" in budget.needs()[0]
    assert est.reliability_warning(None) is None


def test_empirical_failure_rate_of_a_tail_quantile_is_within_the_bound():
    """At the size reliable_rows gives, the 99% quantile lands in the flat region beyond the
    data with probability < 5% (computed exactly from the mechanism's distribution)."""
    eps, q = 0.5, 0.99
    grid = default_grid()
    m = math.ceil(reliable_rows(eps, q, len(grid)))
    x = np.random.default_rng(1).lognormal(3.0, 1.0, m)  # the top 1% spans many grid cells
    below, upto = ranks_of_sorted(x, grid)
    scores = quantile_scores(below, upto, m, q)
    assert scores.max() > -2.0  # a grid point is (almost) a 99% quantile
    p = exponential_probabilities(scores, 1.0, eps)
    beyond = float(p[grid > x.max()].sum())  # the flat region past the data
    assert beyond <= 0.05
    assert beyond >= 5e-4  # and the bound is not loose by more than two orders of magnitude


def ranks_of_sorted(x: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.sort(x)
    return np.searchsorted(s, grid, side="left"), np.searchsorted(s, grid, side="right")


def test_domain_range_replaces_the_default_grid(big):
    schema = draft_schema(big[["age", "score"]]).schema.with_public_kinds()
    ranges = {"score": (-20.0, 20.0)}
    budget = plan_budget(schema, 0.5, 2.0, 0.0, ranges=ranges)
    rng = np.random.default_rng(1)
    est = estimate_domain([big], schema, budget, neighboring="unbounded", rng=rng, ranges=ranges)
    with pytest.raises(AssumptionError, match="same ranges"):  # the plan without the range
        estimate_domain([big], schema, plan_budget(schema, 0.5, 2.0, 0.0),
                        neighboring="unbounded", rng=rng, ranges=ranges)  # fmt: skip
    lo, hi = est.schema.column("score").lower, est.schema.column("score").upper
    assert lo in range_grid(-20, 20) and hi in range_grid(-20, 20)
    assert -9.0 < lo < -6.0 and 6.0 < hi < 9.0
    with pytest.raises(AssumptionError, match="not a numeric column"):
        DomainCounts(schema, {"region": (0.0, 1.0)})
    with pytest.raises(DataError, match="no column"):
        DomainCounts(schema).update(big[["age"]])


SMALL = Schema(
    (
        NumericColumn("a", 0.0, 1.0),
        NumericColumn("b", 0.0, 1.0, source="data"),
        CategoricalColumn("c", ("x", "y"), source="data"),
        CategoricalColumn("d", ("x", "y")),
    )
)


def test_public_columns_are_kept_and_the_budget_is_split_by_need():
    b = plan_budget(SMALL, 0.3, 2.0, 1e-6)
    r = category_weight(5e-7, "bounded")  # half of delta for the one list's tail
    rho = rho_from_epsilon_delta(0.6 + math.log1p(-5e-7), 5e-7)
    assert (b.numeric_columns, b.categorical_columns) == (("b",), ("c",))
    assert b.category_weight == pytest.approx(r)
    assert b.rho == pytest.approx(rho, rel=1e-12) and b.delta_conversion == 5e-7
    assert b.quantile_epsilon("b") == pytest.approx(math.sqrt(8 * rho / (2 + r)))
    assert b.category_rho("c") == pytest.approx(rho * r / (2 + r))
    assert b.epsilon == pytest.approx(0.6)
    assert b.delta == 1e-6 and b.delta_per_category_list == 5e-7
    numeric_only = plan_budget(SMALL.select(["a", "b"]), 0.3, 2.0, 1e-6)  # the pure route
    assert (numeric_only.rho, numeric_only.delta, numeric_only.quantile_epsilons) == (
        0.0, 0.0, (pytest.approx(0.3),)
    )  # fmt: skip
    df = pd.DataFrame({"a": [0.5] * 50, "b": np.linspace(0, 3, 50), "c": ["x", "y"] * 25,
                       "d": ["x"] * 50})  # fmt: skip
    est = estimate_domain([df], SMALL, b, neighboring="bounded", rng=np.random.default_rng(0))
    assert est.spent.epsilon == pytest.approx(0.6)  # every step paid, whatever it kept
    assert est.spent.epsilon <= 0.6 and est.spent.delta == 1e-6
    with pytest.raises(AssumptionError, match="needs delta"):
        plan_budget(SMALL, 0.3, 2.0, 0.0)
    with pytest.raises(AssumptionError, match="conditioning of the category lists"):
        plan_budget(SMALL, 0.1, 2.0, 0.4)  # ln(1/(1 - 0.2)) = 0.22 > 0.2
    with pytest.raises(AssumptionError, match="nothing"):
        plan_budget(SMALL.select(["a", "d"]), 0.3, 2.0, 1e-6)


def test_a_category_list_gets_at_least_a_numeric_columns_share_and_needs_fewer_records():
    """r = max(2, 2 Delta_2^2 ln(1/delta_c) / ln(C/beta)^2): the balance term makes the records
    a category needs to be kept (T - 1) equal to those a 1% quantile needs in its tail (0.01
    reliable_rows) by the sub-Gaussian estimate of T, which the exact T undercuts by a few
    percent; with the floor 2 a category needs at most that. The shares add up to rho."""
    assert len(default_grid()) == REFERENCE_CANDIDATES
    cols = [NumericColumn(f"x{i}", 0.0, 1.0, source="data") for i in range(30)]
    cols += [CategoricalColumn(f"k{i}", ("p", "q"), source="data") for i in range(20)]
    schema = Schema(tuple(cols))
    for neighboring, delta in [("bounded", 1e-6), ("unbounded", 1e-6), ("bounded", 1e-40)]:
        b = plan_budget(schema, 0.2, 1.0, delta, neighboring=neighboring)
        rho_q = [e * e / 8 for e in b.quantile_epsilons]  # epsilon^2/8-zCDP each
        assert 2 * sum(rho_q) + sum(b.category_rhos) == pytest.approx(b.rho, rel=1e-9)
        assert b.category_rho("k0") == pytest.approx(b.category_weight * rho_q[0])
        tail = 0.01 * reliable_rows(b.quantile_epsilon("x0"), 0.01, REFERENCE_CANDIDATES)
        records = b.category_threshold("k0") - 1
        balance = (
            2
            * (1 if neighboring == "unbounded" else 2)
            * math.log(1 / (delta / 2 / 20))
            / math.log(REFERENCE_CANDIDATES / 0.05) ** 2
        )
        assert b.category_weight == pytest.approx(max(2.0, balance))
        if balance > 2.0:  # the need rule binds: equal records, up to T's exact tail
            assert 0.85 * tail <= records <= tail, (neighboring, records, tail)
        else:
            assert records <= tail
        # the former mechanism (discrete Laplace, epsilons added up evenly) needed far more:
        # T - 1 ~ (Delta_1 / epsilon) ln(1 / (2 delta_c)) at delta_c = delta / 20
        even = 0.2 / (2 * 30 + 20)
        laplace = (2 if neighboring == "bounded" else 1) / even * math.log(1 / (delta / 10))
        assert records < laplace / 3, (records, laplace)


def test_domain_shares_override_the_rule_and_bad_shares_are_refused():
    b = plan_budget(SMALL, 0.5, 2.0, 1e-6, shares={"c": 0.75})
    assert b.category_rho("c") == pytest.approx(0.75 * b.rho)
    assert b.quantile_epsilon("b") == pytest.approx(math.sqrt(8 * 0.25 * b.rho / 2))  # the rest
    assert b.declared_shares == {"c": 0.75}
    assert DomainBudget.from_dict(json.loads(json.dumps(b.to_dict()))) == b
    assert plan_budget(SMALL, 0.5, 2.0, 1e-6, shares={"b": 0.5, "c": 0.5}).epsilon == 1.0
    for shares, match in [
        ({"zz": 0.1}, "not a column"),
        ({"a": 0.1}, "public"),
        ({"c": 0.0}, "> 0"),
        ({"c": -0.2}, "> 0"),
        ({"c": float("nan")}, "> 0"),
        ({"b": 0.7, "c": 0.6}, "sum to 1.3"),
        ({"c": 1.0}, "leaving nothing for b"),
    ]:
        with pytest.raises(ParameterError, match=match):
            plan_budget(SMALL, 0.5, 2.0, 1e-6, shares=shares)


def test_a_list_of_fewer_than_two_values_drops_the_column_with_a_warning():
    """The fallback rule: the column leaves the model (the schema's drop list); the step is
    still paid; the warning names it; every other column is estimated as before."""
    b = plan_budget(SMALL, 0.3, 2.0, 1e-6)
    df = pd.DataFrame({"a": [0.5] * 100, "b": np.linspace(1, 1.99, 100), "c": ["x", "y"] * 50,
                       "d": ["x"] * 100})  # fmt: skip
    est = estimate_domain([df], SMALL, b, neighboring="bounded", rng=np.random.default_rng(0))
    assert est.dropped == ("c",)  # 50 of each: below the threshold (76)
    assert (est.schema.column("b").lower, est.schema.column("b").upper) == (1.0, 2.0)
    assert est.schema.names == ["a", "b", "d"] and "c" in est.schema.drop
    assert est.schema.column("b").source == DP_SOURCE
    assert "'c'" not in (note := est.fallback_warning()) and "list of c kept" in note
    assert est.lists_note() is None  # the one list was dropped: no kept list to count
    big = pd.DataFrame({"a": [0.5] * 1000, "b": np.linspace(1, 1.99, 1000),
                        "c": ["x"] * 900 + ["y"] * 100, "d": ["x"] * 1000})  # fmt: skip
    kept = estimate_domain([big], SMALL, b, neighboring="bounded", rng=np.random.default_rng(0))
    assert kept.dropped == () and "lists kept c 2 value(s)" in kept.lists_note()
    assert "read as missing" in kept.lists_note()
    # the DP bounds are stated after the step (a new user's amount got [0, 1] unseen)
    assert est.bounds_note().startswith("private_domain: the DP bounds are b [1, 2]; values")
    assert "whole" not in est.bounds_note()
    # b's buckets and integer test (every planned step runs), c's list
    assert len(est.ledger) == 3 and est.spent.epsilon == pytest.approx(0.6)
    assert not est.schema.column("b").integer  # fractional values
    synth_claim = dp_claim(
        epsilon=1.4, delta=0.0, rho=None, neighboring="bounded", n_out=10,
        mechanisms=("laplace",), assumptions=(),
    )  # fmt: skip
    claim = compose_claim(synth_claim, est, 2.0, 1e-6)
    named = {a.name: a for a in claim.assumptions}
    assert named["domain"].meaning.endswith("fewer than two values): c")
    split = named["domain_split"].value
    assert "b: magnitude buckets at rho" in split and "c: category list at" in split
    only = SMALL.select(["c", "d"])
    with pytest.raises(AssumptionError, match="nothing is left"):
        estimate_domain([df], only.select(["c"]), plan_budget(only, 0.3, 2.0, 1e-6),
                        neighboring="bounded", rng=np.random.default_rng(0))  # fmt: skip


def test_needs_state_the_rows_per_column_from_public_figures():
    b = plan_budget(SMALL, 0.3, 2.0, 1e-6)
    lines = b.needs()
    assert lines[0].startswith("b: DP magnitude buckets at rho")
    assert f"about {b.bucket_records('b'):,} records" in lines[0]
    ranged = plan_budget(SMALL, 0.3, 2.0, 1e-6, ranges={"b": (0.0, 5.0)})  # a public range
    rows = math.ceil(reliable_rows(ranged.range_epsilon("b"), 0.01, RANGE_POINTS))  # its grid
    assert ranged.range_epsilon("b") < b.quantile_epsilon("b")  # b's integer test takes a part
    assert (
        ranged.needs()[0].startswith("b: two DP quantiles")
        and f"{rows:,} rows" in ranged.needs()[0]
    )
    assert lines[1].startswith("c: DP category list")
    assert f"about {b.category_threshold('c'):,} records" in lines[1]
    cols = [NumericColumn(f"x{i}", 0.0, 1.0, source="data") for i in range(12)]
    cols += [CategoricalColumn(f"k{i}", ("p", "q"), source="data") for i in range(3)]
    wide = plan_budget(Schema(tuple(cols)), 0.2, 1.0, 1e-6, shares={"k0": 0.5})
    summary = wide.needs()
    assert len(summary) == 4 and summary[0].startswith("k0: DP category list")
    assert summary[1].startswith("12 numeric columns") and summary[2].startswith("2 category")
    assert summary[3].startswith("12 integer tests: whole numbers need about")


@pytest.mark.parametrize(
    ("synth", "delta", "domain_delta", "synth_delta", "total_delta"),
    [
        ("privbayes", 1e-6, 1e-6, None, 1e-6),  # pure: the domain takes all of delta
        ("gaussian-copula", 1e-6, 1e-6, None, 1e-6),
        ("aim", 1e-6, 2.5e-7, 7.5e-7, 1e-6),  # approx: delta split like epsilon
        ("mwem-pgm", None, 2.5e-6, 7.5e-6, 1e-5),  # the default delta
    ],
)
def test_split_budget_adds_up(synth, delta, domain_delta, synth_delta, total_delta):
    schema = Schema((CategoricalColumn("c", ("x", "y"), source="data"),))
    s = split_budget(schema, synth, 0.25, 2.0, delta)
    assert s.domain_epsilon + s.synthesizer_epsilon == pytest.approx(2.0, abs=1e-15)
    assert s.domain_epsilon == pytest.approx(0.5)
    assert s.domain_delta == pytest.approx(domain_delta)
    assert s.synthesizer_delta == (None if synth_delta is None else pytest.approx(synth_delta))
    assert s.delta == pytest.approx(total_delta)
    assert s.domain_delta + (s.synthesizer_delta or 0.0) <= s.delta * (1 + 1e-12)
    with pytest.raises(AssumptionError, match="epsilon"):
        split_budget(schema, synth, 0.25, None, delta)
    with pytest.raises(AssumptionError, match=r"\(0, 1\)"):
        split_budget(schema, synth, 1.0, 2.0, delta)
    with pytest.raises(AssumptionError, match="not one"):
        split_budget(schema, "gaussian", 0.25, 2.0, delta)


def test_composed_claim_states_the_total_and_lists_the_domain_step(big):
    schema = draft_schema(big).schema.with_public_kinds()  # kinds declared after review
    est = estimate_domain([big], schema, plan_budget(schema, 0.2, 1.0, 1e-6),
                          neighboring="bounded", rng=np.random.default_rng(0))  # fmt: skip
    synth_claim = dp_claim(
        epsilon=0.8, delta=0.0, rho=None, neighboring="bounded", n_out=10,
        mechanisms=("laplace",), assumptions=(Assumption("domain", "x", "public-schema"),),
    )  # fmt: skip
    claim = compose_claim(synth_claim, est, 1.0, 1e-6)
    assert (claim.epsilon, claim.delta, claim.model) == (1.0, 1e-6, "approx-dp")
    assert claim.guarantee == GUARANTEE and claim.is_guarantee
    assert {BUCKET_MECHANISM, INTEGER_MECHANISM, THRESHOLD_MECHANISM, "laplace"} == set(
        claim.mechanisms
    )
    names = {a.name: a for a in claim.assumptions}
    assert names["domain"].source == "dp-estimate" and names["domain_share"].value == 0.2
    with pytest.raises(AssumptionError, match="more than the requested"):
        compose_claim(synth_claim, est, 0.9, 1e-6)
