"""Figure 1 of seed 004 and the n_syn table."""

from __future__ import annotations

import json

import pytest

from synthcert.reproduce import neunhoeffler as nh


def test_figure1_synthetic_mean_matches_gaussian_mechanism():
    fig = nh.figure1(repetitions=1500, seed=0)
    assert fig.n_syn == 15625
    # Both sampling distributions have sd Delta / sqrt(2 rho) = 0.008 = 1/sqrt(15625).
    assert fig.theoretical_sd == pytest.approx(0.008)
    assert fig.synthetic_sd == pytest.approx(0.008, rel=0.06)
    assert fig.mechanism_sd == pytest.approx(0.008, rel=0.06)
    assert fig.ks_pvalue > 0.05


def test_figure1_detects_a_wrong_n_syn():
    # Guard that the KS test has power: with rho = 2 (n_syn = 62,500 > 15,625 of rho = 0.5)
    # compared against the rho = 0.5 mechanism, the distributions differ.
    fig = nh.figure1(repetitions=800, seed=1, rho=2.0)
    import numpy as np
    from scipy import stats

    gm = fig.sample_mean + 0.008 * np.random.default_rng(9).standard_normal(800)
    assert stats.ks_2samp(fig.synthetic_means, gm).pvalue < 1e-6


def test_nsyn_table_values():
    rows = {(r["n"], r["rho"]): r for r in nh.nsyn_table()}
    assert rows[(1000, 0.5)]["n_syn_plugin"] == 15625
    assert rows[(100, 0.01)]["n_syn_plugin"] == 3  # floor(2*100^2*0.01/64) = floor(3.125)
    assert rows[(100_000, 1.0)]["n_syn_plugin"] == 312_500_000
    # Bayesian (joint accounting) never allows fewer records than plug-in.
    for r in rows.values():
        assert r["n_syn_bayesian"] is None or r["n_syn_bayesian"] >= r["n_syn_plugin"]
    assert rows[(100, 1.0)]["n_syn_bayesian"] is None  # rho >= 4b^2/(2 n sigma^2) = 0.08


def test_reproduce_writes_files(tmp_path):
    res = nh.reproduce(tmp_path, repetitions=200, seed=2)
    png = tmp_path / "neunhoeffler_figure1.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "neunhoeffler_figure1.json").read_text())
    assert summary["n_syn"] == 15625
    csv = (tmp_path / "neunhoeffler_nsyn.csv").read_text().splitlines()
    assert csv[0] == "n,rho,n_syn_plugin,n_syn_bayesian" and len(csv) == 17
    assert len(res.files) == 4
