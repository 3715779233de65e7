"""Time fit + sample of the mean-and-covariance synthesizer against SDV's GaussianCopula.

Prints, for 6 numeric columns at 10^5, 10^6 and 10^7 rows: synthcert's fit+sample time and
peak memory, the physical floor measured in the same run (numpy drawing the same number of
standard normals on all cores), SDV 2.x's GaussianCopulaSynthesizer at 10^5 and 10^6 rows,
and the ratios. Optionally streams a Parquet file of --stream-rows rows to Parquet.

Each measurement runs in its own subprocess so peak memory (ru_maxrss) is its own.
SDV may live in another virtual environment: pass its interpreter with --peer-python.

    python benchmarks/gaussian_release.py [--sizes 1e5,1e6,1e7] [--sdv-sizes 1e5,1e6]
        [--peer-python /path/to/venv/bin/python] [--stream-rows 1e8]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_floor(rows: int) -> dict:
    """numpy drawing rows x 6 standard normals with one generator per core, in threads."""
    import numpy as np

    workers = os.cpu_count() or 1
    children = np.random.SeedSequence(0).spawn(workers)
    parts = [rows // workers + (i < rows % workers) for i in range(workers)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(
            pool.map(
                lambda i: np.random.default_rng(children[i]).standard_normal((parts[i], 6)),
                range(workers),
            )
        )
    return {"seconds": time.perf_counter() - t0, "peak_mb": _peak_mb()}


def run_synthcert(rows: int) -> dict:
    """Fit + sample in memory: DataFrame in, DataFrame out."""
    from synthcert.data.datasets import demo_schema, make_demo_table
    from synthcert.synthesizers.gaussian import GaussianSynthesizer

    table = make_demo_table(rows, seed=1)
    table_mb = table.memory_usage(index=False).sum() / 2**20
    tracemalloc.start()
    t0 = time.perf_counter()
    synth = GaussianSynthesizer(demo_schema()).fit(table)
    out = synth.sample(rows, seed=2)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    assert len(out) == rows
    # peak of fit + sample: the input table (held by the caller) plus what they allocate
    return {"seconds": seconds, "peak_mb": table_mb + peak}


def run_sdv(rows: int) -> dict:
    """SDV's GaussianCopulaSynthesizer with default settings on the same table."""
    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer

    sys.path.insert(0, os.environ["SYNTHCERT_SRC"])
    from synthcert.data.datasets import make_demo_table

    table = make_demo_table(rows, seed=1)
    metadata = Metadata.detect_from_dataframes({"demo": table})
    t0 = time.perf_counter()
    synth = GaussianCopulaSynthesizer(metadata)
    synth.fit({"demo": table})  # SDV 2.x takes {table name: frame}
    out = synth.sample(num_rows=rows)
    out = next(iter(out.values())) if isinstance(out, dict) else out
    seconds = time.perf_counter() - t0
    assert len(out) == rows
    return {"seconds": seconds, "peak_mb": _peak_mb()}


def run_stream(rows: int) -> dict:
    """Release Parquet -> Parquet, streaming, from a generated input of ``rows`` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from synthcert.data.datasets import DEMO_SIGMA, demo_schema, make_demo_table
    from synthcert.workflows import Budget
    from synthcert.workflows.release import release

    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        src = os.path.join(tmp, "in.parquet")
        chunk = 5_000_000
        writer = None
        for start in range(0, rows, chunk):
            part = make_demo_table(min(chunk, rows - start), seed=start)
            table = pa.Table.from_pandas(part, preserve_index=False)
            writer = writer or pq.ParquetWriter(src, table.schema)
            writer.write_table(table)
        writer.close()
        base = _peak_mb()
        t0 = time.perf_counter()
        release(
            src,
            demo_schema(),
            os.path.join(tmp, "out.parquet"),
            Budget(sigma=DEMO_SIGMA, min_rows=rows),  # the demo's public sigma, as `synthcert demo`
            seed=3,
            command="bench",
        )
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "peak_mb": _peak_mb(), "peak_mb_before_release": base}


RUNNERS = {"floor": run_floor, "synthcert": run_synthcert, "sdv": run_sdv, "stream": run_stream}


def measure(kind: str, rows: int, python: str) -> dict:
    """Run one measurement in a fresh subprocess and return its JSON."""
    env = dict(os.environ, SYNTHCERT_SRC=os.path.join(os.path.dirname(__file__), "..", "src"))
    proc = subprocess.run(
        [python, __file__, "--one", kind, str(rows)], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _counts(text: str) -> list[int]:
    return [int(float(x)) for x in text.split(",") if x]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--sdv-sizes", default="1e5,1e6")
    parser.add_argument("--peer-python", default=sys.executable, help="interpreter with sdv")
    parser.add_argument("--stream-rows", default="0", help="0 to skip the streaming run")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(RUNNERS[args.one[0]](int(args.one[1]))))
        return

    print(
        f"{'rows':>12} {'floor s':>9} {'synthcert s':>12} {'x floor':>8} {'peak MB':>8} "
        f"{'SDV s':>8} {'SDV/ours':>9}"
    )
    sdv_sizes = set(_counts(args.sdv_sizes))
    for rows in _counts(args.sizes):
        floor = measure("floor", rows, sys.executable)
        ours = measure("synthcert", rows, sys.executable)
        sdv = measure("sdv", rows, args.peer_python) if rows in sdv_sizes else {}
        ratio = ours["seconds"] / floor["seconds"]
        sdv_s = sdv.get("seconds")
        print(
            f"{rows:>12,} {floor['seconds']:>9.3f} {ours['seconds']:>12.3f} {ratio:>8.2f} "
            f"{ours['peak_mb']:>8.0f} "
            + (
                f"{sdv_s:>8.2f} {sdv_s / ours['seconds']:>9.1f}"
                if sdv_s
                else f"{sdv.get('error', '-')[:40]:>18}"
            )
        )
    stream_rows = int(float(args.stream_rows))
    if stream_rows:
        res = measure("stream", stream_rows, sys.executable)
        print(
            f"\nstreamed Parquet->Parquet release of {stream_rows:,} rows x 6: "
            f"{res.get('seconds', float('nan')):.1f} s, peak {res.get('peak_mb', 0):.0f} MB "
            f"(input generation peak {res.get('peak_mb_before_release', 0):.0f} MB)"
        )


if __name__ == "__main__":
    main()
