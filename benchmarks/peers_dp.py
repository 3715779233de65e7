"""synthcert's default DP path against the DP peers dpmm and OpenDP, on Adult and California.

Every tool fits on the same seeded 80 % train split at epsilon = 1, delta = 1e-6 (the same
total budget: a peer's DP binning is paid from it), with the same public domain (the bounds
and category lists of examples/<dataset>_schema.json), samples as many rows as the train
split, and is scored by ONE metric function (:func:`score`) against the 20 % holdout:

* 2-way TV: the mean over column pairs of the total-variation distance between the pair's
  synthetic and holdout histograms; numeric columns on 20 quantile bins of the real train
  column, categories as they are. The reference row ("real train") is two real samples.
* mean |delta corr|: the mean over numeric column pairs of |Pearson(syn) - Pearson(holdout)|.
* ML efficacy: LightGBM trained on the synthetic rows, tested on the holdout: ROC AUC of
  Adult's ``income`` (>50K), RMSE of California's ``median_house_value``; the reference is
  the same model trained on the real train rows.
* seconds: fit + sample, wall time inside the tool's process (imports excluded), and the CPU
  seconds of that process, its threads and its worker processes over the same span.

Figures are medians over ``--repeats`` runs (different seeds, the same split). The table
prints each metric's ratio to dpmm's default AIM: TV, |delta corr| and RMSE ratios below 1
and AUC ratios above 1 are better; "speed" is dpmm AIM's wall seconds over the tool's. The
"target" column checks issue 27's bar for synthcert's default path: TV and |delta corr| at most
dpmm AIM's, ML efficacy within 2 %, at >= 10x its speed.

The peers run in their own virtual environments, created once (idempotently) under
``.bench-venvs/`` at the repository root, or under ``$SYNTHCERT_BENCH_VENVS`` when that
environment variable names a folder (one set of venvs shared by several checkouts):
``dpmm==0.1.9`` and ``opendp[mbi]==0.16.*`` with pandas. Each run is a subprocess
``<venv python> benchmarks/_peer_runner.py JOB.json`` that calls the tool's public API on a
CSV in a temporary folder and writes the synthetic CSV back; synthcert runs the same way in
this interpreter's environment, through its CLI (``synthcert synthesize --synthesizer NAME
--epsilon 1 --delta 1e-6``, its defaults). A peer that fails to install, crashes or times out
is a row saying so, not an error of this script.

    SYNTHCERT_DATA_HOME=/path/to/data python benchmarks/peers_dp.py [--quick] [--repeats 3]
        [--datasets adult,california] [--tools ...] [--jobs N] [--timeout S] [--write]

``--quick``: a 6,000-row subsample of the train split (the holdout stays whole), one run unless
``--repeats`` says otherwise.
``--jobs N``: N tool runs at once (wall times then share the cores: compare CPU seconds too).
``--timeout S``: a run still going after S wall seconds is stopped and reported as such.
``--write``: append the tables, the date and the machine's load to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).resolve().with_name("_peer_runner.py")
RESULTS = Path(__file__).resolve().with_name("RESULTS.md")
VENVS = Path(os.environ.get("SYNTHCERT_BENCH_VENVS") or ROOT / ".bench-venvs")
EPSILON, DELTA = 1.0, 1e-6
QUANTILE_BINS = 20
QUICK_ROWS = 6_000

# name -> (pip requirement lists, installed in order). torch is not pulled by either peer
# (dpmm 0.1.9 needs numpy, pandas, scipy, scikit-learn, networkx, opendp 0.12.1; OpenDP's mbi
# extra needs jax); if it ever is, pin torch==2.13.0 from the CPU index before the peer.
PEER_ENVS: dict[str, list[list[str]]] = {
    "dpmm": [["dpmm==0.1.9"]],
    "opendp": [["opendp[mbi]==0.16.*", "pandas"]],
}
TOOLS: dict[str, tuple[str | None, str]] = {  # tool -> (peer venv or None for synthcert, label)
    "dpmm-aim": ("dpmm", "dpmm 0.1.9 AIM, defaults (PrivTree bins, 10 % of eps)"),
    "dpmm-mst": ("dpmm", "dpmm 0.1.9 MST, defaults"),
    "dpmm-privbayes": ("dpmm", "dpmm 0.1.9 PrivBayes, defaults"),
    "opendp-aim": ("opendp", "OpenDP 0.16 mbi AIM (i.i.d. sampling)"),
    "opendp-mst": ("opendp", "OpenDP 0.16 mbi MST (i.i.d. sampling)"),
    "synthcert-aim": (None, "synthcert AIM, default path (`synthesize --synthesizer aim`)"),
    "synthcert-mwem-pgm": (None, "synthcert MWEM-PGM, defaults"),
    "synthcert-privbayes": (None, "synthcert PrivBayes, defaults"),
}
BASELINE = "dpmm-aim"


@dataclass(frozen=True)
class Dataset:
    """A benchmark table: its public schema file and its ML task."""

    name: str
    schema_file: Path
    target: str
    task: str  # "auc" (binary classification) or "rmse" (regression)
    positive: str | None = None  # the positive class of an "auc" task

    def load(self) -> pd.DataFrame:
        from synthcert.data.datasets import load_adult, load_california_housing

        home = data_home()
        return load_adult(home) if self.name == "adult" else load_california_housing(home)


DATASETS = {
    "adult": Dataset("adult", ROOT / "examples" / "adult_schema.json", "income", "auc", ">50K"),
    "california": Dataset(
        "california", ROOT / "examples" / "california_schema.json", "median_house_value", "rmse"
    ),
}


def data_home() -> Path:
    """``$SYNTHCERT_DATA_HOME``, else ../shared/data next to the repository."""
    env = os.environ.get("SYNTHCERT_DATA_HOME")
    return Path(env) if env else ROOT.parent / "shared" / "data"


# -- environments ------------------------------------------------------------------------------
def venv_python(name: str) -> Path:
    return VENVS / name / "bin" / "python"


def ensure_venv(name: str, log=print) -> str | None:
    """Create the peer's venv once; None when ready, else why it is not (never raises).

    A marker file holding the requirement lists makes this idempotent: the venv is rebuilt
    only when the requirements change or an earlier install did not finish.
    """
    spec = json.dumps(PEER_ENVS[name])
    folder, marker = VENVS / name, VENVS / f"{name}.ok"
    if marker.is_file() and marker.read_text() == spec and venv_python(name).is_file():
        return None
    log(f"creating {folder} ({', '.join(r for reqs in PEER_ENVS[name] for r in reqs)}) ...")
    marker.unlink(missing_ok=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True,
                       capture_output=True, text=True)  # fmt: skip
        pip = [str(venv_python(name)), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        for reqs in PEER_ENVS[name]:
            subprocess.run(pip + reqs, check=True, capture_output=True, text=True, timeout=3600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        tail = getattr(exc, "stderr", None) or str(exc)
        return f"install failed: {str(tail).strip().splitlines()[-1][:200] if tail else exc}"
    marker.write_text(spec)
    return None


# -- data ----------------------------------------------------------------------------------
def split(df: pd.DataFrame, seed: int, quick: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded 80/20 train/holdout split; ``quick`` keeps a 6,000-row subsample of train."""
    order = np.random.default_rng(seed).permutation(len(df))
    cut = round(0.8 * len(df))
    train = df.iloc[order[:cut]].reset_index(drop=True)
    holdout = df.iloc[order[cut:]].reset_index(drop=True)
    if quick and len(train) > QUICK_ROWS:
        train = train.iloc[:QUICK_ROWS].reset_index(drop=True)
    return train, holdout


