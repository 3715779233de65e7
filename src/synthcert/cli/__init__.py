"""The ``synthcert`` command line: thin commands over the Python API."""

from __future__ import annotations

# Each module registers its commands on the shared apps when imported.
from synthcert.cli import (
    data_commands,  # noqa: F401  (schema infer, datasets)
    release_command,  # noqa: F401
    zcdp_commands,  # noqa: F401  (account-univariate, reproduce neunhoeffler)
)
from synthcert.cli._app import app


def main() -> None:
    """Entry point of the ``synthcert`` console script."""
    app()
