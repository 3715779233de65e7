"""The provenance section: where the release and the report came from, one row per fact."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synthcert.report.wording import PROVENANCE_LABELS, cell


def provenance_rows(prov: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows of the provenance table, known facts first, in a fixed order.

    Parameters
    ----------
    prov : Mapping
        Facts as :func:`synthcert.report.provenance.collect_provenance` gathers them (or as
        the caller supplies them).

    Returns
    -------
    list of (str, str)
        The facts of :data:`~synthcert.report.wording.PROVENANCE_LABELS` that are present,
        then any other fact under its own name.
    """
    known = dict(PROVENANCE_LABELS)
    rows = [(label, cell(prov.get(key))) for key, label in PROVENANCE_LABELS if key in prov]
    rows += [(str(k), cell(v)) for k, v in prov.items() if k not in known]
    return rows


__all__ = ["provenance_rows"]
