"""The release report: one self-contained HTML page from a certificate, evaluation and audit.

The page has no network resources (figures are inline SVG, styles inline), so it opens offline
and can be mailed. Everything it states is either read from the three JSON documents or
recomputed from them (the certificate's curves); raw records never reach the page: the audit's
at-risk list is reduced to row indices and scores before rendering.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import numpy as np

from synthcert.data.discretize import bin_edges
from synthcert.data.io import write_text
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.report import figures as F  # noqa: N812
from synthcert.report.curves import CertificateCurves, _num, can_recompute, certificate_curves
from synthcert.report.provenance import collect_provenance

SECTIONS: tuple[tuple[str, str], ...] = (
    ("summary", "Summary"),
    ("certificate", "Privacy certificate"),
    ("utility", "Utility"),
    ("audit", "Membership-inference audit"),
    ("provenance", "Provenance"),
)
AT_RISK_SHOWN = 10
NEIGHBORING_TEXT = {
    "unbounded": "adding or removing any one person's record",
    "bounded": "replacing any one person's record by another",
    "bounded-direct": "replacing any one person's record by another",
}
SYNTHESIZER_TEXT = {
    "gaussian": (
        "rows drawn from a multivariate Gaussian with the input's mean and covariance; no noise "
        "is added: the guarantee comes from the randomness of sampling alone (Miura et al.)"
    ),
    "gaussian-copula": "rows from a Gaussian copula fitted to the input",
    "privbayes": "rows from a differentially private Bayesian network (PrivBayes)",
    "mwem-pgm": "rows from a private graphical model (MWEM + Private-PGM)",
    "aim": "rows from a private graphical model chosen adaptively (AIM)",
    "ctgan": "rows from a generative adversarial network (CTGAN)",
}


def _mapping(value: Any) -> Mapping:
    return value if isinstance(value, Mapping) else {}


def load_json(path: str | os.PathLike) -> dict:
    """Read one of the JSON documents, with a clear error when it is missing or malformed."""
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


# --------------------------------------------------------------------------------------------
# summary
# --------------------------------------------------------------------------------------------
def guarantee_sentence(cert: Mapping[str, Any]) -> str:
    """The guarantee in one sentence a non-specialist can read."""
    eps, delta = _num(cert.get("epsilon")), _num(cert.get("delta"))
    alpha, eps_rdp = _num(cert.get("alpha")), _num(cert.get("epsilon_rdp"))
    change = NEIGHBORING_TEXT.get(str(cert.get("neighboring")), "changing any one person's record")
    if eps is not None and delta is not None:
        odds = math.exp(eps) if eps < 700 else math.inf
        s = (
            f"({F.fmt(eps)}, {F.fmt(delta)})-differential privacy: {change} changes the "
            f"probability of any outcome of this release by a factor of at most "
            f"exp({F.fmt(eps)}) ≈ {F.fmt(odds)}, except with probability {F.fmt(delta)}."
        )
    elif alpha is not None and eps_rdp is not None:
        s = (
            f"({F.fmt(alpha)}, {F.fmt(eps_rdp)})-Rényi differential privacy with respect to "
            f"{change}."
        )
    else:
        return "No formal privacy guarantee is stated for this release."
    if alpha is not None and eps_rdp is not None and eps is not None:
        s += f" It follows from ({F.fmt(alpha)}, {F.fmt(eps_rdp)})-Rényi differential privacy."
    return s


def strength_note(eps: float | None) -> str | None:
    """A rule-of-thumb reading of ε, so the number is not read without a scale."""
    if eps is None:
        return None
    if eps <= 1:
        return "ε ≤ 1 is usually considered strong protection."
    if eps <= 10:
        return (
            "ε between 1 and 10 is common in deployed systems; it limits, but does not "
            "prevent, inference about individuals."
        )
    return (
        "ε above 10 is weak: the formal guarantee alone protects individuals little; "
        "read the audit below."
    )


def assumptions(cert: Mapping[str, Any]) -> list[dict[str, str]]:
    """The assumptions the guarantee rests on, each with where it came from."""
    out = []
    sigma = _num(cert.get("sigma"))
    if sigma is not None:
        declared = cert.get("sigma_source") == "declared"
        out.append(
            {
                "what": f"Every eigenvalue of the input's covariance (after encoding to [−1, 1]) "
                f"is at least σ = {F.fmt(sigma, 4)}.",
                "source": "declared" if declared else "taken from the data",
                "ok": "yes" if declared else "no",
                "meaning": (
                    "Declared by the data holder as public knowledge."
                    if declared
                    else "Measured on this very table: the guarantee then also depends on the "
                    "data; declare a public σ to make it data-independent."
                ),
            }
        )
    bsrc = cert.get("bounds_source")
    if bsrc is not None:
        public = bsrc == "public"
        out.append(
            {
                "what": "Each numeric column lies within known bounds and each categorical "
                "column within known categories.",
                "source": "public (schema)" if public else "taken from the data",
                "ok": "yes" if public else "no",
                "meaning": (
                    "The bounds come from a public codebook and reveal nothing about the data."
                    if public
                    else "The bounds (minimum, maximum, categories present) were read from the "
                    "data and are not protected by the guarantee."
                ),
            }
        )
    neighboring = cert.get("neighboring")
    if neighboring:
        out.append(
            {
                "what": "Privacy is measured against "
                f"{NEIGHBORING_TEXT.get(str(neighboring), neighboring)} "
                f"('{neighboring}' neighbouring).",
                "source": "chosen at release",
                "ok": "yes",
                "meaning": "Each person contributes exactly one row of the input.",
            }
        )
    return out


def summary_facts(cert: Mapping[str, Any], audit: Mapping) -> list[tuple]:
    """Key facts for the summary list: (label, value)."""
    facts = []
    synth = str(cert.get("synthesizer") or audit.get("synthesizer") or "unknown")
    facts.append(
        ("Synthesizer", f"{synth}: {SYNTHESIZER_TEXT.get(synth, 'see its documentation')}")
    )
    if _num(cert.get("n_out")) is not None:
        facts.append(("Rows released", F.fmt(int(_num(cert["n_out"])))))
    d = _num(cert.get("d"))
    dims = f" ({int(d)} encoded dimensions)" if d is not None else ""
    if _num(cert.get("min_rows")) is not None:
        facts.append(("Declared minimum table size", F.fmt(int(_num(cert["min_rows"]))) + dims))
    elif _num(cert.get("n")) is not None:
        facts.append(("Table size (public)", F.fmt(int(_num(cert["n"]))) + dims))
    if cert.get("guarantee") and cert.get("guarantee") != "differential privacy":
        facts.append(("Guarantee", str(cert["guarantee"])))
    return facts


def audited_upper_bound(
    cert: Mapping[str, Any], audit: Mapping[str, Any]
) -> tuple[float | None, float | None, str]:
    """(ε, δ, source) the audit's lower bounds must stay below.

    The audit plays the game against its own run of the synthesizer (its own n_out and δ), so
    the matching upper bound is the guarantee the audit records under ``privacy``; only without
    it does the release certificate's (ε, δ) stand in.
    """
    priv = _mapping(audit.get("privacy"))
    if _num(priv.get("epsilon")) is not None:
        return _num(priv["epsilon"]), _num(priv.get("delta")), "the audited synthesizer's guarantee"
    return _num(cert.get("epsilon")), _num(cert.get("delta")), "the release certificate"


def audit_verdict(cert: Mapping[str, Any], audit: Mapping[str, Any]) -> dict[str, str] | None:
    """Does the audit contradict the certificate? ('ok' / 'alarm' with a sentence)."""
    attacks = _mapping(audit.get("attacks"))
    if not attacks:
        return None
    lbs = {k: _num(_mapping(v).get("epsilon_lower_bound")) for k, v in attacks.items()}
    lbs = {k: v for k, v in lbs.items() if v is not None and math.isfinite(v)}
    aucs = [_num(_mapping(v).get("auc")) for v in attacks.values()]
    aucs = [a for a in aucs if a is not None]
    best_auc = max(aucs) if aucs else None
    eps, _delta, source = audited_upper_bound(cert, audit)
    if lbs and eps is not None and max(lbs.values()) > eps:
        name = max(lbs, key=lbs.get)
        return {
            "level": "alarm",
            "text": f"The audit contradicts the certificate: the {name} attack shows ε ≥ "
            f"{F.fmt(lbs[name])}, above ε = {F.fmt(eps)} guaranteed by {source}. Do not "
            "release until this is explained.",
        }
    parts = []
    if best_auc is not None:
        parts.append(
            f"the strongest of {len(attacks)} attacks reached AUC {best_auc:.3f} (0.5 is guessing)"
        )
    if lbs:
        name = max(lbs, key=lbs.get)
        parts.append(f"the largest measured lower bound is ε ≥ {F.fmt(lbs[name])} ({name})")
    text = "The audit is consistent with the certificate: " + "; ".join(parts) + "."
    return {"level": "ok", "text": text}


# --------------------------------------------------------------------------------------------
# certificate
# --------------------------------------------------------------------------------------------
def certificate_rows(cert: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The certificate's own figures as (label, value) rows."""
    rows = []
    labels = [
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
    ]
    for key, label in labels:
        v = cert.get(key)
        if v is None:
            continue
        if isinstance(v, (int,)) and not isinstance(v, bool):
            rows.append((label, F.fmt(v)))
        elif _num(v) is not None and not isinstance(v, str):
            rows.append((label, F.fmt(float(v), 6)))
        else:
            rows.append((label, str(v)))
    budget = cert.get("budget")
    if isinstance(budget, Mapping) and budget:
        rows.append(("Budget", ", ".join(f"{k} = {F.fmt(_num(v), 6)}" for k, v in budget.items())))
    return rows