def public_domain(schema_file: Path) -> dict[str, dict]:
    """{column: {"lower", "upper", "integer"} or {"categories"}} from the public schema."""
    spec = json.loads(schema_file.read_text())
    domain: dict[str, dict] = {}
    for col in spec["columns"]:
        if col["kind"] == "categorical":
            domain[col["name"]] = {"categories": [str(c) for c in col["categories"]]}
        else:
            domain[col["name"]] = {
                "lower": col["lower"], "upper": col["upper"],
                "integer": bool(col.get("integer", False)),
            }  # fmt: skip
    return domain


# -- the one metric function ---------------------------------------------------------------
def codes(col: pd.Series, train_col: pd.Series, numeric: bool) -> np.ndarray:
    """Column -> bin indices: numeric on the real train column's quantile bins, categories by
    their sorted train values (an unseen value is one more code)."""
    if numeric:
        qs = np.quantile(train_col.astype(float), np.linspace(0, 1, QUANTILE_BINS + 1)[1:-1])
        return np.searchsorted(np.unique(qs), col.astype(float).to_numpy(), side="right")
    levels = {v: i for i, v in enumerate(sorted(train_col.astype(str).unique()))}
    return col.astype(str).map(levels).fillna(len(levels)).to_numpy().astype(int)


def two_way_tv(a: pd.DataFrame, b: pd.DataFrame, train: pd.DataFrame, numeric: list[str]) -> float:
    """Mean over column pairs of TV(a's pair histogram, b's), on :func:`codes` bins."""
    ca = {c: codes(a[c], train[c], c in numeric) for c in a.columns}
    cb = {c: codes(b[c], train[c], c in numeric) for c in a.columns}
    tvs = []
    for x, y in itertools.combinations(a.columns, 2):
        k = int(max(ca[y].max(), cb[y].max())) + 1
        pa = pd.Series(ca[x] * k + ca[y]).value_counts(normalize=True)
        pb = pd.Series(cb[x] * k + cb[y]).value_counts(normalize=True)
        tvs.append(0.5 * pa.sub(pb, fill_value=0.0).abs().sum())
    return float(np.mean(tvs))


