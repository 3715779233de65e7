"""Throughput of the Setsubun audit: Gaussian synthesizer on Adult's six numeric columns, all
attacks, 3 trials x 100 generations, with one worker and with more (issue #7: < 10 min, >= 1.7x).

Each worker count runs twice in this process: "cold" (the first run with that count, which
starts the loky worker processes and pays their imports of pandas, scikit-learn and XGBoost)
and "warm" (the pool is reused, as when several audits run in one process, e.g. ``synthcert
reproduce setsubun``). Speed-ups are against one worker, measured in the same run; the IMs are
checked identical across worker counts.

Run: SYNTHCERT_DATA_HOME=/work/shared/data python benchmarks/audit_workers.py [--trials 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    from synthcert.audit import run_audit
    from synthcert.data.datasets import adult_schema, load_adult

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--generations", type=int, default=100)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    table = load_adult(numeric_only=True)
    schema = adult_schema(numeric_only=True)
    print(
        f"Adult numeric: {len(table)} rows x {len(schema.columns)} columns; "
        f"cpu_count={os.cpu_count()}"
    )
    times: dict[tuple[int, str], float] = {}
    ims = {}
    for w in args.workers:
        for phase in ("cold", "warm"):
            t0 = time.perf_counter()
            res = run_audit(
                table, schema, "gaussian", attacks="all", trials=args.trials,
                generations=args.generations, workers=w, seed=0,
            )  # fmt: skip
            times[w, phase] = time.perf_counter() - t0
            ims[w] = res.ims
            print(f"workers={w} {phase}: {times[w, phase]:.1f} s")
        aucs = ", ".join(f"{k}={s.auc:.3f}" for k, s in res.attacks.items())
        print(f"  target row {res.target_row} (Mahalanobis {res.target_mahalanobis:.2f}); {aucs}")
    base = args.workers[0]
    for w in args.workers[1:]:
        same = all(
            np.array_equal(ims[base][k][s], ims[w][k][s]) for k in ims[base] for s in ("pos", "neg")
        )
        for phase in ("cold", "warm"):
            ratio = times[base, phase] / times[w, phase]
            print(f"speed-up {w} vs {base} workers, {phase}: {ratio:.2f}x")
        print(f"same IMs with {w} and {base} workers: {same}")


if __name__ == "__main__":
    main()
