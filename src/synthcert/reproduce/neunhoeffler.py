"""Figure 1 and an n_syn table of Neunhoeffler, Latner & Drechsler (seed 004, §4.1).

Figure 1: n = 1,000 records from N(0, 1) clamped to [-4, 4] (Delta = 8/1000), rho = 0.5,
so n_syn = 2 n^2 rho sigma^2 / (4 b^2) = 15,625. Over many repetitions the mean of n_syn
synthetic records drawn from N(mean, 1) has the same distribution as the Gaussian mechanism
mean + N(0, Delta^2/(2 rho)); a two-sample Kolmogorov-Smirnov test checks it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from synthcert._result import Result, jsonable
from synthcert.data.io import atomic_write_path, write_text
from synthcert.privacy.gaussian_zcdp import (
    bayesian_known_variance_records,
    mean_sensitivity,
    plugin_known_variance_records,
)
from synthcert.reproduce.written import Written

FIG1 = {"n": 1000, "bound": 4.0, "rho": 0.5, "sigma": 1.0}
GRID_N: tuple[int, ...] = (100, 1_000, 10_000, 100_000)
GRID_RHO: tuple[float, ...] = (0.01, 0.1, 0.5, 1.0)


@dataclass(frozen=True)
class Figure1Result(Result):
    """Sampling distributions of the synthetic-data mean and the Gaussian-mechanism mean."""

    n: int
    bound: float
    rho: float
    n_syn: int
    repetitions: int
    sample_mean: float
    synthetic_means: np.ndarray
    mechanism_means: np.ndarray
    synthetic_sd: float
    mechanism_sd: float
    theoretical_sd: float
    ks_statistic: float
    ks_pvalue: float

    def summary(self) -> dict:
        """The figures without the raw draws."""
        d = self.to_dict()
        d.pop("synthetic_means")
        d.pop("mechanism_means")
        return d


def figure1(
    *,
    repetitions: int = 2000,
    seed: int = 0,
    n: int = FIG1["n"],
    bound: float = FIG1["bound"],
    rho: float = FIG1["rho"],
    progress: Callable[[int], None] | None = None,
) -> Figure1Result:
    """Simulate Figure 1 of seed 004: synthetic-data means vs Gaussian-mechanism means."""
    rng = np.random.default_rng(seed)
    sigma = FIG1["sigma"]
    data = np.clip(rng.standard_normal(n), -bound, bound)
    x_bar = float(data.mean())
    n_syn = plugin_known_variance_records(rho, bound, n, 1, sigma)
    syn = np.empty(repetitions)
    chunk = max(1, 4_000_000 // max(n_syn, 1))
    done = 0
    while done < repetitions:
        size = min(chunk, repetitions - done)
        syn[done : done + size] = rng.normal(x_bar, sigma, (size, n_syn)).mean(axis=1)
        done += size
        if progress is not None:
            progress(size)
    gm_sd = mean_sensitivity(bound, n) / np.sqrt(2.0 * rho)
    mech = x_bar + gm_sd * rng.standard_normal(repetitions)
    ks = stats.ks_2samp(syn, mech)
    return Figure1Result(
        n=n,
        bound=bound,
        rho=rho,
        n_syn=n_syn,
        repetitions=repetitions,
        sample_mean=x_bar,
        synthetic_means=syn,
        mechanism_means=mech,
        synthetic_sd=float(syn.std(ddof=1)),
        mechanism_sd=float(mech.std(ddof=1)),
        theoretical_sd=float(gm_sd),
        ks_statistic=float(ks.statistic),
        ks_pvalue=float(ks.pvalue),
    )


def nsyn_table(
    ns: Sequence[int] = GRID_N,
    rhos: Sequence[float] = GRID_RHO,
    *,
    bound: float = FIG1["bound"],
    sigma: float = FIG1["sigma"],
    m: int = 1,
) -> list[dict]:
    """Rows (n, rho, n_syn plug-in, n_syn Bayesian) of the largest releasable n_syn (§4.1, §4.2)."""
    rows = []
    for n in ns:
        for rho in rhos:
            bayes = bayesian_known_variance_records(rho, bound, n, m, sigma)
            rows.append(
                {
                    "n": int(n),
                    "rho": float(rho),
                    "n_syn_plugin": plugin_known_variance_records(rho, bound, n, m, sigma),
                    "n_syn_bayesian": None if np.isinf(bayes) else int(bayes),
                }
            )
    return rows


def plot_figure1(result: Figure1Result, path: Path) -> None:
    """Write the Figure 1 overlay (histograms and the N(mean, Delta^2/(2 rho)) density) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    lo = min(result.synthetic_means.min(), result.mechanism_means.min())
    hi = max(result.synthetic_means.max(), result.mechanism_means.max())
    bins = np.linspace(lo, hi, 50)
    ax.hist(
        result.mechanism_means,
        bins=bins,
        density=True,
        alpha=0.45,
        color="#7b3fa0",
        label=f"Gaussian mechanism, rho = {result.rho:g}",
    )
    ax.hist(
        result.synthetic_means,
        bins=bins,
        density=True,
        histtype="step",
        lw=1.8,
        ls="--",
        color="#138d90",
        label=f"synthetic-data mean, n_syn = {result.n_syn:,}",
    )
    grid = np.linspace(lo, hi, 400)
    ax.plot(
        grid,
        stats.norm.pdf(grid, result.sample_mean, result.theoretical_sd),
        color="k",
        lw=1,
        label="N(mean, Delta^2 / (2 rho))",
    )
    ax.set_xlabel("estimated mean")
    ax.set_ylabel("density")
    ax.set_title(
        f"n = {result.n:,}, clamp [-{result.bound:g}, {result.bound:g}]; "
        f"KS p = {result.ks_pvalue:.3f} ({result.repetitions:,} repetitions)",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_write_path(path) as tmp:
        fig.savefig(tmp, format="png")
    plt.close(fig)


def table_markdown(rows: list[dict]) -> str:
    """The n_syn table as Markdown.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`nsyn_table`.

    Returns
    -------
    str
        A Markdown table.
    """
    lines = [
        "| n | rho | n_syn plug-in (§4.1) | n_syn Bayesian (§4.2, joint) |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        bayes = "unlimited" if r["n_syn_bayesian"] is None else f"{r['n_syn_bayesian']:,}"
        lines.append(f"| {r['n']:,} | {r['rho']:g} | {r['n_syn_plugin']:,} | {bayes} |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ReproductionResult(Written):
    """What ``reproduce neunhoeffler`` wrote (:class:`~synthcert.reproduce.written.Written`)
    and the headline figures."""

    figure1: dict
    table: list


def reproduce(
    out_dir: str | Path,
    *,
    repetitions: int = 2000,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> ReproductionResult:
    """Regenerate Figure 1 (PNG + KS test) and the n_syn table of seed 004 into ``out_dir``.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        Directory (created if needed).
    repetitions : int
        Simulated datasets of Figure 1.
    seed : int
        Seed of the simulation.
    progress : callable, optional
        Called with the repetitions done.

    Returns
    -------
    ReproductionResult
        The files written and the headline figures.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig = figure1(repetitions=repetitions, seed=seed, progress=progress)
    rows = nsyn_table()
    files = [
        out / f
        for f in (
            "neunhoeffler_figure1.png",
            "neunhoeffler_figure1.json",
            "neunhoeffler_nsyn.csv",
            "neunhoeffler_nsyn.md",
        )
    ]
    png_path, json_path, csv_path, md_path = files
    plot_figure1(fig, png_path)
    summary = fig.summary()
    write_text(json.dumps(jsonable(summary), indent=2) + "\n", json_path)
    csv = "n,rho,n_syn_plugin,n_syn_bayesian\n" + "".join(
        f"{r['n']},{r['rho']:g},{r['n_syn_plugin']},"
        f"{'' if r['n_syn_bayesian'] is None else r['n_syn_bayesian']}\n"
        for r in rows
    )
    write_text(csv, csv_path)
    write_text(table_markdown(rows), md_path)
    return ReproductionResult(
        out_dir=str(out), files=tuple(str(f) for f in files), figure1=summary, table=rows
    )


__all__ = ["Figure1Result", "ReproductionResult", "figure1", "nsyn_table", "reproduce"]
