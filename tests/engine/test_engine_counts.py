"""EngineCounts: the count-based synthesizers fit from engine passes as from rows in memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthcert.data.datasets import adult_schema
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.engine import EngineCounts, open_engine
from synthcert.errors import DataError
from synthcert.statistics.sources import CodesCounts
from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer

COLUMNS = ["age", "hours-per-week", "sex", "race", "relationship", "income"]


@pytest.fixture(scope="module")
def small(adult, tmp_path_factory):
    """(schema, frame, folder): 3,000 Adult rows with 5 holes, as two Parquet files and a CSV."""
    df = adult[COLUMNS].iloc[:3000].reset_index(drop=True)
    df["hours-per-week"] = df["hours-per-week"].astype(float)
    df.loc[[7, 400, 1999, 2000, 2999], "hours-per-week"] = np.nan
    folder = tmp_path_factory.mktemp("counts")
    for i, part in enumerate((df.iloc[:1700], df.iloc[1700:])):
        table = pa.Table.from_pandas(part, preserve_index=False)
        pq.write_table(table, folder / f"part-{i}.parquet", row_group_size=400)
    df.to_csv(folder / "all.csv", index=False)
    return adult_schema().select(COLUMNS), df, folder


def in_memory(synth, df):
    """``fit_counts`` on the table's codes (what ``fit(table)`` does)."""
    disc = synth.discretizer
    return synth.fit_counts(CodesCounts(disc.transform(df), disc.cardinalities))


@pytest.mark.parametrize(
    "params", [dict(seed=3), dict(epsilon=1.0, seed=4), dict(epsilon=2.0, degree=2, seed=5)]
)
def test_privbayes_from_engine_passes_equals_in_memory(small, params):
    schema, df, folder = small
    ref = PrivBayesSynthesizer(schema, **params).fit(df)
    synth = PrivBayesSynthesizer(schema, **params)
    source = EngineCounts(folder / "*.parquet", synth.discretizer, partition_rows=500)
    synth.fit_counts(source)
    # privbayes is DP under bounded neighbours (n public): the 5 incomplete rows are kept,
    # their missing values given the columns' public fills, counted (privately) on both routes
    assert source.rows == synth.n_ == ref.n_ == 3000
    assert source.values_filled == ref.values_filled_ >= 5
    # one pass (all 3-subsets); two when theta-usefulness needs n before choosing the degree
    assert source.passes == (2 if "epsilon" in params and "degree" not in params else 1)
    assert synth.order_ == ref.order_
    assert all(np.array_equal(a, b) for a, b in zip(synth.tables_, ref.tables_, strict=True))
    assert synth.accountant.ledger == ref.accountant.ledger
    pd.testing.assert_frame_equal(synth.sample(400, seed=9), ref.sample(400, seed=9))


def test_csv_glob_and_parquet_folder_give_the_same_counts(small):
    schema, _, folder = small
    synth = PrivBayesSynthesizer(schema, seed=3)
    a = EngineCounts(folder / "all.csv", synth.discretizer)
    b = EngineCounts(folder, synth.discretizer, partition_rows=500)  # a folder: Parquet + CSV
    cliques = [(0, 2), (5, 4, 3)]
    got_a, got_b = a.marginal(cliques), b.marginal(cliques)
    assert a.rows == 3000 and b.rows == 2 * 3000  # bounded: incomplete rows filled, kept
    for c in cliques:
        np.testing.assert_array_equal(2 * got_a[c], got_b[c])


def test_aim_and_mwem_from_one_engine_pass_equal_in_memory(small):
    pgm = pytest.importorskip("synthcert.synthesizers.pgm")
    schema, df, folder = small
    schema = schema.select(["age", "sex", "race", "income"])  # the rows with holes still drop
    path = folder / "part-*.parquet"
    cases = [
        (pgm.AIMSynthesizer, dict(epsilon=1.0, rounds=5, pgm_iters=30, seed=2)),
        # a workload that leaves out 'income': its one-way marginal is still counted
        (pgm.AIMSynthesizer, dict(rounds=2, pgm_iters=30, workload=[("age", "sex", "race")])),
        (pgm.MWEMPGMSynthesizer, dict(epsilon=2.0, rounds=2, pgm_iters=30, seed=1)),
    ]
    with open_engine("local", workers=2) as eng:
        for cls, params in cases:
            ref = in_memory(cls(schema, **params), df)
            synth = cls(schema, **params)
            source = EngineCounts(path, synth.discretizer, engine=eng, partition_rows=500)
            synth.fit_counts(source)
            assert source.passes == 1 and source.rows == ref.n_ == 2995
            assert synth.selected == ref.selected
            assert synth.accountant.ledger == ref.accountant.ledger
            pd.testing.assert_frame_equal(synth.sample(300, seed=4), ref.sample(300, seed=4))


def test_copula_from_counts_recovers_a_known_correlation(tmp_path):
    rng = np.random.default_rng(0)
    cov = [[1, 0.6, -0.3], [0.6, 1, 0.2], [-0.3, 0.2, 1]]
    z = rng.multivariate_normal([0, 0, 0], cov, size=20_000)
    df = pd.DataFrame(
        {"x": np.exp(z[:, 0]), "y": z[:, 1] ** 3, "c": np.where(z[:, 2] > 0.3, "b", "a")}
    )
    sch = Schema(
        (NumericColumn("x", 0, 20), NumericColumn("y", -30, 30), CategoricalColumn("c", ("a", "b")))
    )
    path = tmp_path / "cop.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=3000)
    exact = GaussianCopulaSynthesizer(sch).fit(df).corr_
    for params in (dict(), dict(epsilon=8.0, seed=1)):
        ref = in_memory(GaussianCopulaSynthesizer(sch, **params), df)
        synth = GaussianCopulaSynthesizer(sch, **params)
        source = EngineCounts(path, synth.discretizer, partition_rows=5000)
        synth.fit_counts(source)
        assert source.passes == 1
        np.testing.assert_array_equal(synth.corr_, ref.corr_)
        pd.testing.assert_frame_equal(synth.sample(300, seed=2), ref.sample(300, seed=2))
        # measured: engine (0.637, -0.290, 0.200), in memory without DP (0.603, -0.231, 0.150);
        # x is coarsely binned (half its mass in the first of 20 bins over [0, 20]), which
        # moves tau_b by +0.04, while the binary column's tau_b is nearer the latent -0.3, 0.2
        # than the in-memory normal scores; DP: noisy tau_a, tie-corrected by the noisy
        # histograms, gives the same to 1e-3
        assert np.abs(synth.corr_ - exact).max() < 0.07
        assert synth.corr_[0, 1] == pytest.approx(0.6, abs=0.05)
        assert synth.corr_[0, 2] == pytest.approx(-0.3, abs=0.02)
    assert synth.privacy_claim(5).epsilon == pytest.approx(8.0)


def test_a_changed_input_between_passes_is_refused(tmp_path):
    sch = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b"))))
    df = pd.DataFrame({"x": np.linspace(0, 1, 50), "c": ["a", "b"] * 25})
    path = tmp_path / "t.parquet"
    df.to_parquet(path, index=False)
    source = EngineCounts(path, PrivBayesSynthesizer(sch).discretizer)
    assert source.rows == 50
    df.iloc[:40].to_parquet(path, index=False)
    with pytest.raises(DataError, match="input changed"):
        source.marginal([(0, 1)])
