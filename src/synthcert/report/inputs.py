"""The report's inputs as typed results: JSON documents are read through the types' ``from_dict``.

The report takes the results synthcert writes, never loose dicts: the certificate of a release
(:class:`~synthcert.results.Certificate`) or the summary of a synthesis
(:class:`~synthcert.results.SynthesisSummary`), a utility evaluation
(:class:`~synthcert.utility.evaluate.UtilityEvaluation`, in memory or streamed), an audit
(:class:`~synthcert.audit.game.AuditResult`) and the private run record
(:class:`~synthcert.run_record.RunRecord`). A document read from disk is turned into its type
here, once, by the type's own ``from_dict``; a document of another shape is a
:class:`~synthcert.errors.DataError` naming the field, not a page with parts silently missing.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from synthcert.errors import DataError
from synthcert.results import Certificate, SynthesisSummary

if TYPE_CHECKING:
    from synthcert.audit.game import AuditResult
    from synthcert.run_record import RunRecord
    from synthcert.utility.results import UtilityEvaluation

Released: TypeAlias = "Certificate | SynthesisSummary"
Evaluation: TypeAlias = "UtilityEvaluation"


def load_json(path: str | os.PathLike) -> dict:
    """Read one JSON document, with a clear error when it is missing or malformed.

    Parameters
    ----------
    path : str or os.PathLike
        The file written by ``synthcert release``, ``evaluate``, ``audit`` or
        ``--private-dir`` (``record.json``).

    Returns
    -------
    dict
        The parsed JSON object.

    Raises
    ------
    DataError
        The file does not exist, is not valid JSON or does not hold a JSON object.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(f"{str(p)!r} does not exist") from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"{str(p)!r} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise DataError(f"{str(p)!r} must hold a JSON object")
    return data


def number(value: Any) -> float | None:
    """A number from an untyped part of a result (a budget, the audited guarantee) as a float.

    Parameters
    ----------
    value : Any
        A JSON number, one of the strings ``"inf"``/``"-inf"`` that synthcert writes for
        infinities, or anything else.

    Returns
    -------
    float or None
        The float; None for None, booleans and anything that is not a number.

    Examples
    --------
    >>> number("inf"), number(3), number(True), number("x")
    (inf, 3.0, None, None)
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str) and value not in ("inf", "-inf"):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _typed(doc: Any, kinds: tuple[type, ...], read: type, what: str) -> Any:
    if doc is None or isinstance(doc, kinds):
        return doc
    if not isinstance(doc, Mapping):
        raise DataError(f"the {what} must be a {read.__name__} or its JSON object")
    try:
        return read.from_dict(dict(doc))
    except DataError as exc:
        raise DataError(f"the {what} is not a document synthcert writes: {exc}") from exc


def read_certificate(doc: Released | Mapping[str, Any] | None) -> Released | None:
    """The release's certificate, or the summary of a synthesis (its privacy claim).

    Parameters
    ----------
    doc : Certificate, SynthesisSummary, Mapping or None
        A typed result is returned as is; a JSON object is read as a
        :class:`~synthcert.results.SynthesisSummary` when it holds ``rows_out``
        (``synthcert synthesize --json``), else as a
        :class:`~synthcert.results.Certificate`
        (the ``.certificate.json`` of ``synthcert release``).

    Returns
    -------
    Certificate or SynthesisSummary or None

    Raises
    ------
    DataError
        The object is neither document.
    """
    kinds = (Certificate, SynthesisSummary)
    read = SynthesisSummary if isinstance(doc, Mapping) and "rows_out" in doc else Certificate
    if isinstance(doc, Mapping):  # the --json output adds the claim's risk label: derived
        doc = {k: v for k, v in doc.items() if k != "risk"}
    return _typed(doc, kinds, read, "certificate")


def read_evaluation(doc: Evaluation | Mapping[str, Any] | None) -> Evaluation | None:
    """The utility evaluation (``synthcert evaluate --json``; streamed when it names an engine).

    Parameters
    ----------
    doc : UtilityEvaluation, Mapping or None

    Returns
    -------
    UtilityEvaluation or None

    Raises
    ------
    DataError
        The object is not an evaluation document.
    """
    from synthcert.utility.results import UtilityEvaluation

    return _typed(doc, (UtilityEvaluation,), UtilityEvaluation, "evaluation")


def read_audit(doc: AuditResult | Mapping[str, Any] | None) -> AuditResult | None:
    """The audit (its ``result.json``, or ``synthcert audit --json``, which leaves the IMs out
    and adds the paths of the ``files`` it wrote).

    Parameters
    ----------
    doc : AuditResult, Mapping or None

    Returns
    -------
    AuditResult or None

    Raises
    ------
    DataError
        The object is not an audit document.
    """
    from synthcert.audit.game import AuditResult

    if isinstance(doc, Mapping):  # the --json output: no IMs, the files written
        doc = {"ims": {}, **{k: v for k, v in doc.items() if k != "files"}}
    return _typed(doc, (AuditResult,), AuditResult, "audit")


def read_record(doc: RunRecord | Mapping[str, Any] | None) -> RunRecord | None:
    """The private run record (``DIR/record.json`` of ``release`` or ``synthesize``).

    Parameters
    ----------
    doc : RunRecord, Mapping or None

    Returns
    -------
    RunRecord or None

    Raises
    ------
    DataError
        The object is not a run record.
    """
    from synthcert.run_record import RunRecord

    return _typed(doc, (RunRecord,), RunRecord, "run record")


def finite(values: Any) -> list[float]:
    """The finite numbers of a sequence (the NaN IMs of games that were not played dropped).

    Parameters
    ----------
    values : sequence of float

    Returns
    -------
    list of float
    """
    return [float(v) for v in values if (x := number(v)) is not None and math.isfinite(x)]


__all__ = [
    "Evaluation",
    "Released",
    "finite",
    "load_json",
    "number",
    "read_audit",
    "read_certificate",
    "read_evaluation",
    "read_record",
]
