"""The ``synthcert`` command line: thin commands over the Python API."""

from __future__ import annotations

# Each module registers its commands on the shared apps when imported.
from synthcert.cli import (
    audit_claim_command,  # noqa: F401  (audit-claim)
    audit_commands,  # noqa: F401  (audit, reproduce setsubun)
    data_commands,  # noqa: F401  (schema infer, datasets)
    evaluate_commands,  # noqa: F401  (evaluate, reproduce utility)
    ledger_command,  # noqa: F401  (ledger show)
    rdp_commands,  # noqa: F401  (privacy account, budget, verify-bound; reproduce rdp)
    release_command,  # noqa: F401
    report_commands,  # noqa: F401  (report)
    synthesize_commands,  # noqa: F401  (synthesizers, synthesize)
    zcdp_commands,  # noqa: F401  (privacy account-univariate, reproduce neunhoeffler)
)
from synthcert.cli._app import app, reflow_help

reflow_help(app)


def main() -> None:
    """Entry point of the ``synthcert`` console script."""
    app()
