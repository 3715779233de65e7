"""The examples in the workflows' docstrings run (numpydoc Examples sections)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "synthcert.workflows.job_inputs",
    "synthcert.workflows.release",
    "synthcert.workflows.synthesize",
    "synthcert.workflows.pipeline",
    "synthcert.workflows.evaluate",
    "synthcert.workflows.audit",
    "synthcert.workflows.demo",
    "synthcert.utility.evaluate",
    "synthcert.results",  # the published types, moved out of the workflows (issue 28)
    "synthcert.utility.results",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if name.endswith(
        ("job_inputs", "release", "synthesize", "pipeline", "demo", "utility.evaluate", "results")
    ):
        assert result.attempted > 0  # the examples that can run without files do run
