"""CTGAN's missing values (issue 17): each row's missingness pattern is drawn first.

Pattern logic and DP accounting with tiny settings; the loan-book fixture's figures (every row
used, missing shares within 0.05 without DP and 0.10 at epsilon = 1, the joint block together
in >= 90% of synthetic rows) on CTGAN itself.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_tables import JOINT_BLOCK, loan_book
from scipy.optimize import minimize

from synthcert.data.infer import draft_schema
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import PrivacyAccountant, rho_from_epsilon_delta
from synthcert.synthesizers.ctgan import CTGANSynthesizer
from synthcert.synthesizers.ctgan_missing import (
    MAX_REDRAWS,
    MISSING_LEVEL,
    PATTERN_BUDGET_SHARE,
    PATTERN_COLUMN,
    PatternConditioner,
    calibrate_noise_multiplier,
    column_groups,
    composed_epsilon,
    exact_patterns,
    l2_sensitivity_of_groups,
    label_bits,
    missing_blocks,
    noisy_patterns,
    pattern_counts,
    pattern_labels,
    pattern_rho,
    project_to_simplex,
    sample_by_pattern,
)

pytest.importorskip("ctgan")
pytest.importorskip("opacus")
torch = pytest.importorskip("torch")

TINY = {"embedding_dim": 8, "generator_dim": (16,), "discriminator_dim": (16,)}
NULLABLE = ("emp_length", *JOINT_BLOCK, "mths_since_last_delinq")  # schema order
ORDERS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))  # Opacus's


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Two cores are shared by several test runs: train on one thread, then restore."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def loans() -> pd.DataFrame:
    return loan_book(2_000)


@pytest.fixture(scope="module")
def schema(loans) -> Schema:
    """The drafted schema with its bounds declared public (as a user does)."""
    draft = draft_schema(loans).schema
    return Schema(tuple(dataclasses.replace(c, source="public") for c in draft.columns), draft.drop)


@pytest.fixture(scope="module")
def absent(loans, schema) -> np.ndarray:
    """The fixture's missing indicators of its nullable columns, read from the CTGAN frame."""
    frame = CTGANSynthesizer(schema, epochs=1)._clean_frame(loans)
    return label_bits(frame[PATTERN_COLUMN].to_numpy(), len(NULLABLE))


def missing_shares(df: pd.DataFrame) -> dict[str, float]:
    """Missing share of each nullable column (text in a numeric column counts as missing)."""
    out = {}
    for name in NULLABLE:
        x = df[name] if name == "verification_status_joint" else pd.to_numeric(df[name], "coerce")
        out[name] = float(x.isna().mean())
    return out


def together(df: pd.DataFrame) -> float:
    """Share of rows whose joint block is all missing or all present."""
    block = df[list(JOINT_BLOCK)].isna()
    return float((block.all(axis=1) | ~block.any(axis=1)).mean())


# -- patterns -----------------------------------------------------------------------------
def test_labels_round_trip_and_the_fixture_block(schema, absent):
    rng = np.random.default_rng(0)
    bits = rng.random((50, 4)) < 0.5
    assert (label_bits(pattern_labels(bits), 4) == bits).all()
    assert pattern_labels(bits[:1])[0] == "m" + "".join("1" if b else "0" for b in bits[0])
    with pytest.raises(ValueError):
        label_bits(["m01"], 3)
    assert [c.name for c in schema.nullable] == list(NULLABLE)
    assert absent.mean(axis=0) == pytest.approx([0.021, 0.85, 0.85, 0.85, 0.57])
    assert missing_blocks(absent, NULLABLE) == (
        ("emp_length",),
        JOINT_BLOCK,
        ("mths_since_last_delinq",),
    )


def test_exact_patterns_keep_shares_and_the_block(absent):
    dist = exact_patterns(absent, NULLABLE)
    assert len(dist.probs[0]) == 8  # 3 blocks, each missing or not, all observed
    assert dist.column_shares() == pytest.approx(absent.mean(axis=0), abs=1e-12)
    drawn = dist.sample(20_000, np.random.default_rng(1))
    assert np.abs(drawn.mean(axis=0) - absent.mean(axis=0)).max() < 0.015
    block = drawn[:, 1:4]
    assert (block.all(axis=1) | ~block.any(axis=1)).all()


def test_projection_is_the_least_squares_histogram():
    rng = np.random.default_rng(2)
    for _ in range(5):
        y = rng.normal(5.0, 8.0, 12)
        total = float(abs(y.sum())) + 1.0
        x = project_to_simplex(y, total)
        assert (x >= 0).all() and x.sum() == pytest.approx(total)
        # independent check: the quadratic program by SLSQP
        qp = minimize(
            lambda v, y=y: ((v - y) ** 2).sum(),
            np.full(12, total / 12),
            constraints=[{"type": "eq", "fun": lambda v, t=total: v.sum() - t}],
            bounds=[(0, None)] * 12,
            method="SLSQP",
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert x == pytest.approx(qp.x, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40),
    st.floats(1e-3, 1e4),
)
def test_projection_invariants(values, total):
    y = np.asarray(values)
    x = project_to_simplex(y, total)
    assert (x >= 0).all() and x.sum() == pytest.approx(total, rel=1e-9, abs=1e-9)
    kept = x > 0  # KKT: every kept cell is moved down by the same tau, dropped ones lie below
    tau = float(np.mean(y[kept] - x[kept]))
    assert y[kept] - x[kept] == pytest.approx(np.full(kept.sum(), tau), abs=1e-6)
    assert (y[~kept] <= tau + 1e-6).all()


