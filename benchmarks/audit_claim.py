"""The Targets of issue 26: how close `synthcert audit-claim` gets to each claim, and its ceiling.

Cases (each audited on a pair built from a public domain, white-box unless said):

* anchor design (ten identical records plus a canary over three binary columns): aim and
  mwem-pgm at (epsilon, delta) = (1, 1e-2), mu lower bound against the claim's mu = sqrt(2 rho)
  (white-box; black-box reported beside it);
* the same design: privbayes and gaussian-copula at pure epsilon = 1, epsilon lower bound
  against the ceiling;
* the project's single mechanisms at epsilon = 1 (discrete Laplace count, Gaussian count at
  delta = 1e-5, exponential mechanism over two candidates), scored by their output;
* the certified Gaussian release M_G on its worst pair, d = 1 and the release gate's d = 2
  pair, at K = 5,000, 10^5 and 10^6 releases per side (``--mg-runs``, ``--mg-dims``), against
  the pair's exact eps(delta) (target: lb >= 0.8 x exact) and the certificate;
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

from synthcert.audit.claim.estimate import (
    a_priori_test,
    box_corner,
    ceiling,
    epsilon_at_corner,
    estimate_bounds,
    evaluate_test,
    fisher_bounds,
)
from synthcert.audit.claim.events import event_pld, randomized_response
from synthcert.audit.claim.run import run_claim_audit
from synthcert.privacy.tradeoff import gdp_tradeoff, pld_tradeoff

PGM = {"pgm_iters": 50}  # post-processing iterations of the estimate (no privacy effect)
# DP-CTGAN's twin: public settings of a fast fit (one DP-SGD step at q = 1 on the 10-row pair;
# a small network; a clip norm below every per-example gradient norm, so that the canary's
# clipped gradient has norm C exactly)
CTGAN_TWIN = {
    "epochs": 1,
    "embedding_dim": 8,
    "generator_dim": (16,),
    "discriminator_dim": (16,),
    "max_grad_norm": 1e-3,
}


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
    result, _, seconds = synth_audit(name, runs, workers, statistic=statistic, epsilon=epsilon,
                                     **kw)  # fmt: skip
    return result, seconds


def synth_audit(name: str, runs: int, workers: int, *, statistic=None, epsilon=1.0,
                samples=None, **kw):  # fmt: skip
    """(result, ClaimAudit, seconds) of one audit; ``samples`` rows per fit (default: 1000 for
    the black-box statistic, else none)."""
    delta = 1e-2 if name in ("aim", "mwem-pgm") else None
    params = PGM if name in ("aim", "mwem-pgm") else {}
    start = time.perf_counter()
    audit = run_claim_audit(
        name, kw.pop("schema", None), epsilon=epsilon, delta=delta, params=params, runs=runs,
        design=kw.pop("design", "anchor"), workers=workers, statistic=statistic,
        samples=(1000 if statistic == "black-box" else 0) if samples is None else samples, **kw,
    )  # fmt: skip
    return audit.result, audit, time.perf_counter() - start


def black_box_of(audit, seed: int = 0):
    """The black-box bound of the same runs (their second score column), as audit-claim's
    black-box statistic computes it: split-half test, μ bound (Gaussian claim)."""
    ins, outs = audit.scores
    return estimate_bounds(ins[:, 1], outs[:, 1], delta=audit.result.delta, gaussian=True,
                           seed=seed)  # fmt: skip


def mechanism_case(draw: Callable[[int, np.random.Generator], float], runs: int, curve, *,
                   delta: float, gaussian: bool):  # fmt: skip
    """A single mechanism on inputs 1 (IN) and 0 (OUT), scored by its output.

    Its law is known, so the test is fixed a priori (on max(20,000, 4 x runs) simulated outputs
    per side from a seed of their own: a test for many runs lies in a tail that a small
    simulation does not resolve) and all ``runs`` per side evaluate it; the ceiling is the same
    estimator's at the optimal test (no split).
    """
    sim = np.random.default_rng(99)
    size = max(20_000, 4 * runs)
    sim_in = np.array([draw(1, sim) for _ in range(size)])
    sim_out = np.array([draw(0, sim) for _ in range(size)])
    t, direction = a_priori_test(sim_in, sim_out, runs=runs, delta=delta, gaussian=gaussian)
    rng = np.random.default_rng(7)
    start = time.perf_counter()
    ins = np.array([draw(1, rng) for _ in range(runs)])
    outs = np.array([draw(0, rng) for _ in range(runs)])
    est = evaluate_test(ins, outs, threshold=t, direction=direction, delta=delta, gaussian=gaussian)
    ceil = ceiling(curve, runs=runs, delta=delta, gaussian=False, split=False)
    return est, ceil, time.perf_counter() - start


def reach(case: str, ceil: float, target: float, what: str = "eps") -> None:
    """Say when a target is out of reach of any test this estimator runs with these runs."""
    if ceil < target:
        print(f"|   {case}: target {what} >= {target:.3f} is out of reach: even the optimal "
              f"test proves only {ceil:.3f} in expectation at these runs | | | | | | | | |",
              flush=True)  # fmt: skip


def exponential_pair(epsilon: float, runs: int) -> tuple[float, float, float]:
    """The exponential mechanism's worst two-candidate pair for ``runs`` per side.

    Candidate A scores 0 on D and Δ on D', candidate B scores L on D and L − Δ on D' (each
    score moves by the full sensitivity Δ, in opposite directions). As L grows, A becomes rare
    and P[A | D'] / P[A | D] tends to e^ε (the claim is tight only in the limit). L is chosen
    to maximise the ceiling at ``runs``, from the mechanism's law alone (public, a priori).
    Returns (L, P[A | D], P[A | D']).
    """
    best = (-np.inf, 0.0, 0.0, 0.0)
    for gap in np.linspace(0.0, 16.0, 321):
        p_out = 1.0 / (1.0 + np.exp(epsilon * gap / 2.0))
        p_in = 1.0 / (1.0 + np.exp(epsilon * (gap - 2.0) / 2.0))
        f_hi, t_lo = box_corner(np.array(p_out * runs), runs, np.array(p_in * runs), runs, 0.95)
        value = float(epsilon_at_corner(f_hi, t_lo, 0.0))
        if value > best[0]:
            best = (value, float(gap), float(p_out), float(p_in))
    return best[1], best[2], best[3]


def single_mechanisms(runs: int) -> None:
    from synthcert.privacy.mechanisms import (
        exponential_mechanism,
        gaussian_mechanism,
        laplace_mechanism,
    )

    lap = pld_tradeoff(event_pld(randomized_response(1.0)))  # discrete Laplace, shift 1
    est, ceil, sec = mechanism_case(
        lambda x, r: float(laplace_mechanism([x], 1.0, 1.0, integer=True, rng=r)[0]),
        runs, lap, delta=0.0, gaussian=False,
    )  # fmt: skip
    row("discrete Laplace count, eps=1", est.epsilon_lower_bound, None, ceil, 1.0, runs, sec)
    reach("Laplace", ceil, 0.75)
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
    est, ceil, sec = mechanism_case(gauss, runs, gdp_tradeoff(mu), delta=1e-5, gaussian=True)
    row(f"Gaussian count, (1, 1e-5), mu={mu:.3f}", est.epsilon_lower_bound, est.mu_lower_bound,
        ceil, 1.0, runs, sec)  # fmt: skip
    reach("Gaussian", ceil, 0.75)
    gap, p_out, p_in = exponential_pair(1.0, runs)
    scores = {0: np.array([0.0, gap]), 1: np.array([1.0, gap - 1.0])}  # sensitivity 1

    def expo(x: int, r: np.random.Generator) -> float:
        return float(exponential_mechanism(scores[x], 1.0, 1.0, rng=r) == 0)  # 1: A chosen

    exact = float(np.log(p_in / p_out))

    def curve(alpha: np.ndarray) -> np.ndarray:  # the two-outcome pair's own trade-off curve
        a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)
        return np.maximum(1.0 - a * p_in / p_out, (1.0 - p_in) * (1.0 - a) / (1.0 - p_out))

    est, ceil, sec = mechanism_case(expo, runs, curve, delta=0.0, gaussian=False)
    row(f"exponential, worst 2 candidates (gap {gap:.2f}, pair eps {exact:.3f}), eps=1",
        est.epsilon_lower_bound, None, ceil, 1.0, runs, sec)  # fmt: skip
    reach("exponential", ceil, 0.75)


def gaussian_release_case(runs: list[int], dims: list[int]) -> None:
    """M_G on its worst pair (n = n_out = 50, sigma = 0.3, delta = 1e-2), d = 1 and the release
    gate's d >= 2 pair, at each K in ``runs`` releases per side (one batched draw per side).
    The row's ceiling column is the estimator's ceiling, its claim the certificate; the case
    names the pair's exact eps(delta) and lb / exact against the target 0.8 (issue 26)."""
    from synthcert.audit.claim.gaussian_release import audit_gaussian_release

    for d in dims:
        for k in runs:
            start = time.perf_counter()
            out = audit_gaussian_release(n=50, d=d, sigma=0.3, n_out=50, delta=1e-2, runs=k)
            seconds = time.perf_counter() - start
            lb, exact = out.epsilon_lower_bound, out.pair_epsilon
            row(f"M_G d={d}, worst pair (exact eps(delta) {_num(exact)}, lb/exact "
                f"{_ratio(lb, exact)}, theorem pair {_num(out.theorem_pair_epsilon)})", lb,
                None, out.ceiling, out.certificate_epsilon, k, seconds)  # fmt: skip
            if exact is not None and out.ceiling is not None:
                reach(f"M_G d={d} at K={k}", out.ceiling, 0.8 * exact)


def twins(
    runs: int,
    workers: int,
    reps: int,
    names: list[str],
    design: str,
    extra: dict[str, object] | None = None,
    first_seed: int = 100,
) -> None:
    """Broken twins, repeated: each synthesizer run at ε = 4 and audited against a claim of 1
    (δ = 10⁻² for AIM, MWEM-PGM and DP-CTGAN), ``reps`` audits with seeds ``first_seed``,
    ``first_seed + 1``, ... (default 100); prints the share
    that report ``violation``. ``design``: ``one-column`` (one binary column, ten "0" plus a
    canary "1": the whole budget on one noisy table, the broken-twin tests' pair) or
    ``anchor``. ``extra``: options added to every synthesizer's (``--twin-param``). Each
    repetition prints a line as it ends (its lower bounds and verdict), so that an interrupted
    benchmark still leaves its repetitions."""
    from synthcert.data.schema import CategoricalColumn, Schema

    one = Schema((CategoricalColumn("x", ("0", "1")),))
    schema, pair = (None, "anchor") if design == "anchor" else (one, "domain")
    for name in names:
        delta = 1e-2 if name in ("aim", "mwem-pgm") else None
        params = dict(PGM) if name in ("aim", "mwem-pgm") else {}
        if name == "ctgan":  # white-box: the gradient canary (synthcert.audit.claim.ctgan_canary)
            delta, params = 1e-2, dict(CTGAN_TWIN)
        params.update(extra or {})
        start = time.perf_counter()
        flags = []
        for i in range(reps):
            t0 = time.perf_counter()
            r = run_claim_audit(
                name, epsilon=4.0, delta=delta, params=params, runs=runs,
                claimed_epsilon=1.0, seed=first_seed + i, workers=workers, design=pair,
                samples=0, schema=schema,
            ).result  # fmt: skip
            flags.append(r.violation)
            print(f"|   {name} rep {i + 1} (seed {first_seed + i}): violation {r.violation}, "
                  f"eps_lb {_num(r.epsilon_lower_bound)}, mu_lb {_num(r.mu_lower_bound)}, ceiling "
                  f"{_num(r.ceiling)}, {time.perf_counter() - t0:.0f} s | | | | | | | | |",
                  flush=True)  # fmt: skip
        print(f"| twin: {name} at eps=4, claim 1 ({design}) | violation in {sum(flags)}/{reps} "
              f"({sum(flags) / reps:.0%}) | | | 1.000 | | | {runs} | "
              f"{time.perf_counter() - start:.0f} |", flush=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs per side (issue: 5,000)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=20, help="repetitions of the twin audits")
    ap.add_argument("--twin-runs", type=int, default=1000,
                    help="runs per side of each twin audit (audit-claim's default K)")  # fmt: skip
    ap.add_argument("--twins", nargs="*",
                    default=["privbayes", "gaussian-copula", "mwem-pgm", "aim"],
                    help="synthesizers of the twin repetitions (add ctgan: slow)")  # fmt: skip
    ap.add_argument("--twin-design", choices=["one-column", "anchor"], default="one-column")
    ap.add_argument("--twin-param", action="append", default=[], metavar="KEY=VALUE",
                    help="an option of every twin synthesizer (a Python literal)")  # fmt: skip
    ap.add_argument("--twin-seed", type=int, default=100, help="seed of the first repetition")
    ap.add_argument("--pgm-iters", type=int, default=PGM["pgm_iters"],
                    help="AIM and MWEM-PGM mirror-descent iterations")  # fmt: skip
    ap.add_argument("--no-black-box", dest="black_box", action="store_false",
                    help="skip the black-box rows of aim and mwem-pgm")  # fmt: skip
    ap.add_argument("--save-scores", default=None, metavar="DIR",
                    help="write each pgm case's scores to DIR/NAME.npz")  # fmt: skip
    ap.add_argument("--pgm", nargs="*", default=None,
                    help="of the pgm case, only these (aim, mwem-pgm)")  # fmt: skip
    ap.add_argument("--mg-runs", default="5000,100000,1000000",
                    help="releases per side of the M_G rows (comma-separated)")  # fmt: skip
    ap.add_argument("--mg-dims", default="1,2", help="encoded dimensions of the M_G rows")
    ap.add_argument("--only", nargs="*", default=None,
                    help="cases: pgm, pure, single, mg, twins, schema")  # fmt: skip
    args = ap.parse_args()
    PGM["pgm_iters"] = args.pgm_iters
    only = set(args.only or ["pgm", "pure", "single", "mg", "twins", "schema"])
    print("| case | eps_lb | mu_lb | ceiling | claim | lb/claim | lb/ceiling | runs | s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    if "single" in only:
        single_mechanisms(args.runs)
    if "mg" in only:
        gaussian_release_case([int(float(k)) for k in args.mg_runs.split(",")],
                              [int(d) for d in args.mg_dims.split(",")])  # fmt: skip
    if "pure" in only:
        for name in ("privbayes", "gaussian-copula"):
            r, sec = synth_case(name, args.runs, args.workers)
            row(f"anchor, {name} eps=1 (measurement ceiling {_num(r.measurement_ceiling)})",
                r.epsilon_lower_bound, None, r.ceiling, r.claimed_epsilon, r.runs, sec)  # fmt: skip
    if "pgm" in only:
        names = [n for n in ("aim", "mwem-pgm") if n in (args.pgm or ("aim", "mwem-pgm"))]
        for name in names:
            # one set of runs, both scores: white-box (test fixed a priori) and black-box
            # (split-half test on the same runs' synthetic rows)
            r, audit, sec = synth_audit(name, args.runs, args.workers, statistic="white-box",
                                        samples=1000 if args.black_box else 0)  # fmt: skip
            row(f"anchor, {name} (1, 1e-2), white-box (measurement ceiling "
                f"{_num(r.measurement_ceiling)})", r.epsilon_lower_bound, r.mu_lower_bound,
                r.mu_ceiling, r.claimed_mu, r.runs, sec, mu=True)  # fmt: skip
            if r.fpr == r.fpr:  # the same a-priori test and runs, Fisher's region instead
                n = r.runs
                f_eps, f_mu = fisher_bounds(round(r.fpr * n), n, round(r.tpr * n), n,
                                            delta=r.delta)  # fmt: skip
                row(f"anchor, {name} (1, 1e-2), white-box, Fisher region (not audit-claim's)",
                    f_eps, f_mu, r.mu_ceiling, r.claimed_mu, r.runs, sec, mu=True)  # fmt: skip
            if args.save_scores:  # public: scores of fits on the auditor's own tables
                np.savez(f"{args.save_scores}/{name}.npz", in_scores=audit.scores[0],
                         out_scores=audit.scores[1])  # fmt: skip
            if args.black_box:
                bb = black_box_of(audit)
                row(f"anchor, {name} (1, 1e-2), black-box, same runs", bb.epsilon_lower_bound,
                    bb.mu_lower_bound, r.mu_ceiling, r.claimed_mu, r.runs, sec,
                    mu=True)  # fmt: skip
            if r.claimed_mu:
                # even a mechanism exactly at the claim's mu (every step Gaussian, the
                # selections included) is not provable above this with these runs
                best = ceiling(gdp_tradeoff(r.claimed_mu), runs=r.runs, delta=r.delta,
                               gaussian=True, split=False)  # fmt: skip
                print(f"|   {name}: a {r.claimed_mu:.3f}-GDP mechanism (the claim, tight) "
                      f"proves {best:.3f} in expectation at these runs | | | | | | | | |",
                      flush=True)  # fmt: skip
                reach(f"{name} at the claim's mu {r.claimed_mu:.3f}", best,
                      0.8 * r.claimed_mu, "mu")  # fmt: skip
    if "twins" in only:
        import ast

        extra = {k: ast.literal_eval(v) for k, v in (p.split("=", 1) for p in args.twin_param)}
        twins(args.twin_runs, args.workers, args.reps, args.twins, args.twin_design, extra,
              args.twin_seed)  # fmt: skip
    if "schema" in only:
        from synthcert.data.datasets import adult_schema

        r, sec = synth_case("privbayes", args.runs, args.workers, schema=adult_schema(),
                            design="domain")  # fmt: skip
        row("Adult schema (14 columns), privbayes eps=1", r.epsilon_lower_bound, None,
            r.ceiling, r.claimed_epsilon, r.runs, sec)  # fmt: skip


if __name__ == "__main__":
    main()