def certificate_section(cert: Mapping[str, Any]) -> dict[str, Any]:
    """Tables, figures and notes of the certificate section."""
    out: dict[str, Any] = {"rows": certificate_rows(cert), "figures": [], "conversions": []}
    out["warnings"] = [str(w) for w in cert.get("warnings") or []]
    if not cert:
        out["note"] = "No certificate was supplied."
        return out
    if not can_recompute(cert):
        out["note"] = (
            "This certificate does not carry (n, d, σ, α, n_out) of the inherent-privacy "
            "theorem, so no curves are drawn; the guarantee is the one stated above."
        )
        return out
    try:
        curves: CertificateCurves = certificate_curves(cert)
    except Exception as exc:  # never let a plotting problem hide the certificate itself
        out["note"] = f"The curves could not be recomputed: {exc}"
        return out
    out["curves"] = curves
    out["mismatch"] = curves.mismatch
    out["conversions"] = [r.to_dict() for r in curves.conversions]
    out["max_records"] = curves.max_records
    out["budget_kind"] = curves.budget_kind
    out["budget_epsilon"] = curves.budget_epsilon
    out["alpha_max"] = curves.alpha_max
    out["figures"] = [F.alpha_epsilon_figure(curves), F.epsilon_n_out_figure(curves)]
    return out


