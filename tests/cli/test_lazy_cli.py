"""The command line starts without the heavy libraries (issue #20): commands import what they
use when they run, and the package root re-exports its public API lazily."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
HEAVY = ("matplotlib", "scipy", "pandas", "torch", "jax", "pyarrow", "sklearn", "lightgbm")


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )


@pytest.mark.parametrize("module", ["synthcert", "synthcert.cli"])
def test_importing_loads_no_heavy_library(module):
    code = f"import sys, {module}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    assert json.loads(_python(code).stdout.replace("'", '"')) == []


def test_account_json_runs_without_pandas_and_matches_the_library():
    code = (
        "import sys\n"
        "from synthcert.cli import app\n"
        "sys.argv = ['synthcert', 'account', '--n', '1e7', '--d', '6', '--sigma', '0.01', "
        "'--alpha', '4', '--json']\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('LOADED', sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))\n"
    )
    out = _python(code).stdout
    doc, _, loaded = out.rpartition("LOADED")
    assert loaded.strip() == "[]"
    payload = json.loads(doc)
    from synthcert.privacy.budget import account

    ref = account(10**7, 6, 0.01, alpha=4.0)
    assert payload["n"] == 10**7 and payload["d"] == 6 and payload["alpha"] == 4.0
    assert payload["epsilon_rdp"] == pytest.approx(ref.epsilon_rdp, rel=1e-12)
    assert payload["epsilon_rdp"] == pytest.approx(0.5764618639739941, rel=1e-12)


def test_every_public_name_still_imports_from_the_root():
    import synthcert

    for name in synthcert.__all__:
        exec(f"from synthcert import {name}", {})
    assert "release_frame" in dir(synthcert) and "TableSource" in synthcert.__all__


def test_schema_infer_default_agrees_with_the_data_layer():
    from synthcert.cli.data_commands import DRAFT_MAX_ROWS
    from synthcert.data.infer import DEFAULT_MAX_ROWS

    assert DRAFT_MAX_ROWS == DEFAULT_MAX_ROWS
