"""Issue #7 acceptance check on California Housing (scikit-learn's nine numeric columns, the
copy the thesis audits), Gaussian copula, 3 trials x 100 generations.

The mah-max target is block 19,006 (1,243 people per household, Mahalanobis 118.92); the issue
asks that it raise the distance attack's AUC over a random target by at least 0.2 (the thesis
reports up to 0.4). Measured (seed 0): empirical marginals 0.479 -> 0.750 (+0.27), the
thesis's beta marginals (SDV's default) 0.497 -> 0.942 (+0.45); see docs/audit.md.
"""

from __future__ import annotations

import pytest

from synthcert.audit import run_audit
from synthcert.data.datasets import california_sklearn_features, california_sklearn_schema


@pytest.mark.slow
@pytest.mark.parametrize("marginals", ["empirical", "beta"])
def test_mahmax_beats_random_on_california_with_the_copula(california, marginals):
    table = california_sklearn_features(california)
    schema = california_sklearn_schema()
    kw = dict(
        synthesizer_params={"marginals": marginals},
        attacks="all",
        trials=3,
        generations=100,
        workers=2,
        seed=0,
    )
    res = {
        t: run_audit(table, schema, "gaussian-copula", target=t, **kw)
        for t in ("random", "mah-max")
    }
    for name in res["random"].attacks:
        print(f"{name:22s} random {res['random'].attacks[name].auc:.3f}  "
              f"mah-max {res['mah-max'].attacks[name].auc:.3f}")  # fmt: skip
    assert res["mah-max"].target_row == 18825
    assert res["mah-max"].target_mahalanobis == pytest.approx(118.92, abs=0.005)
    gain = res["mah-max"].attacks["distance"].auc - res["random"].attacks["distance"].auc
    assert gain >= 0.2
