"""The utility section: distances per column, marginal plots, correlation heat maps, efficacy."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from synthcert.data.discretize import bin_edges
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.report import figures as F  # noqa: N812
from synthcert.report.inputs import Evaluation, read_evaluation
from synthcert.report.wording import ASSOCIATION_CAPTION, METRIC_COLUMNS, cell, summary_label

if TYPE_CHECKING:
    from synthcert.utility.efficacy import Efficacy


def _number_or_none(v: float | None) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def marginal_specs(
    evaluation: Evaluation | Mapping[str, Any], schema: Schema | None = None
) -> dict[str, dict]:
    """Per column, what its marginal plot draws.

    Parameters
    ----------
    evaluation : UtilityEvaluation or Mapping
        Its ``columns`` carry the real and synthetic one-way distributions.
    schema : Schema, optional
        Names the categories and gives the bin edges of numeric columns; without it,
        categories are numbered and bins are drawn by index.

    Returns
    -------
    dict
        Per column ``{kind, real, synthetic}`` and ``categories`` (categorical) or ``bins``
        (edges; ``bin_index`` when they are bin numbers only).
    """
    ev = read_evaluation(evaluation)
    out: dict[str, dict] = {}
    for name, col in ev.columns.items():
        spec: dict[str, Any] = {"real": list(col.real), "synthetic": list(col.synthetic)}
        schema_col = schema.column(name) if schema is not None and name in schema.names else None
        categorical = isinstance(schema_col, CategoricalColumn)
        kind = col.kind or ("categorical" if categorical else "numeric")
        spec["kind"] = kind
        k = len(spec["real"])
        if kind == "categorical":
            if isinstance(schema_col, CategoricalColumn) and len(schema_col.categories) == k:
                spec["categories"] = list(schema_col.categories)
            else:
                spec["categories"] = [f"category {i + 1}" for i in range(k)]
        elif getattr(col, "edges", None) is not None and len(col.edges) == k + 1:
            spec["bins"] = list(col.edges)
        elif (
            getattr(col, "atoms", ())
            and col.edges is not None
            and len(col.edges) + len(col.atoms) == k + 1
        ):
            spec["real"], spec["synthetic"] = (list(f) for f in col.on_bins())
            spec["bins"] = list(col.edges)  # the atoms drawn in the bins holding them
        elif isinstance(schema_col, NumericColumn):
            spec["bins"] = bin_edges(schema_col, k).tolist()
        elif ev.bins == k:
            spec["bins"] = list(range(k + 1))
            spec["bin_index"] = True
        out[str(name)] = spec
    return out


def correlation_diff(
    evaluation: Evaluation | Mapping[str, Any], key: str = "correlation"
) -> dict | None:
    """The signed synthetic − real matrix of the evaluation's correlation or association.

    Parameters
    ----------
    evaluation : UtilityEvaluation or Mapping
    key : {"correlation", "association"}
        Pearson correlations of the numeric columns, or associations over all columns (a
        streamed evaluation has none).

    Returns
    -------
    dict or None
        ``{"columns": [...], "matrix": [[...]]}``; None when the evaluation has no such matrix.
    """
    ev = read_evaluation(evaluation)
    m = getattr(ev, key, None)
    if m is None or not m.columns:
        return None
    real = np.asarray(m.real, dtype=float)
    syn = np.asarray(m.synthetic, dtype=float)
    if real.shape == syn.shape == (len(m.columns), len(m.columns)):
        return {"columns": list(m.columns), "matrix": (syn - real).tolist()}
    return None


def efficacy_table(efficacy: Mapping[str, Efficacy] | None) -> dict | None:
    """Headers and rows of the efficacy table.

    Parameters
    ----------
    efficacy : Mapping of str to Efficacy, or None
        Per target, the scores of the models trained on synthetic and on real rows.

    Returns
    -------
    dict or None
        ``{"headers": [...], "rows": [[...]]}`` with the fields of ``Efficacy.to_dict()`` that
        any target fills; None without efficacy.
    """
    if not efficacy:
        return None
    records = [e.to_dict() for e in efficacy.values()]
    headers = list(dict.fromkeys(k for r in records for k in r))
    headers = [h for h in headers if any(r.get(h) not in (None, "", [], {}) for r in records)]
    rows = [[cell(r.get(h)) for h in headers] for r in records]
    return {"headers": headers, "rows": rows}


def utility_section(
    evaluation: Evaluation | Mapping[str, Any] | None, schema: Schema | None = None
) -> dict[str, Any]:
    """Tables and figures of the utility section.

    Parameters
    ----------
    evaluation : UtilityEvaluation, Mapping or None
    schema : Schema, optional
        For the marginal plots' categories and bin edges.

    Returns
    -------
    dict
        ``present``; with an evaluation also ``column_headers``, ``column_rows``,
        ``summary_rows``, ``marginals`` (figures), ``heatmaps``, ``efficacy``, ``n_real`` and
        ``n_synthetic``.
    """
    ev = read_evaluation(evaluation)
    out: dict[str, Any] = {"present": ev is not None}
    if ev is None:
        return out
    out["column_headers"] = ["Column", "Kind", *[lab for _, lab in METRIC_COLUMNS]]
    out["column_rows"] = [
        [str(name), str(c.kind or "–"),
         *[cell(_number_or_none(getattr(c, k))) for k, _ in METRIC_COLUMNS]]
        for name, c in ev.columns.items()
    ]  # fmt: skip
    out["summary_rows"] = [
        (summary_label(k), cell(x))
        for k, v in ev.summary.items()
        if (x := _number_or_none(v)) is not None
    ]
    specs = marginal_specs(ev, schema)
    out["marginals"] = [
        fig
        for i, (name, spec) in enumerate(specs.items())
        if (fig := F.marginal_figure(name, spec, ev.columns.get(name), i)) is not None
    ]
    heat = []
    corr = correlation_diff(ev, "correlation")
    if corr and len(corr["columns"]) >= 2:
        f = F.correlation_figure(corr["columns"], corr["matrix"])
        if f is not None:
            heat.append(f)
    assoc = correlation_diff(ev, "association")
    if assoc and len(assoc["columns"]) > len(corr["columns"] if corr else []):
        f = F.correlation_figure(
            assoc["columns"],
            assoc["matrix"],
            measure="association",
            fig_id="fig-assoc",
            caption=ASSOCIATION_CAPTION,
        )
        if f is not None:
            heat.append(f)
    out["heatmaps"] = heat
    out["efficacy"] = efficacy_table(getattr(ev, "efficacy", None))
    out["n_real"] = ev.n_real
    out["n_synthetic"] = ev.n_synthetic
    return out


__all__ = ["correlation_diff", "efficacy_table", "marginal_specs", "utility_section"]