# --------------------------------------------------------------------------------------------
# utility
# --------------------------------------------------------------------------------------------
def marginal_specs(evaluation: Mapping[str, Any], schema: Schema | None = None) -> dict[str, dict]:
    """Per column {kind, real, synthetic, bins (edges) | categories} from the evaluation JSON.

    Reads the explicit ``marginals`` key when present, else the ``real``/``synthetic`` vectors
    that ``synthcert evaluate`` stores under ``columns``; bin edges and category names come from
    the entry itself (``edges``/``bins``, ``categories``) or, failing that, from ``schema``.
    """
    explicit = _mapping(evaluation.get("marginals"))
    columns = _mapping(evaluation.get("columns"))
    n_bins = _num(evaluation.get("bins"))
    out: dict[str, dict] = {}
    for name in list(dict.fromkeys([*columns.keys(), *explicit.keys()])):
        col = _mapping(columns.get(name))
        spec = dict(_mapping(explicit.get(name)))
        for key in ("real", "synthetic", "categories", "edges", "kind"):
            if key not in spec and key in col:
                spec[key] = col[key]
        if "bins" not in spec and isinstance(col.get("bins"), list):
            spec["bins"] = col["bins"]
        if "edges" in spec and "bins" not in spec:
            spec["bins"] = spec["edges"]
        if spec.get("real") is None or spec.get("synthetic") is None:
            continue
        schema_col = None
        if schema is not None and name in schema.names:
            schema_col = schema.column(name)
        kind = spec.get("kind") or (
            "categorical" if "categories" in spec or isinstance(schema_col, CategoricalColumn)
            else "numeric"
        )  # fmt: skip
        spec["kind"] = kind
        k = len(spec["real"])
        if kind == "categorical" and "categories" not in spec:
            if isinstance(schema_col, CategoricalColumn) and len(schema_col.categories) == k:
                spec["categories"] = list(schema_col.categories)
            else:
                spec["categories"] = [f"category {i + 1}" for i in range(k)]
        if kind != "categorical" and not isinstance(spec.get("bins"), list):
            if isinstance(schema_col, NumericColumn):
                spec["bins"] = bin_edges(schema_col, k).tolist()
            elif n_bins is not None and int(n_bins) == k:
                spec["bins"] = list(range(k + 1))
                spec["bin_index"] = True
        out[str(name)] = spec
    return out


