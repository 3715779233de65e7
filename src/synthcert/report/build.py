"""The release report: one self-contained HTML page from a certificate, evaluation and audit.

The page has no network resources (figures are inline SVG, styles inline), so it opens offline
and can be mailed. Everything it states is either read from the typed results or recomputed
from them (the certificate's curves); raw records never reach the page: the audit's at-risk
list is reduced to row indices and scores before rendering.

The inputs are read once into their result types (:mod:`synthcert.report.inputs`); each
section (:mod:`synthcert.report.sections`) turns them into the plain values and figures of its
part of the page; the words are in :mod:`synthcert.report.wording` and the Jinja set-up in
:mod:`synthcert.report.template`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synthcert.data.io import write_text
from synthcert.data.schema import Schema
from synthcert.errors import DataError
from synthcert.report import figures as F  # noqa: N812
from synthcert.report.inputs import (
    Evaluation,
    Released,
    number,
    read_audit,
    read_certificate,
    read_evaluation,
    read_record,
)
from synthcert.report.provenance import collect_provenance
from synthcert.report.sections.audit import audit_section
from synthcert.report.sections.certificate import certificate_section
from synthcert.report.sections.provenance import provenance_rows
from synthcert.report.sections.risk import risk_section
from synthcert.report.sections.summary import (
    assumptions,
    audit_verdict,
    guarantee_sentence,
    strength_note,
    summary_facts,
)
from synthcert.report.sections.utility import utility_section
from synthcert.report.template import render_page
from synthcert.report.wording import INTERNAL_BANNER, NO_CERTIFICATE, SECTIONS

if TYPE_CHECKING:
    from synthcert.audit.claim.result import ClaimAuditResult
    from synthcert.audit.game import AuditResult
    from synthcert.run_record import RunRecord


def build_context(
    certificate: Released | Mapping[str, Any] | None,
    evaluation: Evaluation | Mapping[str, Any] | None = None,
    audit: AuditResult | Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    *,
    schema: Schema | None = None,
    internal: bool = False,
    record: RunRecord | Mapping[str, Any] | None = None,
    claim_audit: ClaimAuditResult | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the template needs, as plain values and Figure records.

    Parameters
    ----------
    certificate : Certificate, SynthesisSummary, Mapping or None
        The release's certificate, or the summary of a synthesis; a JSON object is read
        through the type's ``from_dict`` (:func:`synthcert.report.inputs.read_certificate`).
    evaluation : UtilityEvaluation, Mapping or None
    audit : AuditResult, Mapping or None
    provenance : Mapping, optional
        Provenance facts; by default collected from the certificate (and, for an internal
        report, the run record).
    schema : Schema, optional
        Names the categories and bin edges of the marginal plots.
    internal : bool, default False
        Mark the page internal and add the run record to the provenance.
    record : RunRecord, Mapping or None
        The private run record (internal reports only).
    claim_audit : ClaimAuditResult, Mapping or None
        The worst-case audit (``synthcert audit-claim``) of this configuration: public, it may
        go into a public report; its measured point is drawn on the attack-risk figure.

    Returns
    -------
    dict
        The template's context: title, sections, guarantee, facts, assumptions, warnings,
        verdict, and the certificate, attack-risk, utility, audit and provenance sections.

    Raises
    ------
    DataError
        An input is not a document synthcert writes.
    """
    released = read_certificate(certificate)
    ev = read_evaluation(evaluation)
    au = read_audit(audit)
    rec = read_record(record)
    prov = (
        dict(provenance)
        if provenance is not None
        else collect_provenance(certificate=released, record=rec if internal else None)
    )
    claim = released.claim if released is not None else None
    n_out = claim.n_out if claim is not None else None
    headline = f"{F.fmt(int(n_out))} synthetic rows" if n_out is not None else "Synthetic data"
    cert_sec = certificate_section(released)
    return {
        "title": f"Release report: {headline}",
        "headline": headline,
        "sections": SECTIONS,
        "guarantee": guarantee_sentence(released) if released is not None else NO_CERTIFICATE,
        "strength": strength_note(
            number(claim.epsilon) if claim is not None and claim.is_guarantee else None
        ),
        "facts": summary_facts(released, au),
        "assumptions": assumptions(released),
        "warnings": cert_sec["warnings"],
        "verdict": audit_verdict(released, au),
        "max_records": cert_sec.get("max_records"),
        "certificate": cert_sec,
        # the Setsubun audit ran on the real table: its points go on the internal figure only
        "risk": risk_section(claim, claim_audit, au if internal else None),
        "utility": utility_section(ev, schema),
        "audit": audit_section(au, released),
        "provenance": provenance_rows(prov),
        "generated": prov.get("report_generated") or prov.get("date"),
        "internal": INTERNAL_BANNER if internal else None,
    }


