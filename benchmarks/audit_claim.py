"""The Targets of issue 26: how close `synthcert audit-claim` gets to each claim, and its ceiling.

Cases (each audited on a pair built from a public domain, white-box unless said):

* anchor design (ten identical records plus a canary over three binary columns): aim and
  mwem-pgm at (epsilon, delta) = (1, 1e-2), mu lower bound against the claim's mu = sqrt(2 rho)
  (white-box; black-box reported beside it);
* the same design: privbayes and gaussian-copula at pure epsilon = 1, epsilon lower bound
  against the ceiling;
* the project's single mechanisms at epsilon = 1 (discrete Laplace count, Gaussian count at
  delta = 1e-5, exponential mechanism over two candidates), scored by their output;
* the certified Gaussian release on the theorem's worst pair (helper module
  ``gaussian_release``, when present);
* over-spending twins: privbayes run at epsilon = 4 audited against a claim of 1, the share of
  repetitions flagging a violation;
* a user's schema: privbayes at epsilon = 1 on the public Adult schema (14 columns).

Prints one row per case: epsilon lower bound, mu lower bound, ceiling, claim, the ratios
lb / claim and lb / ceiling, the runs per side and the seconds.

    python benchmarks/audit_claim.py [--runs 1000] [--workers 2] [--reps 10] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from synthcert.audit.claim.estimate import ceiling, estimate_bounds
from synthcert.audit.claim.events import event_pld, randomized_response
from synthcert.audit.claim.run import run_claim_audit
from synthcert.privacy.tradeoff import gdp_tradeoff, pld_tradeoff

PGM = {"pgm_iters": 50}  # post-processing iterations of the estimate (no privacy effect)


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def row(case: str, lb, mu_lb, ceil, claim, runs: int, seconds: float, *, mu: bool = False):
    """One printed row; with ``mu`` the ratios compare mu bounds to the claim's mu."""
    base = mu_lb if mu else lb
    print(
        f"| {case} | {_num(lb)} | {_num(mu_lb)} | {_num(ceil)} | {_num(claim)} | "
        f"{_ratio(base, claim)} | {_ratio(base, ceil)} | {runs} | {seconds:.0f} |",
        flush=True,
    )


def synth_case(name: str, runs: int, workers: int, *, statistic=None, epsilon=1.0, **kw):
    delta = 1e-2 if name in ("aim", "mwem-pgm") else None
    params = PGM if name in ("aim", "mwem-pgm") else {}
    start = time.perf_counter()
    result = run_claim_audit(
        name, kw.pop("schema", None), epsilon=epsilon, delta=delta, params=params, runs=runs,
        design=kw.pop("design", "anchor"), workers=workers, statistic=statistic,
        samples=1000 if statistic == "black-box" else 0, **kw,
    ).result  # fmt: skip
    return result, time.perf_counter() - start


def mechanism_case(name: str, draw: Callable[[int, np.random.Generator], float], runs: int,
                   curve, *, delta: float, gaussian: bool):  # fmt: skip
    """Scores of a single mechanism on inputs 1 (IN) and 0 (OUT), its bound and ceiling."""
    rng = np.random.default_rng(7)
    start = time.perf_counter()
    ins = np.array([draw(1, rng) for _ in range(runs)])
    outs = np.array([draw(0, rng) for _ in range(runs)])
    est = estimate_bounds(ins, outs, delta=delta, gaussian=gaussian, seed=0)
    ceil = ceiling(curve, runs=runs, delta=delta, gaussian=False)
    return est, ceil, time.perf_counter() - start


def single_mechanisms(runs: int) -> None:
    from synthcert.privacy.mechanisms import (
        exponential_mechanism,
        gaussian_mechanism,
        laplace_mechanism,
    )

    lap = pld_tradeoff(event_pld(randomized_response(1.0)))  # discrete Laplace, shift 1
    est, ceil, sec = mechanism_case(
        "laplace", lambda x, r: float(laplace_mechanism([x], 1.0, 1.0, integer=True, rng=r)[0]),
        runs, lap, delta=0.0, gaussian=False,
    )  # fmt: skip
    row("Laplace count, eps=1", est.epsilon_lower_bound, None, ceil, 1.0, runs, sec)
    from synthcert.privacy.accountant import PrivacyAccountant

    def gauss(x: int, r: np.random.Generator, acc: PrivacyAccountant | None = None) -> float:
        out = gaussian_mechanism(
            [x], 1.0, epsilon=1.0, delta=1e-5, calibration="analytic", integer=True, rng=r,
            accountant=acc,
        )  # fmt: skip
        return float(out[0])

    acc = PrivacyAccountant()
    gauss(0, np.random.default_rng(0), acc)
    mu = float(np.sqrt(2.0 * acc.ledger[0].rho))  # the sigma used: sqrt(2 rho) = 1 / sigma
    est, ceil, sec = mechanism_case(
        "gaussian", gauss, runs, gdp_tradeoff(mu), delta=1e-5, gaussian=True
    )
    row("Gaussian count, (1, 1e-5)", est.epsilon_lower_bound, est.mu_lower_bound, ceil, 1.0,
        runs, sec)  # fmt: skip
    # two candidates whose scores (sensitivity 1) swap between the tables: the pair is
    # randomized response at epsilon / 2, the most this mechanism spends on two candidates
    est, ceil, sec = mechanism_case(
        "exponential",
        lambda x, r: float(exponential_mechanism(np.array([1.0 - x, float(x)]), 1.0, 1.0, rng=r)),
        runs, pld_tradeoff(event_pld(randomized_response(0.5))), delta=0.0, gaussian=False,
    )  # fmt: skip
    row("exponential, eps=1", est.epsilon_lower_bound, None, ceil, 1.0, runs, sec)


