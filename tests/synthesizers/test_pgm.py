"""MWEM+PGM and AIM (thesis Algorithms 4-6) on Private-PGM, with and without DP."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from synth_checks import check_table

from synthcert.data.datasets import adult_schema
from synthcert.data.discretize import Discretizer
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.accountant import rho_from_epsilon_delta
from synthcert.synthesizers._pgm_inference import calibrate, sample_codes
from synthcert.synthesizers._pgm_mechanisms import downward_closure, workload_weights
from synthcert.synthesizers.pgm import AIMSynthesizer, MWEMPGMSynthesizer
from synthcert.synthesizers.registry import make_synthesizer

SMALL = ["sex", "race", "income"]


def mean_pair_l1(schema: Schema, real: pd.DataFrame, syn: pd.DataFrame) -> float:
    """Mean over column pairs of ||p_real - p_syn||_1 on the shared bins."""
    disc = Discretizer(schema)
    a, b = disc.transform(real), disc.transform(syn)
    cards = disc.cardinalities
    out = []
    for i, j in itertools.combinations(range(len(cards)), 2):
        size = cards[i] * cards[j]
        p = np.bincount(a[:, i] * cards[j] + a[:, j], minlength=size) / len(a)
        q = np.bincount(b[:, i] * cards[j] + b[:, j], minlength=size) / len(b)
        out.append(np.abs(p - q).sum())
    return float(np.mean(out))


@pytest.fixture(scope="module")
def small(adult):
    schema = adult_schema().select(SMALL)
    return schema, adult[SMALL].iloc[:3000].reset_index(drop=True)


# -- exact inference on the junction tree ---------------------------------------------------
def _brute_joint(pots, sizes):
    names = list(sizes)
    logp = np.zeros([sizes[a] for a in names])
    for cl, t in pots.items():
        order = [a for a in names if a in cl]
        arr = np.transpose(t, [cl.index(a) for a in order])
        shape = [sizes[a] if a in cl else 1 for a in names]
        logp = logp + arr.reshape(shape)
    p = np.exp(logp - logp.max())
    return names, p / p.sum()


def test_calibrated_marginals_match_brute_force():
    rng = np.random.default_rng(1)
    sizes = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 2}
    pots = {
        ("a", "b"): rng.normal(size=(3, 4)),
        ("b", "c"): rng.normal(size=(4, 2)),
        ("c", "d"): rng.normal(size=(2, 5)),
        ("e",): rng.normal(size=2),
    }
    calib = calibrate(pots, sizes, total=1000.0)
    names, joint = _brute_joint(pots, sizes)
    for q in [("a",), ("a", "b"), ("a", "c"), ("a", "d"), ("d", "a"), ("a", "e"), ("a", "c", "e")]:
        axes = tuple(i for i, n in enumerate(names) if n not in q)
        kept = [n for n in names if n in q]
        expect = np.transpose(joint.sum(axis=axes), [kept.index(x) for x in q]) * 1000.0
        np.testing.assert_allclose(calib.project(q), expect, rtol=1e-10, atol=1e-10)


def test_forward_sampling_matches_model():
    rng = np.random.default_rng(2)
    sizes = {"a": 3, "b": 4, "c": 2}
    pots = {("a", "b"): rng.normal(size=(3, 4)), ("b", "c"): rng.normal(size=(4, 2))}
    calib = calibrate(pots, sizes, total=1.0)
    n = 200_000
    codes = sample_codes(calib, ["a", "b", "c"], n, np.random.default_rng(3))
    _, joint = _brute_joint(pots, sizes)
    freq = np.bincount(np.ravel_multi_index(codes.T, (3, 4, 2)), minlength=24) / n
    # L1 of an n-sample empirical law: about sqrt(2/pi) sum sqrt(p(1-p)/n) << 0.02
    assert np.abs(freq - joint.ravel()).sum() < 0.02


# -- AIM's workload weights (Algorithm 4, lines 7-9) ------------------------------------
def test_workload_weights_and_closure():
    w = workload_weights([(("a", "b"), 1.0), (("b", "c"), 2.0)])
    assert downward_closure([("a", "b")]) == [("a",), ("b",), ("a", "b")]
    assert w[("a",)] == 1.0
    assert w[("b",)] == 3.0  # |{b} cap {a,b}| * 1 + |{b} cap {b,c}| * 2
    assert w[("a", "b")] == 1.0 * 2 + 2.0 * 1
    assert w[("b", "c")] == 1.0 * 1 + 2.0 * 2


# -- the synthesizers -------------------------------------------------------------------
def test_aim_dp_spends_exactly_rho_and_is_reproducible(small):
    schema, df = small
    syn = AIMSynthesizer(schema, epsilon=1.0, delta=1e-5, seed=7, rounds=4, pgm_iters=100)
    syn.fit(df)
    rho = rho_from_epsilon_delta(1.0, 1e-5)
    ledger = syn.accountant.ledger
    total = sum(e.rho for e in ledger)
    assert total == pytest.approx(rho, rel=1e-9)
    assert total <= rho * (1 + 1e-12)
    assert {e.kind for e in ledger} == {"zcdp", "exponential"}
    spent = syn.accountant.check_within_budget()
    assert spent.epsilon <= 1.0
    claim = syn.privacy_claim(500)
    assert (claim.epsilon, claim.delta, claim.model) == (1.0, 1e-5, "zcdp")
    assert claim.rho == pytest.approx(rho) and claim.neighboring == "unbounded"
    out = syn.sample(500, seed=3)
    check_table(schema, out, 500)
    pd.testing.assert_frame_equal(out, syn.sample(500, seed=3))
    again = AIMSynthesizer(schema, epsilon=1.0, delta=1e-5, seed=7, rounds=4, pgm_iters=100)
    pd.testing.assert_frame_equal(again.fit(df).sample(500, seed=3), out)


def test_aim_without_dp_matches_measured_marginals(small):
    schema, df = small
    syn = AIMSynthesizer(schema, seed=0, rounds=3, pgm_iters=300).fit(df)
    assert syn.accountant.ledger == ()
    assert syn.privacy_claim(5).model == "none"
    disc = Discretizer(schema)
    codes = disc.transform(df)
    measured = [c for c in syn.selected if len(c) == 2]
    assert measured  # at least one 2-way marginal was measured
    for cl in measured:
        i, j = (schema.names.index(a) for a in cl)
        k = disc.cardinalities
        x = np.bincount(codes[:, i] * k[j] + codes[:, j], minlength=k[i] * k[j]) / len(df)
        assert np.abs(syn.model_marginal(cl).ravel() - x).sum() < 1e-3


def many_levels_table(rows: int, seed: int = 0) -> tuple[Schema, pd.DataFrame]:
    """Two 100-level codes and four 20-level ones, each a noisy copy of one latent draw, so
    that every pair is worth measuring and a model of all of them is large."""
    from synthcert.data.schema import CategoricalColumn

    rng = np.random.default_rng(seed)
    latent = rng.integers(0, 1000, rows)
    levels = {"a": 100, "b": 100, "c": 20, "d": 20, "e": 20, "f": 20}
    frame = pd.DataFrame(
        {
            name: [f"{name}{v}" for v in (latent + rng.integers(0, 3, rows)) % k]
            for name, k in levels.items()
        }
    )
    schema = Schema(
        tuple(CategoricalColumn(n, tuple(f"{n}{v}" for v in range(k))) for n, k in levels.items())
    )
    return schema, frame


@pytest.mark.parametrize("cls", [AIMSynthesizer, MWEMPGMSynthesizer])
def test_without_dp_the_model_stays_within_what_the_rows_fill(cls):
    """Without DP the default limit is 16 bytes a row, at least 1 MB (175 s under 80 MB on a
    4,000-row table, 6 s under 1 MB), and no marginal is measured twice (it is known exactly);
    a given max_model_size and the DP default are kept."""
    from synthcert.synthesizers._pgm_size import ModelSize

    schema, df = many_levels_table(2_000)
    sizes = dict(zip(schema.names, Discretizer(schema).cardinalities, strict=True))
    fits = {}
    for limit in (None, 80.0):
        syn = cls(schema, max_model_size=limit, rounds=6, pgm_iters=100, round_iters=100, seed=0)
        selected = syn.fit(df).selected
        assert len(selected) == len(set(selected)) == 12  # six one-way, six pairs: none twice
        fits[limit] = ModelSize(sizes, selected).megabytes()
    assert cls(schema).model_size_limit(len(df)) == 1.0
    assert fits[None] <= 1.0 < fits[80.0]  # the old default would have built a larger model
    assert cls(schema).model_size_limit(10**7) == cls.default_max_model_size
    assert cls(schema, epsilon=1.0).model_size_limit(10) == cls.default_max_model_size
    assert cls(schema, max_model_size=0.5).model_size_limit(10**7) == 0.5


def test_mwem_dp_budget_and_output(small):
    schema, df = small
    syn = MWEMPGMSynthesizer(schema, epsilon=2.0, seed=1, rounds=2, pgm_iters=100).fit(df)
    rho = rho_from_epsilon_delta(2.0, 1e-5)
    assert sum(e.rho for e in syn.accountant.ledger) == pytest.approx(rho, rel=1e-9)
    assert len(syn.accountant.ledger) == 4  # a selection and a measurement per round
    check_table(schema, syn.sample(300, seed=0), 300)


def test_registry_and_refusals(small):
    schema, df = small
    syn = make_synthesizer("aim", schema, epsilon=1.0, delta=1e-6)
    assert isinstance(syn, AIMSynthesizer)
    assert syn.rho == pytest.approx(rho_from_epsilon_delta(1.0, 1e-6))  # the CKS inverse
    assert syn.rho == pytest.approx(0.024356, abs=1e-6)  # B&S Prop. 1.3 alone gave 0.017469
    assert isinstance(make_synthesizer("mwem-pgm", schema), MWEMPGMSynthesizer)
    with pytest.raises(ParameterError):  # an epsilon or delta outside its interval
        AIMSynthesizer(schema, epsilon=1.0, delta=1.5).fit(df)
    with pytest.raises(ParameterError):
        AIMSynthesizer(schema, workload=[("sex", "nope")]).fit(df)
    with pytest.raises(ParameterError):
        AIMSynthesizer(schema, measure_share=1.0).fit(df)


# -- Adult at every budget of the issue (each under 15 s since the numpy estimator) -------
@pytest.mark.parametrize("cls", [AIMSynthesizer, MWEMPGMSynthesizer])
@pytest.mark.parametrize("epsilon", [None, 8.0, 4.0, 2.0, 1.0])
def test_adult_all_budgets(adult, cls, epsilon):
    schema = adult_schema()
    syn = cls(
        schema,
        epsilon=epsilon,
        seed=0,
        # AIM: T = 30 budgeted rounds (fewer than 16 k); MWEM: its default T = k
        rounds=(30 if cls is AIMSynthesizer else None) if epsilon else 4,
        pgm_iters=200,
        max_model_size=2.0,
    )
    syn.fit(adult)
    spent = syn.accountant.check_within_budget()
    if epsilon is not None:
        assert spent.epsilon <= epsilon
        assert sum(e.rho for e in syn.accountant.ledger) == pytest.approx(syn.rho, rel=1e-9)
    out = syn.sample(len(adult), seed=1)
    check_table(schema, out, len(adult))
    # far better than independent uniform columns
    assert mean_pair_l1(schema, adult, out) < 0.5


def test_aim_with_too_few_rounds_for_the_one_way_marginals_is_refused(small):
    schema, table = small
    # three columns at alpha = 0.9 need rounds > 2.7: the one-way measurements cost 3 * 0.9 / T
    with pytest.raises(AssumptionError, match="rounds >= 3"):
        AIMSynthesizer(schema, epsilon=1.0, rounds=2, seed=0).fit(table)


def test_mwem_without_dp_matches_every_one_way_marginal_even_with_few_rounds(adult):
    cols = ["age", "sex", "race", "relationship", "income"]
    schema = adult_schema().select(cols)
    table = adult[cols].iloc[:2000].reset_index(drop=True)
    syn = MWEMPGMSynthesizer(schema, rounds=1, pgm_iters=300, seed=0).fit(table)
    out = syn.sample(20_000, seed=1)
    disc = Discretizer(schema)
    real, fake = disc.transform(table), disc.transform(out)
    for j, k in enumerate(disc.cardinalities):
        p = np.bincount(real[:, j], minlength=k) / len(real)
        q = np.bincount(fake[:, j], minlength=k) / len(fake)
        assert np.abs(p - q).sum() < 0.05, cols[j]


_CROSS_PROCESS = """
import hashlib, sys
from synthcert.data.datasets import adult_schema, load_adult
from synthcert.synthesizers.pgm import AIMSynthesizer
cols = ["sex", "race", "income", "relationship", "workclass", "marital-status"]
df = load_adult(sys.argv[1])[cols].iloc[:2000]
syn = AIMSynthesizer(adult_schema().select(cols), epsilon=1.0, delta=1e-5, seed=7, rounds=12,
                     pgm_iters=50)
out = syn.fit(df).sample(300, seed=3)
print(hashlib.sha256(out.to_csv(index=False).encode()).hexdigest())
"""


def test_same_seed_same_rows_in_processes_with_different_string_hashing(data_home):
    """Set iteration order follows PYTHONHASHSEED; the junction tree's root must not."""
    import os
    import subprocess
    import sys

    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run(
            [sys.executable, "-c", _CROSS_PROCESS, str(data_home)],
            env=env, capture_output=True, text=True, check=True, timeout=300,
        )  # fmt: skip
        digests.add(run.stdout.strip().splitlines()[-1])
    assert len(digests) == 1
