"""The reproduced figures of thesis chapter 5 (Figures 5.3-5.8) as PNG files."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from synthcert.data.io import save_and_close_figure
from synthcert.privacy.gaussian_release import alpha_limit, epsilon_per_record
from synthcert.reproduce.rdp.printed import NS, PAPER, SIGMA, D


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_alpha_eps(out: Path, d: int) -> Path:
    """Figure 5.3 (thesis) / Fig. 3 (seed 000): n·ε against α, curves stop at the α limit."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, rel in zip(axes, ("unbounded", "bounded"), strict=True):
        for n in NS[:4]:
            lim = alpha_limit(n, d, SIGMA, rel, PAPER)
            hi = min(lim, 30.0)
            a = 1.0 + (hi - 1.0) * np.linspace(0.0005, 0.9995, 160) ** 1.5
            eps = epsilon_per_record(a, n, d, SIGMA, rel, method=PAPER) * n
            ax.plot(a, eps, label=f"n = 10^{round(math.log10(n))}")
            if lim < 30:
                ax.axvline(lim, color="grey", lw=0.6, ls=":")
        ax.set_yscale("log")
        ax.set_xlabel("α")
        ax.set_title(f"{rel} (d = {d}, σ = {SIGMA}, n_out = n)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ε of (α, ε)-RDP for n_out = n records")
    axes[0].legend()
    return save_and_close_figure(fig, out / f"fig_alpha_eps_d{d}.png", dpi=130)


def figure_eps_vs_d(out: Path, n: int = 10**7) -> Path:
    """Figure 5.4 (thesis): n·ε at α = 4 for d = 3…15."""
    plt = _plt()
    ds = np.arange(3, 16)
    fig, ax = plt.subplots(figsize=(6, 4))
    for rel in ("unbounded", "bounded"):
        vals = [float(epsilon_per_record(4.0, n, int(d), SIGMA, rel, method=PAPER)) * n for d in ds]
        ax.plot(ds, vals, marker="o", label=rel)
    ax.set_xlabel("d (number of attributes)")
    ax.set_ylabel("ε of (4, ε)-RDP, n_in = n_out = 10^7")
    ax.set_title(f"ε against d (σ = {SIGMA})")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return save_and_close_figure(fig, out / "fig_eps_vs_d.png", dpi=130)


def figure_eps_vs_sigma(out: Path, n: int = 10**7) -> Path:
    """Figure 5.8 (thesis): n·ε at α = 4, d = 6 against σ (log-log)."""
    plt = _plt()
    sig = np.geomspace(0.001, 0.1, 41)
    fig, ax = plt.subplots(figsize=(6, 4))
    for rel in ("unbounded", "bounded"):
        vals = [float(epsilon_per_record(4.0, n, D, float(s), rel, method=PAPER)) * n for s in sig]
        ax.plot(sig, vals, marker=".", label=rel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("σ (lower bound on the covariance eigenvalues)")
    ax.set_ylabel("ε of (4, ε)-RDP, n_in = n_out = 10^7")
    ax.set_title(f"ε against σ (d = {D})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return save_and_close_figure(fig, out / "fig_eps_vs_sigma.png", dpi=130)


def figure_dp_bars(out: Path, n: int, rows_554: list[dict[str, object]]) -> Path:
    """Figures 5.5-5.7 (thesis): ε of (ε, δ)-DP, α optimised, blue unbounded / orange bounded."""
    plt = _plt()
    sel = [r for r in rows_554 if r["n"] == n]
    labels = ["δ = 1e-10", f"δ = 1/n² = {1.0 / n**2:.0e}"]
    x = np.arange(2)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    width = 0.2
    for k, (rel, colour) in enumerate((("unbounded", "tab:blue"), ("bounded", "tab:orange"))):
        for j, (conv, hatch) in enumerate((("mironov_optimal", ""), ("ckm_optimal", "//"))):
            vals = [float(r[conv]) for r in sel if r["neighboring"] == rel]
            pos = x + (2 * k + j - 1.5) * width
            bars = ax.bar(pos, vals, width, color=colour, hatch=hatch, edgecolor="black",
                          label=f"{rel}, {conv.split('_')[0]}")  # fmt: skip
            ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(x, labels)
    top = max(float(r[c]) for r in sel for c in ("mironov_optimal", "ckm_optimal"))
    ax.set_ylim(0, 1.45 * top)
    ax.set_ylabel("ε of (ε, δ)-DP (α optimised)")
    ax.set_title(f"n_in = n_out = 10^{round(math.log10(n))}, d = {D}, σ = {SIGMA}")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    ax.grid(True, axis="y", alpha=0.3)
    return save_and_close_figure(fig, out / f"fig_dp_bars_n1e{round(math.log10(n))}.png", dpi=130)
