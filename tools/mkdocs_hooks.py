"""MkDocs hooks: the API and CLI reference pages are generated from the code at build time.

Two markers are replaced in a page's markdown before it is converted:

- ``<!-- synthcert:api -->`` becomes one mkdocstrings block (``::: module.Name``) per public
  name of ``synthcert.__all__``, grouped by the package that defines it. The list is read from
  the package's lazy export table, so a name added to or moved in ``synthcert/__init__.py``
  appears in the reference without editing any page.
- ``<!-- synthcert:cli -->`` becomes one section per command of the typer application
  (``typer.main.get_command``), with its help text, usage line and a table of its options,
  read from the click objects typer builds. Nothing is copied by hand, so nothing can drift.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

# Document this checkout's sources, whichever synthcert the environment has installed.
SRC = str(Path(__file__).resolve().parents[1] / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

API_MARKER = "<!-- synthcert:api -->"
CLI_MARKER = "<!-- synthcert:cli -->"

# Headings of the API groups, by the package (second dotted component) that defines a name.
GROUPS = {
    "data": "Tables and schemas",
    "privacy": "Privacy: claims, accounting, budgets",
    "run_record": "Privacy: claims, accounting, budgets",
    "synthesizers": "Synthesizers",
    "workflows": "Workflows: release and synthesize",
    "results": "Workflows: release and synthesize",
    "audit": "Audit",
    "utility": "Utility evaluation",
    "inference": "Inference from synthetic tables",
    "report": "Report",
    "engine": "Engines",
    "errors": "Errors",
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace the reference markers by the generated reference."""
    if API_MARKER in markdown:
        markdown = markdown.replace(API_MARKER, api_reference())
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    return markdown


# Sphinx roles in docstrings (":func:`release`") render as text before the code span.
SPHINX_ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|exc|obj):(<code>)")


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Drop the Sphinx role prefixes the numpy docstrings use; keep the code span."""
    return SPHINX_ROLE.sub(r"\1", html)


# -- API ----------------------------------------------------------------------------------------
def public_names() -> dict[str, str]:
    """Every public name of ``synthcert`` and the dotted path of the object it stands for."""
    package = importlib.import_module("synthcert")
    lazy: dict[str, str] = getattr(package, "_LAZY", {})
    paths = {}
    for name in package.__all__:
        if name.startswith("__"):
            continue
        relative = lazy.get(name)  # the lazy map holds submodules relative to the package
        module = (
            getattr(package, name).__module__
            if relative is None
            else relative
            if relative.startswith("synthcert.")
            else f"synthcert.{relative}"
        )
        paths[name] = f"{module}.{name}"
    return paths


def api_reference() -> str:
    """One ``:::`` block per public name, grouped and in alphabetical order within a group."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for name, path in public_names().items():
        key = path.split(".")[1]
        grouped.setdefault(GROUPS.get(key, "Other"), []).append((name, path))
    order = list(dict.fromkeys([*GROUPS.values(), "Other"]))
    lines = []
    for title in order:
        if title not in grouped:
            continue
        lines += [f"## {title}", ""]
        for name, path in sorted(grouped[title], key=lambda item: item[0].lower()):
            lines += [f"::: {path}", "    options:", f"      heading: {name}", ""]
    return "\n".join(lines)


# -- CLI ----------------------------------------------------------------------------------------
def _cell(text: str) -> str:
    """Text for one markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _command_section(command: Any, path: list[str], ctx: Any, lines: list[str]) -> None:
    """Append the section of one command, then of its subcommands.

    Duck-typed on click's interface: typer builds its commands on a vendored copy of click,
    so ``isinstance`` checks against the installed click would not match.
    """
    name = " ".join(path)
    depth = min(len(path) + 1, 4)
    lines += [f"{'#' * depth} `{name}`", ""]
    if command.help:
        lines += [command.help.strip().replace("\b\n", ""), ""]
    sub_ctx = command.context_class(command, info_name=path[-1], parent=ctx)
    pieces = " ".join(command.collect_usage_pieces(sub_ctx))
    lines += ["```text", f"{name} {pieces}".rstrip(), "```", ""]
    rows = []
    for param in command.get_params(sub_ctx):
        if getattr(param, "hidden", False):
            continue
        kind = param.param_type_name
        record = param.get_help_record(sub_ctx)
        if record is None:
            if kind != "argument":
                continue
            record = (param.name.upper(), "")
        label, help_text = record
        if kind == "argument" and param.required and "required" not in help_text:
            help_text = f"{help_text} [required]".strip()
        rows.append(f"| `{_cell(label)}` | {kind} | {_cell(help_text)} |")
    if rows:
        lines += ["| name | kind | help |", "| --- | --- | --- |", *rows, ""]
    if hasattr(command, "list_commands"):
        for sub_name in sorted(command.list_commands(sub_ctx)):
            sub = command.get_command(sub_ctx, sub_name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            _command_section(sub, [*path, sub_name], sub_ctx, lines)


def cli_reference() -> str:
    """Every command of ``synthcert``, with its help and options, from the typer app."""
    import typer.main

    cli = importlib.import_module("synthcert.cli")  # registers every command on the app
    app = getattr(cli, "app", None) or importlib.import_module("synthcert.cli._app").app
    root = typer.main.get_command(app)
    lines: list[str] = []
    _command_section(root, ["synthcert"], None, lines)
    return "\n".join(lines)
