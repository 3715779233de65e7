"""The one accounting path of a release of independent records (privacy/record_accountant.py):
the certified release M_G (budget.py) and the ridged release (ridge.py) both go through it."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from synthcert.errors import AssumptionError
from synthcert.privacy import record_accountant as ra
from synthcert.privacy.budget import account, max_records
from synthcert.privacy.conversion import rdp_to_dp, zcdp_to_dp
from synthcert.privacy.gaussian_release import record_event
from synthcert.privacy.record_accountant import (
    INFINITE_AT_ORDER,
    NO_FINITE_ORDER,
    RecordAccount,
    RecordCount,
    RecordEvent,
    account_records,
    budget_kind,
    count_within_dp,
    count_within_rdp,
    empty_range,
)
from synthcert.privacy.ridge import certify_ridge, max_records_ridge, ridge_event


def _linear(c: float, lim: float = 1e6) -> RecordEvent:
    """ε_α = c·α on 1 < α < lim: the Gaussian mechanism's curve (c = 1/(2σ²)), i.e. c-zCDP."""
    return RecordEvent(
        per_record=lambda a: c * np.asarray(a, dtype=float),
        alpha_max=lim,
        refusal=lambda a: None if 1 < a < lim else f"needs 1 < α < {lim:g}",
    )


def test_account_composes_and_converts_a_custom_curve():
    acc = account_records(_linear(0.01), 50, alpha=3.0, delta=1e-6, conversion="mironov")
    assert acc.feasible and acc.epsilon_rdp == pytest.approx(50 * 0.01 * 3.0, rel=1e-15)
    assert acc.epsilon == pytest.approx(1.5 + math.log(1e6) / 2.0, rel=1e-15)  # Prop. 2.6


def test_optimised_order_matches_the_zcdp_conversion():
    # n_out records of c·α are (n_out·c)-zCDP: the optimised CKS ε is zcdp_to_dp's
    acc = account_records(_linear(0.002), 100, delta=1e-6, conversion="ckm")
    assert acc.epsilon == pytest.approx(zcdp_to_dp(0.2, 1e-6), rel=1e-8)


def test_count_is_the_exact_floor_of_the_budget():
    for conversion in ("ckm", "mironov"):
        c = count_within_dp(_linear(1e-4), 2.0, 1e-6, conversion)
        assert c.feasible and c.max_records > 0
        per = c.epsilon_rdp_per_record
        spent = float(rdp_to_dp(c.alpha, c.max_records * per, 1e-6, conversion))
        more = float(rdp_to_dp(c.alpha, (c.max_records + 1) * per, 1e-6, conversion))
        assert spent == c.epsilon_spent <= 2.0 < more
    r = count_within_rdp(_linear(0.1), 3.0, 1.0)
    assert (r.max_records, r.epsilon_spent) == (3, 3 * 0.30000000000000004)  # floor(1/0.3)


def test_refusals_say_why():
    never = RecordEvent(lambda a: np.full(np.shape(a), np.inf), 5.0, lambda a: "no data fits")
    assert empty_range(never) == "no data fits"
    assert count_within_dp(never, 1.0, 1e-6).reason == "no data fits"
    assert account_records(never, 3, delta=1e-6).reason == "no data fits"
    closed = RecordEvent(lambda a: 0.1 * a, 1.0, lambda a: None)
    assert empty_range(closed) == "the admissible range of α is empty (α_max = 1)"
    inf = RecordEvent(lambda a: np.full(np.shape(a), np.inf), 5.0, lambda a: None)
    assert count_within_dp(inf, 1.0, 1e-6).reason == NO_FINITE_ORDER
    at = count_within_dp(inf, 1.0, 1e-6, alpha=2.0)
    assert (at.max_records, at.alpha, at.reason) == (0, 2.0, INFINITE_AT_ORDER)
    assert account_records(inf, 3, alpha=2.0).reason == INFINITE_AT_ORDER
    with pytest.raises(AssumptionError, match="delta is required"):
        account_records(_linear(0.1), 3)
    with pytest.raises(AssumptionError, match="n_out"):
        account_records(_linear(0.1), -1, alpha=2.0)


