"""The examples in the engine's docstrings run and print what they show."""

from __future__ import annotations

import doctest

import pytest

from synthcert.engine import local, ops, partitioned, plan, reduce, sample


@pytest.mark.parametrize("module", [local, ops, partitioned, plan, reduce, sample])
def test_the_examples_in_the_engine_docstrings_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_examples_exist():
    attempted = sum(doctest.testmod(m).attempted for m in (ops, partitioned, reduce, sample))
    assert attempted >= 6
