"""Out-of-model marginals stay finite where a separator's mass is (nearly) zero.

The failure of a wide, long-tailed table (issue 27): a separator marginal that underflowed to a
subnormal number made 1/p(S) infinite, the product inf * 0 = NaN, and AIM's exponential
mechanism then refused non-finite scores after twenty minutes.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.synthesizers._pgm_inference import calibrate

SIZES = {"a": 3, "b": 4, "c": 2, "d": 3}
CHAIN = (("a", "b"), ("b", "c"), ("c", "d"))


def _brute_force(pots: dict, total: float) -> tuple[list[str], np.ndarray]:
    """The joint from the potentials, normalised in log space (the reference)."""
    names = list(SIZES)
    logp = np.zeros([SIZES[a] for a in names])
    for clique, table in pots.items():
        order = [a for a in names if a in clique]
        arr = np.transpose(table, [clique.index(a) for a in order])
        logp = logp + arr.reshape([SIZES[a] if a in clique else 1 for a in names])
    joint = np.exp(logp - logp.max())
    return names, joint / joint.sum() * total


def _queries(names: list[str]):
    for k in (2, 3, 4):
        yield from itertools.combinations(names, k)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    depth=st.floats(700.0, 760.0),
    cells=st.integers(1, 3),
)
def test_out_of_model_marginals_finite_with_near_zero_separator_mass(seed, depth, cells):
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(size=[SIZES[a] for a in cl]) for cl in CHAIN}
    # push some values of b and c to relative mass e^-depth: subnormal or zero separator cells
    for b in rng.choice(SIZES["b"], size=cells, replace=False):
        pots[("a", "b")][:, b] -= depth
    pots[("c", "d")][int(rng.integers(SIZES["c"])), :] -= depth / 2
    total = 10_000.0
    calib = calibrate(pots, SIZES, total)
    names, joint = _brute_force(pots, total)
    queries = list(_queries(names))
    batched = calib.project_many(queries)  # AIM's candidate scoring
    for q, many in zip(queries, batched, strict=True):
        got = calib.project(q)
        np.testing.assert_allclose(many, got, atol=1e-9 * total)
        assert np.all(np.isfinite(got)), q
        assert np.all(got >= 0), q
        axes = tuple(i for i, a in enumerate(names) if a not in q)
        order = [a for a in names if a in q]
        want = np.transpose(joint.sum(axis=axes), [order.index(a) for a in q])
        np.testing.assert_allclose(got, want, atol=1e-9 * total)


def test_subnormal_separator_mass_gave_nan_before():
    """The exact shape of the failure: a separator cell of mass 1e-320 between two cliques."""
    pots = {cl: np.zeros([SIZES[a] for a in cl]) for cl in CHAIN}
    pots[("a", "b")][:, 0] = -720.0  # b = 0 has mass ~ e^-720 / 4 ~ 5e-314: subnormal
    calib = calibrate(pots, SIZES, 1.0)
    sep = calib.project(("b",))
    assert 0 < sep[0] < 1e-300
    got = calib.project(("a", "d"))
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got.sum(), 1.0, rtol=1e-12)


def test_non_finite_candidate_scores_name_the_stage():
    """The safety net: a non-finite model marginal stops candidate scoring at once, naming the
    public clique and no value."""
    from synthcert.errors import NumericalError
    from synthcert.synthesizers._pgm_mechanisms import l1_errors

    pots = {cl: np.zeros([SIZES[a] for a in cl]) for cl in CHAIN}
    calib = calibrate(pots, SIZES, 1.0)
    calib.marginals[("a", "b")].values[0, 0] = np.nan
    answers = {("a", "b"): np.zeros((3, 4)), ("c", "d"): np.zeros((2, 3))}
    with pytest.raises(NumericalError, match=r"candidate scoring.*\('a', 'b'\)"):
        l1_errors([("c", "d"), ("a", "b")], answers, calib)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    scale=st.floats(1e-6, 1e-2),
    empty=st.integers(1, 3),
)
def test_estimation_on_near_zero_mass_cliques_stays_finite(seed, scale, empty):
    """Mirror descent fed measurements that put (almost) no mass on some cells, with tiny noise
    scales (huge precisions, so large steps in the potentials): every marginal of the fit and
    every out-of-model marginal stays finite and non-negative, and sums to the total."""
    from synthcert.synthesizers._pgm_estimation import Measurement, MirrorDescent

    rng = np.random.default_rng(seed)
    total = 10_000.0
    measurements = []
    for cl in (*CHAIN, ("a",), ("d",)):
        shape = [SIZES[a] for a in cl]
        y = rng.dirichlet(np.full(int(np.prod(shape)), 0.05)) * total
        y[rng.choice(y.size, size=min(empty, y.size - 1), replace=False)] = 0.0
        sigma = float(scale if cl in CHAIN else 1.0)
        measurements.append(Measurement(cl, y + rng.normal(0, sigma, y.size), sigma))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, calib = MirrorDescent(SIZES, measurements, total).run(60)
        queries = list(_queries(list(SIZES)))
        for q, got in zip(queries, calib.project_many(queries), strict=True):
            assert np.all(np.isfinite(got)) and np.all(got >= 0), q
            np.testing.assert_allclose(got.sum(), total, rtol=1e-9)
    for f in calib.marginals.values():
        assert np.all(np.isfinite(f.values)) and np.all(f.values >= 0)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.lists(st.integers(1, 7), min_size=1, max_size=5),
    scale=st.sampled_from([1, 40]),
)
def test_planned_reductions_projections_and_expansions_match_numpy(seed, shape, scale):
    """The planned folds (left to right, no transposes; one numpy call on small tables) and
    the shared projections and expansions of a node equal plain numpy, to round-off, on
    small tables and on tables past the small-table threshold (narrow and wide inner blocks)."""
    from synthcert.synthesizers._pgm_inference import (
        Expansion,
        Placement,
        Projections,
        Reduction,
    )

    rng = np.random.default_rng(seed)
    shape = [n * (scale if i == 0 else 1) for i, n in enumerate(shape)]
    attrs = tuple(f"x{i}" for i in range(len(shape)))
    sizes = dict(zip(attrs, shape, strict=True))
    table = rng.normal(size=shape)
    subsets = [
        tuple(a for a in attrs if rng.random() < 0.5)[:: 1 if rng.random() < 0.5 else -1]
        for _ in range(5)
    ]
    for sub in subsets:
        axes = tuple(i for i, a in enumerate(attrs) if a not in sub)
        red = Reduction.of(shape, axes)
        np.testing.assert_allclose(red.sum(table), table.sum(axis=axes), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(red.max(table), table.max(axis=axes))
    got = Projections.of(attrs, subsets, sizes).sum(table)
    for sub, g in zip(subsets, got, strict=True):
        axes = tuple(i for i, a in enumerate(attrs) if a not in sub)
        np.testing.assert_allclose(g, table.sum(axis=axes), rtol=1e-12, atol=1e-12)
    pieces = [rng.normal(size=[sizes[a] for a in sub]) for sub in subsets]
    placed = [Placement.of(s, attrs, sizes).apply(p) for s, p in zip(subsets, pieces, strict=True)]
    out = np.full(shape, np.nan)
    Expansion.of(attrs, subsets, sizes).add(out, placed)
    want = np.zeros(shape)
    for p in placed:
        want = want + p
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    Expansion.of(attrs, [], sizes).add(out, [])
    assert not out.any()
