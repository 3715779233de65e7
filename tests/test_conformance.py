"""Every registered synthesizer passes ``check_synthesizer``; broken toys fail the right check."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import synthcert.synthesizers as synthesizers_pkg
from synthcert.data.encode import category_codes, numeric_values, prepare_frame, typed_frame
from synthcert.data.schema import NumericColumn
from synthcert.errors import ParameterError
from synthcert.seeding import seed_sequence
from synthcert.statistics.protocols import FitsFromCounts, FitsFromMoments, SamplesChunks
from synthcert.synthesizers.base import Synthesizer
from synthcert.synthesizers.registry import REGISTRY, available_synthesizers, make_synthesizer
from synthcert.testing import CHECKS, check_synthesizer, fixture_schema, fixture_table

pytestmark = pytest.mark.filterwarnings("ignore:.*skipped.*:UserWarning")

PGM = {"pgm_iters": 30, "round_iters": 10, "max_model_size": 1.0}
CTGAN = {
    "epochs": 1,
    "batch_size": 60,
    "pac": 3,
    "embedding_dim": 8,
    "generator_dim": (16,),
    "discriminator_dim": (16,),
}
# (registry name, constructor settings): the plain fit and the DP (or certified) fit of each.
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("gaussian", {}),
    ("gaussian", {"ridge": 0.5, "min_rows": 100}),  # the ridged certificate
    ("gaussian-copula", {}),
    ("gaussian-copula", {"epsilon": 2.0, "seed": 5}),
    ("privbayes", {}),
    ("privbayes", {"epsilon": 2.0, "seed": 5}),
    ("mwem-pgm", {**PGM, "rounds": 2}),
    ("mwem-pgm", {**PGM, "rounds": 2, "epsilon": 2.0, "seed": 5}),
    ("aim", {**PGM, "rounds": 2}),
    ("aim", {**PGM, "rounds": 8, "epsilon": 2.0, "seed": 5}),
    ("ctgan", CTGAN),
    ("ctgan", {**CTGAN, "epsilon": 2.0, "min_rows": 100, "seed": 5}),
]
SLOW = {"ctgan"}  # over 20 s each (torch, several fits)
CASES = [
    pytest.param(
        name,
        params,
        id=name + ("-certified" if {"epsilon", "ridge"} & set(params) else ""),
        marks=[pytest.mark.slow] if name in SLOW else [],
    )
    for name, params in SETTINGS
]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_registered_synthesizer_conforms(name, params):
    ok, missing = available_synthesizers([name])
    if not ok:  # the test command (`make test`) installs every extra: a missing one is a failure
        pytest.fail(
            f"{name} is registered but cannot be built: {missing[name]} (`make test` installs "
            "every extra)"
        )
    synth = make_synthesizer(name, fixture_schema(), **params)
    report = check_synthesizer(synth)
    assert {c.__name__ for c in CHECKS} == set(report.passed), report
    params_back = synth.get_params()
    clone = type(synth)(**params_back)
    assert clone.get_params().keys() == params_back.keys()
    assert all(clone.get_params()[k] is v for k, v in params_back.items())


def test_every_registered_synthesizer_has_a_conformance_case():
    names = {name for name, _ in SETTINGS}
    assert names == set(REGISTRY)


def test_fit_routes_are_typed_protocols():
    schema = fixture_schema()
    moments = {"gaussian"}
    counts = {"gaussian-copula", "privbayes", "mwem-pgm", "aim"}
    for name in REGISTRY:
        synth = make_synthesizer(name, schema)
        assert isinstance(synth, FitsFromMoments) == (name in moments), name
        assert isinstance(synth, FitsFromCounts) == (name in counts), name


def test_no_hasattr_route_detection_in_the_synthesizers():
    folder = Path(synthesizers_pkg.__file__).parent
    hits = [p.name for p in folder.glob("*.py") if re.search(r"\bhasattr\(", p.read_text())]
    assert hits == []


def test_get_params_is_complete_and_unchanged():
    """The Gaussian's alpha, delta and missing were missing from the old ``params()``."""
    schema = fixture_schema()
    synth = make_synthesizer("gaussian", schema, alpha=8, delta=1e-6, missing="drop")
    params = synth.get_params()
    assert params["alpha"] == 8 and params["delta"] == 1e-6 and params["missing"] == "drop"
    assert params["schema"] is schema and params["sigma"] is None
    aim = make_synthesizer("aim", schema, epsilon=1.0)
    assert aim.get_params()["delta"] is None  # stored as given; the default applies at fit
    assert aim.target_delta() == 1e-5


def test_make_synthesizer_seeds_only_what_draws_and_refuses_unknown_names():
    schema = fixture_schema()
    assert make_synthesizer("privbayes", schema, seed=9).seed == 9
    assert "seed" not in make_synthesizer("gaussian", schema, seed=9).get_params()
    with pytest.raises(ParameterError, match="no parameter"):
        make_synthesizer("privbayes", schema, nope=1)
    kept = make_synthesizer("privbayes", schema, nope=1, min_rows=5, ignore_unknown=True)
    assert "nope" not in kept.get_params()
    with pytest.raises(ParameterError, match="unknown synthesizer"):
        make_synthesizer("no-such", schema)
    with pytest.raises(ParameterError, match="bins"):
        make_synthesizer("privbayes", schema, bins=1)  # validated when built


def test_set_params_refuses_unknown_names_and_validation_waits_for_fit():
    synth = make_synthesizer("privbayes", fixture_schema())
    with pytest.raises(ParameterError, match="no parameter"):
        synth.set_params(nope=1)
    synth.set_params(noise="gaussian")  # stored as given
    with pytest.raises(ParameterError, match="unknown noise"):
        synth.fit(fixture_table())