@pytest.mark.parametrize(
    ("sizing", "match"),
    [
        ({"alpha": 4.0, "epsilon_rdp": 1.0, "epsilon": 1.0}, "not both"),
        ({"epsilon_rdp": 1.0}, "needs its order"),
        ({"alpha": 4.0, "epsilon_rdp": -1.0}, "≥ 0"),
        ({"delta": 1e-6}, "give a budget"),
        ({}, "give a budget"),
    ],
)
def test_both_releases_refuse_a_malformed_budget_alike(sizing, match):
    for release in ("mg:unbounded", "ridge:unbounded"):
        with pytest.raises(AssumptionError, match=match):
            _release(release)[2](**sizing)
    assert budget_kind(4.0, 1.0, None, None) == "rdp"
    assert budget_kind(None, None, 1.0, 1e-6) == budget_kind(4.0, None, 1.0, 1e-6) == "dp"


def test_search_curve_chooses_and_per_record_certifies():
    # a looser search curve may only move α; the count is certified on the tight curve
    tight = _linear(1e-4)
    loose = RecordEvent(tight.per_record, tight.alpha_max, tight.refusal, lambda a: 2e-4 * a)
    c = count_within_dp(loose, 2.0, 1e-6, "mironov")
    assert c.epsilon_rdp_per_record == 1e-4 * c.alpha


def test_results_read_back():
    for r in (
        account_records(_linear(0.01), 5, delta=1e-6),
        account_records(_linear(0.01), 5, alpha=0.5),
    ):
        assert RecordAccount.from_dict(r.to_dict()) == r
    c = count_within_dp(_linear(1e-4), 2.0, 1e-6)
    assert RecordCount.from_dict(c.to_dict()) == c


def _release(name: str):
    """(event, certificate, budget) of a table: M_G at n = 1e5, the ridge at N = 1e4."""
    kind, rel = name.split(":")
    if kind == "mg":
        fns, args = (record_event, account, max_records), (10**5, 6, 0.01)
    else:
        fns, args = (ridge_event, certify_ridge, max_records_ridge), (10**4, 2, 0.1)
    event = fns[0](*args, rel)
    return event, partial(fns[1], *args, neighboring=rel), partial(fns[2], *args, neighboring=rel)


RELEASES = ["mg:unbounded", "mg:bounded-direct", "ridge:unbounded", "ridge:bounded"]


@pytest.mark.parametrize("release", RELEASES)
def test_both_releases_state_the_shared_paths_figures(release):
    event, certify_fn, budget_fn = _release(release)
    cert = certify_fn(delta=1e-9, n_out=500)
    shared = account_records(event, 500, delta=1e-9)
    assert (cert.alpha, cert.epsilon_rdp, cert.epsilon) == (
        shared.alpha, shared.epsilon_rdp, shared.epsilon,
    )  # fmt: skip
    b = budget_fn(epsilon=1.0, delta=1e-9)
    c = count_within_dp(event, 1.0, 1e-9)
    assert (b.max_records, b.alpha, b.epsilon_spent) == (c.max_records, c.alpha, c.epsilon_spent)
    assert b.max_records > 0


def test_both_releases_call_the_one_path(monkeypatch):
    seen = []
    real = ra.count_within_dp

    def spy(event, *args, **kwargs):
        seen.append(event)
        return real(event, *args, **kwargs)

    import synthcert.privacy.budget as budget

    # both releases size through budget.BudgetRequest.count: one place to spy on
    monkeypatch.setattr(budget, "count_within_dp", spy)
    max_records(10**5, 6, 0.01, epsilon=1.0, delta=1e-9)
    max_records_ridge(10**4, 2, 0.1, epsilon=1.0, delta=1e-6)
    assert len(seen) == 2 and all(isinstance(e, RecordEvent) for e in seen)


def test_a_vanishing_ridge_range_is_refused_not_a_crash():
    # ρ = 1e-300: α_max rounds to 1; the search used to fail with "math domain error"
    b = max_records_ridge(2, 1, 1e-300, epsilon=1.0, delta=1e-6)
    assert not b.feasible and b.max_records == 0 and "α" in b.reason
    cert = certify_ridge(2, 1, 1e-300, delta=1e-6)
    assert not cert.feasible and cert.epsilon is None


