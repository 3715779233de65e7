"""Every public name of ``synthcert`` has a numpydoc docstring whose examples run (issue 19).

The sections are read from the docstring text (a title line underlined with dashes), and the
doctests of the modules that define the public names run here, so removing a section or
breaking an example fails the suite.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from functools import cache

import pytest

import synthcert

SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\s*$", re.MULTILINE)


def _public_objects() -> dict[str, object]:
    """The documented public API: ``synthcert.__all__`` without exceptions and plain values."""
    out = {}
    for name in synthcert.__all__:
        obj = getattr(synthcert, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            out[name] = obj
    return out


PUBLIC = _public_objects()


def sections(doc: str | None) -> set[str]:
    """The numpydoc section titles of a docstring (``Parameters``, ``Returns``, ...)."""
    return set(SECTION.findall(inspect.cleandoc(doc or "")))


def _takes_parameters(func: object) -> bool:
    params = inspect.signature(func).parameters  # type: ignore[arg-type]
    return any(p.name not in ("self", "cls") for p in params.values())


def missing_sections(obj: object) -> set[str]:
    """The required sections ``obj``'s docstring lacks (empty when it is complete)."""
    found = sections(obj.__doc__)
    need = {"Examples"}
    if inspect.isclass(obj):
        if not found & {"Parameters", "Attributes"}:
            need.add("Parameters")
    else:
        if "Yields" not in found:  # a generator (context manager) documents what it yields
            need.add("Returns")
        if _takes_parameters(obj):
            need.add("Parameters")
    return need - found


def test_the_public_api_is_the_expected_set() -> None:
    # a name that drops out of the check (say, turned into a module) must not pass silently
    assert len(PUBLIC) == len(synthcert.__all__) - 6  # five exceptions and __version__
    assert {"release_frame", "combine", "Schema", "Certificate", "RunRecord"} <= set(PUBLIC)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_name_has_numpydoc_sections(name: str) -> None:
    obj = PUBLIC[name]
    assert not missing_sections(obj), f"{name}: docstring lacks {sorted(missing_sections(obj))}"


def test_section_check_catches_a_removed_section() -> None:
    doc = synthcert.combine.__doc__
    assert {"Parameters", "Returns", "Raises", "Examples"} <= sections(doc)

    def stripped(section: str):
        def f(q: float) -> float:
            return q

        f.__doc__ = re.sub(rf"\n\s*{section}\n\s*-+\n", "\n", doc)
        return f

    assert missing_sections(stripped("Parameters")) == {"Parameters"}
    assert missing_sections(stripped("Examples")) == {"Examples"}
    assert missing_sections(stripped("Returns")) == {"Returns"}

    class Bare:
        """No sections at all."""

        def __init__(self, x: int) -> None:
            self.x = x

    assert missing_sections(Bare) == {"Parameters", "Examples"}


@cache
def _defining_modules() -> tuple[str, ...]:
    return tuple(sorted({inspect.getmodule(obj).__name__ for obj in PUBLIC.values()}))


@pytest.mark.parametrize("module_name", _defining_modules())
def test_doctests_of_public_modules_pass(module_name: str) -> None:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    tests = [t for t in finder.find(module, module_name) if t.examples]
    assert tests, f"{module_name} has no doctest"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) of {module_name} failed"


def test_every_public_name_has_a_doctest_that_runs() -> None:
    finder = doctest.DocTestFinder()
    for name, obj in PUBLIC.items():
        examples = [e for t in finder.find(obj, name) for e in t.examples]
        runnable = [e for e in examples if e.want and not e.options.get(doctest.SKIP)]
        assert runnable, (
            f"{name}: its Examples section has no example that runs and checks an output"
        )
