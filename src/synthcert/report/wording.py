"""The report's words: section titles, labels of the tables and the cells' number formatting.

Everything a reader sees as text that is not computed from a result lives here, so that a change
of wording touches one module and the sections hold only the logic of what to show.
"""

from __future__ import annotations

from typing import Any

from synthcert.report.figures import fmt

SECTIONS: tuple[tuple[str, str], ...] = (
    ("summary", "Summary"),
    ("certificate", "Privacy certificate"),
    ("risk", "Attack risk"),
    ("utility", "Utility"),
    ("audit", "Membership-inference audit"),
    ("provenance", "Provenance"),
)
INTERNAL_BANNER = "internal: contains statistics of the real data; do not publish"
NO_CERTIFICATE = "No certificate was supplied."
NEIGHBORING_TEXT = {
    "unbounded": "adding or removing any one person's record",
    "bounded": "replacing any one person's record by another",
    "bounded-direct": "replacing any one person's record by another",
}
ANY_RECORD = "changing any one person's record"
UNKNOWN_SYNTHESIZER = "see its documentation"

CERTIFICATE_LABELS: tuple[tuple[str, str], ...] = (
    ("synthesizer", "Synthesizer"),
    ("neighboring", "Neighbouring relation"),
    ("n", "Input rows n"),
    ("d", "Encoded dimensions d"),
    ("sigma", "σ (smallest covariance eigenvalue)"),
    ("sigma_source", "σ source"),
    ("bounds_source", "Bounds source"),
    ("alpha", "Rényi order α"),
    ("n_out", "Rows released n_out"),
    ("epsilon_rdp_per_record", "ε_RDP per released row"),
    ("epsilon_rdp", "ε_RDP of the release"),
    ("epsilon", "ε"),
    ("delta", "δ"),
    ("conversion", "RDP → (ε, δ) conversion"),
)
METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("l1", "L1"),
    ("l2", "L2"),
    ("hellinger", "Hellinger"),
    ("wasserstein", "Wasserstein"),
)
SUMMARY_LABELS = {
    "l1_categorical_mean": "Mean L1, categorical columns",
    "l1_numeric_mean": "Mean L1, numeric columns",
    "hellinger_categorical_mean": "Mean Hellinger, categorical columns",
    "hellinger_numeric_mean": "Mean Hellinger, numeric columns",
    "correlation_abs_diff_mean": "Mean |correlation difference|",
    "correlation_abs_diff_max": "Max |correlation difference|",
    "association_abs_diff_mean": "Mean |association difference|",
    "association_abs_diff_max": "Max |association difference|",
}
ASSOCIATION_CAPTION = (
    "Association difference (synthetic minus real) over all columns: Pearson r between numeric "
    "columns, Cramér's V between categorical ones, the correlation ratio between a categorical "
    "and a numeric one."
)
AUDIT_FACTS: tuple[tuple[str, str], ...] = (
    ("synthesizer", "Synthesizer attacked"),
    ("trials", "Trials"),
    ("generations", "Synthetic tables generated"),
    ("target_row", "Target row index"),
    ("rows", "Input rows in the game"),
    ("ranking_method", "At-risk ranking by"),
)
PROVENANCE_LABELS: tuple[tuple[str, str], ...] = (
    ("synthcert_version", "synthcert version (release)"),
    ("date", "Release date (UTC)"),
    ("command", "Command line"),
    ("seed_source", "Randomness"),
    ("inputs", "Input file(s)"),
    ("input_sha256", "Input SHA-256"),
    ("started", "Run started (UTC)"),
    ("report_generated", "Report generated (UTC)"),
    ("report_synthcert_version", "synthcert version (report)"),
    ("python", "Python"),
    ("platform", "Platform"),
)


def summary_label(key: str) -> str:
    """The label of a key of an evaluation's ``summary``.

    Parameters
    ----------
    key : str
        For example ``"l2_numeric_mean"``.

    Returns
    -------
    str
        ``"Mean L2, numeric columns"``: known keys have hand-written labels, others are
        spelled out from their parts.

    Examples
    --------
    >>> summary_label("l2_numeric_mean")
    'Mean L2, numeric columns'
    """
    if key in SUMMARY_LABELS:
        return SUMMARY_LABELS[key]
    parts = key.split("_")
    if len(parts) == 3 and parts[2] == "mean" and parts[1] in ("numeric", "categorical"):
        metric = {"l1": "L1", "l2": "L2", "hellinger": "Hellinger"}.get(parts[0], parts[0].title())
        return f"Mean {metric}, {parts[1]} columns"
    return key.replace("_", " ")


def cell(v: Any) -> str:
    """A table cell: counts with separators, other numbers to 4 significant digits, – for none.

    Parameters
    ----------
    v : Any
        A number, a string, a list of them, or None (NaN also shows as –).

    Returns
    -------
    str

    Examples
    --------
    >>> cell(30162), cell(0.123456), cell(None), cell([1, 2.5])
    ('30,162', '0.1235', '–', '1, 2.5')
    """
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return fmt(v)
    if isinstance(v, float):
        return fmt(v, 4)
    if isinstance(v, (list, tuple)):
        return ", ".join(cell(x) for x in v)
    return str(v)


__all__ = [
    "ANY_RECORD",
    "ASSOCIATION_CAPTION",
    "AUDIT_FACTS",
    "CERTIFICATE_LABELS",
    "INTERNAL_BANNER",
    "METRIC_COLUMNS",
    "NEIGHBORING_TEXT",
    "NO_CERTIFICATE",
    "PROVENANCE_LABELS",
    "SECTIONS",
    "SUMMARY_LABELS",
    "UNKNOWN_SYNTHESIZER",
    "cell",
    "summary_label",
]
