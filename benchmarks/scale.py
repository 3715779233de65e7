"""Scale benchmark (issue 9): certified release of N rows x 6 float64 columns, Parquet to Parquet.

Phases, each in a fresh process so that its peak memory is its own:

* ``input``  writes the Parquet input (files of 10^7 rows, row groups of 2^20 rows);
* ``rng``    the floor: draws the same 6 N standard normals on all cores and throws them away;
* ``local``  ``synthcert.workflows.release(..., engine="local")`` to a partitioned Parquet dataset;
* ``dask``   the same release on a 2-worker loopback ``LocalCluster`` (one thread each).

For every phase it prints wall time, rows/s and peak resident memory per process
(``ru_maxrss``: this process, and each Dask worker), and the ratio of the release time to the
RNG floor measured in the same run. Usage::

    .venv/bin/python benchmarks/scale.py --rows 1e8 --workdir /tmp/synthcert-scale
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

SEED = 20260901
COLUMNS = (  # name, lower, upper: the demo table's six columns, as floats
    ("age", 18.0, 90.0),
    ("years_of_education", 0.0, 20.0),
    ("hours_per_week", 1.0, 99.0),
    ("annual_income", 0.0, 500_000.0),
    ("household_size", 1.0, 12.0),
    ("commute_minutes", 0.0, 180.0),
)
CHUNK = 1 << 20
FILE_ROWS = 10_000_000


def peak_mb() -> float:
    """Peak resident memory of this process in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def schema():
    from synthcert.data.schema import NumericColumn, Schema

    return Schema(tuple(NumericColumn(n, lo, hi) for n, lo, hi in COLUMNS))


