"""Every synthesizer on the wide fixture (10,000 rows x 50 columns) at epsilon = 1 (issue 27).

The fixture (tests/fixtures/wide_table.py) has the shape of the held-out loan book on which AIM
crashed after twenty minutes: ten lognormal columns under a linear scale, ten Poisson counts,
eight nullable columns missing 2-86% in blocks, a Zipf 50-level categorical, ten small
categoricals, six correlated scores and five integer codes, with a public schema.

Each synthesizer runs through :func:`synthcert.synthesize`, the workflow of
``synthcert synthesize`` (so with its default DP steps: tree bins for AIM and MWEM-PGM), at
epsilon = 1, delta = 1e-6, with every warning an error, in up to three modes:

* ``public``: the fixture's public schema (the default path);
* ``domain``: the schema drafted from the table exactly as ``synthcert schema infer
  --public-kinds`` drafts it (that command, run as a subprocess; no hand edit), synthesized
  with ``--private-domain SHARE`` (default 0.2): the DP domain paid from the budget;
* ``direct``: the old measure, ``make_synthesizer(...).fit(table)`` on the public schema,
  bypassing the workflow (no tree bins, no CSV reading).

For each run: wall and CPU seconds of this process (the machine may be shared: CPU seconds
are the load-free figure), the selection rounds (AIM, MWEM-PGM), the columns written (the DP
domain leaves out, by public rule, a column whose DP category list kept fewer than two
values), the claim's epsilon and delta and the shares of epsilon it states (``tree_bins``: of
the synthesizer's budget; ``domain``: of the total), the number of warnings the claim
carries, against the target (AIM 3 min; MWEM-PGM and PrivBayes 1 min; the others have none)
and against a floor measured in the same run: computing every 1-way and 2-way marginal of the
discretised table with numpy (``np.bincount``), the counts AIM and MWEM read before their
first selection. A synthesizer that refuses a mode by design (the certified Gaussian release
is not a DP synthesizer and takes no ``--private-domain``) prints its refusal.

    PYTHONPATH=src python benchmarks/wide_table.py [--rows 10000] [--synthesizers aim,...]
        [--modes public,domain,direct] [--private-domain 0.2] [--epsilon 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

from wide_table import wide_table

from synthcert import Budget, synthesize
from synthcert.data.discretize import Discretizer
from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.synthesizers.registry import make_synthesizer
from synthcert.workflows.job_inputs import Execution

TARGETS = {"aim": 180.0, "mwem-pgm": 60.0, "privbayes": 60.0}
PARAMS = {
    "gaussian": {"ridge": 0.5, "min_rows": 5_000},  # the certified release: no epsilon
    "ctgan": {"epochs": 1, "min_rows": 5_000},
}
DEFAULT = ["aim", "mwem-pgm", "privbayes", "gaussian-copula", "gaussian", "ctgan"]
MODES = ("public", "domain", "direct")
DELTA = 1e-6


@dataclass(frozen=True)
class Timing:
    """One run: seconds, selection rounds, columns out, and the claim (None for a direct
    fit)."""

    wall: float
    cpu: float
    rounds: int
    columns: int
    claim: PrivacyClaim | None


def marginal_floor(table: pd.DataFrame, schema: Schema) -> float:
    """Seconds to count every 1-way and 2-way marginal of the discretised table."""
    t0 = time.perf_counter()
    codes = Discretizer(schema).transform(table)
    cards = [int(c) for c in Discretizer(schema).cardinalities]
    for i, c in enumerate(cards):
        np.bincount(codes[:, i], minlength=c)
    for i, j in itertools.combinations(range(len(cards)), 2):
        np.bincount(codes[:, i] * cards[j] + codes[:, j], minlength=cards[i] * cards[j])
    return time.perf_counter() - t0


def inferred_schema(csv: Path, folder: Path) -> Schema:
    """The draft of ``synthcert schema infer CSV --public-kinds`` (the command itself)."""
    out = folder / "inferred.json"
    cmd = [sys.executable, "-m", "synthcert", "schema", "infer", str(csv), "--public-kinds",
           "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, env=os.environ.copy())
    return Schema.load(out)


Work = Callable[[Callable[[str], None]], tuple[int, PrivacyClaim | None]]


def timed(work: Work) -> Timing:
    """Wall and CPU seconds of ``work(on_round)`` (which returns the columns out and the
    claim) with every warning an error."""
    rounds = [0]

    def on_round(_message: str) -> None:
        rounds[0] += 1

    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", module=r"(torch|opacus)(\.|$)")
        columns, claim = work(on_round)
    return Timing(time.perf_counter() - wall, time.process_time() - cpu, rounds[0], columns, claim)


def run_direct(name: str, table: pd.DataFrame, schema: Schema, epsilon: float,
               seed: int) -> Timing:  # fmt: skip
    """fit + sample with :func:`make_synthesizer`, bypassing the workflow."""
    params = dict(PARAMS.get(name, {}))
    if name != "gaussian":
        params.update(epsilon=epsilon, delta=DELTA, seed=seed)

    def work(on_round: Callable[[str], None]) -> tuple[int, None]:
        if name in ("aim", "mwem-pgm"):
            params["progress"] = on_round
        synth = make_synthesizer(name, schema, **params).fit(table)
        out = synth.sample(len(table), seed=seed + 1)
        numeric = out.select_dtypes("number").to_numpy(dtype=np.float64)
        assert len(out) == len(table) and np.all(np.isfinite(numeric[~np.isnan(numeric)]))
        return out.shape[1], None

    return timed(work)


def run_workflow(name: str, csv: Path, n: int, schema: Schema, epsilon: float, seed: int,
                 share: float | None, folder: Path) -> Timing:  # fmt: skip
    """:func:`synthcert.synthesize` as the CLI calls it: ``n`` rows out (a public number),
    ``--private-domain share`` when given."""
    params = dict(PARAMS.get(name, {}))
    min_rows = params.pop("min_rows", None)
    dp = name != "gaussian" or share is not None  # the release refuses a DP domain: say why
    budget = Budget(epsilon=epsilon if dp else None, delta=DELTA if dp else None, n_out=n,
                    min_rows=min_rows)  # fmt: skip
    out = folder / f"{name}.csv"

    def work(on_round: Callable[[str], None]) -> tuple[int, PrivacyClaim]:
        def on_stage(stage: str, _done: int, _total: int | None) -> None:
            if stage.startswith("fit: "):
                on_round(stage)

        result = synthesize(
            csv, schema, name, out, budget, Execution(progress=on_stage), seed=seed,
            params=params, private_domain=share,
        )  # fmt: skip
        rows = pd.read_csv(out)
        numeric = rows.select_dtypes("number").to_numpy(dtype=np.float64)
        assert len(rows) == n and np.all(np.isfinite(numeric[~np.isnan(numeric)]))
        return rows.shape[1], result.summary.claim

    return timed(work)


def shares(claim: PrivacyClaim | None) -> str:
    """The shares of the budget the claim states: DP bins (of the synthesizer's budget) and
    the DP domain (of the total)."""
    if claim is None:
        return "-"
    found = []
    for a in claim.assumptions:
        if a.name in ("tree_bins", "quantile_bins"):
            found.append(f"{a.name}={a.value['share']:g}")  # type: ignore[index]
        elif a.name == "domain_share":
            found.append(f"domain={a.value:g}")
    return ",".join(found) or "none"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--synthesizers", default=",".join(DEFAULT))
    parser.add_argument("--modes", default="public,domain", help=f"of {','.join(MODES)}")
    parser.add_argument("--private-domain", type=float, default=0.2)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    if not set(modes) <= set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)}")
    table, schema = wide_table(args.rows, seed=args.seed)
    floor = marginal_floor(table, schema)
    print(f"wide fixture: {len(table):,} rows x {len(schema.names)} columns, "
          f"epsilon = {args.epsilon:g}, delta = {DELTA:g}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    print(f"floor (all 1- and 2-way marginals with numpy): {floor:.2f} s")
    head = (f"{'mode':<8}{'synthesizer':<16}{'wall s':>8}{'cpu s':>8}{'rounds':>7}{'cols':>5}"
            f"{'target s':>9}{'wall/target':>12}{'wall/floor':>11}  {'eps':>4} {'delta':>6}"
            f"  {'warnings':>8}  shares")  # fmt: skip
    print(head, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        csv = folder / "wide.csv"
        table.to_csv(csv, index=False)
        drafted = inferred_schema(csv, folder) if "domain" in modes else None
        for mode, name in itertools.product(modes, args.synthesizers.split(",")):
            print(f"{mode:<8}{name:<16}running...", end="\r", file=sys.stderr, flush=True)
            try:
                if mode == "direct":
                    t = run_direct(name, table, schema, args.epsilon, args.seed)
                else:
                    t = run_workflow(
                        name, csv, len(table), schema if mode == "public" else drafted,
                        args.epsilon, args.seed,
                        args.private_domain if mode == "domain" else None, folder,
                    )  # fmt: skip
            except SynthcertError as err:  # a refusal by design, stated
                print(f"{mode:<8}{name:<16}refused: {' '.join(str(err).split())[:140]}")
                continue
            target = TARGETS.get(name)
            ratio = f"{t.wall / target:.2f}" if target else "-"
            c = t.claim
            eps = "-" if c is None or c.epsilon is None else f"{c.epsilon:g}"
            dlt = "-" if c is None or c.delta is None else f"{c.delta:g}"
            nwarn = "-" if c is None else str(len(c.warnings))
            print(f"{mode:<8}{name:<16}{t.wall:>8.1f}{t.cpu:>8.1f}{t.rounds or '-':>7}"
                  f"{t.columns:>5}"
                  f"{target or '-':>9}{ratio:>12}{t.wall / floor:>11.0f}  {eps:>4} {dlt:>6}"
                  f"  {nwarn:>8}  {shares(c)}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
