"""Atoms: public values a discretised column keeps as point masses (issue 27, zero-inflated
columns). The default rule reads the declaration only; a declared list overrides it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthcert.data.discretize import (
    Discretizer,
    numeric_codes,
    numeric_decode,
    support,
    without_atoms,
)
from synthcert.data.schema import DatetimeColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.privacy.quantile_bins import column_values
from synthcert.privacy.tree_bins import CellCounts


@pytest.mark.parametrize(
    ("column", "atoms"),
    [
        (NumericColumn("gain", 0.0, 99_999.0, integer=True), (0.0,)),  # 0 is the lower bound
        (NumericColumn("loss", -500.0, 0.0), (0.0,)),  # ... the upper bound
        (NumericColumn("amount", 0.0, 1.0), (0.0,)),  # a continuous column too
        (NumericColumn("temp", -20.0, 40.0), ()),  # 0 inside the bounds: nothing special
        (NumericColumn("age", 17.0, 90.0, integer=True), ()),  # 0 outside
        (NumericColumn("kids", 0.0, 12.0, integer=True), ()),  # each default bin: one value
        (NumericColumn("visits", 0.0, 20.0, integer=True), (0.0,)),  # 21 values: 20 bins
        (DatetimeColumn("day", 0.0, 400.0), ()),  # 1970-01-01 is no atom
        (NumericColumn("x", 0.0, 9.0, atoms=()), ()),  # declared: none
        (NumericColumn("x", -5.0, 9.0, atoms=(-5.0, 3.0)), (-5.0, 3.0)),  # declared
    ],
)
def test_default_rule_and_declared_atoms(column, atoms):
    assert column.atom_values == atoms


def test_atoms_round_trip_through_the_schema_file():
    schema = Schema(
        (
            NumericColumn("a", 0.0, 10.0),
            NumericColumn("b", 0.0, 10.0, atoms=()),
            NumericColumn("c", 0.0, 10.0, integer=True, atoms=(0.0, 10.0)),
            DatetimeColumn("d", 0.0, 400.0, atoms=(31.0,)),
        )
    )
    doc = json.loads(schema.to_json())
    cols = {c["name"]: c for c in doc["columns"]}
    assert "atoms" not in cols["a"]  # the default rule is not written
    assert cols["b"]["atoms"] == [] and cols["c"]["atoms"] == [0.0, 10.0]
    assert cols["d"]["atoms"] == ["1970-02-01"]
    assert Schema.from_dict(doc) == schema


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"atoms": [11]}, "within the public bounds"),
        ({"atoms": [3, 1]}, "increasing"),
        ({"atoms": [0.5], "integer": True}, "whole numbers"),
        ({"atoms": "0"}, "atoms"),
        ({"atoms": [float("nan")]}, "atoms"),
    ],
)
def test_malformed_atoms_are_refused(spec, match):
    with pytest.raises(DataError, match=match):
        column = {"name": "x", "kind": "numeric", "lower": 0, "upper": 10, **spec}
        Schema.from_dict({"columns": [column]})


def test_atoms_outside_narrowed_bounds_are_left_out():
    # a DP domain step may narrow the bounds: a declared atom outside them has no code
    col = NumericColumn("x", 2.0, 9.0, atoms=(0.0, 5.0))
    assert col.atom_values == (5.0,)


def test_an_atom_has_a_code_of_its_own_and_decodes_to_exactly_it():
    col = NumericColumn("gain", 0.0, 1_000.0)
    x = np.array([0.0, 0.0, -3.0, 1e-9, 49.0, 50.0, 1_000.0, np.nan])
    codes = numeric_codes(x, col, 20)
    # -3 is clipped to the bound 0 (as every encoder clips) and so is the atom
    assert codes[:7].tolist() == [20, 20, 20, 0, 0, 1, 19]
    back = numeric_decode(col, 20, codes[:7], np.full(7, 0.5))
    assert back[:3].tolist() == [0.0, 0.0, 0.0] and np.all(back[3:] > 0)
    assert support(col, 20).tolist()[-1] == 0.0 and len(support(col, 20)) == 21
    np.testing.assert_array_equal(np.isnan(without_atoms(x, col)), [1, 1, 1, 0, 0, 0, 0, 1])


def test_an_integer_bin_next_to_its_atom_never_decodes_to_it():
    col = NumericColumn("visits", 0.0, 99.0, integer=True)  # bin 0 holds 0..4
    disc = Discretizer(Schema((col,)), bins=20)
    codes = np.zeros((4_000, 1), dtype=np.int64)
    back = disc.inverse_transform(codes, np.random.default_rng(0))["visits"]
    assert set(back) == {1, 2, 3, 4}  # the atom's code holds every 0
    assert (disc.transform(back.to_frame()) == 0).all()


def test_the_discretizer_keeps_a_point_mass_and_a_missing_code():
    col = NumericColumn("amount", 0.0, 500.0, nullable=True)
    disc = Discretizer(Schema((col,)), bins=10)
    assert disc.cardinalities == [12] and disc.missing_code(0) == 11  # 10 bins, atom, missing
    frame = pd.DataFrame({"amount": [0.0] * 7 + [120.0, np.nan, 480.0]})
    codes = disc.transform(frame)
    assert codes[:, 0].tolist() == [10] * 7 + [2, 11, 9]
    back = disc.inverse_transform(codes, np.random.default_rng(1))["amount"]
    assert (back.iloc[:7] == 0.0).all() and back.iloc[8] != back.iloc[8]  # NaN stays missing


def test_dp_bins_steps_count_what_the_bins_hold():
    # the atom's values have their own code: the tree and quantile steps skip them like a
    # missing value (one record still moves at most one count per level)
    col = NumericColumn("gain", 0.0, 1_024.0, tree_bins=8)
    chunk = pd.DataFrame({"gain": [0.0] * 90 + list(np.linspace(1, 1_000, 10))})
    assert np.isnan(column_values(chunk, col)).sum() == 90
    counts = CellCounts((col,), depth=4).update(chunk)
    assert counts.leaves["gain"].sum() == 10


def test_data_derived_bounds_and_flags_never_refuse_an_atom():
    # found by an attacker: a refusal that depends on the records is published by its exit
    # code. Against data-derived bounds or an integer flag read from the data, an atom is
    # not checked at parse time; atom_values leaves it out where it does not apply.
    spec = {"name": "x", "kind": "numeric", "lower": 1.025, "upper": 100.0, "source": "data"}
    col = Schema.from_dict({"columns": [{**spec, "atoms": [0]}]}).column("x")
    assert col.atoms == (0.0,) and col.atom_values == ()
    flag = {**spec, "integer": True, "integer_source": "data", "atoms": [2.5]}
    assert Schema.from_dict({"columns": [flag]}).column("x").atom_values == ()
    with pytest.raises(DataError, match="within the public bounds"):  # public: refused
        Schema.from_dict({"columns": [{**spec, "source": "public", "atoms": [0]}]})
    fill = Schema.from_dict({"columns": [{**spec, "fill": 0}]}).column("x")  # clipped at use
    from synthcert.data.encode import public_fill

    assert public_fill(fill) == 1.025


def test_a_boolean_reads_the_same_whatever_the_other_records():
    # found by an attacker: pandas reads True/False as booleans (1/0), or as text once one
    # record holds text, which made every such value missing: one record moved 550 counts
    from synthcert.data.encode import numeric_values

    col = NumericColumn("x", 0.0, 100.0)
    alone = numeric_values(pd.Series([True, False, True]), col)
    mixed = numeric_values(pd.Series(["True", " false", "TRUE", "abc", None, "3"]), col)
    assert alone.tolist() == [1.0, 0.0, 1.0]
    np.testing.assert_array_equal(mixed, [1.0, 0.0, 1.0, np.nan, np.nan, 3.0])


def test_a_cell_holding_the_atom_alone_has_no_capacity():
    # an integer cell [0, 1) holds only the atom 0, whose records have their own code: a tree
    # bin gives it no mass (capacity 0) instead of collecting noise there
    from synthcert.data.discretize import cell_capacity

    col = NumericColumn("n", 0.0, 1_000.0, integer=True)
    cap = cell_capacity(col, np.array([0.0, 0.9, 2.5, 1_000.0]))
    assert cap.tolist() == [0.0, 2.0, 998.0]  # {0}: none; {1, 2}; {3..1000}


def test_the_report_draws_an_atom_inside_its_bin():
    from synthcert.utility.marginals import distance_from_frequencies

    col = NumericColumn("gain", 0.0, 100.0)
    p = np.array([0.1] + [0.0] * 19 + [0.9])  # 90 % at the atom 0, the rest in bin 0
    q = np.array([0.2] + [0.0] * 19 + [0.8])
    dist = distance_from_frequencies(col, p, q)
    assert dist.atoms == (0.0,) and len(dist.edges) == 21
    real, synth = dist.on_bins()
    assert real[0] == pytest.approx(1.0) and synth[0] == pytest.approx(1.0) and len(real) == 20