def gaussian_release_case() -> None:
    try:
        from synthcert.audit.claim import gaussian_release
    except ImportError:
        print("| M_G on the worst pair | (gaussian_release not available) | | | | | | | |")
        return
    start = time.perf_counter()
    out = gaussian_release.audit_gaussian_release()  # type: ignore[attr-defined]
    d = out.to_dict() if hasattr(out, "to_dict") else dict(out)
    lb = d.get("epsilon_lower_bound")
    exact = d.get("exact_epsilon") or d.get("pair_epsilon")
    claim, runs = d.get("certificate_epsilon"), int(d.get("runs", 0))
    seconds = time.perf_counter() - start
    row("M_G, worst pair (vs exact eps(delta))", lb, d.get("mu_lower_bound"), exact, claim,
        runs, seconds)  # fmt: skip


def twins(runs: int, workers: int, reps: int) -> None:
    from synthcert.data.schema import CategoricalColumn, Schema

    one = Schema((CategoricalColumn("x", ("0", "1")),))
    for name in ("privbayes", "gaussian-copula"):
        start = time.perf_counter()
        flags = [
            run_claim_audit(
                name,
                one,
                epsilon=4.0,
                runs=runs,
                claimed_epsilon=1.0,
                seed=100 + i,
                workers=workers,
                samples=0,
            ).result.violation
            for i in range(reps)
        ]
        print(f"| {name} at eps=4, claim 1 (one binary column) | violation in "
              f"{sum(flags)}/{reps} | | | 1.000 | | | {runs} | "
              f"{time.perf_counter() - start:.0f} |", flush=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs per side (issue: 5,000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10, help="repetitions of the twin audits")
    ap.add_argument("--no-black-box", dest="black_box", action="store_false",
                    help="skip the black-box rows of aim and mwem-pgm")  # fmt: skip
    ap.add_argument("--only", nargs="*", default=None,
                    help="cases: pgm, pure, single, mg, twins, schema")  # fmt: skip
    args = ap.parse_args()
    only = set(args.only or ["pgm", "pure", "single", "mg", "twins", "schema"])
    print("| case | eps_lb | mu_lb | ceiling | claim | lb/claim | lb/ceiling | runs | s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    if "single" in only:
        single_mechanisms(args.runs)
    if "mg" in only:
        gaussian_release_case()
    if "pure" in only:
        for name in ("privbayes", "gaussian-copula"):
            r, sec = synth_case(name, args.runs, args.workers)
            row(f"anchor, {name} eps=1", r.epsilon_lower_bound, None, r.ceiling,
                r.claimed_epsilon, r.runs, sec)  # fmt: skip
    if "pgm" in only:
        for name in ("aim", "mwem-pgm"):
            for stat in ("white-box", "black-box") if args.black_box else ("white-box",):
                r, sec = synth_case(name, args.runs, args.workers, statistic=stat)
                row(f"anchor, {name} (1, 1e-2), {stat}", r.epsilon_lower_bound,
                    r.mu_lower_bound, r.mu_ceiling, r.claimed_mu, r.runs, sec, mu=True)  # fmt: skip
    if "twins" in only:
        twins(max(200, args.runs // 5), args.workers, args.reps)
    if "schema" in only:
        from synthcert.data.datasets import adult_schema

        r, sec = synth_case("privbayes", args.runs, args.workers, schema=adult_schema(),
                            design="domain")  # fmt: skip
        row("Adult schema (14 columns), privbayes eps=1", r.epsilon_lower_bound, None,
            r.ceiling, r.claimed_epsilon, r.runs, sec)  # fmt: skip


if __name__ == "__main__":
    main()