def make_input(rows: int, folder: Path) -> dict:
    """Correlated rows inside the bounds, written chunk by chunk (bounded memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    d = len(COLUMNS)
    rng0 = np.random.default_rng(SEED)
    mix = np.eye(d) + 0.5 * rng0.standard_normal((d, d)) / np.sqrt(d)
    lo = np.array([c[1] for c in COLUMNS])
    hi = np.array([c[2] for c in COLUMNS])
    children = np.random.SeedSequence(SEED).spawn(-(-rows // CHUNK))
    start = time.perf_counter()
    done, file_no, writer, in_file = 0, 0, None, 0
    for child in children:
        m = min(CHUNK, rows - done)
        Z = np.random.default_rng(child).standard_normal((m, d)) @ mix.T
        X = lo + (np.tanh(0.5 * Z) + 1.0) / 2.0 * (hi - lo)
        table = pa.table({c[0]: X[:, j] for j, c in enumerate(COLUMNS)})
        if writer is None:
            writer = pq.ParquetWriter(folder / f"input-{file_no:03d}.parquet", table.schema)
        writer.write_table(table, row_group_size=CHUNK)
        done += m
        in_file += m
        if in_file >= FILE_ROWS:
            writer.close()
            writer, in_file, file_no = None, 0, file_no + 1
    if writer is not None:
        writer.close()
    size = sum(f.stat().st_size for f in folder.glob("*.parquet"))
    return {"seconds": time.perf_counter() - start, "bytes": size}


def rng_floor(rows: int, workers: int) -> dict:
    """Time to draw rows x 6 standard normals with ``workers`` threads (numpy drops the GIL)."""
    d = len(COLUMNS)
    sizes = [min(1 << 19, rows - s) for s in range(0, rows, 1 << 19)]
    children = np.random.SeedSequence(SEED).spawn(len(sizes))

    def draw(i: int) -> float:
        return float(np.random.default_rng(children[i]).standard_normal((sizes[i], d))[0, 0])

    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        sum(pool.map(draw, range(len(sizes))))
    return {"seconds": time.perf_counter() - start}


def run_release(input_dir: Path, out: Path, engine: str) -> dict:
    """One certified release of as many rows as the input, to a partitioned dataset."""
    from synthcert.workflows import Budget, Execution
    from synthcert.workflows.release import release

    shutil.rmtree(out, ignore_errors=True)
    workers: dict[str, float] = {}
    worker_cpu = 0.0
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    if engine == "local":
        result = release(
            input_dir, schema(), f"{out}/", Budget(sigma=1e-3), seed=SEED, command="bench"
        )
    else:
        from synthcert.engine.dask import dask_client

        with dask_client(None, n_workers=2, notify=lambda t: print(t, file=sys.stderr)) as c:
            cpu_before = sum(c.run(cpu_seconds).values())
            cpu0 = cpu_seconds()
            start = time.perf_counter()  # cluster start-up is not part of the release
            result = release(
                input_dir,
                schema(),
                f"{out}/",
                Budget(sigma=1e-3),
                Execution(engine="dask", scheduler=c),
                seed=SEED,
                command="bench",
            )
            seconds = time.perf_counter() - start
            workers = {k: v / 1024.0 for k, v in c.run(_worker_peak_kib).items()}
            worker_cpu = sum(c.run(cpu_seconds).values()) - cpu_before
    if engine == "local":
        seconds = time.perf_counter() - start
    cert = result.certificate
    size = sum(f.stat().st_size for f in out.glob("*.parquet"))
    shutil.rmtree(out, ignore_errors=True)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds() - cpu0 + worker_cpu,
        "n": cert.n,
        "n_out": cert.claim.n_out,
        "epsilon": cert.claim.epsilon,
        "output_bytes": size,
        "worker_peak_mb": workers,
    }


def _worker_peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def phase(name: str, args: argparse.Namespace) -> dict:
    work = Path(args.workdir)
    rows = int(float(args.rows))
    if name == "input":
        out = make_input(rows, work / "input")
    elif name == "rng":
        cpu0 = cpu_seconds()
        out = rng_floor(rows, os.cpu_count() or 1)
        out["cpu_seconds"] = cpu_seconds() - cpu0
    elif name == "hash":
        from synthcert.data.io import expand_inputs, file_sha256

        start = time.perf_counter()
        file_sha256(expand_inputs(work / "input"))
        out = {"seconds": time.perf_counter() - start}
    else:
        out = run_release(work / "input", work / f"out-{name}", name)
    out["peak_mb"] = peak_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="1e8")
    parser.add_argument("--workdir", default="/tmp/synthcert-scale")
    parser.add_argument("--phases", default="input,rng,hash,local,dask")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--keep-input", action="store_true")
    parser.add_argument("--json", dest="json_path", help="also write the figures here")
    args = parser.parse_args()
    if args.phase:  # child process: one phase, one JSON line
        print(json.dumps(phase(args.phase, args)))
        return
    rows = int(float(args.rows))
    results: dict[str, dict] = {"rows": rows, "cores": os.cpu_count()}  # type: ignore[dict-item]
    for name in args.phases.split(","):
        cmd = [sys.executable, __file__, "--phase", name, "--rows", args.rows]
        proc = subprocess.run(
            [*cmd, "--workdir", args.workdir], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            sys.exit(f"phase {name} failed:\n{proc.stderr[-3000:]}")
        results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        r = results[name]
        line = f"{name:>6}: {r['seconds']:8.1f} s  {rows / r['seconds']:14,.0f} rows/s"
        line += f"  peak {r['peak_mb']:7.0f} MB"
        if "cpu_seconds" in r:
            line += f"  cpu {r['cpu_seconds']:7.1f} s"
        if r.get("worker_peak_mb"):
            line += "  workers " + ", ".join(f"{v:.0f} MB" for v in r["worker_peak_mb"].values())
        if name in ("local", "dask") and "rng" in results:
            line += f"  = {r['seconds'] / results['rng']['seconds']:.1f} x RNG floor"
        print(line, flush=True)
    if not args.keep_input:
        shutil.rmtree(Path(args.workdir) / "input", ignore_errors=True)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
