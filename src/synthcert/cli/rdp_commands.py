"""`synthcert account`, `budget`, `verify-bound` and `reproduce rdp` (Miura et al., seed 000)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from synthcert.cli._app import privacy_command, reproduce_app
from synthcert.cli._claims import account_claim, with_claim
from synthcert.cli._common import (
    console,
    emit_json,
    handle_errors,
    key_value_table,
    parse_count,
    parse_float,
    progress_bar,
    risk_row,
)
from synthcert.cli._options import JsonOpt, option_group

if TYPE_CHECKING:
    from synthcert.privacy.budget import RecordBudget
    from synthcert.privacy.claims import PrivacyClaim

NEIGHBORING_HELP = (
    "Which datasets count as neighbours: 'unbounded' (add or remove one record; Theorem 3.1), "
    "'bounded' (replace one record, n public; Corollary 3.2), or 'bounded-direct' (the much "
    "looser direct theorem of the CSS 2022 version, for comparison)."
)
METHOD_HELP = (
    "How bounded neighbours are certified: 'exact' (default; the certified exact worst case "
    "over the replaced and the new record, about 2x tighter) or 'corollary' (the paper's "
    "Corollary 3.2, corrected). Ignored for the other relations."
)
N_HELP = "Number of records of the original table (e.g. 30162 or 1e7)."
D_HELP = "Number of numeric attributes (dimensions of the encoded records in [-1,1]^d)."
SIGMA_HELP = (
    "Public lower bound on every eigenvalue of the covariance of the encoded table "
    "(the class D_sigma of the theorem), e.g. 0.01."
)
# Options ``account`` and ``budget`` share: the declared table and the neighbouring relation
NOpt = Annotated[str, typer.Option("--n", help=N_HELP)]
DOpt = Annotated[str, typer.Option("--d", help=D_HELP)]
SigmaOpt = Annotated[str, typer.Option("--sigma", help=SIGMA_HELP)]
NeighboringOpt = Annotated[str, typer.Option("--neighboring", help=NEIGHBORING_HELP)]
MethodOpt = Annotated[str, typer.Option("--method", help=METHOD_HELP)]


def _neighboring(value: str) -> str:
    from synthcert.privacy.gaussian_release import NEIGHBORINGS

    if value not in NEIGHBORINGS:
        raise typer.BadParameter(f"--neighboring must be one of {', '.join(NEIGHBORINGS)}")
    return value


def _method(value: str) -> str:
    from synthcert.privacy.gaussian_release import BOUNDED_METHODS

    if value not in BOUNDED_METHODS:
        raise typer.BadParameter(f"--method must be one of {', '.join(BOUNDED_METHODS)}")
    return value


def _conversion(value: str) -> str:
    from synthcert.privacy.conversion import CONVERSIONS

    if value not in CONVERSIONS:
        raise typer.BadParameter("--conversion must be 'mironov' or 'ckm'")
    return value


@dataclass(frozen=True)
class DeclaredTable:
    """``--n``, ``--d`` and ``--sigma`` of ``account`` and ``budget`` (one option group:
    :func:`~synthcert.cli._options.option_group`): the declared table a certificate of M_G
    depends on (Miura et al., Theorem 3.1)."""

    n: NOpt
    d: DOpt
    sigma: SigmaOpt

    def parsed(self) -> tuple[int, int, float]:
        """(n, d, sigma) as numbers."""
        return parse_count(self.n), parse_count(self.d), parse_float(self.sigma)


@privacy_command("account")
@handle_errors
@option_group("table", DeclaredTable)
def account_command(
    table: DeclaredTable,
    alpha: str | None = typer.Option(
        None, "--alpha", help="Rényi order alpha > 1. Omit it to choose alpha minimising epsilon."
    ),
    n_out: str | None = typer.Option(
        None, "--n-out", help="Number of synthetic records released (default: --n)."
    ),
    neighboring: NeighboringOpt = "unbounded",
    method: MethodOpt = "exact",
    delta: str | None = typer.Option(
        None,
        "--delta",
        help="delta of the (epsilon, delta)-DP figure; required when --alpha is omitted.",
    ),
    conversion: str = typer.Option(
        "ckm",
        "--conversion",
        help="RDP -> (epsilon, delta): 'ckm' (Canonne-Kamath-Steinke / Asoodeh, tighter) or "
        "'mironov' (the paper's Prop. 2.6).",
    ),
    as_json: JsonOpt = False,
) -> None:
    """Privacy of releasing synthetic rows of M_G without added noise (the certificate alone).

    No data needed: the certificate depends only on n, d, sigma and the number of rows released.
    Exit code 2 with the violated assumption when none can be given.

    Example: synthcert privacy account --n 1e7 --d 6 --sigma 0.01 --alpha 4 gives
    epsilon_RDP = 0.5765 (Table 1 of Miura et al.); with --neighboring bounded it gives 1.153
    (exact; the corollary, --method corollary, gives 2.307).
    """
    from synthcert.privacy.budget import account

    if alpha is None and delta is None:
        raise typer.BadParameter("without --alpha, --delta is required (alpha is then optimised)")
    result = account(
        *table.parsed(),
        alpha=None if alpha is None else parse_float(alpha),
        n_out=None if n_out is None else parse_count(n_out),
        neighboring=_neighboring(neighboring),  # type: ignore[arg-type]
        delta=None if delta is None else parse_float(delta),
        conversion=_conversion(conversion),  # type: ignore[arg-type]
        method=_method(method),  # type: ignore[arg-type]
    )
    if as_json:
        emit_json(with_claim(result, account_claim(result)))
    else:
        rows = [
            ("neighbouring", result.neighboring),
            ("theorem", result.equation),
            ("method", result.method or "-"),
            ("n, d, sigma", f"{result.n}, {result.d}, {result.sigma:g}"),
            ("records released", result.n_out),
            ("alpha", result.alpha),
            ("admissible alpha", f"1 < alpha < {result.alpha_max:.6g}"),
            ("epsilon (RDP, all rows)", result.epsilon_rdp),
            ("epsilon (RDP, per row)", result.epsilon_rdp_per_record),
        ]
        if result.delta is not None:
            rows += [
                ("(epsilon, delta)-DP", f"({result.epsilon:.6g}, {result.delta:.3g})"
                 if result.epsilon is not None else "-"),
                ("conversion", result.conversion),
            ]  # fmt: skip
        rows.append(risk_row(result.claim))
        console.print(key_value_table("Inherent-randomness certificate", rows))
    if not result.feasible:
        if not as_json:
            console.print(f"[red]no certificate:[/red] {result.reason}")
        raise typer.Exit(code=2)


@privacy_command("budget")
@handle_errors
@option_group("table", DeclaredTable)
def budget_command(
    table: DeclaredTable,
    alpha: str | None = typer.Option(
        None, "--alpha", help="Order of an RDP budget (with --epsilon-rdp)."
    ),
    epsilon_rdp: str | None = typer.Option(
        None, "--epsilon-rdp", help="RDP budget epsilon at --alpha, for all rows together."
    ),
    epsilon: str | None = typer.Option(
        None, "--epsilon", help="(epsilon, delta)-DP budget epsilon (with --delta)."
    ),
    delta: str | None = typer.Option(None, "--delta", help="(epsilon, delta)-DP budget delta."),
    neighboring: NeighboringOpt = "unbounded",
    method: MethodOpt = "exact",
    conversion: str = typer.Option(
        "ckm", "--conversion", help="RDP -> (epsilon, delta) conversion: 'ckm' or 'mironov'."
    ),
    as_json: JsonOpt = False,
) -> None:
    """The largest number of synthetic rows a privacy budget allows (a floor, never rounded up).

    Give an RDP budget (--alpha A --epsilon-rdp E) or an (epsilon, delta) budget
    (--epsilon E --delta DL, alpha optimised). Example: synthcert privacy budget --n 1e6 --d 6
    --sigma 0.01 --alpha 4 --epsilon-rdp 1 gives 172222 rows (thesis Table 5.2).
    """
    from synthcert.privacy.budget import max_records

    rdp = alpha is not None and epsilon_rdp is not None and epsilon is None and delta is None
    dp = epsilon is not None and delta is not None and epsilon_rdp is None
    if not (rdp or dp):
        raise typer.BadParameter(
            "give either --alpha and --epsilon-rdp, or --epsilon and --delta (optionally --alpha)"
        )
    result = max_records(
        *table.parsed(),
        neighboring=_neighboring(neighboring),  # type: ignore[arg-type]
        alpha=None if alpha is None else parse_float(alpha),
        epsilon_rdp=None if epsilon_rdp is None else parse_float(epsilon_rdp),
        epsilon=None if epsilon is None else parse_float(epsilon),
        delta=None if delta is None else parse_float(delta),
        conversion=_conversion(conversion),  # type: ignore[arg-type]
        method=_method(method),  # type: ignore[arg-type]
    )
    if as_json:
        emit_json(with_claim(result, budget_claim(result, method)))
        return
    rows = [
        ("max records", result.max_records),
        ("alpha", result.alpha),
        ("epsilon (RDP) per row", result.epsilon_rdp_per_record),
        ("budget", f"{result.budget_kind}: epsilon={result.budget_epsilon:g}"
         + (f", delta={result.budget_delta:g}" if result.budget_delta is not None else "")),
        ("spent at max records", result.epsilon_spent),
    ]  # fmt: skip
    rows.append(risk_row(result.claim))
    console.print(key_value_table("Records allowed by the budget", rows))
    if not result.feasible:
        console.print(f"[red]no certificate:[/red] {result.reason}")


def budget_claim(result: RecordBudget, method: str) -> PrivacyClaim:
    """The claim of releasing the largest number of rows a budget allows: the certificate of
    ``max_records`` rows at the budget's order (and delta), from the one accountant."""
    from synthcert.privacy.budget import account

    if not result.feasible or result.max_records < 1:
        acc = replace(
            account(result.n, result.d, result.sigma, alpha=result.alpha, n_out=1,
                    neighboring=result.neighboring, delta=result.budget_delta,  # type: ignore[arg-type]
                    conversion=result.conversion or "ckm", method=method),  # type: ignore[arg-type]
            n_out=0, feasible=False, reason=result.reason or "the budget allows no row",
        )  # fmt: skip
        return account_claim(acc)
    return account_claim(
        account(
            result.n, result.d, result.sigma, alpha=result.alpha, n_out=result.max_records,
            neighboring=result.neighboring,  # type: ignore[arg-type]
            delta=result.budget_delta, conversion=result.conversion or "ckm",  # type: ignore[arg-type]
            method=method,  # type: ignore[arg-type]
        )
    )  # fmt: skip


