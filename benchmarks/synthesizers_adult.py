"""Time fit + sample on Adult (30,162 rows, 15 columns) and measure the mean one-way-marginal L1
(20 equal-width bins for numeric columns) of synthcert's Gaussian copula and PrivBayes at
epsilon in {inf, 8, 4, 2, 1}, next to SDV's GaussianCopulaSynthesizer and DataSynthesizer's
PrivBayes (correlated attribute mode, degree 2) when they are installed.

The peers pull their own dependency sets, so they may live in a separate virtualenv: pass its
python with ``--peer-python`` (default: /tmp/bench-venv/bin/python if present, else this one);
each peer run is a subprocess of this script in ``--peer`` mode, which imports no synthcert.

    python benchmarks/synthesizers_adult.py [--eps inf,8,4,2,1] [--repeats 3] [--no-peers]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_PEER_PYTHON = "/tmp/bench-venv/bin/python"


# -- peer mode (runs in the peers' environment; no synthcert import) -------------------------
def run_peer(peer: str, data: str, out: str, epsilon: float | None, seed: int) -> dict:
    """Fit + sample one peer on the CSV ``data``; write the synthetic CSV ``out``."""
    import numpy as np
    import pandas as pd

    df = pd.read_csv(data)
    c0 = time.process_time()
    t0 = time.perf_counter()
    if peer == "sdv":
        from sdv.metadata import Metadata
        from sdv.single_table import GaussianCopulaSynthesizer

        meta = Metadata.detect_from_dataframes({"adult": df})
        synth = GaussianCopulaSynthesizer(meta)
        try:
            synth.fit(df)
        except Exception:  # SDV >= 2 takes {table name: frame}
            synth.fit({"adult": df})
        t_fit = time.perf_counter() - t0
        t1 = time.perf_counter()
        syn = synth.sample(num_rows=len(df))
        if isinstance(syn, dict):
            syn = next(iter(syn.values()))
    elif peer == "datasynthesizer":
        import random

        from DataSynthesizer.DataDescriber import DataDescriber
        from DataSynthesizer.DataGenerator import DataGenerator

        random.seed(seed)
        np.random.seed(seed)
        cats = {c: True for c in df.columns if df[c].dtype == object}
        with tempfile.TemporaryDirectory() as tmp:
            desc = os.path.join(tmp, "description.json")
            describer = DataDescriber(histogram_bins=20, category_threshold=45)
            describer.describe_dataset_in_correlated_attribute_mode(
                dataset_file=data,
                epsilon=0 if epsilon is None else epsilon,  # 0 turns DP off
                k=2,
                attribute_to_is_categorical=cats,
                seed=seed,
            )
            describer.save_dataset_description_to_file(desc)
            t_fit = time.perf_counter() - t0
            t1 = time.perf_counter()
            # DataSynthesizer <= 0.1.13 eval()s keys written as "np.int64(1)" under numpy 2
            sys.modules[DataGenerator.__module__].np = np
            gen = DataGenerator()
            gen.generate_dataset_in_correlated_attribute_mode(len(df), desc, seed=seed)
            syn = gen.synthetic_dataset
    else:
        raise SystemExit(f"unknown peer {peer!r}")
    t_sample = time.perf_counter() - t1
    cpu = time.process_time() - c0
    syn.to_csv(out, index=False)
    return {"fit": t_fit, "sample": t_sample, "cpu": cpu}


# -- main mode --------------------------------------------------------------------------
def mean_l1(real, syn, schema) -> float:
    """Mean over columns of the one-way-marginal L1 distance (synthcert.utility.marginals)."""
    import numpy as np

    try:
        from synthcert.utility.marginals import compare_marginals
    except ImportError:  # the utility layer is absent: the same figure, computed locally
        from synthcert.data.discretize import Discretizer

        disc = Discretizer(schema)
        a, b = disc.transform(real), disc.transform(syn)
        return float(
            np.mean([
                np.abs(np.bincount(a[:, j], minlength=k) / len(a)
                       - np.bincount(b[:, j], minlength=k) / len(b)).sum()
                for j, k in enumerate(disc.cardinalities)
            ])
        )  # fmt: skip
    cmp = compare_marginals(real, syn, schema)
    return float(np.mean([c.l1 for c in cmp.columns.values()]))


def clean_peer_output(syn, schema):
    """Coerce a peer's CSV to the schema's types (integers rounded, categories as text)."""
    import numpy as np

    from synthcert.data.schema import NumericColumn

    syn = syn[schema.names].copy()
    for col in schema.columns:
        if isinstance(col, NumericColumn):
            x = np.clip(syn[col.name].astype(float), col.lower, col.upper)
            syn[col.name] = np.rint(x).astype(np.int64) if col.integer else x
        else:
            syn[col.name] = syn[col.name].astype(str).str.strip()
    return syn


def peer_available(python: str, module: str) -> bool:
    """Whether ``python`` can import ``module``."""
    try:
        res = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return res.returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--epsilon", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--eps", default="inf,8,4,2,1", help="comma-separated epsilons (inf: no DP)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="seeds per synthcert setting")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument(
        "--peer-eps", default=None, help="epsilons for DataSynthesizer (default: as --eps)"
    )
    ap.add_argument("--peer-python", default=None)
    ap.add_argument("--peer-timeout", type=float, default=900.0)
    ap.add_argument("--json", dest="json_out", default=None, help="also write results here")
    args = ap.parse_args()
    if args.peer:
        print(json.dumps(run_peer(args.peer, args.data, args.out, args.epsilon, args.seed)))
        return

    import pandas as pd

    from synthcert.data.datasets import adult_schema, load_adult
    from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
    from synthcert.synthesizers.privbayes import PrivBayesSynthesizer

    df = load_adult()
    schema = adult_schema()
    eps_list = [None if e.strip() == "inf" else float(e) for e in args.eps.split(",")]
    peer_eps = (
        eps_list
        if args.peer_eps is None
        else [None if e.strip() == "inf" else float(e) for e in args.peer_eps.split(",")]
    )
    peer_python = args.peer_python or (
        DEFAULT_PEER_PYTHON if Path(DEFAULT_PEER_PYTHON).exists() else sys.executable
    )
    results: list[dict] = []

    def record(name, eps, runs, spent=None):
        """runs: list of (t_fit, t_sample, cpu, synthetic frame), one per seed; means reported."""
        l1 = [mean_l1(df, syn, schema) for *_, syn in runs]
        row = {
            "synthesizer": name,
            "epsilon": "inf" if eps is None else eps,
            "runs": len(runs),
            "seconds": sum(r[0] + r[1] for r in runs) / len(runs),
            "cpu_seconds": sum(r[2] for r in runs) / len(runs),
            "seconds_fit": sum(r[0] for r in runs) / len(runs),
            "seconds_sample": sum(r[1] for r in runs) / len(runs),
            "mean_l1": sum(l1) / len(l1),
            "l1_per_run": l1,
            "spent_epsilon": spent,
        }
        results.append(row)
        print(
            f"{name:26s} eps={row['epsilon']!s:>4}  time {row['seconds']:7.2f} s "
            f"(cpu {row['cpu_seconds']:7.2f} s)  mean L1 {row['mean_l1']:.4f} "
            f"[{min(l1):.4f}, {max(l1):.4f}] over {len(runs)} run(s)"
            + (f"  max spent eps {spent:.4g}" if spent is not None else ""),
            flush=True,
        )

    for cls, name in [(GaussianCopulaSynthesizer, "synthcert gaussian-copula"),
                      (PrivBayesSynthesizer, "synthcert privbayes")]:  # fmt: skip
        for eps in eps_list:
            runs, spent = [], None
            for r in range(args.repeats):
                seed = args.seed + 10 * r
                c0 = time.process_time()
                t0 = time.perf_counter()
                synth = cls(schema, epsilon=eps, delta=1e-5, seed=seed).fit(df)
                t_fit = time.perf_counter() - t0
                t0 = time.perf_counter()
                syn = synth.sample(len(df), seed=seed + 1)
                t_sample = time.perf_counter() - t0
                runs.append((t_fit, t_sample, time.process_time() - c0, syn))
                if eps is not None:
                    s = synth.accountant.check_within_budget()
                    assert s.epsilon <= eps + 1e-9, (name, eps, s)
                    spent = max(spent or 0.0, s.epsilon)
            record(name, eps, runs, spent)

    peers = [] if args.no_peers else [
        ("sdv", "sdv", "SDV GaussianCopula", [None]),
        ("datasynthesizer", "DataSynthesizer", "DataSynthesizer PrivBayes", peer_eps),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "adult.csv"
        df.to_csv(data, index=False)
        for peer, module, label, peer_eps in peers:
            if not peer_available(peer_python, module):
                print(f"{label}: not installed for {peer_python}; skipped", flush=True)
                continue
            for eps in peer_eps:
                out = Path(tmp) / f"{peer}.csv"
                cmd = [peer_python, __file__, "--peer", peer, "--data", str(data),
                       "--out", str(out), "--seed", str(args.seed)]  # fmt: skip
                if eps is not None:
                    cmd += ["--epsilon", str(eps)]
                try:
                    res = subprocess.run(
                        cmd, capture_output=True, text=True, timeout=args.peer_timeout
                    )
                except subprocess.TimeoutExpired:
                    print(f"{label} eps={eps}: timed out after {args.peer_timeout:.0f} s")
                    continue
                if res.returncode != 0:
                    print(f"{label} eps={eps}: failed\n{res.stderr[-2000:]}", flush=True)
                    continue
                times = json.loads(res.stdout.strip().splitlines()[-1])
                syn = clean_peer_output(pd.read_csv(out), schema)
                record(label, eps, [(times["fit"], times["sample"], times["cpu"], syn)])

    print("\nratios (synthcert / peer) at the same epsilon:")
    by = {(r["synthesizer"], r["epsilon"]): r for r in results}
    for ours, theirs in [("synthcert gaussian-copula", "SDV GaussianCopula"),
                         ("synthcert privbayes", "DataSynthesizer PrivBayes")]:  # fmt: skip
        for eps in eps_list:
            key = "inf" if eps is None else eps
            a, b = by.get((ours, key)), by.get((theirs, key))
            if a and b:
                print(
                    f"  {ours} vs {theirs} eps={key!s:>4}: wall time "
                    f"x{a['seconds'] / b['seconds']:.3f}, cpu time "
                    f"x{a['cpu_seconds'] / b['cpu_seconds']:.3f}, mean L1 "
                    f"x{a['mean_l1'] / b['mean_l1']:.3f}"
                )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
