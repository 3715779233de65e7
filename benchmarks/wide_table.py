"""Every synthesizer on the wide fixture (10,000 rows x 50 columns) at epsilon = 1 (issue 27).

The fixture (tests/fixtures/wide_table.py) has the shape of the held-out loan book on which AIM
crashed after twenty minutes: ten lognormal columns under a linear scale, ten Poisson counts,
eight nullable columns missing 2-86% in blocks, a Zipf 50-level categorical, ten small
categoricals, six correlated scores and five integer codes, with a public schema. For each
synthesizer the fit + sample time (wall and CPU seconds of this process) at epsilon = 1,
delta = 1e-6, with every warning an error, against its target (AIM 3 min; MWEM-PGM and
PrivBayes 1 min; the others have none) and against a floor measured in the same run: computing
every 1-way and 2-way marginal of the discretised table with numpy (``np.bincount``), the
counts AIM and MWEM read before their first selection.

    PYTHONPATH=src python benchmarks/wide_table.py [--rows 10000] [--synthesizers aim,...]
        [--epsilon 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

from wide_table import wide_table

from synthcert.data.discretize import Discretizer
from synthcert.synthesizers.registry import make_synthesizer

TARGETS = {"aim": 180.0, "mwem-pgm": 60.0, "privbayes": 60.0}
PARAMS = {
    "gaussian": {"ridge": 0.5, "min_rows": 5_000},  # the certified release: no epsilon
    "ctgan": {"epochs": 1, "min_rows": 5_000},
}
DEFAULT = ["aim", "mwem-pgm", "privbayes", "gaussian-copula", "gaussian", "ctgan"]


def marginal_floor(table, schema) -> float:
    """Seconds to count every 1-way and 2-way marginal of the discretised table."""
    t0 = time.perf_counter()
    codes = Discretizer(schema).transform(table)
    cards = [int(c) for c in Discretizer(schema).cardinalities]
    for i, c in enumerate(cards):
        np.bincount(codes[:, i], minlength=c)
    for i, j in itertools.combinations(range(len(cards)), 2):
        np.bincount(codes[:, i] * cards[j] + codes[:, j], minlength=cards[i] * cards[j])
    return time.perf_counter() - t0


def run(name: str, table, schema, epsilon: float, seed: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of fit + sample, and the number of selection rounds (PGM)."""
    params = dict(PARAMS.get(name, {}))
    if name != "gaussian":
        params.update(epsilon=epsilon, delta=1e-6, seed=seed)
    rounds = [0]
    if name in ("aim", "mwem-pgm"):
        params["progress"] = lambda _msg: rounds.__setitem__(0, rounds[0] + 1)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", module=r"(torch|opacus)(\.|$)")
        synth = make_synthesizer(name, schema, **params).fit(table)
        out = synth.sample(len(table), seed=seed + 1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    numeric = out.select_dtypes("number").to_numpy(dtype=np.float64)
    assert len(out) == len(table) and np.all(np.isfinite(numeric[~np.isnan(numeric)]))
    return wall, cpu, rounds[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--synthesizers", default=",".join(DEFAULT))
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table, schema = wide_table(args.rows, seed=args.seed)
    floor = marginal_floor(table, schema)
    print(f"wide fixture: {len(table):,} rows x {len(schema.names)} columns, "
          f"epsilon = {args.epsilon:g}, delta = 1e-6")  # fmt: skip
    print(f"floor (all 1- and 2-way marginals with numpy): {floor:.2f} s")
    print(f"{'synthesizer':<16}{'wall s':>9}{'cpu s':>9}{'rounds':>8}{'target s':>10}"
          f"{'wall/target':>12}{'wall/floor':>11}")  # fmt: skip
    for name in args.synthesizers.split(","):
        wall, cpu, rounds = run(name, table, schema, args.epsilon, args.seed)
        target = TARGETS.get(name)
        ratio = f"{wall / target:.2f}" if target else "-"
        print(f"{name:<16}{wall:>9.1f}{cpu:>9.1f}{rounds or '-':>8}"
              f"{target or '-':>10}{ratio:>12}{wall / floor:>11.0f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
