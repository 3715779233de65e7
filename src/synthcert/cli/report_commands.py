"""``synthcert report``: one self-contained HTML page per release (certificate, utility, audit)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from synthcert.cli._app import app
from synthcert.cli._common import console, emit_json, handle_errors
from synthcert.cli._options import JsonOpt
from synthcert.errors import DataError

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
    internal: Annotated[
        bool,
        typer.Option(
            "--internal",
            help="An INTERNAL report for the operator: accepts --evaluation, --audit and "
            "--private-record (statistics of the real table) and says on every page that it "
            "must not be published. Without it the report is public: the certificate only.",
        ),
    ] = False,
    private_record: Annotated[
        Path | None,
        typer.Option(
            "--private-record",
            help="The private run record (record.json in the --private-dir of release or "
            "synthesize); internal reports only.",
            **_JSON_IN,
        ),
    ] = None,
    claim_audit: Annotated[
        Path | None,
        typer.Option(
            "--claim-audit",
            help="JSON of `synthcert audit-claim --json` for this configuration (public: built "
            "from the schema alone): its measured point goes on the attack-risk figure.",
            **_JSON_IN,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Write the release report: one self-contained HTML page a data steward can read.

    It states what was released, the guarantee and the assumptions it rests on, the
    certificate's curves, the utility and audit figures and the provenance. Figures are inline
    SVG: the file opens offline and can be mailed.

    A public report carries the certificate only, and is the same file for any two tables
    that differ in one record. An evaluation or an audit describes the real table, so they go
    into an --internal report, marked "do not publish" on every page.

    Example: synthcert report --internal --certificate syn.certificate.json
    --evaluation eval.json --audit audit.json --private-record run.json --out internal.html
    """
    if certificate is None and evaluation is None and audit is None and private_record is None:
        raise DataError(
            "give at least one of --certificate, --evaluation, --audit, --private-record"
        )
    from synthcert.data.schema import Schema
    from synthcert.report import load_json, write_report

    cert = load_json(certificate) if certificate else None
    ev = load_json(evaluation) if evaluation else None
    au = load_json(audit) if audit else None
    record = load_json(private_record) if private_record else None
    if cert is None and isinstance(record, dict):  # a run's record holds its public claim
        cert = record.get("facts", {}).get("released")
    sch = Schema.load(schema) if schema else None
    claim_au = load_json(claim_audit) if claim_audit else None
    named = (certificate, evaluation, audit, schema, private_record, claim_audit)
    inputs = [p for p in named if p is not None]
    path = write_report(
        out, certificate=cert, evaluation=ev, audit=au, schema=sch, protect=inputs,
        internal=internal, record=record, claim_audit=claim_au,
    )  # fmt: skip
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
