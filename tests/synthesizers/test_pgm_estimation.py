"""Private-PGM's mirror descent in numpy against mbi's JAX estimator and brute force.

Our estimator (``_pgm_estimation.MirrorDescent``) replaces mbi 2.x's ``MirrorDescent`` to
avoid a JAX compilation per set of cliques; it must take the same steps. mbi runs its
iterations in blocks of 50, so the comparisons use multiples of 50.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from synthcert.synthesizers._pgm_backend import load_mbi
from synthcert.synthesizers._pgm_estimation import (
    Measurement,
    MirrorDescent,
    maximal_cliques,
    minimum_variance_total,
)
from synthcert.synthesizers._pgm_inference import calibrate

SIZES = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 3, "f": 2}


def _measurements(rng: np.random.Generator) -> list[Measurement]:
    """Noisy counts of a random table: one-way marginals, pairs forming a cycle (so the
    junction tree is triangulated), a clique spelled in another order, a repeat with another
    sigma, a nested marginal, and an attribute measured alone ('f': its own component)."""
    names = list(SIZES)
    n = 500
    codes = {a: rng.integers(0, k, n) for a, k in SIZES.items()}
    codes["b"] = (codes["a"] + rng.integers(0, 2, n)) % SIZES["b"]  # dependence
    spec = [
        (("a",), 5.0), (("b",), 5.0), (("c",), 5.0), (("d",), 5.0), (("e",), 5.0), (("f",), 5.0),
        (("a", "b"), 2.0), (("b", "c"), 3.0), (("c", "a"), 2.5), (("d", "e"), 1.5),
        (("e", "d"), 4.0), (("a", "b"), 1.0), (("c", "d", "e"), 6.0), (("d",), 2.0),
    ]  # fmt: skip
    out = []
    for clique, sigma in spec:
        counts = np.zeros([SIZES[a] for a in clique])
        np.add.at(counts, tuple(codes[a] for a in clique), 1.0)
        noisy = counts + rng.normal(0, sigma, counts.shape)
        out.append(Measurement(clique, noisy.ravel(), sigma))
    assert set(names) == {a for m in out for a in m.clique}
    return out


def _mbi_model(measurements, total, iters, warm=None):
    mbi = load_mbi()
    domain = mbi.Domain(list(SIZES), list(SIZES.values()))
    lms = [mbi.LinearMeasurement(m.y, m.clique, stddev=m.sigma) for m in measurements]
    est = mbi.estimation.MirrorDescent()
    return est.estimate(domain, lms, known_total=total, iters=iters, warm_start=warm)


def _marginal(model, clique) -> np.ndarray:
    return np.asarray(model.project(clique).datavector()).reshape([SIZES[a] for a in clique])


@pytest.fixture(scope="module")
def measurements() -> list[Measurement]:
    return _measurements(np.random.default_rng(7))


def test_same_iterates_as_mbi_from_zero_and_warm_started(measurements):
    """100 steps from zero, then 50 more warm-started after two new measurements: every
    marginal of the model agrees with mbi's to 1e-9 (relative to the total)."""
    first, more = measurements[:-2], measurements
    total = minimum_variance_total(first)
    pots, calib = MirrorDescent(SIZES, first, total).run(100)
    model = _mbi_model(first, total, 100)
    queries = [("a", "b"), ("b", "c", "a"), ("e", "d", "c"), ("f",), ("a", "f"), ("b", "e")]
    for q in queries:
        np.testing.assert_allclose(calib.project(q), _marginal(model, q), atol=1e-9 * total)
    total2 = minimum_variance_total(more)
    _, calib2 = MirrorDescent(SIZES, more, total2).run(50, warm=pots)
    model2 = _mbi_model(more, total2, 50, warm=model)
    for q in queries:
        np.testing.assert_allclose(calib2.project(q), _marginal(model2, q), atol=1e-9 * total2)
    # the steps moved the model: the warm start is not the answer already
    assert np.abs(calib2.project(("c", "d", "e")) - calib.project(("c", "d", "e"))).sum() > 1.0


def test_minimum_variance_total_matches_mbi(measurements):
    mbi = load_mbi()
    lms = [mbi.LinearMeasurement(m.y, m.clique, stddev=m.sigma) for m in measurements]
    expect = mbi.estimation.minimum_variance_unbiased_total(lms)
    assert minimum_variance_total(measurements) == pytest.approx(expect, rel=1e-12)
    assert minimum_variance_total([]) == 1.0


def test_exact_measurements_are_recovered():
    """Exact marginals of a distribution the model can represent: mirror descent converges to
    them, so every measured marginal is matched (to 1e-8 after 2000 steps; after 200 the
    largest error is still 0.75)."""
    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.full(3 * 4 * 2, 5.0)).reshape(3, 4, 2) * 1000.0
    sizes = {"a": 3, "b": 4, "c": 2}
    ms = [
        Measurement(("a", "b", "c"), joint.ravel(), 1.0),
        Measurement(("c", "a"), joint.sum(axis=1).T.ravel(), 1.0),
    ]
    _, calib = MirrorDescent(sizes, ms, 1000.0).run(2000)
    np.testing.assert_allclose(calib.project(("a", "b", "c")), joint, atol=1e-8)
    np.testing.assert_allclose(calib.project(("c", "b")), joint.sum(axis=0).T, atol=1e-8)


def test_maximal_cliques():
    got = maximal_cliques([("a",), ("b", "a"), ("a", "b"), ("c",), ("b", "c", "d"), ("d", "c")])
    assert got == [("b", "c", "d"), ("b", "a")]


def test_marginals_exact_with_potentials_far_beyond_exp_range():
    """Potentials of +-800 that cancel between neighbours (exp overflows/underflows alone):
    the calibrated marginals still equal the brute-force joint computed in log space."""
    rng = np.random.default_rng(11)
    sizes = {"a": 3, "b": 4, "c": 2, "d": 3}
    shift = rng.normal(0, 800, size=4)  # a function of b, added on one clique, removed on another
    pots = {
        ("a", "b"): rng.normal(size=(3, 4)) + shift[None, :],
        ("c", "b"): rng.normal(size=(2, 4)) - shift[None, :],
        ("d", "c"): rng.normal(size=(3, 2)),
    }
    calib = calibrate(pots, sizes, total=10.0)
    names = list(sizes)
    logp = np.zeros([sizes[a] for a in names])
    for cl, t in pots.items():
        order = [a for a in names if a in cl]
        arr = np.transpose(t, [cl.index(a) for a in order])
        logp = logp + arr.reshape([sizes[a] if a in cl else 1 for a in names])
    joint = np.exp(logp - logp.max())
    joint = joint / joint.sum() * 10.0
    for q in itertools.chain(itertools.combinations(names, 1), itertools.combinations(names, 2)):
        axes = tuple(i for i, a in enumerate(names) if a not in q)
        np.testing.assert_allclose(calib.project(q), joint.sum(axis=axes), atol=1e-12 * 10)
