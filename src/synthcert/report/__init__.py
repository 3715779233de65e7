"""synthcert.report: the release report, one self-contained HTML page per release."""

from synthcert.report.build import build_context, load_json, render_report, write_report
from synthcert.report.curves import CertificateCurves, certificate_curves
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
