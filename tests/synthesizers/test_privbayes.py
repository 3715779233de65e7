"""PrivBayes (thesis Algorithms 1-3) with and without DP."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score
from synth_checks import check_table, mean_marginal_l1

from synthcert.data.datasets import adult_schema
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import ParameterError
from synthcert.synthesizers._bayesnet import mi_sensitivity, mutual_information
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer, choose_degree
from synthcert.synthesizers.registry import make_synthesizer


@pytest.fixture(scope="module")
def schema():
    return adult_schema()


@pytest.fixture(scope="module")
def exact_fit(adult, schema):
    return PrivBayesSynthesizer(schema, seed=0).fit(adult)


def test_mutual_information_matches_sklearn():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 2000)
    y = (x + rng.integers(0, 3, 2000)) % 5
    table = np.zeros((4, 5))
    np.add.at(table, (x, y), 1)
    assert mutual_information(table) == pytest.approx(mutual_info_score(x, y), rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=4, max_size=30),
    new=st.tuples(st.integers(0, 2), st.integers(0, 3)),
    where=st.integers(0, 1000),
)
def test_mi_sensitivity_bounds_a_replacement(rows, new, where):
    """Zhang et al.'s general bound holds for any replacement of one record."""
    a = np.array(rows)
    b = a.copy()
    b[where % len(a)] = new

    def mi(v):
        t = np.zeros((3, 4))
        np.add.at(t, (v[:, 0], v[:, 1]), 1)
        return mutual_information(t)

    assert abs(mi(a) - mi(b)) <= mi_sensitivity(len(a), binary=False) + 1e-12


def test_choose_degree_theta_usefulness():
    cards = [16] * 15
    assert choose_degree(30_000, None, cards) == 2
    # n eps_p / (2 d m^{k+1}) >= 4: k = 1 needs eps_p >= 4 * 30 * 256 / 30000 = 1.024
    assert choose_degree(30_000, 1.1, cards) == 1
    assert choose_degree(30_000, 100.0, cards) == 2  # 3e6/(30*4096) = 24.4; k=3: 1.5 < 4
    assert choose_degree(10**7, 100.0, cards) == 3


def test_exact_privbayes_reproduces_a_full_network():
    """With degree d-1 and no noise the network holds the exact joint distribution."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 5000)
    b = (a + rng.integers(0, 2, 5000)) % 3
    c = np.where(rng.random(5000) < 0.8, a == b, rng.integers(0, 2, 5000)).astype(int)
    df = pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": c.astype(str)})
    sch = Schema(tuple(CategoricalColumn(k, ("0", "1", "2")) for k in "abc"))
    synth = PrivBayesSynthesizer(sch, degree=2, seed=1).fit(df)
    syn = synth.sample(200_000, seed=2)
    real_joint = df.value_counts(normalize=True)
    syn_joint = syn.astype(str).value_counts(normalize=True)
    l1 = (real_joint - syn_joint.reindex(real_joint.index, fill_value=0)).abs().sum()
    assert l1 + syn_joint.drop(real_joint.index, errors="ignore").sum() < 0.02
    assert [len(node.parents) for node in synth.network] == [0, 1, 2]


def test_exact_privbayes_on_adult(adult, schema, exact_fit):
    syn = exact_fit.sample(len(adult), seed=3)
    check_table(schema, syn, len(adult))
    assert mean_marginal_l1(schema, adult, syn) < 0.015
    assert exact_fit.degree_ == 2 and exact_fit.privacy_claim(5).model == "none"
    placed: set[str] = set()
    for node in exact_fit.network:  # a DAG in topological order
        assert set(node.parents) <= placed
        placed.add(node.child)
    assert placed == set(schema.names)


@pytest.mark.parametrize("noise", ["laplace", "staircase"])
def test_dp_privbayes_budget_and_utility(adult, schema, exact_fit, noise):
    synth = make_synthesizer("privbayes", schema, epsilon=1.0, delta=1e-5, noise=noise, seed=4)
    synth.fit(adult)
    spent = synth.accountant.check_within_budget()
    d = len(schema.columns)
    kinds = [e.kind for e in synth.accountant.ledger]
    assert kinds.count("exponential") == d - 1 and kinds.count("pure") == d
    assert spent.epsilon <= 1.0 + 1e-9 and spent.epsilon == pytest.approx(1.0)
    claim = synth.privacy_claim(5)
    assert claim.model == "pure-dp" and claim.delta == 0.0 and claim.neighboring == "bounded"
    syn = synth.sample(len(adult), seed=3)
    check_table(schema, syn, len(adult))
    l1_exact = mean_marginal_l1(schema, adult, exact_fit.sample(len(adult), seed=3))
    assert l1_exact < mean_marginal_l1(schema, adult, syn) < 0.3


def test_same_seed_same_output(adult, schema):
    small = adult.iloc[:3000]
    a = PrivBayesSynthesizer(schema, epsilon=2.0, seed=7).fit(small).sample(400, seed=1)
    b = PrivBayesSynthesizer(schema, epsilon=2.0, seed=7).fit(small).sample(400, seed=1)
    pd.testing.assert_frame_equal(a, b)
    c = PrivBayesSynthesizer(schema, epsilon=2.0, seed=8).fit(small).sample(400, seed=1)
    assert not a.equals(c)


def test_coordinate_staircase_and_parameters():
    sch = Schema((NumericColumn("x", 0, 10, integer=True), CategoricalColumn("c", ("a", "b"))))
    df = pd.DataFrame({"x": np.arange(200) % 11, "c": np.where(np.arange(200) % 3, "a", "b")})
    synth = PrivBayesSynthesizer(
        sch, epsilon=2.0, noise="staircase", staircase_form="coordinate", seed=0
    ).fit(df)
    assert synth.accountant.check_within_budget().epsilon == pytest.approx(2.0)
    check_table(sch, synth.sample(50, seed=0), 50)
    with pytest.raises(ParameterError):
        PrivBayesSynthesizer(sch, noise="gaussian").fit(df)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        PrivBayesSynthesizer(sch, structure_share=0.0).fit(df)