# ---------------------------------------------------------------------------------------------
# one type per concept: the account's fields are declared once; published keys keep their order
# ---------------------------------------------------------------------------------------------
ACCOUNT_KEYS = [
    "alpha", "n_out", "epsilon_rdp", "epsilon_rdp_per_record", "delta", "epsilon", "conversion",
    "feasible", "reason",
]  # fmt: skip
COUNT_KEYS = ["max_records", "alpha", "epsilon_rdp_per_record", "epsilon_spent"]
BUDGET_KEYS = ["budget_epsilon", "budget_delta", "budget_kind", "conversion", "neighboring", "n"]


def test_published_keys_keep_their_order():
    from synthcert.privacy.gaussian_release import certify

    head, tail = ["neighboring", "n", "d"], ["alpha_max", "equation"]
    assert list(account(10**6, 6, 0.01, alpha=4.0, delta=1e-9).to_dict()) == [
        *head, "sigma", *ACCOUNT_KEYS, *tail, "method",
    ]  # fmt: skip  # `synthcert privacy account --json`
    assert list(certify_ridge(10**4, 2, 0.1, alpha=4.0).to_dict()) == [
        *head, "rho", *ACCOUNT_KEYS, *tail, "unconditional", "assumptions",
    ]  # fmt: skip
    assert list(certify(10**6, 6, 0.01, 4.0).to_dict()) == [
        *head, "sigma", *ACCOUNT_KEYS, "alpha_max", "p", "equation", "variant", "method",
    ]  # fmt: skip
    budget = [*COUNT_KEYS, *BUDGET_KEYS, "d"]
    for scale, result in (
        ("sigma", max_records(10**6, 6, 0.01, epsilon=3.0, delta=1e-9)),  # `privacy budget`
        ("rho", max_records_ridge(10**4, 2, 0.1, epsilon=1.0, delta=1e-9)),
    ):
        assert list(result.to_dict()) == [*budget, scale, "feasible", "reason"]


def test_the_accounts_fields_are_declared_once():
    from synthcert.privacy import Account, RecordBudget
    from synthcert.privacy.budget import GaussianBudget, GaussianCertificate
    from synthcert.privacy.gaussian_release import RDPCertificate
    from synthcert.privacy.ridge import RidgeBudget, RidgeCertificate

    assert Account is GaussianCertificate and RecordBudget is GaussianBudget  # the old names
    for cert in (GaussianCertificate, RDPCertificate, RidgeCertificate):
        assert issubclass(cert, ra.RecordCertificate) and issubclass(cert, RecordAccount)
        assert not set(vars(cert).get("__annotations__", {})) & set(ACCOUNT_KEYS)
    for budget in (GaussianBudget, RidgeBudget):
        assert issubclass(budget, ra.BudgetFields) and issubclass(budget, RecordCount)
    # the ridge restates only the types of a refusal's order and cost (None, not nan/inf)
    assert set(vars(RidgeBudget)["__annotations__"]) == {"alpha", "epsilon_rdp_per_record", "rho"}


@pytest.mark.parametrize("release", RELEASES)
def test_a_certificate_is_its_account(release):
    event, certify_fn, _ = _release(release)
    cert = certify_fn(delta=1e-9, n_out=500)
    acc = account_records(event, 500, delta=1e-9)
    assert {k: getattr(cert, k) for k in ACCOUNT_KEYS} == acc.fields()
    assert cert.claim == acc.claim_for(cert.neighboring)


@pytest.mark.parametrize(
    "sizing", [{"epsilon": 3.0, "delta": 1e-9}, {"alpha": 4.0, "epsilon_rdp": 1.0}]
)
def test_a_budget_claims_what_the_certificate_of_its_rows_claims(sizing):
    got = max_records(10**6, 6, 0.01, **sizing)
    conversion = {"conversion": "ckm"} if "delta" in sizing else {}
    cert = account(
        10**6, 6, 0.01, alpha=got.alpha, n_out=got.max_records, delta=sizing.get("delta"),
        **conversion,
    )  # fmt: skip
    assert got.claim == cert.claim and got.account.epsilon_rdp == cert.epsilon_rdp
    refused = max_records(100, 6, 0.01, epsilon=1.0, delta=1e-9)
    assert not refused.claim.is_guarantee and refused.claim.n_out == 0
