"""Time per selection of the exact exponential mechanism against Gumbel-max on doubles (issue #25).

AIM and MWEM-PGM select among about 1,400 candidate marginals per round on Adult; DP quantiles
select among a public grid (34,201 points by default, up to 100,001 integers). Score vectors:
AIM-like (normal with spread 50, 2,000 and 0.5: one, one and many competitive candidates) and
quantile-like (minus the distance to a rank). Prints the median time per selection over
``--repeats`` runs of ``--calls`` selections, and the load average (the machine is shared).

    python benchmarks/exponential_selection.py [--calls 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from synthcert.privacy.mechanisms import exponential_mechanism


def gumbel_max(scores: np.ndarray, sensitivity: float, epsilon: float, rng) -> int:
    """The former sampler: argmax epsilon s / (2 Delta) + Gumbel noise on doubles."""
    logits = epsilon * scores / (2.0 * sensitivity)
    return int(np.argmax(logits + rng.gumbel(size=scores.size)))


def per_call(fn, scores: np.ndarray, epsilon: float, calls: int, repeats: int) -> float:
    rng = np.random.default_rng(0)
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(scores, 1.0, epsilon, rng)
        runs.append((time.perf_counter() - t0) / calls)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    cases = {
        "aim 1400, spread 50": (rng.normal(0.0, 50.0, 1400), 0.5),
        "aim 1400, spread 2000": (rng.normal(0.0, 2000.0, 1400), 0.5),
        "aim 1400, spread 0.5": (rng.normal(0.0, 0.5, 1400), 0.5),
        "quantile 34201": (-np.abs(np.arange(34201) - 17100.5), 0.5),
        "quantile 100001": (-np.abs(np.arange(100001) - 50000.5), 0.5),
    }

    def exact(s: np.ndarray, d: float, e: float, r) -> int:
        return exponential_mechanism(s, d, e, rng=r)

    out = {}
    for name, (scores, eps) in cases.items():
        calls = args.calls if scores.size < 10_000 else max(args.calls // 10, 3)
        out[name] = {
            "exact_ms": 1e3 * per_call(exact, scores, eps, calls, args.repeats),
            "gumbel_ms": 1e3 * per_call(gumbel_max, scores, eps, calls, args.repeats),
        }
    out["load_average"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