# -- DP accounting ------------------------------------------------------------------------
@pytest.mark.parametrize("max_group", [8, 2, 1])
def test_neighbouring_tables_move_the_histogram_by_sqrt_groups(absent, max_group):
    groups = column_groups(len(NULLABLE), max_group)
    assert sorted(j for g in groups for j in g) == list(range(len(NULLABLE)))
    base = pattern_counts(absent, groups)
    assert base.sum() == len(groups) * len(absent)
    sens = l2_sensitivity_of_groups(len(groups))
    assert sens**2 >= len(groups)
    for i in (0, 7, 1_999):  # remove one row / add a copy of it: the worst case is sqrt(G)
        removed = pattern_counts(np.delete(absent, i, axis=0), groups)
        added = pattern_counts(np.vstack([absent, ~absent[i : i + 1]]), groups)
        for other in (removed, added):
            assert np.linalg.norm(other - base) == pytest.approx(math.sqrt(len(groups)))


def test_noisy_patterns_record_their_rho_and_converge_with_little_noise(absent):
    acc = PrivacyAccountant(1.0, 1e-5)
    rho = pattern_rho(1.0, 1e-5)
    assert rho == pytest.approx(PATTERN_BUDGET_SHARE * rho_from_epsilon_delta(1.0, 1e-5))
    dist = noisy_patterns(absent, NULLABLE, rho, rng=np.random.default_rng(3), accountant=acc)
    (entry,) = acc.ledger
    assert entry.kind == "zcdp" and entry.rho == pytest.approx(rho)
    assert len(dist.probs[0]) == 2 ** len(NULLABLE)  # the public domain, every cell measured
    assert sum(p.sum() for p in dist.probs) == pytest.approx(1.0)
    assert np.abs(dist.column_shares() - absent.mean(axis=0)).max() < 0.10
    # rho large: the estimate is the exact distribution up to the rounding of the noise
    for max_group in (8, 2):
        sharp = noisy_patterns(
            absent, NULLABLE, 1e6, rng=np.random.default_rng(4), max_group=max_group
        )
        assert sharp.column_shares() == pytest.approx(absent.mean(axis=0), abs=0.005)
    with pytest.raises(AssumptionError):
        pattern_rho(1.0, 1e-5, share=1.0)


def test_sigma_composed_with_the_histogram_spends_the_budget():
    q, steps, eps, delta = 0.25, 40, 1.0, 1e-5
    rho = pattern_rho(eps, delta)
    sigma = calibrate_noise_multiplier(
        sample_rate=q, steps=steps, epsilon=eps, delta=delta, rho=rho, orders=ORDERS
    )
    kw = dict(sample_rate=q, steps=steps, rho=rho, delta=delta, orders=ORDERS)
    assert 0.99 * eps <= composed_epsilon(sigma, **kw) <= eps
    assert composed_epsilon(sigma * 0.99, **kw) > eps  # the smallest such sigma (1%)
    assert sigma > calibrate_noise_multiplier(
        sample_rate=q, steps=steps, epsilon=eps, delta=delta, rho=1e-12, orders=ORDERS
    )  # the histogram's share costs DP-SGD some noise
    # independent composition: Google's dp-accounting (its own orders and RDP code)
    from dp_accounting import dp_event
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    ref = RdpAccountant()
    ref.compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps
        )
    )
    ref.compose(dp_event.ZCDpEvent(rho))
    assert ref.get_epsilon(delta) <= eps + 1e-3
    with pytest.raises(AssumptionError):
        calibrate_noise_multiplier(
            sample_rate=q, steps=steps, epsilon=eps, delta=delta, rho=0.1, orders=ORDERS
        )


# -- sampling logic -----------------------------------------------------------------------
def test_conditioner_emits_the_missing_code_exactly_where_the_pattern_says():
    dist = exact_patterns(np.array([[True, False], [False, True], [False, False]]), ("a", "b"))
    cond = PatternConditioner([3, 4, 2], [(1, 3), (2, 1)], dist)
    torch.manual_seed(0)
    raw = torch.randn(200, 9, requires_grad=True)
    m = (torch.rand(200, 2) < 0.5).float()
    hard = cond.activate(raw, m, hard=True).detach().numpy()
    assert (hard.reshape(200, -1).sum(axis=1) == 3).all()
    assert ((hard[:, 3 + 3] == 1) == (m[:, 0].numpy() == 1)).all()  # span 1, code 3
    assert ((hard[:, 7 + 1] == 1) == (m[:, 1].numpy() == 1)).all()  # span 2, code 1
    soft = cond.activate(raw, m)
    soft.sum().backward()
    assert torch.isfinite(raw.grad).all()
    s = soft.detach().numpy()
    assert s[:, 3:7].sum(axis=1) == pytest.approx(np.ones(200), abs=1e-5)
    assert (s[m[:, 0].numpy() == 0, 6] == 0).all()
    gen = torch.nn.Linear(5 + 2, 9)
    rows = cond.generate(gen, 50, embedding_dim=5, hard=True)
    assert rows.shape == (50, 9)


