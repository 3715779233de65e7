"""The privacy-utility study of thesis chapter 4 (section 4.4, Figs. 4.3, 4.4, 4.9, 4.10) on
public data: every available synthesizer x epsilon in {inf, 8, 4, 2, 1} (delta = 1e-5) x N runs
(Algorithm 9), fitted on training rows and evaluated against them, with LightGBM efficacy on
held-out real rows.

The thesis's medical (DPC) table is private; Adult (held-out rows: the official adult.test
split) and California Housing (a seeded 75/25 split) stand in for it.

The ``gaussian`` synthesizer (M_G) takes no epsilon: its guarantee is the inherent RDP of its
sampling, certified after the fact, not an input. It therefore appears at epsilon = inf only
(non-DP fit), and its certificate for the released size is recorded beside it. On Adult with
all 15 columns its encoded covariance is singular ('workclass=Never-worked' never occurs in
complete rows; education and education-num are collinear), so M_G refuses the fit and the
study lists it as not run, with that reason, instead of silently changing the public schema.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result, jsonable
from synthcert.data.datasets import (
    adult_schema,
    california_schema,
    load_adult,
    load_california_housing,
)
from synthcert.data.encode import numeric_values
from synthcert.data.io import write_table, write_text
from synthcert.data.schema import Schema
from synthcert.errors import DataError, SynthcertError
from synthcert.seeding import run_seeds
from synthcert.synthesizers.base import Synthesizer
from synthcert.synthesizers.registry import available_synthesizers, make_synthesizer
from synthcert.utility.efficacy import efficacy, rmse
from synthcert.utility.evaluate import evaluate
from synthcert.utility.repeat import DEFAULT_RUNS, aggregate

EPSILONS: tuple[float, ...] = (math.inf, 8.0, 4.0, 2.0, 1.0)
DELTA = 1e-5
QUICK_EPSILONS: tuple[float, ...] = (math.inf, 4.0, 1.0)
QUICK_ROWS = 2000
QUICK_RUNS = 2

# Efficacy targets: a numeric one (RMSE, as the thesis's length of stay) and, where the table
# has one, a categorical one (AUC).
TARGETS = {
    "adult": ("income", "hours-per-week"),
    "california": ("median_house_value",),
}
NO_EPSILON = {"gaussian"}  # certified by its sampling, not by an epsilon

# Smaller settings for --quick, passed only to synthesizers whose constructor takes them.
QUICK_PARAMS: dict[str, dict[str, Any]] = {
    "ctgan": {
        "epochs": 8,
        "batch_size": 500,
        "generator_dim": (128, 128),
        "discriminator_dim": (128, 128),
    },
    # AIM's T must exceed the number of columns (its one-way round spends k/T of the budget);
    # without DP, ``rounds`` counts selection rounds instead ("no_dp" overrides apply at inf).
    "aim": {
        "pgm_iters": 100,
        "round_iters": 25,
        "max_model_size": 2.0,
        "rounds": 32,
        "no_dp": {"rounds": 4},
    },
    "mwem-pgm": {"pgm_iters": 100, "max_model_size": 2.0, "rounds": 4},
}


@dataclass(frozen=True)
class StudyData:
    """Training rows for the synthesizers, held-out real rows, and the schema."""

    name: str
    schema: Schema
    train: pd.DataFrame
    holdout: pd.DataFrame
    targets: tuple[str, ...]


def load_study_data(
    dataset: str,
    *,
    data_home: str | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    seed: int = 0,
) -> StudyData:
    """Load and split a reference dataset; optionally subsample (seeded) to n_train / n_test."""
    rng = np.random.default_rng(seed)
    if dataset == "adult":
        schema = adult_schema()
        train = load_adult(data_home)
        holdout = load_adult(data_home, split="test")
    elif dataset == "california":
        schema = california_schema()
        full = load_california_housing(data_home)
        perm = rng.permutation(len(full))
        cut = round(0.75 * len(full))
        train = full.iloc[perm[:cut]].reset_index(drop=True)
        holdout = full.iloc[perm[cut:]].reset_index(drop=True)
    else:
        raise DataError(f"unknown dataset {dataset!r}; choose 'adult' or 'california'")

    def cap(df: pd.DataFrame, n: int | None) -> pd.DataFrame:
        if n is None or n >= len(df):
            return df
        return df.iloc[np.sort(rng.choice(len(df), n, replace=False))].reset_index(drop=True)

    return StudyData(dataset, schema, cap(train, n_train), cap(holdout, n_test), TARGETS[dataset])


def build_synthesizer(
    name: str,
    schema: Schema,
    epsilon: float,
    *,
    delta: float = DELTA,
    seed: int = 0,
    params: dict[str, Any] | None = None,
) -> Synthesizer:
    """A fresh synthesizer for one run of the study, built by :func:`make_synthesizer`.

    ``epsilon = inf`` means no DP noise; the run seed seeds the fit of the synthesizers whose
    fit draws; parameters a synthesizer does not take are dropped (one set of settings serves
    every synthesizer); ``params["no_dp"]`` holds overrides for the non-DP fit.

    Parameters
    ----------
    name : str
        A registry name.
    schema : Schema
        The public schema.
    epsilon : float
        The budget, ``math.inf`` for no DP.
    delta : float, default 1e-5
        Passed with a finite epsilon to the synthesizers that take a delta.
    seed : int, default 0
        The run's seed.
    params : dict, optional
        Constructor settings; unknown ones are dropped.

    Returns
    -------
    Synthesizer
        Unfitted, its parameters validated.

    Raises
    ------
    ParameterError
        With a finite epsilon for a synthesizer that takes none (``gaussian``).

    Examples
    --------
    >>> import math
    >>> from synthcert.data.datasets import california_schema
    >>> s = build_synthesizer("privbayes", california_schema(), math.inf, seed=3)
    >>> s.epsilon is None and s.seed == 3
    True
    """
    params = dict(params or {})
    no_dp = params.pop("no_dp", {})
    if math.isinf(epsilon):
        params.update(no_dp)
        return make_synthesizer(name, schema, seed=seed, ignore_unknown=True, **params)
    return make_synthesizer(
        name, schema, epsilon=float(epsilon), delta=delta, seed=seed, ignore_unknown=True,
        **params,
    )  # fmt: skip


@dataclass(frozen=True)
class StudyCell(Result):
    """One synthesizer at one epsilon: Algorithm 9's mean and std of every figure."""

    synthesizer: str
    epsilon: float
    n_runs: int
    n_ok: int
    mean: dict[str, float]
    std: dict[str, float]
    seconds: float
    privacy: dict[str, Any] | None = None
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class UtilityStudy(Result):
    """All cells of the study, the real-data references and what could not be run."""

    dataset: str
    n_train: int
    n_holdout: int
    epsilons: tuple[float, ...]
    delta: float
    n_runs: int
    seed: int
    quick: bool
    targets: tuple[str, ...]
    metrics: tuple[str, ...]
    real_efficacy: dict[str, float]
    constant_efficacy: dict[str, float]  # a model that ignores the features: the floor
    holdout_reference: dict[str, float]
    cells: tuple[StudyCell, ...]
    unavailable: dict[str, str] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """Long table: synthesizer, epsilon, figure, mean, std, runs (the holdout reference as
        synthesizer ``real-holdout`` at epsilon = inf: the distance between two real samples)."""
        rows = []
        for c in self.cells:
            for key, m in c.mean.items():
                rows.append(
                    {
                        "synthesizer": c.synthesizer,
                        "epsilon": c.epsilon,
                        "figure": key,
                        "mean": m,
                        "std": c.std.get(key, math.nan),
                        "runs": c.n_ok,
                    }
                )
        for key, v in self.holdout_reference.items():
            rows.append(
                {
                    "synthesizer": "real-holdout",
                    "epsilon": math.inf,
                    "figure": key,
                    "mean": v,
                    "std": 0.0,
                    "runs": 1,
                }
            )
        return pd.DataFrame(
            rows, columns=["synthesizer", "epsilon", "figure", "mean", "std", "runs"]
        )


