"""The layers, checked by reading the source (ast): what may import what.

Engines and the privacy and statistics layers sit under the models: no module of
``synthcert.engine``, ``synthcert.privacy`` or ``synthcert.statistics`` imports
``synthcert.synthesizers`` (engines call a fitted model's public ``sample_chunk``; callers fit
models from the statistics engines compute). A ``_private`` name is not imported from another
package, and the engine and the statistics layer call no private method of another object.

No import circles: the import graph of synthcert (every import, at any depth: function-level
and ``TYPE_CHECKING`` imports included) has no cycle through modules of two packages, and no
cycle between the plain modules of one package (a package's ``__init__`` may gather its own
submodules, which import names from it: that is the only loop allowed).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import synthcert

SRC = Path(synthcert.__file__).resolve().parent.parent
UNDER_THE_MODELS = ("synthcert.engine", "synthcert.privacy", "synthcert.statistics")
# Packages whose private-name imports are checked: all of synthcert.
PRIVATE_CHECKED = ("synthcert",)


@dataclass(frozen=True)
class Imported:
    """One name brought in by an import statement of ``module`` (line ``line``)."""

    module: str  # the importing module
    line: int
    source: str  # the module imported from (absolute)
    name: str | None  # the name taken from it (None for ``import source``)


def module_files() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``) for every module of synthcert."""
    out: dict[str, tuple[Path, bool]] = {}
    for path in sorted((SRC / "synthcert").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


MODULES = module_files()


def package_of(module: str) -> str:
    """The package a module belongs to (itself for a package)."""
    _, is_pkg = MODULES[module]
    return module if is_pkg else module.rpartition(".")[0]


def imports_of(module: str) -> list[Imported]:
    """Every import of a module, at any depth (functions, TYPE_CHECKING blocks), absolute."""
    path, _ = MODULES[module]
    out: list[Imported] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.extend(Imported(module, node.lineno, a.name, None) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package_of(module).split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            out.extend(Imported(module, node.lineno, source, a.name) for a in node.names)
    return out


def within(module: str, package: str) -> bool:
    """``module`` is ``package`` or inside it."""
    return module == package or module.startswith(package + ".")


def targets(imp: Imported) -> list[str]:
    """The synthcert modules an import may load: the source, and ``source.name`` if a module."""
    out = [imp.source]
    if imp.name is not None and f"{imp.source}.{imp.name}" in MODULES:
        out.append(f"{imp.source}.{imp.name}")
    return out


def is_private(name: str) -> bool:
    """``_name`` but not ``__dunder__``."""
    return name.startswith("_") and not name.startswith("__")


def private_import_offences(imp: Imported) -> list[str]:
    """The private names an import takes from another package (private modules included)."""
    if not within(imp.source, "synthcert"):
        return []
    offences = []
    names = [imp.name] if imp.name is not None else []
    pieces = imp.source.split(".")
    # a private module: only its own package (and the packages inside it) may import it
    for i, piece in enumerate(pieces):
        if is_private(piece) and not within(imp.module, ".".join(pieces[:i])):
            offences.append(f"{imp.module}:{imp.line} imports private module {imp.source}")
    for name in names:
        if not is_private(name):
            continue
        full = f"{imp.source}.{name}"
        owner = imp.source if full in MODULES else package_of(imp.source)
        if imp.source in MODULES and not within(package_of(imp.module), owner):
            offences.append(f"{imp.module}:{imp.line} imports {name} from {imp.source}")
    return offences


def modules_in(packages: tuple[str, ...]) -> list[str]:
    """The modules of the given packages."""
    return [m for m in MODULES if any(within(m, p) for p in packages)]


Graph = Mapping[str, set[str]]


def loaded(imp: Imported) -> str:
    """The module an import loads: ``source.name`` when that is a module, else ``source``.

    Like every import tool's graph, the parents a Python import initialises on the way
    (``a`` and ``a.b`` for ``a.b.c``) are not edges: else every submodule would loop with its
    package's ``__init__``.
    """
    full = f"{imp.source}.{imp.name}"
    return full if imp.name is not None and full in MODULES else imp.source


def import_graph() -> dict[str, set[str]]:
    """Module -> the synthcert modules it imports (any depth; a module never points to itself)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for imp in imports_of(module):
            target = loaded(imp)
            if target in MODULES and target != module:
                graph[module].add(target)
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """The strongly connected components of ``graph`` with two modules or more (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def a_cycle(graph: Graph, component: list[str]) -> str:
    """One shortest cycle through the first module of a component, as ``a -> b -> a``."""
    start, inside = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    return " -> ".join([*paths[v], start])
                if w in inside and w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{component} is not strongly connected")


def import_cycles(graph: Graph, allowed: Callable[[list[str]], bool]) -> list[str]:
    """A readable cycle of every strongly connected component that ``allowed`` refuses."""
    return sorted(a_cycle(graph, c) for c in strongly_connected(graph) if not allowed(c))


def one_package(component: list[str], package: Callable[[str], str] = package_of) -> bool:
    """Every module of the component belongs to one package."""
    return len({package(m) for m in component}) == 1


def without_inits(graph: Graph, is_init: Callable[[str], bool]) -> dict[str, set[str]]:
    """The graph of plain modules: package ``__init__`` modules and their edges removed."""
    return {v: {w for w in ws if not is_init(w)} for v, ws in graph.items() if not is_init(v)}


def test_the_module_map_sees_the_layers():
    for package in (*UNDER_THE_MODELS, "synthcert.synthesizers"):
        assert package in MODULES and MODULES[package][1]
    assert len(modules_in(("synthcert.engine",))) >= 9
    # the reader resolves relative imports and finds imports nested in functions
    sample = [i for i in imports_of("synthcert.engine.ops") if i.source == "synthcert.engine.dask"]
    assert {i.name for i in sample} >= {"DaskEngine", "dask_client"}


@pytest.mark.parametrize("package", UNDER_THE_MODELS)
def test_engine_privacy_and_statistics_never_import_synthesizers(package):
    modules = modules_in((package,))
    assert modules
    offenders = [
        f"{imp.module}:{imp.line} imports {imp.source}" + (f".{imp.name}" if imp.name else "")
        for module in modules
        for imp in imports_of(module)
        if any(within(t, "synthcert.synthesizers") for t in targets(imp))
    ]
    assert offenders == []


@pytest.mark.parametrize("package", PRIVATE_CHECKED)
def test_no_private_name_is_imported_from_another_package(package):
    modules = modules_in((package,))
    offences = [o for m in modules for imp in imports_of(m) for o in private_import_offences(imp)]
    assert offences == []


@pytest.mark.parametrize("package", PRIVATE_CHECKED)
def test_no_module_reaches_a_private_attribute_of_another_object(package):
    """Only ``self``/``cls`` (and a module's own globals) are reached through ``_names``."""
    offences = []
    for module in modules_in((package,)):
        path, _ = MODULES[module]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and is_private(node.attr):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    offences.append(f"{module}:{node.lineno} .{node.attr}")
    assert offences == []


def test_the_checks_catch_what_they_forbid():
    """The detectors flag a synthesizer import, a private name and a private module."""
    sample = Imported("synthcert.engine.sample", 1, "synthcert.synthesizers.gaussian", "G")
    assert any(within(t, "synthcert.synthesizers") for t in targets(sample))
    via_package = Imported("synthcert.engine.ops", 1, "synthcert", "synthesizers")
    assert "synthcert.synthesizers" in targets(via_package)
    cross = Imported("synthcert.reproduce.rdp", 1, "synthcert.privacy.inherent", "_bounded")
    assert private_import_offences(cross) == [
        "synthcert.reproduce.rdp:1 imports _bounded from synthcert.privacy.inherent"
    ]
    inside = Imported("synthcert.privacy.ridge", 1, "synthcert.privacy.inherent", "_x")
    assert private_import_offences(inside) == []
    module = Imported("synthcert.engine.ops", 1, "synthcert.synthesizers", "_bayesnet")
    assert private_import_offences(module) == [
        "synthcert.engine.ops:1 imports _bayesnet from synthcert.synthesizers"
    ]
    own = Imported("synthcert.synthesizers.pgm", 1, "synthcert.synthesizers._pgm_inference", "f")
    assert private_import_offences(own) == []
    shared = Imported("synthcert.engine.plan", 1, "synthcert._result", "Result")
    assert private_import_offences(shared) == []


def test_no_import_cycle_between_packages():
    """No cycle of imports runs through modules of two packages (function-level included)."""
    assert import_cycles(import_graph(), one_package) == []


def test_no_import_cycle_between_the_plain_modules_of_a_package():
    """Inside a package only its ``__init__`` may close a loop (it gathers its submodules)."""
    graph = without_inits(import_graph(), lambda m: MODULES[m][1])
    assert import_cycles(graph, lambda component: False) == []


def test_the_import_graph_sees_nested_imports():
    """The graph holds function-level and TYPE_CHECKING imports (the ones that hid circles)."""
    graph = import_graph()
    assert "synthcert.engine.dask" in graph["synthcert.engine.ops"]  # inside a function
    assert "synthcert.report.inputs" in graph["synthcert.workflows.artefacts"]  # TYPE_CHECKING
    assert "synthcert.results" in graph["synthcert.report.inputs"]


def test_the_cycle_checks_catch_a_synthetic_circle():
    """A circle across packages is reported as a chain; one inside a package only via __init__."""
    graph = {
        "p.report.inputs": {"p.workflows.release"},
        "p.workflows.release": {"p.workflows.artefacts", "p.results"},
        "p.workflows.artefacts": {"p.report.inputs"},
        "p.results": set(),
        "p.q": {"p.q.a"},
        "p.q.a": {"p.q", "p.q.b"},
        "p.q.b": {"p.q.a"},
    }

    def package(m: str) -> str:
        return m.rpartition(".")[0] if m != "p.q" else m

    def allowed(component: list[str]) -> bool:
        return one_package(component, package)

    assert import_cycles(graph, allowed) == [
        "p.report.inputs -> p.workflows.release -> p.workflows.artefacts -> p.report.inputs"
    ]
    plain = without_inits(graph, lambda m: m == "p.q")
    assert import_cycles(plain, lambda c: False) == [
        "p.q.a -> p.q.b -> p.q.a",
        "p.report.inputs -> p.workflows.release -> p.workflows.artefacts -> p.report.inputs",
    ]
    graph["p.workflows.artefacts"] = set()  # the circle broken: nothing is reported
    graph["p.q.b"] = set()
    assert import_cycles(graph, allowed) == []
    assert import_cycles(without_inits(graph, lambda m: m == "p.q"), lambda c: False) == []
