"""Fixtures shaped like the JSON contracts of `release`, `evaluate` and `audit`.

The certificate's privacy figures are computed with the real accountant so that the report's
recomputation must agree with them; the evaluation and audit carry random but well-formed data.
"""

from __future__ import annotations

import numpy as np
import pytest

# A record value that must never reach the page (the audit is given it on purpose).
SECRET_VALUE = 987654321


def make_certificate(
    *, n=30162, d=6, sigma=0.02, n_out=2000, delta=1e-5, neighboring="unbounded", conversion="ckm"
) -> dict:
    """A certificate at the α that minimises ε, as `synthcert release --n-out` would write."""
    from synthcert.privacy.budget import account

    acc = account(
        n, d, sigma, n_out=n_out, delta=delta, neighboring=neighboring, conversion=conversion
    )
    unbounded = neighboring == "unbounded"
    return {
        "synthesizer": "gaussian",
        "d": d,
        "sigma": sigma,
        "sigma_source": "declared",
        "ridge": None,
        "bounds_source": "public",
        "min_rows": n if unbounded else None,
        "n": None if unbounded else n,
        "epsilon_rdp_per_record": acc.epsilon_rdp_per_record,
        "budget": None,
        "claim": {
            "model": "inherent-rdp",
            "guarantee": "differential privacy",
            "neighboring": neighboring,
            "alpha": acc.alpha,
            "n_out": n_out,
            "epsilon_rdp": acc.epsilon_rdp,
            "delta": delta,
            "epsilon": acc.epsilon,
            "conversion": conversion,
            "assumptions": [],
            "warnings": ["bounds or categories of age were taken from the data"],
        },
        "synthcert_version": "0.1.0",
        "date": "2025-01-02",
    }


def make_record() -> dict:
    """A private run record, as `--private-record` writes it (internal reports only)."""
    return {
        "command": "synthcert release adult.csv --schema adult.json --out synthetic.csv",
        "started": "2025-01-02T03:04:05+00:00",
        "seed_source": "os-entropy",
        "seed_entropy": "123456789012345678901234567890",
        "inputs": ["/data/adult.csv"],
        "input_sha256": "ab" * 32,
        "facts": {"rows_used": 30162, "rows_dropped_missing": 2399},
    }


def make_evaluation(seed: int = 0) -> dict:
    """The document `synthcert evaluate --json` writes (UtilityEvaluation.to_dict())."""
    rng = np.random.default_rng(seed)
    cols = {}
    for name in ("age", "hours-per-week"):
        p, q = rng.dirichlet(np.ones(20) * 4), rng.dirichlet(np.ones(20) * 4)
        cols[name] = {"name": name, "kind": "numeric", "l1": float(np.abs(p - q).sum()),
                      "l2": 0.1, "hellinger": 0.05, "wasserstein": 1.5,
                      "wasserstein_binned": 1.4, "wasserstein_normalized": 0.02,
                      "real": p.tolist(), "synthetic": q.tolist()}  # fmt: skip
    for name, k in (("sex", 2), ("native-country", 41)):
        p, q = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        cols[name] = {"name": name, "kind": "categorical", "l1": float(np.abs(p - q).sum()),
                      "l2": 0.1, "hellinger": 0.05, "wasserstein": 0.2,
                      "wasserstein_binned": 0.2, "wasserstein_normalized": 0.2,
                      "real": p.tolist(), "synthetic": q.tolist()}  # fmt: skip
    names = ["age", "hours-per-week", "education-num"]
    real = np.corrcoef(rng.normal(size=(3, 40)))
    syn = np.corrcoef(rng.normal(size=(3, 40)))
    return {
        "columns": cols,
        "summary": {
            "l1_categorical_mean": 0.3,
            "l1_numeric_mean": 0.2,
            "hellinger_numeric_mean": 0.05,
            "correlation_abs_diff_mean": 0.04,
            "correlation_abs_diff_max": 0.09,
        },
        "correlation": {
            "columns": names,
            "real": real.tolist(),
            "synthetic": syn.tolist(),
            "abs_diff": np.abs(real - syn).tolist(),
            "mean": 0.1,
            "max": 0.2,
        },
        "association": {  # the same columns: no second heat map
            "columns": names,
            "real": real.tolist(),
            "synthetic": syn.tolist(),
            "abs_diff": np.abs(real - syn).tolist(),
            "mean": 0.1,
            "max": 0.2,
        },
        "efficacy": {
            "income": {
                "target": "income",
                "task": "classification",
                "metric": "auc",
                "synthetic": 0.81,
                "real": 0.9,
                "n_train_synthetic": 2000,
                "n_train_real": 30162,
                "n_test": 15060,
                "note": "",
                "gap": 0.09,
            }
        },
        "bins": 20,
        "n_real": 30162,
        "n_synthetic": 2000,
        "n_holdout": 15060,
    }


