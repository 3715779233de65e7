"""A 10^7 x 6 Parquet -> Parquet release against its I/O floor, in one run (issue #20).

Builds the input once (clipped correlated Gaussians in [-1, 1]^6 whose encoded covariance has
smallest eigenvalue about 0.11, so the public ``--sigma 0.05`` holds), then times whole
processes, interleaved, ``--runs`` times each:

- the floor: read the input with pyarrow, draw rows x 6 standard normals on all cores (one
  numpy Generator per thread) and write them with pyarrow to Parquet;
- the strict floor: the same, written without dictionaries for the float columns (as
  synthcert writes floats);
- ``synthcert release input.parquet --schema S --sigma 0.05 --min-rows N --param n_out=rows``;
- the fit phase alone, timed inside its process (no start-up): synthcert's ``fit_moments``
  (read record batches, encode from Arrow, Chan et al.'s moments, on the engine's threads)
  against its floor, reading the file with pyarrow and summing X^T X and X in numpy.

Prints the medians, their ratio (target: within 1.25x) and each one's peak RSS (target: under
1.5 GB), read from ``os.wait4`` of the child, and the load average (the machine is shared).

    python benchmarks/release_floor.py [--rows 1e7] [--runs 3] [--dir FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

D = 6
RHO = 0.3  # equicorrelation before clipping
SCALE = 0.4  # standard deviation before clipping
SIGMA = 0.05  # public lower bound on the smallest eigenvalue (about 0.16 * 0.7 = 0.112)

FLOOR = """
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
from concurrent.futures import ThreadPoolExecutor
src, out, rows, plain = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "plain"
table = pq.read_table(src)
workers = 2
seeds = np.random.SeedSequence(0).spawn(workers)
parts = [rows // workers + (i < rows % workers) for i in range(workers)]
def draw(i):
    return np.random.default_rng(seeds[i]).standard_normal((parts[i], 6))
with ThreadPoolExecutor(workers) as pool:
    blocks = list(pool.map(draw, range(workers)))
cols = {f"x{j}": pa.chunked_array([b[:, j] for b in blocks]) for j in range(6)}
pq.write_table(pa.table(cols), out, use_dictionary=not plain)
"""

FIT_FLOOR = """
import sys, time, numpy as np, pyarrow.parquet as pq
t0 = time.perf_counter()
table = pq.read_table(sys.argv[1])
gram, total = np.zeros((6, 6)), np.zeros(6)
for batch in table.to_batches(max_chunksize=1 << 19):
    X = np.column_stack([c.to_numpy() for c in batch.columns])
    gram += X.T @ X
    total += X.sum(axis=0)
print(time.perf_counter() - t0)
"""

FIT_OURS = """
import json, sys, time
from threadpoolctl import threadpool_limits
from synthcert.data.encode import Encoder
from synthcert.data.schema import Schema
from synthcert.engine import fit_moments
schema = Schema.from_dict(json.loads(open(sys.argv[2]).read()))
with threadpool_limits(1, user_api="blas"):
    t0 = time.perf_counter()
    fit_moments(sys.argv[1], Encoder(schema, missing="model"))
    print(time.perf_counter() - t0)
"""


def build_input(folder: Path, rows: int) -> tuple[Path, Path]:
    """Write the input Parquet file and its public schema (once; reused when present)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    data, schema = folder / f"input_{rows}.parquet", folder / "schema.json"
    cols = [{"name": f"x{j}", "kind": "numeric", "lower": -1.0, "upper": 1.0} for j in range(D)]
    for c in cols:
        c["source"] = "public"
    schema.write_text(json.dumps({"columns": cols}))
    if data.exists():
        return data, schema
    cov = SCALE**2 * ((1 - RHO) * np.eye(D) + RHO * np.ones((D, D)))
    chol = np.linalg.cholesky(cov)
    rng = np.random.default_rng(12345)
    with pq.ParquetWriter(data, pa.schema([(f"x{j}", pa.float64()) for j in range(D)])) as w:
        for start in range(0, rows, 1 << 20):
            n = min(1 << 20, rows - start)
            x = np.clip(rng.standard_normal((n, D)) @ chol.T, -1.0, 1.0)
            w.write_table(pa.table({f"x{j}": x[:, j] for j in range(D)}))
    return data, schema


def measure(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one whole process (it must succeed)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return seconds, usage.ru_maxrss / 1024.0


def measure_inside(cmd: list[str]) -> float:
    """Seconds a process prints as its last line (time measured inside it, no start-up)."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="Keep the input here.")
    args = parser.parse_args()
    rows = int(args.rows)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        data, schema = build_input(folder, rows)
        floor_out, ours_out = Path(tmp) / "floor.parquet", Path(tmp) / "ours.parquet"
        floor = [sys.executable, "-c", FLOOR, str(data), str(floor_out), str(rows), "dict"]
        strict = [*floor[:-1], "plain"]
        ours = [
            sys.executable, "-m", "synthcert", "release", str(data), "--schema", str(schema),
            "--sigma", str(SIGMA), "--min-rows", str(rows), "--param", f"n_out={rows}",
            "--out", str(ours_out), "--param", "seed=7",
        ]  # fmt: skip
        fit_floor = [sys.executable, "-c", FIT_FLOOR, str(data)]
        fit_ours = [sys.executable, "-c", FIT_OURS, str(data), str(schema)]
        results: dict[str, list[tuple[float, float]]] = {"floor": [], "strict": [], "ours": []}
        fits: dict[str, list[float]] = {"floor": [], "ours": []}
        load = os.getloadavg()
        for _ in range(args.runs):
            results["floor"].append(measure(floor))
            results["strict"].append(measure(strict))
            results["ours"].append(measure(ours))
            fits["floor"].append(measure_inside(fit_floor))
            fits["ours"].append(measure_inside(fit_ours))
        load_after = os.getloadavg()
    f = statistics.median(s for s, _ in results["floor"])
    o = statistics.median(s for s, _ in results["ours"])
    st = statistics.median(s for s, _ in results["strict"])
    f_mb = max(m for _, m in results["floor"])
    st_mb = max(m for _, m in results["strict"])
    o_mb = max(m for _, m in results["ours"])
    print(f"rows {rows:,} x {D}, {args.runs} runs each, interleaved")
    print(f"load average before {load[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    print(f"floor (read + draw on 2 threads + write)  median {f:.2f} s  peak RSS {f_mb:.0f} MiB")
    print(f"strict floor (no float dictionaries)      median {st:.2f} s  peak RSS {st_mb:.0f} MiB")
    print(f"synthcert release                         median {o:.2f} s  peak RSS {o_mb:.0f} MiB")
    print(f"all runs: floor {[round(s, 2) for s, _ in results['floor']]}")
    print(f"          strict {[round(s, 2) for s, _ in results['strict']]}")
    print(f"          release {[round(s, 2) for s, _ in results['ours']]}")
    print(f"ratio to the floor: {o / f:.2f}x (target: within 1.25x; peak under 1.5 GB)")
    print(f"ratio to the strict floor: {o / st:.2f}x")
    ff, fo = statistics.median(fits["floor"]), statistics.median(fits["ours"])
    print(f"fit phase (in-process): read with pyarrow + X^T X in numpy  median {ff:.2f} s")
    print(f"                        synthcert fit_moments               median {fo:.2f} s")
    print(f"          all runs: floor {[round(x, 2) for x in fits['floor']]}")
    print(f"                    fit_moments {[round(x, 2) for x in fits['ours']]}")
    print(f"fit ratio: {fo / ff:.2f}x")


if __name__ == "__main__":
    main()
