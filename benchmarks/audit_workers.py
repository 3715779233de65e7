"""Throughput of the Setsubun audit: Gaussian synthesizer on Adult's six numeric columns, all
attacks, 3 trials x 100 generations, with one worker and with more (issue #7: < 10 min; issue
#20: >= 1.7x on two workers).

Each worker count runs twice in a row: "cold" (the loky worker processes are shut down first,
so the run starts them and pays their imports of pandas and synthcert) and "warm" (the pool is
reused, as when several audits run in one process, e.g. ``synthcert reproduce setsubun``).
``--repeats N`` runs the whole sequence N times and takes each configuration's fastest run (the
machine's other load only ever slows a run down). Speed-ups are against the first worker count,
measured in the same run; the IMs are checked identical across worker counts. The load average
is printed before and after: quote it with the figures.

Run: SYNTHCERT_DATA_HOME=/work/shared/data python benchmarks/audit_workers.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def shut_down_worker_pool() -> None:
    """Stop the reusable loky pool, so the next audit with workers > 1 starts cold."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor(max_workers=1).shutdown(wait=True)


def main() -> None:
    from synthcert.audit import run_audit
    from synthcert.data.datasets import adult_schema, load_adult

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--generations", type=int, default=100)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    table = load_adult(numeric_only=True)
    schema = adult_schema(numeric_only=True)
    print(
        f"Adult numeric: {len(table)} rows x {len(schema.columns)} columns; "
        f"cpu_count={os.cpu_count()}; load average {os.getloadavg()[0]:.2f}"
    )
    times: dict[tuple[int, str], list[float]] = {}
    ims = {}
    for rep in range(args.repeats):
        for w in args.workers:
            shut_down_worker_pool()
            for phase in ("cold", "warm"):
                t0 = time.perf_counter()
                res = run_audit(
                    table, schema, "gaussian", attacks="all", trials=args.trials,
                    generations=args.generations, workers=w, seed=0,
                )  # fmt: skip
                times.setdefault((w, phase), []).append(time.perf_counter() - t0)
                ims[w] = res.ims
                print(f"run {rep + 1} workers={w} {phase}: {times[w, phase][-1]:.1f} s", flush=True)
            if rep == 0:
                aucs = ", ".join(f"{k}={s.auc:.3f}" for k, s in res.attacks.items())
                print(f"  target row {res.target_row} ({res.target_mahalanobis:.2f}); {aucs}")
    base = args.workers[0]
    for w in args.workers[1:]:
        same = all(
            np.array_equal(ims[base][k][s], ims[w][k][s]) for k in ims[base] for s in ("pos", "neg")
        )
        for phase in ("cold", "warm"):
            fast_base, fast_w = min(times[base, phase]), min(times[w, phase])
            per_run = ", ".join(
                f"{a / b:.2f}" for a, b in zip(times[base, phase], times[w, phase], strict=True)
            )
            print(
                f"speed-up {w} vs {base} workers, {phase}: {fast_base / fast_w:.2f}x "
                f"(fastest {fast_base:.1f} s vs {fast_w:.1f} s; per run: {per_run})"
            )
        print(f"same IMs with {w} and {base} workers: {same}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
