"""``synthcert ledger show``, and the ``--ledger``/``--lifetime-*`` options of release and
synthesize (:mod:`synthcert.workflows.ledger_step`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._common import console, emit_json, handle_errors, key_value_table, parse_float

if TYPE_CHECKING:
    from synthcert.workflows.ledger_step import LedgerPolicy

ledger_app = typer.Typer(
    help="A privacy ledger across releases of one table (JSON lines of public claims).",
    no_args_is_help=True,
)
app.add_typer(ledger_app, name="ledger")

LedgerOpt = Annotated[
    Path | None,
    typer.Option(
        "--ledger",
        help="Privacy ledger of this table (JSON lines): the run's public claim is appended "
        "after a successful write; see `synthcert ledger show`.",
    ),
]
LifetimeEpsilonOpt = Annotated[
    str | None,
    typer.Option(
        "--lifetime-epsilon",
        help="With --ledger: refuse, before reading any data, a run that would take the "
        "ledger's total beyond this epsilon.",
    ),
]
LifetimeDeltaOpt = Annotated[
    str | None,
    typer.Option("--lifetime-delta", help="The lifetime delta (needed unless all is pure DP)."),
]


@dataclass(frozen=True)
class LedgerOptions:
    """``--ledger``, ``--lifetime-epsilon`` and ``--lifetime-delta`` of release and synthesize
    (one option group: :func:`~synthcert.cli._options.option_group`)."""

    ledger: LedgerOpt = None
    lifetime_epsilon: LifetimeEpsilonOpt = None
    lifetime_delta: LifetimeDeltaOpt = None

    def policy(self) -> LedgerPolicy:
        """The :class:`~synthcert.workflows.ledger_step.LedgerPolicy` of the three options."""
        from synthcert.workflows.ledger_step import LedgerPolicy

        return LedgerPolicy.of(
            self.ledger,
            None if self.lifetime_epsilon is None else parse_float(self.lifetime_epsilon),
            None if self.lifetime_delta is None else parse_float(self.lifetime_delta),
        )


@ledger_app.command("show")
@handle_errors
def ledger_show(
    ledger: Annotated[Path, typer.Argument(help="The ledger file (JSON lines).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Compose every release in LEDGER by the tightest valid rule and print the total and its
    attack-risk label.

    The rule: pure epsilon adds up; with zCDP entries rho adds up; with Renyi entries epsilon_RDP
    adds up at the smallest order; otherwise (epsilon, delta) add up. Mixed neighbouring
    relations are refused. Example: synthcert ledger show adult.ledger.jsonl
    """
    from synthcert.privacy.ledger import ledger_total

    result = ledger_total(ledger)
    if as_json:
        emit_json(result)
        return
    total = result.total
    rows = [("releases", result.entries)]
    if result.reserved:
        rows.append(("of which reserved", f"{result.reserved} (runs still running or stopped "
                     "before recording: counted at their planned claim)"))  # fmt: skip
    rows += [("rule", total.conversion or "-"),
            ("neighbouring", total.neighboring), ("privacy model", total.model)]  # fmt: skip
    if total.epsilon is not None:
        rows.append(("total (epsilon, delta)", f"({total.epsilon:.6g}, {total.delta:.3g})"))
    if total.rho is not None:
        rows.append(("total rho (zCDP)", total.rho))
    if total.alpha is not None:
        rows.append(("total (alpha, epsilon_RDP)", f"({total.alpha:.6g}, {total.epsilon_rdp:.6g})"))
    if not total.is_guarantee:
        rows.append(("guarantee", total.guarantee))
    label = total.risk
    if label.bounded:
        rows += [("TPR at FPR 1% / 5%",
                  f"{label.tpr_at_fpr['0.01']:.4g} / {label.tpr_at_fpr['0.05']:.4g}"),
                 ("advantage (TPR - FPR)", f"{label.advantage:.4g}")]  # fmt: skip
    sentence = label.sentence.replace("sees this release", f"sees all {result.entries} releases")
    rows.append(("attack risk", sentence))
    console.print(key_value_table(f"Privacy ledger {ledger}", rows))