def constant_predictor_score(data: StudyData, target: str, metric: str) -> float:
    """Score of a model that ignores the features: AUC 1/2, or the RMSE of predicting the
    training mean of the target on the held-out rows."""
    if metric == "auc":
        return 0.5
    col = data.schema.column(target)
    train = numeric_values(data.train[target].dropna(), col)
    test = numeric_values(data.holdout[target].dropna(), col)
    return rmse(test, np.full(len(test), train.mean()))


def _privacy_record(synth: Any, n_out: int) -> dict[str, Any] | None:
    """The fitted synthesizer's claim; a refused certificate is recorded, not fatal."""
    try:
        return synth.privacy_claim(n_out).to_dict()
    except SynthcertError as exc:
        return {"note": f"no privacy record: {exc}"}


def run_cell(
    data: StudyData,
    name: str,
    epsilon: float,
    *,
    n_runs: int,
    delta: float = DELTA,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    n_jobs: int = 1,
    on_run: Callable[[], None] | None = None,
) -> StudyCell:
    """Algorithm 9 for one synthesizer and epsilon: fit, sample len(train) rows, evaluate; N times.

    A run that raises is recorded in ``errors`` (type and message) and left out of the means.
    """
    start = time.perf_counter()
    runs: list[dict[str, float]] = []
    errors: list[str] = []
    privacy = None
    for s in run_seeds(seed, n_runs):
        try:
            synth = build_synthesizer(
                name, data.schema, epsilon, delta=delta, seed=s,
                params={"min_rows": len(data.train), **(params or {})},
            )  # fmt: skip
            synth.fit(data.train)
            fake = synth.sample(len(data.train), seed=s)
            ev = evaluate(
                data.train,
                fake,
                data.schema,
                target=list(data.targets),
                holdout=data.holdout,
                seed=s,
                n_jobs=n_jobs,
                real_baseline=False,
                binning="public",  # the thesis' 20 equal-width bins (section 4.3)
            )
            runs.append(ev.figures())
            privacy = _privacy_record(synth, len(data.train))
        except Exception as exc:  # record and go on: one failing synthesizer must not end the study
            errors.append(f"{type(exc).__name__}: {exc}")
        if on_run is not None:
            on_run()
    agg = aggregate(runs)
    return StudyCell(
        synthesizer=name,
        epsilon=epsilon,
        n_runs=n_runs,
        n_ok=len(runs),
        mean=agg.mean,
        std=agg.std,
        seconds=time.perf_counter() - start,
        privacy=privacy,
        errors=tuple(dict.fromkeys(errors)),
    )


