"""Throughput of the Setsubun audit: Gaussian synthesizer on Adult's six numeric columns, all
attacks, 3 trials x 100 generations, with one worker and with two (issue #7: < 10 min, >= 1.7x).

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
    times, ims = {}, {}
    for w in args.workers:
        t0 = time.perf_counter()
        trained_at: list[float] = []

        def tick(done: int, total: int, t0=t0, marks=trained_at) -> None:
            if done == args.trials and not marks:
                marks.append(time.perf_counter() - t0)

        res = run_audit(
            table, schema, "gaussian", attacks="all", trials=args.trials,
            generations=args.generations, workers=w, seed=0, progress=tick,
        )  # fmt: skip
        times[w] = time.perf_counter() - t0
        ims[w] = res.ims
        aucs = ", ".join(f"{k}={s.auc:.3f}" for k, s in res.attacks.items())
        print(f"workers={w}: {times[w]:.1f} s, of which shadow tables + training "
              f"{trained_at[0]:.1f} s  (target row {res.target_row}, "
              f"Mahalanobis {res.target_mahalanobis:.2f})")  # fmt: skip
        print(f"  AUCs: {aucs}")
    base = args.workers[0]
    for w in args.workers[1:]:
        same = all(
            np.allclose(ims[base][k][s], ims[w][k][s], rtol=1e-12, atol=1e-12)
            for k in ims[base]
            for s in ("pos", "neg")
        )
        print(f"speed-up {w} vs {base} workers: {times[base] / times[w]:.2f}x; same IMs: {same}")


if __name__ == "__main__":
    main()
