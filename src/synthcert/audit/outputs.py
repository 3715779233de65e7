"""Files of an audit: result JSON, the records-at-risk ranking (no values), IMs, figures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from synthcert.audit.plots import plot_im_histograms, plot_roc
from synthcert.audit.results import AuditResult
from synthcert.data.io import write_table, write_text


def audit_summary(result: AuditResult) -> dict:
    """The JSON document of an audit (IMs included, for re-plotting).

    Parameters
    ----------
    result : AuditResult
        The audit.

    Returns
    -------
    dict
        ``AuditResult.to_dict()`` with every attack's scores spelled out.
    """
    doc = result.to_dict()
    doc["attacks"] = {
        name: {
            "auc": s.auc,
            "auc_ci": list(s.auc_ci),
            "tpr_at_1pct_fpr": s.tpr_at_1pct_fpr,
            "tpr_at_01pct_fpr": s.tpr_at_01pct_fpr,
            "epsilon_lower_bound": s.epsilon_lower_bound,
            "epsilon_bound": s.epsilon_bound.to_dict(),
        }
        for name, s in result.attacks.items()
    }
    return doc


def write_audit(result: AuditResult, out: str | Path, *, protect: tuple = ()) -> dict[str, Path]:
    """Write result.json, at_risk.csv (row and score only), ims.csv and the two figures.

    Parameters
    ----------
    result : AuditResult
        The audit.
    out : str or pathlib.Path
        Directory (created if needed).
    protect : tuple
        Paths that must not be overwritten (the input table).

    Returns
    -------
    dict of str to pathlib.Path
        ``result``, ``at_risk``, ``ims``, ``histograms``, ``roc``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "result": out / "result.json",
        "at_risk": out / "at_risk.csv",
        "ims": out / "ims.csv",
        "histograms": out / "im_histograms.png",
        "roc": out / "roc.png",
    }
    write_text(json.dumps(audit_summary(result), indent=2) + "\n", paths["result"], protect=protect)
    ranking = pd.DataFrame(result.at_risk, columns=["row", "score"])
    ranking.insert(0, "rank", range(1, len(ranking) + 1))
    write_table(ranking, paths["at_risk"], protect=protect)
    rows = []
    for name, sides in result.ims.items():
        for side in ("pos", "neg"):
            for k, v in enumerate(sides[side]):
                rows.append(
                    {
                        "attack": name,
                        "side": side,
                        "trial": k // result.generations,
                        "generation": k % result.generations,
                        "im": v,
                    }
                )
    write_table(pd.DataFrame(rows), paths["ims"], protect=protect)
    title = f"{result.synthesizer}, target row {result.target_row} ({result.target.method})"
    plot_im_histograms(result.ims, paths["histograms"], title=title)
    plot_roc(result.ims, paths["roc"], title=title)
    return paths