def correlation_diff(evaluation: Mapping[str, Any], key: str = "correlation") -> dict | None:
    """Signed synthetic − real matrix: the explicit ``correlation_diff`` or from the matrices."""
    if key == "correlation":
        explicit = _mapping(evaluation.get("correlation_diff"))
        if explicit.get("columns") and explicit.get("matrix") is not None:
            return {"columns": list(explicit["columns"]), "matrix": explicit["matrix"]}
    m = _mapping(evaluation.get(key))
    cols = m.get("columns")
    if not cols:
        return None
    try:
        real = np.asarray(m.get("real"), dtype=float)
        syn = np.asarray(m.get("synthetic"), dtype=float)
        if real.shape == syn.shape == (len(cols), len(cols)):
            return {"columns": list(cols), "matrix": (syn - real).tolist()}
        absd = np.asarray(m.get("abs_diff"), dtype=float)
        if absd.shape == (len(cols), len(cols)):
            return {"columns": list(cols), "matrix": absd.tolist(), "absolute": True}
    except (TypeError, ValueError):
        return None
    return None


METRIC_COLUMNS = (
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


def summary_label(key: str) -> str:
    """'l2_numeric_mean' -> 'Mean L2, numeric columns' (known keys have hand-written labels)."""
    if key in SUMMARY_LABELS:
        return SUMMARY_LABELS[key]
    parts = key.split("_")
    if len(parts) == 3 and parts[2] == "mean" and parts[1] in ("numeric", "categorical"):
        metric = {"l1": "L1", "l2": "L2", "hellinger": "Hellinger"}.get(parts[0], parts[0].title())
        return f"Mean {metric}, {parts[1]} columns"
    return key.replace("_", " ")


def efficacy_table(eff: Any) -> dict | None:
    """Headers and rows of the efficacy table, whatever reasonable shape it arrives in."""
    if not eff:
        return None
    records: list[dict] = []
    if isinstance(eff, Mapping):
        if all(isinstance(v, Mapping) for v in eff.values()):
            for k, v in eff.items():
                rec = {"target": k} if "target" not in v else {}
                rec.update(v)
                records.append(rec)
        else:
            records.append(dict(eff))
    elif isinstance(eff, Sequence):
        records = [dict(r) for r in eff if isinstance(r, Mapping)]
    if not records:
        return None
    headers = list(dict.fromkeys(k for r in records for k in r))
    headers = [h for h in headers if any(r.get(h) not in (None, "", [], {}) for r in records)]
    rows = [[_cell(r.get(h)) for h in headers] for r in records]
    return {"headers": headers, "rows": rows}


def _cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return F.fmt(v)
    if isinstance(v, float):
        return F.fmt(v, 4)
    if isinstance(v, (list, tuple)):
        return ", ".join(_cell(x) for x in v)
    return str(v)


def utility_section(evaluation: Mapping[str, Any], schema: Schema | None = None) -> dict[str, Any]:
    """Tables and figures of the utility section."""
    out: dict[str, Any] = {"present": bool(evaluation)}
    if not evaluation:
        return out
    columns = _mapping(evaluation.get("columns"))
    out["column_headers"] = ["Column", "Kind", *[lab for _, lab in METRIC_COLUMNS]]
    out["column_rows"] = [
        [str(name), str(_mapping(c).get("kind", "–")),
         *[_cell(_num(_mapping(c).get(k))) for k, _ in METRIC_COLUMNS]]
        for name, c in columns.items()
    ]  # fmt: skip
    summary = _mapping(evaluation.get("summary"))
    out["summary_rows"] = [
        (summary_label(k), _cell(_num(v))) for k, v in summary.items() if _num(v) is not None
    ]
    specs = marginal_specs(evaluation, schema)
    out["marginals"] = [
        fig
        for i, (name, spec) in enumerate(specs.items())
        if (fig := F.marginal_figure(name, spec, _mapping(columns.get(name)), i)) is not None
    ]
    heat = []
    corr = correlation_diff(evaluation, "correlation")
    if corr and len(corr["columns"]) >= 2:
        f = F.correlation_figure(corr["columns"], corr["matrix"])
        if f is not None:
            heat.append(f)
    assoc = correlation_diff(evaluation, "association")
    if assoc and len(assoc["columns"]) > len(corr["columns"] if corr else []):
        f = F.correlation_figure(
            assoc["columns"],
            assoc["matrix"],
            measure="association",
            fig_id="fig-assoc",
            caption="Association difference (synthetic minus real) over all columns: Pearson r "
            "between numeric columns, Cramér's V between categorical ones, the correlation "
            "ratio between a categorical and a numeric one.",
        )
        if f is not None:
            heat.append(f)
    out["heatmaps"] = heat
    out["efficacy"] = efficacy_table(evaluation.get("efficacy"))
    out["n_real"] = evaluation.get("n_real")
    out["n_synthetic"] = evaluation.get("n_synthetic")
    return out


# --------------------------------------------------------------------------------------------
# audit
# --------------------------------------------------------------------------------------------
def at_risk_rows(audit: Mapping[str, Any], limit: int = AT_RISK_SHOWN) -> list[tuple[int, str]]:
    """(row index, score) of the records most at risk, highest first: indices only, never values.

    Accepts ``at_risk`` (or ``ranking``) as a list of {row|index, score} objects, of
    [index, score] pairs or of bare indices. Anything else in those entries is dropped.
    """
    raw = audit.get("at_risk", audit.get("ranking"))
    rows: list[tuple[int, float | None]] = []
    if isinstance(raw, Mapping):
        raw = raw.get("rows") or raw.get("top") or []
    for item in raw or []:
        idx, score = None, None
        if isinstance(item, Mapping):
            idx = item.get("row", item.get("index"))
            score = _num(item.get("score"))
        elif isinstance(item, (list, tuple)) and item:
            idx = item[0]
            score = _num(item[1]) if len(item) > 1 else None
        else:
            idx = item
        if isinstance(idx, bool) or _num(idx) is None or float(idx) != int(float(idx)):
            continue
        rows.append((int(float(idx)), score))
    if rows and all(s is not None for _, s in rows):
        rows.sort(key=lambda r: -r[1])
    return [(str(i), "–" if s is None else F.fmt(s, 4)) for i, s in rows[:limit]]


def _finite(values: Any) -> list[float]:
    """The finite numbers of a JSON list (NaN entries of unplayed games dropped)."""
    if not isinstance(values, Sequence) or isinstance(values, str):
        return []
    arr = np.array([_num(v) for v in values], dtype=float)  # None -> NaN
    return arr[np.isfinite(arr)].tolist()


def audit_delta(audit: Mapping[str, Any]) -> float | None:
    """δ of the audit's ε lower bounds: top-level ``delta`` or each attack's ``epsilon_bound``."""
    if _num(audit.get("delta")) is not None:
        return _num(audit["delta"])
    for a in _mapping(audit.get("attacks")).values():
        d = _num(_mapping(_mapping(a).get("epsilon_bound")).get("delta"))
        if d is not None:
            return d
    return None


AUDIT_FACTS = (
    ("synthesizer", "Synthesizer attacked"),
    ("trials", "Trials"),
    ("generations", "Synthetic tables generated"),
    ("target_row", "Target row index"),
    ("target_method", "Target chosen by"),
    ("delta", "δ of the lower bounds"),
    ("rows", "Input rows in the game"),
    ("ranking_method", "At-risk ranking by"),
)


def audit_section(audit: Mapping[str, Any], cert: Mapping[str, Any]) -> dict[str, Any]:
    """Tables and figures of the audit section."""
    out: dict[str, Any] = {"present": bool(audit)}
    if not audit:
        return out
    attacks = _mapping(audit.get("attacks"))
    rows = []
    for name, a in attacks.items():
        a = _mapping(a)
        ci = a.get("auc_ci")
        ci_txt = (
            f"{_num(ci[0]):.3f} – {_num(ci[1]):.3f}"
            if isinstance(ci, Sequence) and len(ci) == 2 and None not in (_num(ci[0]), _num(ci[1]))
            else "–"
        )
        rows.append(
            [str(name), _cell(_num(a.get("auc"))), ci_txt,
             _cell(_num(a.get("tpr_at_1pct_fpr"))), _cell(_num(a.get("epsilon_lower_bound")))]
        )  # fmt: skip
    out["attack_rows"] = rows
    facts = []
    for key, label in AUDIT_FACTS:
        v = audit.get(key)
        if key == "target_row" and (isinstance(v, bool) or _num(v) is None):
            continue  # an index only, never a record's values
        if key == "target_row":
            facts.append((label, str(int(float(v)))))
        elif v is not None and not isinstance(v, (Mapping, list)):
            facts.append((label, _cell(v)))
    tm = _num(audit.get("target_mahalanobis"))
    if tm is not None:
        facts.append(("Target's Mahalanobis distance", F.fmt(tm, 4)))
    target = _mapping(audit.get("target"))
    if target.get("method") and "target_method" not in audit:
        facts.append(("Target chosen by", str(target["method"])))
    bound_delta = audit_delta(audit)
    if bound_delta is not None and "delta" not in audit:
        facts.append(("δ of the lower bounds", F.fmt(bound_delta)))
    out["facts"] = facts
    out["notes"] = [str(n) for n in audit.get("notes") or []]
    raw_scores = _mapping(audit.get("scores")) or _mapping(audit.get("ims"))
    scores = {
        str(k): {"pos": _finite(_mapping(v).get("pos")), "neg": _finite(_mapping(v).get("neg"))}
        for k, v in raw_scores.items()
    }
    scores = {k: v for k, v in scores.items() if v["pos"] and v["neg"]}
    out["histograms"] = [
        F.score_histogram_figure(name, s["pos"], s["neg"], i)
        for i, (name, s) in enumerate(scores.items())
    ]
    roc = F.roc_figure(scores) if scores else None
    lbs = {str(k): _num(_mapping(v).get("epsilon_lower_bound")) for k, v in attacks.items()}
    lbs = {k: v for k, v in lbs.items() if v is not None}
    upper, upper_delta, _source = audited_upper_bound(cert, audit)
    sandwich = F.sandwich_figure(lbs, upper, bound_delta or upper_delta) if lbs else None
    out["figures"] = [f for f in (roc, sandwich) if f is not None]
    out["at_risk"] = at_risk_rows(audit)
    a_syn, c_syn = audit.get("synthesizer"), cert.get("synthesizer")
    out["mismatch"] = (
        f"The audit attacked the {a_syn} synthesizer but the certificate is for {c_syn}; the "
        "sandwich compares two different mechanisms."
        if a_syn and c_syn and a_syn != c_syn
        else None
    )
    return out


# --------------------------------------------------------------------------------------------
# page
# --------------------------------------------------------------------------------------------
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("synthcert.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = F.fmt
    return env


INTERNAL_BANNER = "internal: contains statistics of the real data; do not publish"


def build_context(
    certificate: Mapping[str, Any] | None,
    evaluation: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    *,
    schema: Schema | None = None,
    internal: bool = False,
    record: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the template needs, as plain values and Figure records."""
    cert = certificate_view(certificate)
    ev = dict(evaluation or {})
    au = dict(audit or {})
    prov = (
        dict(provenance)
        if provenance is not None
        else collect_provenance(certificate=cert, record=record if internal else None)
    )
    eps = _num(cert.get("epsilon"))
    n_out = _num(cert.get("n_out"))
    headline = f"{F.fmt(int(n_out))} synthetic rows" if n_out is not None else "Synthetic data"
    cert_sec = certificate_section(cert)
    return {
        "title": f"Release report: {headline}",
        "headline": headline,
        "sections": SECTIONS,
        "guarantee": guarantee_sentence(cert) if cert else "No certificate was supplied.",
        "strength": strength_note(eps),
        "facts": summary_facts(cert, au),
        "assumptions": assumptions(cert),
        "warnings": [str(w) for w in cert.get("warnings") or []],
        "verdict": audit_verdict(cert, au),
        "max_records": cert_sec.get("max_records"),
        "certificate": cert_sec,
        "utility": utility_section(ev, schema),
        "audit": audit_section(au, cert),
        "provenance": provenance_rows(prov),
        "generated": prov.get("report_generated") or prov.get("date"),
        "internal": INTERNAL_BANNER if internal else None,
    }


def certificate_view(certificate: Mapping[str, Any] | None) -> dict[str, Any]:
    """The certificate as the sections read it: the size the theorem is evaluated at as ``n``.

    A release under unbounded neighbours publishes its declared minimum table size
    ``min_rows`` (the certificate is evaluated there), never n; the curves are recomputed at it.
    """
    cert = dict(certificate or {})
    if cert.get("n") is None and cert.get("min_rows") is not None:
        cert["n"] = cert["min_rows"]
    return cert


PROVENANCE_LABELS = (
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


def provenance_rows(prov: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows of the provenance table, known keys first, in a fixed order."""
    known = dict(PROVENANCE_LABELS)
    rows = [(label, _cell(prov.get(key))) for key, label in PROVENANCE_LABELS if key in prov]
    rows += [(str(k), _cell(v)) for k, v in prov.items() if k not in known]
    return rows


def render_report(
    certificate: Mapping[str, Any] | None,
    evaluation: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    *,
    schema: Schema | None = None,
    internal: bool = False,
    record: Mapping[str, Any] | None = None,
) -> str:
    """The report as one self-contained HTML string.

    A public report (the default) holds the certificate only: an evaluation or an audit
    carries statistics of the real table (its marginals, the records most at risk) and is
    refused there; ``internal=True`` accepts them, adds the private run record to the
    provenance, and marks the page "internal: ... do not publish".
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
        record=record,
    )  # fmt: skip
    return _environment().get_template("report.html").render(**ctx)


def write_report(
    out_path: str | os.PathLike,
    *,
    certificate: Mapping[str, Any] | None,
    evaluation: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    schema: Schema | None = None,
    protect: Sequence[str | os.PathLike] = (),
    internal: bool = False,
    record: Mapping[str, Any] | None = None,
) -> Path:
    """Render the report and write it atomically to ``out_path`` (the call other commands use)."""
    html = render_report(
        certificate, evaluation, audit, provenance, schema=schema, internal=internal,
        record=record,
    )  # fmt: skip
    return write_text(html, out_path, protect=protect, private=internal)  # internal: 0600