def run_utility_study(
    dataset: str,
    *,
    synthesizers: Sequence[str] | None = None,
    epsilons: Sequence[float] | None = None,
    delta: float = DELTA,
    n_runs: int | None = None,
    n_train: int | None = None,
    n_test: int | None = None,
    quick: bool = False,
    seed: int = 0,
    data_home: str | None = None,
    n_jobs: int = 1,
    params: dict[str, dict[str, Any]] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> UtilityStudy:
    """Run the whole study; ``quick`` uses 2,000 training and held-out rows, 2 runs and
    epsilon in {inf, 4, 1} with lighter synthesizer settings (explicit arguments win)."""
    if quick:
        epsilons = QUICK_EPSILONS if epsilons is None else epsilons
        n_runs = QUICK_RUNS if n_runs is None else n_runs
        n_train = QUICK_ROWS if n_train is None else n_train
        n_test = QUICK_ROWS if n_test is None else n_test
        params = {**QUICK_PARAMS, **(params or {})}
    epsilons = tuple(float(e) for e in (EPSILONS if epsilons is None else epsilons))
    n_runs = DEFAULT_RUNS if n_runs is None else int(n_runs)
    if n_runs < 1:
        raise DataError("the study needs at least one run per cell")
    if any(not e > 0 for e in epsilons):
        raise DataError("every epsilon must be positive (inf for no DP)")
    data = load_study_data(dataset, data_home=data_home, n_train=n_train, n_test=n_test, seed=seed)
    names, unavailable = available_synthesizers(synthesizers)
    plan = [
        (name, eps)
        for name in names
        for eps in epsilons
        if not (name in NO_EPSILON and not math.isinf(eps))
    ]
    total = len(plan) * n_runs
    done = 0

    real_eff: dict[str, float] = {}
    trivial: dict[str, float] = {}
    metrics: list[str] = []
    for t in data.targets:
        e = efficacy(data.train, data.holdout, data.schema, t, seed=seed, n_jobs=n_jobs)
        real_eff[t] = e.synthetic  # "synthetic" here is the real training table
        metrics.append(e.metric)
        trivial[t] = constant_predictor_score(data, t, e.metric)
    ref = evaluate(data.train, data.holdout, data.schema, binning="public")
    reference = {k: v for k, v in ref.figures().items() if k.startswith("summary.")}

    cells: list[StudyCell] = []
    for name, eps in plan:
        label = f"{name} ε={'∞' if math.isinf(eps) else f'{eps:g}'}"

        def tick(label: str = label) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(label, done, total)

        if progress is not None:
            progress(label, done, total)
        cells.append(
            run_cell(
                data,
                name,
                eps,
                n_runs=n_runs,
                delta=delta,
                seed=seed,
                params=(params or {}).get(name),
                n_jobs=n_jobs,
                on_run=tick,
            )
        )
    return UtilityStudy(
        dataset=dataset,
        n_train=len(data.train),
        n_holdout=len(data.holdout),
        epsilons=epsilons,
        delta=delta,
        n_runs=n_runs,
        seed=seed,
        quick=quick,
        targets=data.targets,
        metrics=tuple(metrics),
        real_efficacy=real_eff,
        constant_efficacy=trivial,
        holdout_reference=reference,
        cells=tuple(cells),
        unavailable=unavailable,
    )


SUMMARY_COLUMNS = (
    "summary.l1_categorical_mean",
    "summary.hellinger_categorical_mean",
    "summary.l1_numeric_mean",
    "summary.hellinger_numeric_mean",
    "summary.wasserstein_numeric_mean",
    "summary.correlation_abs_diff_mean",
    "summary.association_abs_diff_mean",
)


def summary_frame(study: UtilityStudy) -> pd.DataFrame:
    """One row per synthesizer and epsilon with the headline figures (means over the runs)."""
    tab = study.table()
    keys = [*SUMMARY_COLUMNS, *(f"efficacy.{t}.synthetic" for t in study.targets)]
    tab = tab[tab["figure"].isin(keys)]
    wide = tab.pivot_table(
        index=["synthesizer", "epsilon"], columns="figure", values="mean", sort=False
    )
    return wide.reindex(columns=[k for k in keys if k in wide.columns])


def markdown_summary(study: UtilityStudy) -> str:
    """The headline figures as a Markdown table (mean over runs; std in the CSV)."""
    wide = summary_frame(study)
    short = [c.replace("summary.", "").replace("efficacy.", "").replace(".synthetic", "")
             for c in wide.columns]  # fmt: skip
    lines = [
        "| synthesizer | ε | " + " | ".join(short) + " |",
        "|---|---|" + "---|" * len(short),
    ]
    for (name, eps), row in wide.iterrows():
        e = "∞" if math.isinf(eps) else f"{eps:g}"
        cells = ["-" if pd.isna(v) else f"{v:.4g}" for v in row.to_numpy()]
        lines.append(f"| {name} | {e} | " + " | ".join(cells) + " |")
    real = ", ".join(f"{t} {v:.4g}" for t, v in study.real_efficacy.items())
    lines.append("")
    const = ", ".join(f"{t} {v:.4g}" for t, v in study.constant_efficacy.items())
    lines.append(f"Trained on real training rows: {real}. Ignoring the features: {const}.")
    return "\n".join(lines) + "\n"


def write_study(study: UtilityStudy, out: str | Path) -> dict[str, Path]:
    """Write study.json, the long table (CSV), a Markdown summary and the four figures."""
    from synthcert.utility.plots import (
        plot_study_correlation,
        plot_study_distances,
        plot_study_efficacy,
    )

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "utility_study.json",
        "table": out / "utility_table.csv",
        "summary": out / "utility_summary.md",
        "fig4_3": out / "fig4_3_categorical_distances.png",
        "fig4_4": out / "fig4_4_numeric_distances.png",
        "fig4_9": out / "fig4_9_efficacy.png",
        "fig4_10": out / "fig4_10_correlation.png",
    }
    write_text(json.dumps(jsonable(study.to_dict()), indent=2) + "\n", paths["json"])
    table = study.table()
    write_table(table, paths["table"])
    write_text(markdown_summary(study), paths["summary"])
    if table.empty:
        return {k: v for k, v in paths.items() if not k.startswith("fig")}
    tag = f"{study.dataset}, n={study.n_train}, {study.n_runs} run(s)"
    plot_study_distances(
        table, "categorical", paths["fig4_3"], title=f"Categorical columns: mean distance ({tag})"
    )
    plot_study_distances(
        table, "numeric", paths["fig4_4"], title=f"Numeric columns: mean distance ({tag})"
    )
    cells = table[table["synthesizer"] != "real-holdout"]
    plot_study_efficacy(
        cells,
        paths["fig4_9"],
        targets=study.targets,
        metrics=study.metrics,
        real_scores=[study.real_efficacy.get(t) for t in study.targets],
        constant_scores=[study.constant_efficacy.get(t) for t in study.targets],
        title=f"Train on synthetic, test on held-out real rows ({tag})",
    )
    plot_study_correlation(table, paths["fig4_10"], title=f"Differences in correlations ({tag})")
    return paths
