"""One fit + sample of one tool, run by ``peers_dp.py`` in that tool's own virtual environment.

    <venv python> benchmarks/_peer_runner.py JOB.json

JOB.json holds ``tool``, ``train`` (a CSV of the training rows), ``out`` (where to write the
synthetic CSV), ``result`` (where to write the wall and CPU seconds of fit + sample), ``domain``
(the public domain: {column: {"lower", "upper", "integer"} or {"categories": [...]}}), ``epsilon``,
``delta``, ``seed`` and ``rows`` (how many rows to sample). Only the tool's PUBLIC API is
called; nothing of its code is copied here. This module imports nothing from synthcert except
in the ``synthcert-*`` tools, which run in synthcert's environment.

Tools:

* ``dpmm-aim``, ``dpmm-mst``, ``dpmm-privbayes``: dpmm 0.1.9's pipelines with their defaults
  (PrivTree DP bins on 10 % of epsilon, the model on the other 90 %), given the public bounds
  and category lists as their ``domain``.
* ``opendp-aim``, ``opendp-mst``: OpenDP 0.16's ``opendp.extras.mbi`` contingency table
  (the algorithm's defaults) under rho-zCDP converted from (epsilon, delta), on the public
  categories and public cut points of the numeric columns; rows drawn i.i.d. from the fitted
  graphical model (not mbi's default "round" output, which sorts columns together).
* ``synthcert-<name>``: ``synthcert synthesize --synthesizer <name> --epsilon E --delta D``
  run in this process through the CLI itself (its defaults, whatever they are).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path


def cast_numeric(syn, domain: dict):
    """Numeric columns as numbers inside their public bounds, integers rounded."""
    import numpy as np

    for col, spec in domain.items():
        if "categories" in spec:
            continue
        x = np.clip(syn[col].astype(float), spec["lower"], spec["upper"])
        syn[col] = np.rint(x).astype(np.int64) if spec.get("integer") else x
    return syn


# -- dpmm ------------------------------------------------------------------------------------
def run_dpmm(job: dict, df):
    from dpmm.pipelines import AIMPipeline, MSTPipeline, PrivBayesPipeline

    cls = {"dpmm-aim": AIMPipeline, "dpmm-mst": MSTPipeline, "dpmm-privbayes": PrivBayesPipeline}[
        job["tool"]
    ]
    eps = float(job["epsilon"])
    domain = {
        col: {"categories": list(spec["categories"])}
        if "categories" in spec
        else {"lower": spec["lower"], "upper": spec["upper"]}
        for col, spec in job["domain"].items()
    }
    # dpmm's default: proc_epsilon = 0.1 on top of epsilon = 1; here the same 10 % share of the
    # TOTAL epsilon, so that every tool spends the same budget.
    pipe = cls(epsilon=0.9 * eps, delta=float(job["delta"]), proc_epsilon=0.1 * eps)
    t0, c0 = time.perf_counter(), cpu_seconds()
    seed = int(job["seed"]) % 2**32
    pipe.fit(df, domain=domain, random_state=seed)
    syn = pipe.generate(n_records=int(job["rows"]), random_state=(seed + 1) % 2**32)
    return syn, time.perf_counter() - t0, cpu_seconds() - c0


# -- OpenDP ----------------------------------------------------------------------------------
def opendp_rho(dp, epsilon: float, delta: float) -> float:
    """The largest rho whose rho-zCDP guarantee gives (epsilon, delta)-DP by OpenDP's own
    conversion (``make_zCDP_to_approxDP``, the bound of Canonne, Kamath and Steinke 2020 --
    the one dpmm uses too), found by OpenDP's binary search. A Gaussian mechanism of scale 1
    at sensitivity s is rho = s^2 / 2 zCDP."""

    def spends(rho: float) -> float:
        gauss = dp.m.make_gaussian(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0
        )
        approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), delta)
        return approx.map(math.sqrt(2 * rho))[0]

    return dp.binary_search(lambda rho: spends(rho) <= epsilon, bounds=(1e-9, 10.0), T=float)


def run_opendp(job: dict, df):
    """OpenDP's contingency table (AIM or MST, their defaults) on the public keys and cuts."""
    import numpy as np
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    domain = job["domain"]
    rho = opendp_rho(dp, float(job["epsilon"]), float(job["delta"]))
    keys = {c: [str(v) for v in s["categories"]] for c, s in domain.items() if "categories" in s}
    # 20 equal-width bins over the public bounds, and the bounds themselves as cuts: OpenDP
    # decodes a value in (c_i, c_i+1] uniformly and an outer bin within 1 of its cut.
    cuts = {
        c: [s["lower"] + (s["upper"] - s["lower"]) * k / 20 for k in range(21)]
        for c, s in domain.items()
        if "categories" not in s
    }
    data = pl.DataFrame({
        c: df[c].astype(str).tolist() if c in keys else df[c].astype(float).tolist()
        for c in domain
    }).lazy()  # fmt: skip
    algorithm = {"opendp-aim": dp.mbi.AIM, "opendp-mst": dp.mbi.MST}[job["tool"]]()
    t0, c0 = time.perf_counter(), cpu_seconds()
    context = dp.Context.compositor(
        data=data, privacy_unit=dp.unit_of(contributions=1), privacy_loss=dp.loss_of(rho=rho)
    )
    table = (
        context.query(rho=rho)
        .contingency_table(keys=keys, cuts=cuts, algorithm=algorithm)
        .release()
    )
    np.random.seed(int(job["seed"]) % 2**32)  # mbi and OpenDP's decoding draw from np.random
    syn = table.synthesize(rows=int(job["rows"]), method="sample").to_pandas()
    seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    return cast_numeric(syn, domain), seconds, cpu


# -- synthcert -------------------------------------------------------------------------------
def run_synthcert(job: dict, df):
    """``synthcert synthesize`` through its CLI, in this process (imports done before timing)."""
    import synthcert.engine
    import synthcert.workflows.synthesize  # noqa: F401
    from synthcert.cli import app

    name = job["tool"].removeprefix("synthcert-")
    args = [
        "synthesize", job["train"], "--schema", job["schema"], "--synthesizer", name,
        "--epsilon", str(job["epsilon"]), "--delta", str(job["delta"]),
        "--param", f"n_out={job['rows']}", "--param", f"seed={job['seed']}", "--out", job["out"],
        "--json",
    ]  # fmt: skip
    t0, c0 = time.perf_counter(), cpu_seconds()
    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise RuntimeError(f"synthcert synthesize exited with {exc.code}") from exc
    return None, time.perf_counter() - t0, cpu_seconds() - c0


def cpu_seconds() -> float:
    """CPU seconds of this process, its threads and its waited-for children (worker pools)."""
    import resource

    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(job_path: str) -> None:
    import pandas as pd

    job = json.loads(Path(job_path).read_text())
    df = pd.read_csv(job["train"])
    for col, spec in job["domain"].items():
        if "categories" in spec:
            df[col] = df[col].astype(str)
    tool = job["tool"]
    if tool.startswith("dpmm-"):
        syn, seconds, cpu = run_dpmm(job, df)
    elif tool.startswith("opendp-"):
        syn, seconds, cpu = run_opendp(job, df)
    elif tool.startswith("synthcert-"):
        syn, seconds, cpu = run_synthcert(job, df)
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    if syn is not None:
        syn[list(job["domain"])].to_csv(job["out"], index=False)
    Path(job["result"]).write_text(json.dumps({"seconds": seconds, "cpu": cpu}))


if __name__ == "__main__":
    main(sys.argv[1])