def corr_gap(a: pd.DataFrame, b: pd.DataFrame, numeric: list[str]) -> float:
    """Mean over numeric column pairs of |Pearson r in a - Pearson r in b| (constant -> r 0)."""
    ra = np.nan_to_num(a[numeric].astype(float).corr().to_numpy())
    rb = np.nan_to_num(b[numeric].astype(float).corr().to_numpy())
    upper = np.triu_indices(len(numeric), 1)
    return float(np.mean(np.abs(ra - rb)[upper]))


def ml_efficacy(fit_on: pd.DataFrame, holdout: pd.DataFrame, ds: Dataset, domain: dict) -> float:
    """LightGBM trained on ``fit_on``, scored on ``holdout``: AUC or RMSE of the target."""
    import lightgbm as lgb
    from sklearn.metrics import mean_squared_error, roc_auc_score

    def features(frame: pd.DataFrame) -> pd.DataFrame:
        x = frame.drop(columns=[ds.target]).copy()
        for col in x.columns:
            if "categories" in domain[col]:
                x[col] = pd.Categorical(x[col].astype(str), categories=domain[col]["categories"])
            else:
                x[col] = x[col].astype(float)
        return x

    params = dict(n_estimators=200, learning_rate=0.05, num_leaves=31, random_state=0,
                  n_jobs=2, verbose=-1)  # fmt: skip
    x_fit, x_test = features(fit_on), features(holdout)
    if ds.task == "auc":
        y_fit = (fit_on[ds.target].astype(str) == ds.positive).astype(int)
        y_test = (holdout[ds.target].astype(str) == ds.positive).astype(int)
        if y_fit.nunique() < 2:  # one class only: a constant score
            return 0.5
        model = lgb.LGBMClassifier(**params).fit(x_fit, y_fit)
        return float(roc_auc_score(y_test, model.predict_proba(x_test)[:, 1]))
    model = lgb.LGBMRegressor(**params).fit(x_fit, fit_on[ds.target].astype(float))
    return float(np.sqrt(mean_squared_error(holdout[ds.target], model.predict(x_test))))


def score(syn: pd.DataFrame, train: pd.DataFrame, holdout: pd.DataFrame, ds: Dataset,
          domain: dict) -> dict[str, float]:  # fmt: skip
    """The ONE metric function, applied to every tool's rows (and to the real train rows)."""
    numeric = [c for c, s in domain.items() if "categories" not in s]
    syn = syn[list(domain)]
    return {
        "tv": two_way_tv(syn, holdout, train, numeric),
        "corr": corr_gap(syn, holdout, numeric),
        "ml": ml_efficacy(syn, holdout, ds, domain),
    }


# -- runs ------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """The medians of one tool's runs, or why it has none."""

    tool: str
    runs: list[dict] = field(default_factory=list)
    error: str | None = None

    def median(self, key: str) -> float:
        return float(np.median([r[key] for r in self.runs])) if self.runs else float("nan")


