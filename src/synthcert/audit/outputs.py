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
        ``result.to_dict()``, so that ``AuditResult.from_dict`` reads it back (the report does).
    """
    return result.to_dict()


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

    Raises
    ------
    DataError
        A file to write is one of ``protect``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np, pandas as pd
    >>> from synthcert.audit import run_audit
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("a", 0.0, 1.0), NumericColumn("b", 0.0, 1.0)))
    >>> table = pd.DataFrame(np.random.default_rng(0).uniform(size=(40, 2)), columns=["a", "b"])
    >>> res = run_audit(table, schema, "gaussian", attacks="distance", trials=1, generations=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = write_audit(res, Path(tmp) / "audit")
    ...     sorted(paths), all(path.is_file() for path in paths.values())
    (['at_risk', 'histograms', 'ims', 'result', 'roc'], True)
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
