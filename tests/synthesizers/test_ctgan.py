"""CTGAN (ctgan package) and its DP variant (DP-SGD on the discriminator with Opacus)."""

from __future__ import annotations

import pandas as pd
import pytest
from synth_checks import check_table

from synthcert.data.datasets import adult_schema
from synthcert.errors import ParameterError
from synthcert.synthesizers.ctgan import CTGANSynthesizer
from synthcert.synthesizers.registry import make_synthesizer

pytest.importorskip("ctgan")
pytest.importorskip("opacus")

COLS = ["age", "sex", "race", "income"]
TINY = {"embedding_dim": 8, "generator_dim": (16,), "discriminator_dim": (16,)}


@pytest.fixture(scope="module")
def small(adult):
    return adult_schema().select(COLS), adult[COLS].iloc[:400].reset_index(drop=True)


def test_dp_ctgan_ledger_within_budget_and_reproducible(small):
    schema, df = small
    kw = dict(epsilon=2.0, delta=1e-5, epochs=2, batch_size=100, seed=5, min_rows=400, **TINY)
    syn = CTGANSynthesizer(schema, **kw).fit(df)
    ledger = syn.accountant.ledger
    assert ledger and {e.kind for e in ledger} == {"rdp"}
    spent = syn.accountant.check_within_budget()
    # the noise multiplier is tuned to spend the budget: within Opacus's search tolerance
    assert 2.0 * 0.99 <= spent.epsilon <= 2.0
    assert spent.delta == 1e-5
    assert syn.steps_ == 2 * 4  # epochs * ceil(N = 400 declared rows / batch 100)
    assert syn.sample_rate_ == 0.25 and syn.fake_rows_per_step_ == 100  # public, from N
    assert syn.privacy_claim(5).model == "approx-dp" and syn.privacy_claim(5).epsilon == 2.0
    out = syn.sample(300, seed=1)
    check_table(schema, out, 300)
    pd.testing.assert_frame_equal(out, syn.sample(300, seed=1))
    again = CTGANSynthesizer(schema, **kw).fit(df)
    pd.testing.assert_frame_equal(again.sample(300, seed=1), out)


def test_ctgan_without_dp_is_schema_valid_and_reproducible(small):
    schema, df = small
    kw = dict(epochs=1, batch_size=100, seed=3, **TINY)
    syn = CTGANSynthesizer(schema, **kw).fit(df)
    assert syn.privacy_claim(5).model == "none" and syn.accountant.ledger == ()
    out = syn.sample(250, seed=2)
    check_table(schema, out, 250)
    again = CTGANSynthesizer(schema, **kw).fit(df)
    pd.testing.assert_frame_equal(again.sample(250, seed=2), out)
    empty = syn.sample(0, seed=2)  # no rows, same columns and dtypes
    assert len(empty) == 0 and list(empty.columns) == schema.names
    assert list(empty.dtypes) == list(out.dtypes)


def test_registry_and_refusals(small):
    schema, df = small
    assert isinstance(make_synthesizer("ctgan", schema, epsilon=1.0), CTGANSynthesizer)
    with pytest.raises(ParameterError):
        CTGANSynthesizer(schema, batch_size=25).fit(df)  # not a multiple of 2 * pac
    with pytest.raises(ParameterError):  # an epsilon or delta outside its interval
        CTGANSynthesizer(schema, epsilon=1.0, delta=0.0).fit(df)
    with pytest.raises(ParameterError):
        CTGANSynthesizer(schema, epsilon=-1.0).fit(df)


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [None, 8.0, 4.0, 2.0, 1.0])
def test_adult_all_budgets(adult, epsilon):
    schema = adult_schema()
    syn = CTGANSynthesizer(schema, epsilon=epsilon, epochs=1, seed=0, min_rows=30_000).fit(adult)
    spent = syn.accountant.check_within_budget()
    if epsilon is not None:
        assert spent.epsilon <= epsilon
    check_table(schema, syn.sample(len(adult), seed=1), len(adult))
