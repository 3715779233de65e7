"""JT-SIZE without a junction tree (:mod:`synthcert.synthesizers._pgm_size`) equals mbi's
``hypothetical_model_size`` exactly, so AIM and MWEM admit the same candidates as before."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.synthesizers._pgm_backend import load_mbi
from synthcert.synthesizers._pgm_size import ModelSize


@st.composite
def models(draw):
    k = draw(st.integers(2, 9))
    names = [f"c{i}" for i in range(k)]
    sizes = {a: draw(st.integers(1, 7)) for a in names}
    clique = st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True).map(tuple)
    base = draw(st.lists(clique, max_size=8))
    extra = tuple(draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True)))
    return sizes, base, extra


@settings(max_examples=150, deadline=None)
@given(models())
def test_model_size_equals_mbi(model):
    sizes, base, extra = model
    mbi = load_mbi()
    domain = mbi.Domain(list(sizes), list(sizes.values()))
    want = mbi.junction_tree.hypothetical_model_size(domain, [*base, extra])
    size = ModelSize(sizes, base)
    assert size.megabytes(extra) == want
    for limit in (want * (1 - 1e-9), want, want * (1 + 1e-9), 10 * want + 1):
        assert size.fits(extra, limit) == (want <= limit)


def test_wide_model_size_equals_mbi():
    """Fifty attributes, a model of one-way marginals and 60 random pairs."""
    rng = np.random.default_rng(3)
    names = [f"c{i:02d}" for i in range(50)]
    sizes = {a: int(rng.integers(2, 22)) for a in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    base = [(a,) for a in names] + [pairs[i] for i in rng.choice(len(pairs), 60, replace=False)]
    mbi = load_mbi()
    domain = mbi.Domain(names, [sizes[a] for a in names])
    size = ModelSize(sizes, base)
    order = mbi.junction_tree.greedy_order(domain, base)[0]
    assert size.elimination_order() == list(order)
    for i in rng.choice(len(pairs), 10, replace=False):
        want = mbi.junction_tree.hypothetical_model_size(domain, [*base, pairs[i]])
        assert size.megabytes(pairs[i]) == want


@settings(max_examples=100, deadline=None)
@given(models())
def test_elimination_order_equals_mbi(model):
    """The junction trees of the estimator are mbi's: the same greedy order, the same tree."""
    sizes, base, extra = model
    mbi = load_mbi()
    domain = mbi.Domain(list(sizes), list(sizes.values()))
    cliques = [*base, extra]
    want_tree, want_order = mbi.junction_tree.make_junction_tree(domain, cliques)
    order = ModelSize(sizes, cliques).elimination_order()
    if order is not None:
        assert order == list(want_order)
    tree, _ = mbi.junction_tree.make_junction_tree(domain, cliques, elimination_order=order)
    assert set(tree.nodes) == set(want_tree.nodes)
    assert {frozenset(e) for e in tree.edges} == {frozenset(e) for e in want_tree.edges}
