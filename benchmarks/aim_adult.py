"""AIM with the thesis's settings on Adult at epsilon = 1: synthcert against mbi's JAX estimator.

The thesis's settings (Algorithm 4): the workload of all 2-way marginals, T = 16 k rounds
budgeted, MAX-SIZE 80 MB, 90% of each round's budget on the measurement, 1000 mirror-descent
iterations per estimate, warm-started; delta = 1e-5, 20 equal-width public bins per numeric
column. Both runs are the same AIM loop (the same selection, noise and seed); they differ only
in the Private-PGM estimator:

* synthcert: mirror descent in numpy on a junction tree planned once per set of cliques
  (``synthesizers/_pgm_estimation.py``), nothing to compile;
* peer: mbi 2.x's ``estimation.MirrorDescent`` (JAX), which compiles a new program for every
  new set of cliques -- what synthcert used before.

Prints each run's fit time, rounds, time spent estimating, and the mean one-way and two-way
marginal L1 distance between Adult and a synthetic table of the same size, then the time
ratio (peer / synthcert) and the error difference.

    SYNTHCERT_DATA_HOME=/path/to/data python benchmarks/aim_adult.py [--no-peer]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
import time
from collections.abc import Iterator

import numpy as np
from pgm_ctgan import marginal_l1

from synthcert.data.datasets import adult_schema, load_adult
from synthcert.synthesizers import _pgm_mechanisms
from synthcert.synthesizers._pgm_inference import CalibratedTree, calibrate
from synthcert.synthesizers.registry import make_synthesizer


class MbiEstimator(_pgm_mechanisms.Estimator):
    """The peer: each estimate by mbi's JAX MirrorDescent, warm-started from its last model."""

    def fit(self, state: _pgm_mechanisms.PGMState, iters: int | None = None) -> CalibratedTree:
        mbi = self.mbi
        measurements = [
            mbi.LinearMeasurement(m.y, m.clique, stddev=m.sigma) for m in state.measurements
        ]
        model = mbi.estimation.MirrorDescent().estimate(
            self.domain,
            measurements,
            known_total=self.known_total,
            iters=iters or self.iters,
            warm_start=getattr(state, "mbi_model", None),
        )
        state.mbi_model = model  # type: ignore[attr-defined]
        pots = model.potentials
        state.potentials = {tuple(c): np.asarray(pots[c].values) for c in pots.cliques}
        state.calib = calibrate(state.potentials, self.sizes, float(model.total))
        return state.calib


@contextlib.contextmanager
def estimator(cls: type[_pgm_mechanisms.Estimator]) -> Iterator[list[float]]:
    """Run AIM with ``cls`` as its estimator; yields the list of each estimate's seconds."""
    seconds: list[float] = []
    original_class, original_fit = _pgm_mechanisms.Estimator, cls.fit

    def timed(self, state, iters=None):
        t0 = time.perf_counter()
        try:
            return original_fit(self, state, iters)
        finally:
            seconds.append(time.perf_counter() - t0)

    _pgm_mechanisms.Estimator = cls  # type: ignore[misc]
    cls.fit = timed  # type: ignore[method-assign]
    try:
        yield seconds
    finally:
        _pgm_mechanisms.Estimator = original_class  # type: ignore[misc]
        cls.fit = original_fit  # type: ignore[method-assign]


def run(name: str, cls, args, df, schema) -> dict:
    """One AIM fit and sample; its time, rounds and marginal errors."""
    with estimator(cls) as seconds:
        synth = make_synthesizer(
            "aim", schema, epsilon=args.eps, delta=args.delta, seed=args.seed,
            pgm_iters=args.pgm_iters, **({"rounds": args.rounds} if args.rounds else {}),
        )  # fmt: skip
        t0, c0 = time.perf_counter(), time.process_time()
        synth.fit(df)
        fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    out = synth.sample(len(df), seed=args.seed + 1)
    one, two = marginal_l1(schema, df, out)
    row = {
        "estimator": name,
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu,
        "estimate_s": sum(seconds),
        "estimates": len(seconds),
        "measured": len(synth.selected),
        "selected": hashlib.sha256(repr(list(synth.selected)).encode()).hexdigest()[:12],
        "l1_oneway": one,
        "l1_twoway": two,
    }
    print(
        f"{name:>10}: fit {fit_s:7.1f} s, {fit_cpu:.1f} CPU s "
        f"({row['estimate_s']:.1f} s in {len(seconds)} estimates), "
        f"{row['measured']} marginals measured (sequence {row['selected']}); "
        f"mean L1 one-way {one:.4f}, two-way {two:.4f}",
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pgm-iters", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=None, help="T (default: the thesis's 16 k)")
    ap.add_argument("--no-peer", action="store_true", help="skip mbi's estimator (minutes)")
    args = ap.parse_args(argv)
    schema, df = adult_schema(), load_adult()
    print(f"AIM on Adult ({len(df):,} rows, {len(schema.names)} columns), epsilon={args.eps:g}")
    ours = run("synthcert", _pgm_mechanisms.Estimator, args, df, schema)
    if args.no_peer:
        return
    peer = run("mbi (JAX)", MbiEstimator, args, df, schema)
    print(
        f"time peer / synthcert: {peer['fit_s'] / ours['fit_s']:.2f}x; "
        f"two-way L1 synthcert - peer: {ours['l1_twoway'] - peer['l1_twoway']:+.4f}"
    )


if __name__ == "__main__":
    sys.exit(main())