def render_report(
    certificate: Released | Mapping[str, Any] | None,
    evaluation: Evaluation | Mapping[str, Any] | None = None,
    audit: AuditResult | Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    *,
    schema: Schema | None = None,
    internal: bool = False,
    record: RunRecord | Mapping[str, Any] | None = None,
    claim_audit: ClaimAuditResult | Mapping[str, Any] | None = None,
) -> str:
    """The report as one self-contained HTML string.

    A public report (the default) holds the certificate only: an evaluation or an audit
    carries statistics of the real table (its marginals, the records most at risk) and is
    refused there; ``internal=True`` accepts them, adds the private run record to the
    provenance, and marks the page "internal: ... do not publish".

    Parameters
    ----------
    certificate, evaluation, audit, provenance, schema, internal, record, claim_audit
        As for :func:`build_context`.

    Returns
    -------
    str
        The HTML page.

    Raises
    ------
    DataError
        No certificate, evaluation or audit is given; an evaluation, audit or run record is
        given for a public report; or an input is not a document synthcert writes.

    Examples
    --------
    >>> from synthcert.report import load_json, render_report  # doctest: +SKIP
    >>> html = render_report(load_json("synthetic.certificate.json"))  # doctest: +SKIP
    """
    if not (certificate or evaluation or audit):
        raise DataError("a report needs at least one of a certificate, an evaluation or an audit")
    if not internal and (evaluation or audit or record):
        raise DataError(
            "an evaluation, an audit or a run record holds statistics of the real data, so it "
            "cannot go into a public report: write an internal report (--internal) and do not "
            "publish it"
        )
    ctx = build_context(
        certificate, evaluation, audit, provenance, schema=schema, internal=internal,
        record=record, claim_audit=claim_audit,
    )  # fmt: skip
    return render_page(ctx)


def write_report(
    out_path: str | os.PathLike,
    *,
    certificate: Released | Mapping[str, Any] | None,
    evaluation: Evaluation | Mapping[str, Any] | None = None,
    audit: AuditResult | Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    schema: Schema | None = None,
    protect: Sequence[str | os.PathLike] = (),
    internal: bool = False,
    record: RunRecord | Mapping[str, Any] | None = None,
    claim_audit: ClaimAuditResult | Mapping[str, Any] | None = None,
) -> Path:
    """Render the report and write it atomically to ``out_path`` (the call other commands use).

    Parameters
    ----------
    out_path : str or os.PathLike
        The HTML file (an internal report is written with mode 0600).
    certificate, evaluation, audit, provenance, schema, internal, record, claim_audit
        As for :func:`build_context`.
    protect : sequence of path
        Input files the output must not overwrite.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    DataError
        As for :func:`render_report`, or ``out_path`` is one of ``protect``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from synthcert import Budget, release_frame
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> _, cert = release_frame(
    ...     make_demo_table(20_000, seed=1), demo_schema(),
    ...     Budget(sigma=0.01, min_rows=20_000, n_out=50), seed=7,
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_report(Path(tmp) / "report.html", certificate=cert)
    ...     out.name, out.read_text(encoding="utf-8").lower().startswith("<!doctype html")
    ('report.html', True)
    """
    html = render_report(
        certificate, evaluation, audit, provenance, schema=schema, internal=internal,
        record=record, claim_audit=claim_audit,
    )  # fmt: skip
    return write_text(html, out_path, protect=protect, private=internal)  # internal: 0600


__all__ = ["build_context", "render_report", "write_report"]
