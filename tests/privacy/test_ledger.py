"""The privacy ledger: composition by the tightest valid rule, the lifetime budget, atomicity."""

from __future__ import annotations

import json
import math
import os

import pytest

from synthcert.errors import BudgetError, DataError, ParameterError
from synthcert.privacy.claims import (
    DATA_DOMAIN,
    GUARANTEE,
    Assumption,
    PrivacyClaim,
    no_privacy_claim,
)
from synthcert.privacy.conversion import rdp_to_dp, zcdp_to_dp
from synthcert.privacy.ledger import (
    LEDGER_FIELDS,
    RESERVATION,
    append_claim,
    check_lifetime,
    commit_claim,
    compose,
    epsilon_at,
    ledger_entry,
    ledger_total,
    read_ledger,
    reserve_claim,
)


def pure(eps=1.0, relation="unbounded"):
    return PrivacyClaim("pure-dp", GUARANTEE, relation, epsilon=eps, delta=0.0, n_out=100)


def zcdp(rho=0.05, eps=1.0, delta=1e-6):
    return PrivacyClaim("zcdp", GUARANTEE, "unbounded", epsilon=eps, delta=delta, rho=rho)


def rdp(alpha, eps_rdp, eps=None, delta=None):
    return PrivacyClaim(
        "inherent-rdp", GUARANTEE, "unbounded", epsilon=eps, delta=delta, alpha=alpha,
        epsilon_rdp=eps_rdp,
    )  # fmt: skip


def test_two_pure_releases_total_epsilon_two(tmp_path):
    path = tmp_path / "adult.ledger.jsonl"
    append_claim(path, pure())
    append_claim(path, pure())
    total = ledger_total(path)
    assert total.entries == 2
    assert total.total.model == "pure-dp" and total.total.epsilon == 2.0
    assert total.total.risk.tpr_at_fpr["0.01"] == pytest.approx(math.exp(2) * 0.01, abs=1e-9)


def test_two_zcdp_releases_compose_to_twice_rho():
    total = compose([zcdp(0.05), zcdp(0.05)])
    assert total.model == "zcdp" and total.rho == pytest.approx(0.1)
    assert total.delta == pytest.approx(2e-6)
    assert total.epsilon == pytest.approx(min(zcdp_to_dp(0.1, 2e-6), 2.0))
    assert total.conversion == "ledger: zcdp"


def test_pure_entries_join_a_zcdp_total_as_eps_squared_over_two():
    total = compose([pure(0.5), zcdp(0.05)])
    assert total.model == "zcdp" and total.rho == pytest.approx(0.125 + 0.05)


def test_renyi_entries_compose_at_the_smallest_order():
    """(4, 0.5)- and (8, 0.3)-RDP are both RDP at order 4 (RDP grows with the order)."""
    total = compose([rdp(4.0, 0.5, 5.0, 1e-9), rdp(8.0, 0.3, 5.0, 1e-9), zcdp(0.01, 2.0, 1e-9)])
    assert total.model == "inherent-rdp" and total.alpha == 4.0
    assert total.epsilon_rdp == pytest.approx(0.5 + 0.3 + 0.04)
    assert total.epsilon == pytest.approx(float(rdp_to_dp(4.0, 0.84, 3e-9, "ckm")))  # < 12
    assert compose([rdp(4.0, 0.5, 1.0, 1e-9), rdp(4.0, 0.5, 1.0, 1e-9)]).epsilon == 2.0


