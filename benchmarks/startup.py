"""Start-up of a data-free command against the floor ``python -c "import numpy"`` (issue #20).

Both are whole processes, interleaved, ``--runs`` times each; prints the medians and the ratio
(the target is within 5x of the floor). ``synthcert privacy account`` touches no data, so its
time is start-up: importing the CLI, the accountant and numpy.

    python benchmarks/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

FLOOR = [sys.executable, "-c", "import numpy"]
COMMAND = [
    sys.executable,
    "-m",
    "synthcert",
    "privacy",
    "account",
    "--n",
    "1e7",
    "--d",
    "6",
    "--sigma",
    "0.01",
    "--alpha",
    "4",
    "--json",
]


def wall(cmd: list[str]) -> float:
    """Seconds one whole process takes (it must succeed)."""
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    wall(FLOOR), wall(COMMAND)  # warm the file cache
    floor, ours = [], []
    for _ in range(args.runs):
        floor.append(wall(FLOOR))
        ours.append(wall(COMMAND))
    f, o = statistics.median(floor), statistics.median(ours)
    print(f"python -c 'import numpy'   median {f:.3f} s over {args.runs} runs (floor)")
    print(f"synthcert privacy account --json median {o:.3f} s over {args.runs} runs")
    print(f"ratio to the floor: {o / f:.2f}x (target: within 5x)")


if __name__ == "__main__":
    main()