# -- toys: one correct, each broken one failing exactly its check ---------------------------
class Toy(Synthesizer):
    """Resamples whole rows of the table (a correct, if useless, synthesizer)."""

    name = "toy"

    def __init__(self, schema, *, missing="model", seed=None):
        self.schema = schema
        self.missing = missing
        self.seed = seed

    def _fit(self, table):
        frame, self.rows_dropped_missing_ = prepare_frame(table, self.schema, missing=self.missing)
        self.columns_ = {
            c.name: numeric_values(frame[c.name], c)
            if isinstance(c, NumericColumn)
            else category_codes(frame[c.name], c)
            for c in self.schema.columns
        }

    def _rows(self, n, rng):
        idx = rng.integers(0, len(next(iter(self.columns_.values()))), n)
        return typed_frame(self.schema, {k: v[idx] for k, v in self.columns_.items()})

    def _sample(self, n, seed):
        return self._rows(n, np.random.default_rng(seed_sequence(seed)))


class ValidatesInInit(Toy):
    def __init__(self, schema, *, missing="model", seed=None):
        if missing not in ("model", "drop"):
            raise ParameterError("bad missing")
        super().__init__(schema, missing=missing, seed=seed)


class HidesAParameter(Toy):
    def __init__(self, schema, *, missing="model", seed=None, width=3):
        super().__init__(schema, missing=missing, seed=seed)
        self._width = width


class FitReturnsNone(Toy):
    def fit(self, table):
        super().fit(table)


class SamplesUnfitted(Toy):
    def _check_fitted(self):
        pass


class WrongDtype(Toy):
    def _sample(self, n, seed):
        out = super()._sample(n, seed)
        return out.assign(x=out["x"].astype(np.float32))


class UnseededSampling(Toy):
    def _sample(self, n, seed):
        return self._rows(n, np.random.default_rng())


class FixedSampling(Toy):
    def _sample(self, n, seed):
        return self._rows(n, np.random.default_rng(0))


class BadClaim(Toy):
    def privacy_claim(self, n_out):
        return {"model": "none"}


class EditsItsInput(Toy):
    def _fit(self, table):
        super()._fit(table)
        table.loc[:, "x"] = 0.0


class DropsMissingRows(Toy):
    def _fit(self, table):
        super()._fit(table.dropna())


class ChunkIgnoresSeed(Toy):
    def sample_chunk(self, rows, seed):
        return self._rows(rows, np.random.default_rng())


class ChunkSeeded(Toy):
    def sample_chunk(self, rows, seed):
        return self.sample(rows, seed=seed)


def test_a_correct_toy_passes_every_check():
    report = check_synthesizer(Toy)
    every = {c.__name__ for c in CHECKS}
    if isinstance(Toy(fixture_schema()), SamplesChunks):  # the base class's sample_chunk
        assert set(report.passed) == every and not report.skipped
    else:  # skipped, saying why, until the base class has sample_chunk
        assert set(report.passed) == every - {"check_sample_chunk"}
        assert "sample_chunk" in report.skipped["check_sample_chunk"]
    chunked = check_synthesizer(ChunkSeeded)
    assert "check_sample_chunk" in chunked.passed and not chunked.skipped


def test_an_instance_keeps_its_parameters():
    report = check_synthesizer(Toy(fixture_schema(), missing="model", seed=4))
    assert "check_seeded_sampling" in report.passed


@pytest.mark.parametrize(
    ("toy", "check"),
    [
        (ValidatesInInit, "check_init_stores_args_only"),
        (HidesAParameter, "check_get_params_roundtrip"),
        (FitReturnsNone, "check_fit_returns_self"),
        (SamplesUnfitted, "check_clone"),
        (WrongDtype, "check_sample_shape"),
        (UnseededSampling, "check_seeded_sampling"),
        (FixedSampling, "check_seeded_sampling"),
        (ChunkIgnoresSeed, "check_sample_chunk"),
        (BadClaim, "check_privacy_claim"),
        (EditsItsInput, "check_fit_leaves_input_alone"),
        (DropsMissingRows, "check_missing_values"),
    ],
)
def test_a_broken_toy_fails_its_check(toy, check):
    with pytest.raises(AssertionError, match=rf"^{check} failed for {toy.__name__}"):
        check_synthesizer(toy)


def test_sample_before_fit_check_catches_a_wrong_exception():
    class AttributeErrorBeforeFit(SamplesUnfitted):
        pass

    from synthcert.testing import Subject, check_sample_before_fit

    subject = Subject(AttributeErrorBeforeFit, {"schema": fixture_schema()}, fixture_table())
    with pytest.raises(AssertionError, match="not NotFittedError"):
        check_sample_before_fit(subject)


def test_a_table_needs_its_schema():
    with pytest.raises(ValueError, match="schema"):
        check_synthesizer(Toy, table=pd.DataFrame({"x": [1.0]}))


def test_set_params_rebuilds_the_public_encodings():
    schema = fixture_schema()
    synth = make_synthesizer("privbayes", schema)
    # x: 20 bins + its atom 0 (a bound); z: 20 bins + its atom 0 + its missing code
    assert synth.discretizer.cardinalities == [21, 3, 22]
    assert synth.set_params(bins=5).discretizer.cardinalities == [6, 3, 7]
    gauss = make_synthesizer("gaussian", schema)
    assert gauss.encoder.dim == 5  # x, two dummies of c, z and its missingness indicator
    assert gauss.set_params(schema=schema.select(["x", "c"])).encoder.dim == 3


def test_repr_shows_the_parameters_that_differ_from_their_defaults():
    synth = make_synthesizer("privbayes", fixture_schema(), epsilon=1.0, bins=8)
    assert repr(synth) == "PrivBayesSynthesizer(schema=<3 columns>, epsilon=1.0, bins=8)"