def make_audit(seed: int = 0) -> dict:
    """The audit document `synthcert audit` writes (AuditResult.to_dict())."""
    rng = np.random.default_rng(seed)
    attacks, ims = {}, {}
    for name, shift in (("statistics", 0.4), ("distance", 0.1)):
        pos, neg = rng.normal(shift, 1, 150), rng.normal(0, 1, 150)
        ims[name] = {"pos": pos.tolist(), "neg": neg.tolist()}
        bound = {
            "epsilon": shift,
            "threshold": 0.5,
            "tpr": 0.3,
            "fpr": 0.2,
            "tpr_lower": 0.25,
            "fpr_upper": 0.25,
            "delta": 1e-5,
            "confidence": 0.95,
            "thresholds_tested": 300,
            "unit": "table",
            "runs_pos": 150,
            "runs_neg": 150,
            "tables_per_run": 1,
            "family": 2,
            "ceiling": 3.0,
            "reason": None,
        }
        attacks[name] = {"name": name, "auc": 0.5 + shift / 3, "auc_ci": [0.45, 0.65],
                         "tpr_at_1pct_fpr": 0.02, "tpr_at_01pct_fpr": 0.0,
                         "epsilon_lower_bound": shift, "epsilon_bound": bound,
                         "n_pos": 150, "n_neg": 150}  # fmt: skip
    return {
        "synthesizer": "gaussian",
        "privacy": {"model": "inherent-rdp", "epsilon": 12.5, "delta": 1e-5},
        "target": {
            "method": "mah-max",
            "row": 25093,
            "score": 14.0,
            "mahalanobis": 14.03,
            "ranking_method": "mahalanobis",
        },
        "target_row": 25093,
        "target_mahalanobis": 14.03,
        "trials": 3,
        "generations": 50,
        "rows": 30162,
        "encoded_dim": 6,
        "seed": 3,
        "workers": 1,
        "params": {"c1": 10, "c2": 10, "c3": 10, "chunks": 50, "bins": 20},
        "attacks": attacks,
        "ims": ims,
        "at_risk": [  # a record's values must never reach the page, even when given
            {"row": 17, "score": 3.5, "age": SECRET_VALUE},
            {"row": 25093, "score": 14.0},
            {"row": 4242, "score": 9.25},
        ],
        "ranking_method": "mahalanobis",
        "elapsed_seconds": 1.5,
        "notes": [],
    }


@pytest.fixture(scope="session")
def certificate() -> dict:
    return make_certificate()


@pytest.fixture(scope="session")
def evaluation() -> dict:
    return make_evaluation()


@pytest.fixture(scope="session")
def audit() -> dict:
    return make_audit()


@pytest.fixture(scope="session")
def record() -> dict:
    """A private run record (a fixture: ``from conftest import`` found another folder's
    conftest when that one was imported first)."""
    return make_record()


@pytest.fixture(scope="session")
def full_html(certificate, evaluation, audit) -> str:
    """The page rendered once from all three documents (rendering takes a few seconds)."""
    from synthcert.report.build import render_report

    prov = {"synthcert_version": "0.1.0", "command": "synthcert release x",
            "started": "2025-01-02T03:04:05+00:00", "report_generated": "fixed"}  # fmt: skip
    return render_report(certificate, evaluation, audit, prov, internal=True)


@pytest.fixture(scope="session")
def make_cert():
    """The certificate builder, for tests that need other (n, σ, n_out, neighbouring)."""
    return make_certificate


@pytest.fixture(scope="session")
def secret_value() -> int:
    return SECRET_VALUE
