"""DP-CTGAN against the Setsubun audit: is the audit's epsilon lower bound below the claim?

A small Adult table (age, sex, race, income) gets one inserted worst-case record: age at the
public upper bound, the rarest race and the rarer sex and income, a combination absent from the
table. The audit (``synthcert.audit.run_audit``) then fits DP-CTGAN with and without that record
(per trial: a shadow and a game fit on each side, 4 fits) and scores the attacks; each attack's
epsilon lower bound (95 % confidence, at the claimed delta) must stay below the epsilon
DP-CTGAN claims. The bound counts one run per fit (DP-CTGAN draws its noise at fit time, so
its tables are not independent runs; docs/audit.md), so it needs many ``--trials``; with too
few it is null. With one trial and many generations, every IM of a side comes from the same
fitted model, and the AUC only says in which direction two random models differ. A bound
above the claim would show the accounting wrong (as sensitivity 2C against a claim for C
could); a bound below it is what a correct mechanism gives, and is only as strong as the
number of trials allows (with T IMs per side the largest provable bound is about log T).

    python benchmarks/ctgan_audit.py --epsilon 1 --rows 200 --trials 40
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from synthcert.audit import run_audit
from synthcert.data.datasets import adult_schema, load_adult

COLS = ["age", "sex", "race", "income"]


def worst_case_table(rows: int) -> tuple[pd.DataFrame, int]:
    """The first ``rows`` complete Adult rows plus one outlier; returns the table and its row."""
    df = load_adult()[COLS].dropna().iloc[:rows].reset_index(drop=True)
    schema = adult_schema().select(COLS)
    age = schema.column("age")
    rare = {c: df[c].value_counts().index[-1] for c in ("sex", "race", "income")}
    record = {"age": float(age.upper), **rare}
    table = pd.concat([df, pd.DataFrame([record])], ignore_index=True)
    return table, len(table) - 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--rows", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--generations", type=int, default=1)
    ap.add_argument("--attacks", default="statistics,statistics-calibrated,distance")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the figures to this JSON file")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    schema = adult_schema().select(COLS)
    table, target = worst_case_table(args.rows)
    params = {
        "epochs": args.epochs,
        "batch_size": 50,
        "embedding_dim": 16,
        "generator_dim": (64,),
        "discriminator_dim": (64,),
        "min_rows": args.rows - 1,  # public: the game fits tables of n and n - 1 rows
    }
    t0 = time.perf_counter()
    result = run_audit(
        table, schema, "ctgan", epsilon=args.epsilon, delta=args.delta,
        synthesizer_params=params, target=target, attacks=args.attacks, trials=args.trials,
        generations=args.generations, seed=args.seed,
        progress=lambda *a: None,
    )  # fmt: skip
    rows = result.auc_rows()
    bounds = [r["epsilon_lower_bound"] for r in rows if r["epsilon_lower_bound"] is not None]
    worst = max(bounds) if bounds else None  # None: too few fits for any bound (notes say)
    claimed = (result.privacy or {}).get("epsilon")
    out = {
        "claimed_epsilon": claimed,
        "requested_epsilon": args.epsilon,
        "delta": args.delta,
        "rows": len(table),
        "target_row": result.target_row,
        "trials": args.trials,
        "generations": args.generations,
        "fits": 4 * args.trials,
        "epochs": args.epochs,
        "max_epsilon_lower_bound": worst,
        "seconds": round(time.perf_counter() - t0, 1),
        "attacks": rows,
    }
    print(pd.DataFrame(rows).to_string(index=False))
    print(json.dumps({k: v for k, v in out.items() if k != "attacks"}, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2, default=str))
    for note in result.notes:
        print(note)
    if claimed is not None and worst is not None and worst > claimed:
        print(f"AUDIT BOUND {worst:.3f} EXCEEDS THE CLAIM {claimed:.3f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