def crash_message(stderr: str, code: int) -> str:
    """The exception a crashed run ended with (its type and message, on one line)."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if re.match(r"^[\w.]+(Error|Exception)\b", ln)]
    if starts:
        return " ".join(lines[starts[-1] :])[:240]
    if code < 0:
        return f"killed by signal {-code}"
    return lines[-1][:240] if lines else f"exit code {code}"


def run_tool(tool: str, train_csv: Path, domain: dict, ds: Dataset, rows: int, seed: int,
             folder: Path, timeout: float) -> tuple[pd.DataFrame, float, float]:  # fmt: skip
    """One fit + sample of ``tool`` in its environment; (synthetic rows, wall s, CPU s)."""
    venv = TOOLS[tool][0]
    python = sys.executable if venv is None else str(venv_python(venv))
    job = {
        "tool": tool, "train": str(train_csv), "schema": str(ds.schema_file),
        "out": str(folder / f"{tool}-{seed}.csv"), "result": str(folder / f"{tool}-{seed}.json"),
        "domain": domain, "epsilon": EPSILON, "delta": DELTA, "seed": seed, "rows": rows,
    }  # fmt: skip
    job_file = folder / f"{tool}-{seed}.job.json"
    job_file.write_text(json.dumps(job))
    env = dict(os.environ)
    if venv is None:
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run([python, str(RUNNER), str(job_file)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=folder)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(crash_message(proc.stderr, proc.returncode))
    timing = json.loads(Path(job["result"]).read_text())
    return pd.read_csv(job["out"]), float(timing["seconds"]), float(timing["cpu"])


def bench_dataset(ds: Dataset, tools: list[str], repeats: int, quick: bool, timeout: float,
                  env_errors: dict[str, str | None], jobs: int = 1,
                  log=print) -> tuple[dict, dict]:  # fmt: skip
    """Every tool's runs on one dataset, ``jobs`` at a time; (reference, {tool: Outcome})."""
    from concurrent.futures import ThreadPoolExecutor

    domain = public_domain(ds.schema_file)
    train, holdout = split(ds.load()[list(domain)], seed=2026, quick=quick)
    log(f"\n{ds.name}: {len(train):,} train rows, {len(holdout):,} holdout rows", flush=True)
    reference = score(train, train, holdout, ds, domain)
    outcomes = {t: Outcome(t) for t in tools}
    # one 64-bit seed per repeat, the same for every tool (synthcert warns of guessable seeds);
    # SeedSequence's child i does not depend on how many are spawned
    children = np.random.SeedSequence(27).spawn(repeats)
    seeds = [int(child.generate_state(1, np.uint64)[0]) for child in children]
    for tool in tools:
        venv = TOOLS[tool][0]
        if venv is not None and env_errors.get(venv):
            outcomes[tool].error = env_errors[venv]
    with tempfile.TemporaryDirectory(prefix=f"peers-{ds.name}-") as tmp:
        folder = Path(tmp)
        train_csv = folder / "train.csv"
        train.to_csv(train_csv, index=False)

        def one(tool: str, rep: int) -> None:
            try:
                syn, seconds, cpu = run_tool(tool, train_csv, domain, ds, len(train), seeds[rep],
                                             folder, timeout)  # fmt: skip
                figures = score(syn, train, holdout, ds, domain)
            except subprocess.TimeoutExpired:
                error = f"timed out after {timeout:.0f} s"
            except Exception as exc:  # a crashing peer is a row of the table, not our crash
                error = f"failed: {type(exc).__name__}: {exc}"[:260]
            else:
                outcomes[tool].runs.append({**figures, "seconds": seconds, "cpu": cpu})
                log(f"  {ds.name} {tool} run {rep + 1}: TV {figures['tv']:.4f}  |dcorr| "
                    f"{figures['corr']:.4f}  {ds.task} {figures['ml']:.4f}  {seconds:.1f} s "
                    f"({cpu:.1f} s CPU)", flush=True)  # fmt: skip
                return
            outcomes[tool].error = outcomes[tool].error or error
            log(f"  {ds.name} {tool} run {rep + 1}: {error}", flush=True)

        tasks = [(t, r) for r in range(repeats) for t in tools if not outcomes[t].error]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for future in [pool.submit(one, t, r) for t, r in tasks]:
                future.result()
    for o in outcomes.values():
        if o.error and o.runs:
            o.error += f" (in {repeats - len(o.runs)} of {repeats} runs)"
    return reference, outcomes


# -- report ------------------------------------------------------------------------------------
def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if np.isfinite(a) and np.isfinite(b) and b > 0 else "—"


