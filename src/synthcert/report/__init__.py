"""synthcert.report: the release report, one self-contained HTML page per release.

The report takes typed results (a :class:`~synthcert.results.Certificate` or a synthesis
summary, a utility evaluation, an :class:`~synthcert.audit.game.AuditResult`, the private
:class:`~synthcert.run_record.RunRecord`); JSON documents are read through their types'
``from_dict`` (:mod:`synthcert.report.inputs`).
"""

from synthcert.report.build import build_context, render_report, write_report
from synthcert.report.curves import CertificateCurves, certificate_curves
from synthcert.report.inputs import load_json
from synthcert.report.provenance import collect_provenance

__all__ = [
    "CertificateCurves",
    "build_context",
    "certificate_curves",
    "collect_provenance",
    "load_json",
    "render_report",
    "write_report",
]