def _ints(text: str) -> list[int]:
    return [parse_count(t) for t in text.split(",") if t.strip()]


@privacy_command("verify-bound")
@handle_errors
def verify_bound_command(
    n: str = typer.Option("50,200,500", "--n", help="Comma-separated dataset sizes."),
    d: str = typer.Option("2,4,6", "--d", help="Comma-separated dimensions."),
    datasets: int = typer.Option(1, "--datasets", help="Datasets drawn per (n, d, kind)."),
    seed: int = typer.Option(0, "--seed", help="Random seed."),
    no_optimise: bool = typer.Option(
        False, "--no-optimise", help="Skip the numerical optimisation of the added record."
    ),
    as_json: JsonOpt = False,
) -> None:
    """Audit the theorems: exact Rényi divergences of adversarial neighbours against the bounds.

    Draws datasets in [-1,1]^d, builds neighbours by adding, removing or replacing a record
    (cube corners, the smallest-eigenvalue direction, numerical optimisation), and reports the
    largest ratio exact/bound per relation. A ratio above 1 would disprove the bound (exit 1).
    """
    from synthcert.privacy.soundness import KINDS, verify_bound

    ns, ds = _ints(n), _ints(d)
    total = len(ns) * len(ds) * len(KINDS) * datasets
    with progress_bar(disable=as_json, unit="datasets") as bar:
        task = bar.add_task("auditing datasets", total=total)
        report = verify_bound(
            ns, ds, datasets=datasets, seed=seed, optimise=not no_optimise,
            progress=lambda: bar.advance(task),
        )  # fmt: skip
    if as_json:
        emit_json(report)
    else:
        rows = [("cases", report.cases), ("datasets", report.datasets)]
        for key in sorted(report.max_ratio):
            w = report.worst[key]
            rows.append(
                (f"max exact/bound {key}",
                 f"{report.max_ratio[key]:.4f} ({w.kind}, {w.construction}, n={w.n}, d={w.d}, "
                 f"alpha={w.alpha:.3g})")
            )  # fmt: skip
        rows.append(("sound", report.sound))
        console.print(key_value_table("Soundness audit of the RDP bounds", rows))
    if not report.sound:
        raise typer.Exit(code=1)


@reproduce_app.command("rdp")
@handle_errors
def reproduce_rdp_command(
    out: Path = typer.Option(..., "--out", help="Folder for the CSVs, figures and summary.md."),
    no_figures: bool = typer.Option(False, "--no-figures", help="Tables only."),
    as_json: JsonOpt = False,
) -> None:
    """Tables 1-2 and Figures of Miura et al. (seed 000) and thesis ch. 5 (Tables 5.1-5.2, §5.5.4).

    Writes CSVs, PNG figures and summary.md, which sets each value beside the printed one.
    """
    from synthcert.reproduce.rdp import reproduce_rdp

    with progress_bar(disable=as_json, unit="") as bar:
        task = bar.add_task("starting", total=None)
        result = reproduce_rdp(
            out,
            figures=not no_figures,
            progress=lambda msg: bar.update(task, description=msg),
        )
    if as_json:
        emit_json(result)
        return
    rows = [
        ("printed values matched", f"{result.matched}/{result.compared}"),
        ("differing (explained in summary.md)", "; ".join(result.differing) or "-"),
        ("summary", str(Path(result.out_dir) / "summary.md")),
        ("seconds", result.seconds),
    ]
    console.print(key_value_table("Reproduction of the RDP results", rows))