class FakeCTGAN:
    """A stand-in for a fitted ctgan.CTGAN: the category comes out missing ``bad`` times."""

    def __init__(self, bad: int) -> None:
        self.bad = bad
        self.calls: list[tuple[int, str]] = []

    def sample(self, n, condition_column=None, condition_value=None):
        assert condition_column == PATTERN_COLUMN
        self.calls.append((n, condition_value))
        level = MISSING_LEVEL if len(self.calls) <= self.bad else "x"
        return pd.DataFrame({"cat": [level] * n, "num": np.arange(n, dtype=float)})


@pytest.mark.parametrize("bad", [0, 3, 1_000])
def test_rows_are_drawn_per_pattern_and_present_categories_redrawn(bad):
    absent = np.array([[False], [True], [False], [False], [True]])
    model = FakeCTGAN(bad)
    out = sample_by_pattern(model, absent, categorical={0: "cat"})
    assert list(out[PATTERN_COLUMN]) == list(pattern_labels(absent))
    assert len(out) == 5 and set(model.calls[:2]) == {(3, "m0"), (2, "m1")}
    present = out.loc[~absent[:, 0], "cat"]
    if bad < 1_000:
        assert (present == "x").all()
    else:  # the generator insists: the cell stays missing after MAX_REDRAWS rounds
        assert (present == MISSING_LEVEL).all() and len(model.calls) == 2 + MAX_REDRAWS


# -- CTGAN on the loan-book fixture --------------------------------------------------------
def fit_dp(schema: Schema, table: pd.DataFrame, min_rows: int, seed: int) -> CTGANSynthesizer:
    """DP-CTGAN at epsilon = 1, one epoch, tiny networks."""
    kw = dict(epsilon=1.0, epochs=1, batch_size=500, bins=8, min_rows=min_rows, seed=seed)
    return CTGANSynthesizer(schema, **kw, **TINY).fit(table)


def test_dp_ctgan_missing_shares_at_epsilon_one(loans, schema):
    synth = fit_dp(schema, loans, min_rows=2_000, seed=11)
    assert synth.rows_dropped_missing_ == 0  # every row used
    spent = synth.accountant.check_within_budget()
    assert 0.99 <= spent.epsilon <= 1.0 and spent.delta == 1e-5 and spent.route == "rdp"
    kinds = [e.kind for e in synth.accountant.ledger]
    assert kinds.count("zcdp") == 1 and set(kinds) == {"zcdp", "rdp"}
    assert synth.accountant.ledger[0].rho == pytest.approx(synth.pattern_rho_)
    out = synth.sample(len(loans), seed=np.random.SeedSequence(3))
    real, syn = missing_shares(loans), missing_shares(out)
    assert real["annual_inc_joint"] == pytest.approx(0.85)
    for name in NULLABLE:
        assert syn[name] == pytest.approx(real[name], abs=0.10), name
    assert together(out) >= 0.90
    assert out["mths_since_last_delinq"].dtype == "Int64"
    pd.testing.assert_frame_equal(out, synth.sample(len(loans), seed=np.random.SeedSequence(3)))


def test_dp_ctgan_public_quantities_equal_on_neighbouring_tables(loans, schema):
    # the noise multiplier, the histogram's rho, q and the steps come from public N and
    # epsilon only: removing a row changes none of them
    a = fit_dp(schema, loans.iloc[:600], min_rows=500, seed=1)
    b = fit_dp(schema, loans.iloc[1:600], min_rows=500, seed=1)
    for attr in ("noise_multiplier_", "pattern_rho_", "sample_rate_", "steps_"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert a.accountant.spent() == b.accountant.spent()


def test_ctgan_without_dp_meets_the_fixture_figures(loans, schema):
    # ~10 s: ctgan fits a Gaussian mixture per number; 3 epochs do not train the GAN, and
    # the shares and the block hold anyway, since the pattern is drawn before the values
    synth = CTGANSynthesizer(schema, epochs=3, batch_size=500, seed=7).fit(loans)
    assert synth.rows_dropped_missing_ == 0  # every row used
    assert synth.missing_blocks_[1] == JOINT_BLOCK
    out = synth.sample(len(loans), seed=np.random.SeedSequence(3))
    real, syn = missing_shares(loans), missing_shares(out)
    for name in NULLABLE:
        assert syn[name] == pytest.approx(real[name], abs=0.05), name
    assert together(out) >= 0.90
    assert out["mths_since_last_delinq"].dtype == "Int64" and out["is_joint"].dtype == bool