def test_otherwise_basic_composition_and_what_cannot_compose():
    approx = PrivacyClaim("approx-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-6)
    total = compose([approx, zcdp(0.05, 2.0, 1e-6)])
    assert (total.model, total.epsilon, total.delta) == ("approx-dp", 3.0, 2e-6)
    with pytest.raises(ParameterError, match="no composition rule"):
        compose([approx, rdp(4.0, 0.5)])


def test_mixed_neighbouring_relations_are_refused():
    with pytest.raises(ParameterError, match="twice the cost"):
        compose([pure(), pure(relation="bounded")])
    assert compose([pure(relation="bounded"), pure(relation="bounded-direct")]).epsilon == 2.0


def test_an_entry_without_a_guarantee_voids_the_total():
    data = PrivacyClaim("pure-dp", DATA_DOMAIN, "unbounded", epsilon=1.0, delta=0.0)
    assert not compose([pure(), data]).is_guarantee
    assert compose([pure(), data]).risk.tpr_at_fpr is None


def test_a_release_beyond_the_lifetime_budget_is_refused_and_the_ledger_unchanged(tmp_path):
    path = tmp_path / "ledger.jsonl"
    for _ in range(2):
        check_lifetime(path, pure(), epsilon=2.5)
        append_claim(path, pure())
    before = path.read_bytes()
    with pytest.raises(BudgetError, match="ε = 3.*lifetime budget ε = 2.5"):
        check_lifetime(path, pure(), epsilon=2.5)
    assert path.read_bytes() == before
    with pytest.raises(BudgetError, match="no differential-privacy guarantee"):
        check_lifetime(path, no_privacy_claim(5), epsilon=10.0)
    with pytest.raises(ParameterError, match="lifetime δ"):
        check_lifetime(path, zcdp(), epsilon=10.0)  # not pure: δ is needed
    assert check_lifetime(path, zcdp(0.01), epsilon=10.0, delta=1e-5).model == "zcdp"
    assert path.read_bytes() == before


def test_epsilon_at_reads_the_tightest_description():
    total = compose([zcdp(0.05, 1.0, 1e-6), zcdp(0.05, 1.0, 1e-6)])
    assert epsilon_at(total, 1e-3) == pytest.approx(min(zcdp_to_dp(0.1, 1e-3), 2.0))
    assert epsilon_at(total, 1e-9) == pytest.approx(zcdp_to_dp(0.1, 1e-9))


def test_an_entry_holds_claim_fields_only(tmp_path):
    claim = PrivacyClaim(
        "pure-dp", GUARANTEE, "bounded", epsilon=1.0, delta=0.0, n_out=30162,
        mechanisms=("Laplace",),
        assumptions=(Assumption("n", 30162, "definition"),
                     Assumption("domain", "/data/private/adult.csv", "data")),
        warnings=("read from /data/private/adult.csv in 3.2 s",),
    )  # fmt: skip
    path = append_claim(tmp_path / "l.jsonl", claim)
    (line,) = path.read_text(encoding="utf-8").splitlines()
    doc = json.loads(line)
    assert set(doc) == set(LEDGER_FIELDS)
    assert "n" not in doc and "assumptions" not in doc and "warnings" not in doc
    assert "/data/private" not in line and "3.2 s" not in line and "seconds" not in line
    (back,) = read_ledger(path)
    assert (back.model, back.epsilon, back.n_out) == ("pure-dp", 1.0, 30162)


def test_a_failed_append_leaves_the_ledger_as_it_was(tmp_path, monkeypatch):
    path = append_claim(tmp_path / "l.jsonl", pure())
    before = path.read_bytes()

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        append_claim(path, pure())
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.jsonl", "l.jsonl.lock"]


def test_a_malformed_ledger_is_named():
    with pytest.raises(ParameterError):
        compose([])


def test_a_malformed_line_is_refused(tmp_path):
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps(pure().to_dict() | {"n": 5}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 1"):
        read_ledger(path)
    with pytest.raises(DataError, match="holds no entry"):
        ledger_total(tmp_path / "missing.jsonl")


def test_a_reservation_counts_until_committed_and_a_concurrent_run_cannot_pass(tmp_path):
    path = tmp_path / "l.jsonl"
    append_claim(path, pure())
    token = reserve_claim(path, pure(), epsilon=2.5)  # run A: 1 + 1 <= 2.5
    assert ledger_total(path).reserved == 1 and ledger_total(path).total.epsilon == 2.0
    before = path.read_bytes()
    with pytest.raises(BudgetError, match="ε = 3"):  # run B, started before A recorded
        reserve_claim(path, pure(), epsilon=2.5)
    assert path.read_bytes() == before
    smaller = pure(0.5)
    commit_claim(path, token, smaller)  # A's actual claim replaces its reservation
    total = ledger_total(path)
    assert (total.entries, total.reserved, total.total.epsilon) == (2, 0, 1.5)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(RESERVATION not in json.loads(line) for line in lines)
    # the committed line is an ordinary entry, in the reservation's place
    assert [json.loads(line) for line in lines] == [ledger_entry(pure()), ledger_entry(smaller)]
    # a reservation that is gone (ledger rewritten by hand) is appended instead
    commit_claim(path, "not-a-token", pure(0.25))
    assert ledger_total(path).total.epsilon == 1.75


def test_a_run_that_stops_after_reserving_stays_counted(tmp_path):
    path = tmp_path / "l.jsonl"
    reserve_claim(path, pure(), epsilon=1.5)  # the run is killed before recording
    total = ledger_total(path)
    assert (total.entries, total.reserved, total.total.epsilon) == (1, 1, 1.0)
    with pytest.raises(BudgetError):
        reserve_claim(path, pure(), epsilon=1.5)


def _reserve_one(path: str) -> bool:
    try:
        reserve_claim(path, pure(), epsilon=3.5)
    except BudgetError:
        return False
    return True


def test_concurrent_runs_reserve_no_more_than_the_lifetime_budget(tmp_path):
    """Eight processes reserve ε = 1 each at once under a lifetime ε = 3.5: exactly three pass
    (without the locked check-and-reserve, all eight could pass the check before any wrote)."""
    from concurrent.futures import ProcessPoolExecutor

    path = str(tmp_path / "l.jsonl")
    with ProcessPoolExecutor(4) as pool:
        passed = list(pool.map(_reserve_one, [path] * 8))
    assert sum(passed) == 3
    assert ledger_total(path).total.epsilon == 3.0 and ledger_total(path).reserved == 3


def test_an_entry_that_cannot_be_composed_is_named():
    """Out-of-range or inconsistent figures are refused with the entry's position, never
    composed into a total (a negative ε once gave a total ε of 0; attack41)."""
    with pytest.raises(ParameterError, match="entry 2 of the ledger cannot be composed"):
        compose([pure(), pure(-1.0)])
    bad = PrivacyClaim("pure-dp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-6)
    with pytest.raises(ParameterError, match="entry 1 .*pure ε-DP with δ"):
        compose([bad, pure()])
    no_rho = PrivacyClaim("zcdp", GUARANTEE, "unbounded", epsilon=1.0, delta=1e-6)
    assert (compose([no_rho, no_rho]).model, compose([no_rho, no_rho]).epsilon) == (
        "approx-dp",
        2.0,
    )  # a zCDP claim without ρ still composes by its (ε, δ)
