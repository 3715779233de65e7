"""``synthcert report``: one self-contained HTML page per release (certificate, utility, audit)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._common import console, emit_json, handle_errors
from synthcert.cli._options import JsonOpt
from synthcert.data.schema import Schema
from synthcert.errors import DataError
from synthcert.report.build import load_json, write_report
from synthcert.report.provenance import collect_provenance

_JSON_IN = {"exists": True, "dir_okay": False, "readable": True}


@app.command("report")
@handle_errors
def report_command(
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write (atomically).")],
    certificate: Annotated[
        Path | None,
        typer.Option(
            "--certificate",
            help="Certificate JSON written by `synthcert release` (the guarantee and its curves).",
            **_JSON_IN,
        ),
    ] = None,
    evaluation: Annotated[
        Path | None,
        typer.Option(
            "--evaluation",
            help="JSON of `synthcert evaluate --json` (marginals, correlations, efficacy).",
            **_JSON_IN,
        ),
    ] = None,
    audit: Annotated[
        Path | None,
        typer.Option(
            "--audit",
            help="JSON of `synthcert audit --json` (AUCs, scores, ε lower bounds, at-risk rows).",
            **_JSON_IN,
        ),
    ] = None,
    schema: Annotated[
        Path | None,
        typer.Option(
            "--schema",
            help="Schema JSON: names the categories and bin edges of the marginal plots when "
            "the evaluation does not carry them.",
            **_JSON_IN,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the release report: one self-contained HTML page a data steward can read.

    It states what was released, the guarantee and the assumptions it rests on, the
    certificate's curves, the utility and audit figures and the provenance. Figures are inline
    SVG: the file opens offline and can be mailed.

    Example: synthcert report --certificate syn.certificate.json --evaluation eval.json
    --audit audit.json --out report.html
    """
    if certificate is None and evaluation is None and audit is None:
        raise DataError("give at least one of --certificate, --evaluation, --audit")
    cert = load_json(certificate) if certificate else None
    ev = load_json(evaluation) if evaluation else None
    au = load_json(audit) if audit else None
    sch = Schema.load(schema) if schema else None
    prov = collect_provenance(certificate=cert)
    inputs = [p for p in (certificate, evaluation, audit, schema) if p is not None]
    path = write_report(
        out, certificate=cert, evaluation=ev, audit=au, provenance=prov, schema=sch, protect=inputs
    )
    result = {
        "report": str(path),
        "bytes": path.stat().st_size,
        "certificate": str(certificate) if certificate else None,
        "evaluation": str(evaluation) if evaluation else None,
        "audit": str(audit) if audit else None,
    }
    if as_json:
        emit_json(result)
    else:
        console.print(f"report written to [bold]{path}[/bold] ({result['bytes']:,} bytes)")
