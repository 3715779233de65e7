"""DP tree bins against equal-width and declared-log bins, for synthcert's DP synthesizers.

On Adult and California (the seeded 80/20 split of ``benchmarks/peers_dp.py``, scored by its
ONE metric function :func:`peers_dp.score`: 2-way TV on quantile bins of the real column,
mean |delta corr|, LightGBM AUC/RMSE on the holdout), at epsilon = 1, delta = 1e-6, each
synthesizer runs through :func:`synthcert.synthesize` with:

* ``equal-width``: the public schema, 20 equal-width bins over the bounds (``dp_tree=False``);
* ``tree S``: DP tree bins (:mod:`synthcert.privacy.tree_bins`) for every numeric column
  without declared bins, paid from share S of the synthesizer's rho;
* ``log``: ``"scale": "log"`` declared on the long-tailed columns (:data:`LOG_COLUMNS`), free.

    SYNTHCERT_DATA_HOME=/path/to/data python benchmarks/tree_bins.py [--rows N] [--seeds 0,1]
        [--datasets adult,california] [--synthesizers aim,mwem-pgm] [--shares 0.05,0.1]

Figures are medians over the seeds; ``--rows`` subsamples the train split (the holdout stays
whole).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers_dp import DATASETS, DELTA, EPSILON, public_domain, score, split

from synthcert import Budget, synthesize
from synthcert.data.schema import Schema

LOG_COLUMNS = {
    "adult": ("fnlwgt", "capital-gain", "capital-loss"),
    "california": ("total_rooms", "total_bedrooms", "population", "households", "median_income"),
}


def configuration(name: str, schema: Schema, dataset: str) -> tuple[Schema, dict]:
    """The schema and the synthesize() options of one configuration."""
    if name == "equal-width":
        return schema, {"dp_tree": False}
    if name == "log":
        cols = tuple(
            replace(c, scale="log") if c.name in LOG_COLUMNS[dataset] else c for c in schema.columns
        )
        return replace(schema, columns=cols), {"dp_tree": False}
    share = float(name.split()[1])
    return schema, {"dp_tree": True, "dp_bins": share}


def one_run(
    ds_name: str, synthesizer: str, config: str, seed: int, rows: int | None
) -> dict[str, float]:
    """Fit, sample as many rows as the train split, score."""
    ds = DATASETS[ds_name]
    train, holdout = split(ds.load(), seed=0, quick=False)
    if rows is not None and len(train) > rows:
        train = train.iloc[:rows].reset_index(drop=True)
    domain = public_domain(ds.schema_file)
    schema, options = configuration(config, Schema.load(ds.schema_file), ds_name)
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "train.csv", Path(tmp) / "out" / "syn.csv"
        out.parent.mkdir()
        train.to_csv(src, index=False)
        t0 = time.perf_counter()
        result = synthesize(
            src, schema, synthesizer, out,
            Budget(epsilon=EPSILON, delta=DELTA, n_out=len(train)), seed=seed, **options,
        )  # fmt: skip
        seconds = time.perf_counter() - t0
        syn = pd.read_csv(out)
    claim = result.summary.claim
    assert claim.epsilon == EPSILON, claim  # the step's share is inside the requested budget
    return {**score(syn, train, holdout, ds, domain), "s": seconds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="adult,california")
    parser.add_argument("--synthesizers", default="aim,mwem-pgm")
    parser.add_argument("--shares", default="0.05,0.1")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--configs", default=None, help="e.g. 'equal-width,tree 0.1,log'")
    args = parser.parse_args(argv)
    configs = ["equal-width", *(f"tree {s}" for s in args.shares.split(",")), "log"]
    if args.configs:
        configs = args.configs.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    print("| dataset | synthesizer | bins | 2-way TV | mean abs dcorr | ML (AUC/RMSE) | s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for ds_name in args.datasets.split(","):
        for synthesizer in args.synthesizers.split(","):
            for config in configs:
                runs = [one_run(ds_name, synthesizer, config, s, args.rows) for s in seeds]
                med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
                print(
                    f"| {ds_name} | {synthesizer} | {config} | {med['tv']:.4f} | "
                    f"{med['corr']:.4f} | {med['ml']:.4f} | {med['s']:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