def target_met(o: Outcome, base: Outcome, task: str) -> str:
    """Issue 27's target for synthcert's default path: TV and |dcorr| at most dpmm AIM's, ML
    efficacy within 2 %, at >= 10x its speed."""
    if not o.runs or not base.runs:
        return "—"
    tv, corr, ml, sec = (o.median(k) for k in ("tv", "corr", "ml", "seconds"))
    btv, bcorr, bml, bsec = (base.median(k) for k in ("tv", "corr", "ml", "seconds"))
    ml_ok = ml >= 0.98 * bml if task == "auc" else ml <= 1.02 * bml
    misses = [name for name, ok in (("TV", tv <= btv), ("corr", corr <= bcorr), ("ML", ml_ok),
                                    ("speed", bsec >= 10 * sec)) if not ok]  # fmt: skip
    return "yes" if not misses else "no (" + ", ".join(misses) + ")"


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(ds: Dataset, reference: dict, outcomes: dict[str, Outcome]) -> str:
    """A Markdown table of one dataset's medians and ratios to dpmm's default AIM."""
    ml = "AUC" if ds.task == "auc" else "RMSE"
    head = [
        "tool / configuration",
        "2-way TV",
        "mean \\|Δcorr\\|",
        ml,
        "fit+sample s",
        "CPU s",
        "TV ÷ dpmm",
        "\\|Δcorr\\| ÷ dpmm",
        f"{ml} ÷ dpmm",
        "speed × dpmm",
        "target",
    ]
    blank = [""] * (len(head) - 5)
    lines = [row(head), row(["---"] * len(head))]
    ref = [f"{reference[k]:.4f}" for k in ("tv", "corr", "ml")]
    lines.append(row(["real train rows (reference)", *ref, "—", "—", *blank[1:]]))
    base = outcomes.get(BASELINE, Outcome(BASELINE))
    keys = ("tv", "corr", "ml", "seconds")
    for tool, o in outcomes.items():
        label = TOOLS[tool][1]
        if not o.runs:
            lines.append(row([label, o.error or "no run", "", "", "", *blank]))
            continue
        tv, corr, score_, sec = (o.median(k) for k in keys)
        btv, bcorr, bml, bsec = (base.median(k) for k in keys)
        note = f" ⚠ {o.error}" if o.error else ""
        target = target_met(o, base, ds.task) if tool == "synthcert-aim" else ""
        lines.append(row([
            label + note, f"{tv:.4f}", f"{corr:.4f}", f"{score_:.4f}", f"{sec:.1f}",
            f"{o.median('cpu'):.1f}", ratio(tv, btv), ratio(corr, bcorr), ratio(score_, bml),
            ratio(bsec, sec), target,
        ]))  # fmt: skip
    return "\n".join(lines)


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (f"{platform.machine()}, {os.cpu_count()} cores, load average "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="adult,california")
    parser.add_argument(
        "--tools", default=",".join(TOOLS), help="comma-separated; " + ", ".join(TOOLS)
    )
    parser.add_argument(
        "--repeats", type=int, default=None, help="runs per tool (medians); 3, or 1 with --quick"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a 6,000-row subsample of the train split"
    )
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    parser.add_argument("--jobs", type=int, default=1,
                        help="tool runs at once (wall times then share cores)")  # fmt: skip
    parser.add_argument("--write", action="store_true", help="append to benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s) {unknown}; known: {', '.join(TOOLS)}")
    names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if any(n not in DATASETS for n in names):
        parser.error(f"datasets are {', '.join(DATASETS)}")
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    started = dt.datetime.now(dt.UTC)
    load_before = machine()
    env_errors = {v: ensure_venv(v) for v in {TOOLS[t][0] for t in tools} if v is not None}
    for venv, err in env_errors.items():
        if err:
            print(f"peer environment {venv}: {err}", file=sys.stderr)
    sections = []
    for name in names:
        ds = DATASETS[name]
        t0 = time.perf_counter()
        reference, outcomes = bench_dataset(ds, tools, repeats, args.quick, args.timeout,
                                            env_errors, args.jobs)  # fmt: skip
        text = table(ds, reference, outcomes)
        print(f"\n{name} (epsilon {EPSILON:g}, delta {DELTA:g}; medians of {repeats} run(s); "
              f"{time.perf_counter() - t0:.0f} s)\n{text}")  # fmt: skip
        sections.append((name, text))
    if args.write:
        head = (f"\n## {started:%Y-%m-%d %H:%M} UTC — `benchmarks/peers_dp.py"
                f"{' --quick' if args.quick else ''} --repeats {repeats}`\n\n"
                f"Machine: {load_before} at the start; {machine()} at the end. "
                f"epsilon = {EPSILON:g}, delta = {DELTA:g}; medians of {repeats} run(s)"
                f"{f' on a {QUICK_ROWS:,}-row subsample of the train split' if args.quick else ''}"
                ".\n")  # fmt: skip
        body = "".join(f"\n### {name}\n\n{text}\n" for name, text in sections)
        if not RESULTS.exists():
            RESULTS.write_text("# Benchmark results\n\nAppended by `benchmarks/peers_dp.py "
                               "--write` (see its docstring for the metrics).\n")  # fmt: skip
        with RESULTS.open("a") as fh:
            fh.write(head + body)
        print(f"\nappended to {RESULTS}")


if __name__ == "__main__":
    main()
