"""AIM, MWEM+PGM and CTGAN on Adult (30,162 rows, 15 columns): time and marginal errors.

Prints, per synthesizer and epsilon, the fit time and the mean one-way and two-way marginal
L1 distance between Adult and a synthetic table of the same size (20 equal-width public bins
for numeric columns, the shared Discretizer), next to synthcert's PrivBayes and Gaussian
copula at the same budget (the thesis, ch. 4, finds AIM best under DP), and our CTGAN wrapper
next to ``ctgan.CTGAN`` called directly (same epochs, batch size and seed), as a ratio.

smartnoise-synth's AIM and MWEM pin mbi<2 and opacus 0.14, so they cannot share this
environment; pass a separate interpreter with ``--smartnoise-python`` to time them in a
subprocess (they need ``packaging`` installed by hand and ``preprocessor_eps`` > 0 for the
continuous columns). Without it that comparison is skipped and says so.

    python benchmarks/pgm_ctgan.py --eps 1 --synth aim,mwem-pgm,privbayes,gaussian-copula
    python benchmarks/pgm_ctgan.py --eps inf --synth ctgan --ctgan-epochs 5 --ctgan-direct
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from synthcert.data.datasets import adult_schema, load_adult
from synthcert.data.discretize import Discretizer
from synthcert.data.schema import Schema
from synthcert.synthesizers.registry import make_synthesizer


def marginal_l1(schema: Schema, real: pd.DataFrame, syn: pd.DataFrame) -> tuple[float, float]:
    """Mean one-way and mean two-way ||p_real - p_syn||_1 on the shared public bins."""
    disc = Discretizer(schema)
    a, b = disc.transform(real), disc.transform(syn)
    k = disc.cardinalities
    one = [
        np.abs(
            np.bincount(a[:, j], minlength=c) / len(a) - np.bincount(b[:, j], minlength=c) / len(b)
        ).sum()
        for j, c in enumerate(k)
    ]
    two = []
    for i, j in itertools.combinations(range(len(k)), 2):
        m = k[i] * k[j]
        p = np.bincount(a[:, i] * k[j] + a[:, j], minlength=m) / len(a)
        q = np.bincount(b[:, i] * k[j] + b[:, j], minlength=m) / len(b)
        two.append(np.abs(p - q).sum())
    return float(np.mean(one)), float(np.mean(two))


def run_ours(name: str, eps: float | None, df: pd.DataFrame, schema: Schema, args) -> dict:
    """Fit + sample one synthcert synthesizer; time and errors."""
    params: dict = {"seed": args.seed}
    if name in ("aim", "mwem-pgm"):
        params["pgm_iters"] = args.pgm_iters
        if args.round_iters:
            params["round_iters"] = args.round_iters
        if args.rounds:
            params["rounds"] = args.rounds
    if name == "ctgan":
        params.update(epochs=args.ctgan_epochs, batch_size=args.batch_size, min_rows=len(df))
    if name in ("aim", "mwem-pgm", "ctgan") and args.progress:
        t0 = time.perf_counter()
        if name == "ctgan":
            params["progress"] = lambda e, n: print(f"  epoch {e}/{n}", flush=True)
        else:
            params["progress"] = lambda m: print(
                f"  {time.perf_counter() - t0:7.1f}s {m}", flush=True
            )
    syn = make_synthesizer(name, schema, epsilon=eps, delta=args.delta if eps else None, **params)
    t0 = time.perf_counter()
    syn.fit(df)
    t_fit = time.perf_counter() - t0
    t1 = time.perf_counter()
    out = syn.sample(len(df), seed=args.seed + 1)
    t_sample = time.perf_counter() - t1
    one, two = marginal_l1(schema, df, out)
    priv = syn.privacy_claim(len(df))
    return {
        "synthesizer": name,
        "epsilon": "inf" if eps is None else eps,
        "fit_s": round(t_fit, 2),
        "sample_s": round(t_sample, 2),
        "l1_oneway": round(one, 4),
        "l1_twoway": round(two, 4),
        "spent_epsilon": priv.epsilon,
        "rounds": len(getattr(syn, "state_", None).selected) if hasattr(syn, "state_") else None,
    }


def run_ctgan_direct(df: pd.DataFrame, schema: Schema, args) -> dict:
    """``ctgan.CTGAN`` called directly with the same epochs, batch size and seed."""
    from ctgan import CTGAN

    frame = df[schema.names].copy()
    cats = [c.name for c in schema.categorical]
    for c in cats:
        frame[c] = frame[c].astype(str)
    model = CTGAN(epochs=args.ctgan_epochs, batch_size=args.batch_size, enable_gpu=False)
    model.set_random_state(args.seed)
    t0 = time.perf_counter()
    model.fit(frame, discrete_columns=cats)
    t_fit = time.perf_counter() - t0
    out = model.sample(len(df))
    for col in schema.numeric:
        out[col.name] = np.clip(out[col.name].astype(float), col.lower, col.upper)
    one, two = marginal_l1(schema, df, out)
    return {
        "synthesizer": "ctgan (direct)",
        "epsilon": "inf",
        "fit_s": round(t_fit, 2),
        "l1_oneway": round(one, 4),
        "l1_twoway": round(two, 4),
    }


def run_smartnoise(python: str, eps: float, df: pd.DataFrame, schema: Schema, args) -> list:
    """smartnoise-synth's aim / mwem in its own interpreter (a subprocess)."""
    code = """
import sys, time, json, pandas as pd
from snsynth import Synthesizer
df = pd.read_csv(sys.argv[1]); eps = float(sys.argv[2]); out = {}
cats = json.loads(sys.argv[3]); conts = [c for c in df.columns if c not in cats]
for name in sys.argv[5].split(","):
    t0 = time.perf_counter()
    s = Synthesizer.create(name, epsilon=eps)
    s.fit(df, categorical_columns=cats, continuous_columns=conts, preprocessor_eps=0.1 * eps)
    t = time.perf_counter() - t0
    s.sample(len(df)).to_csv(sys.argv[4] + name + ".csv", index=False)
    out[name] = t
print(json.dumps(out))
"""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "adult.csv"
        df[schema.names].to_csv(data, index=False)
        cats = json.dumps([c.name for c in schema.categorical])
        res = subprocess.run(
            [python, "-c", code, str(data), str(eps), cats, f"{tmp}/syn_", args.smartnoise],
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            tail = res.stderr.strip().splitlines()[-1] if res.stderr else "failed"
            print(f"smartnoise-synth failed: {tail}")
            return []
        times = json.loads(res.stdout.strip().splitlines()[-1])
        for name, t in times.items():
            syn = pd.read_csv(f"{tmp}/syn_{name}.csv")
            one, two = marginal_l1(schema, df, syn)
            rows.append(
                {
                    "synthesizer": f"smartnoise {name}",
                    "epsilon": eps,
                    "fit_s": round(t, 2),
                    "l1_oneway": round(one, 4),
                    "l1_twoway": round(two, 4),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", default="1", help="comma-separated epsilons; 'inf' for no DP")
    ap.add_argument("--synth", default="aim,mwem-pgm,privbayes,gaussian-copula")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pgm-iters", type=int, default=1000)
    ap.add_argument("--round-iters", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None, help="AIM's T / MWEM's rounds")
    ap.add_argument("--ctgan-epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=500)
    ap.add_argument("--ctgan-direct", action="store_true", help="also run ctgan.CTGAN directly")
    ap.add_argument("--smartnoise-python", default=None)
    ap.add_argument(
        "--smartnoise",
        default="aim",
        help="smartnoise synthesizers to run (aim,mwem); its MWEM materialises the full "
        "joint histogram, which is infeasible on Adult's 15 columns",
    )
    ap.add_argument("--rows", type=int, default=None, help="use only the first ROWS rows")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--json", default=None, help="write the rows to this JSON file")
    args = ap.parse_args(argv)

    schema = adult_schema()
    df = load_adult()
    if args.rows:
        df = df.iloc[: args.rows].reset_index(drop=True)
    rows = []
    for e in args.eps.split(","):
        eps = None if e.strip() in ("inf", "none") else float(e)
        for name in args.synth.split(","):
            print(f"{name} eps={e} ...", flush=True)
            rows.append(run_ours(name.strip(), eps, df, schema, args))
            print(json.dumps(rows[-1]), flush=True)
        if eps is not None and args.smartnoise_python:
            rows.extend(run_smartnoise(args.smartnoise_python, eps, df, schema, args))
        elif eps is not None:
            print("smartnoise-synth comparison skipped (no --smartnoise-python given)")
    if args.ctgan_direct:
        rows.append(run_ctgan_direct(df, schema, args))
        print(json.dumps(rows[-1]), flush=True)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    ours = {r["synthesizer"]: r for r in rows}
    if "ctgan" in ours and "ctgan (direct)" in ours:
        a, b = ours["ctgan"], ours["ctgan (direct)"]
        print(
            f"ctgan wrapper / direct: time {a['fit_s'] / b['fit_s']:.2f}, "
            f"one-way L1 {a['l1_oneway'] / b['l1_oneway']:.2f}"
        )
    for peer in ("privbayes", "gaussian-copula", "mwem-pgm"):
        if "aim" in ours and peer in ours and math.isfinite(ours[peer]["l1_twoway"]):
            ratio = ours["aim"]["l1_twoway"] / ours[peer]["l1_twoway"]
            print(f"AIM / {peer} two-way L1: {ratio:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    sys.exit(main())
