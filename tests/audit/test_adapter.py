"""The audit's synthesizer adapter: registry builds through make_synthesizer, seeded fits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from audit_synths import IdentitySynth, LaplaceHistogramSynth

from synthcert.audit import run_audit
from synthcert.audit.adapter import SynthesizerSpec, draw_table, fit_synthesizer
from synthcert.audit.jobs import JobKey, Stage
from synthcert.audit.trial import SIDES, Role
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import ParameterError, SynthcertError

SCHEMA = Schema((NumericColumn("a", 0.0, 10.0), CategoricalColumn("c", ("x", "y", "z"))))


def table(n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame({"a": rng.uniform(0, 10, n), "c": rng.choice(["x", "y", "z"], n)})


def test_registry_synthesizer_takes_the_fit_seed_as_its_seed_parameter():
    spec = SynthesizerSpec(SCHEMA, "privbayes", 1.0)
    synth, fit_kwargs = spec.build(123)
    assert synth.seed == 123 and fit_kwargs == {}
    given = SynthesizerSpec(SCHEMA, "privbayes", 1.0, params={"seed": 7})
    assert given.build(123)[0].seed == 7  # a seed the user gave is kept
    gaussian, kwargs = SynthesizerSpec(SCHEMA, "gaussian").build(5)
    assert not hasattr(gaussian, "seed") and kwargs == {}  # no fit randomness to seed


def test_fits_repeat_for_a_seed_and_differ_across_seeds():
    spec = SynthesizerSpec(SCHEMA, "privbayes", 1.0)
    t = table()
    one = draw_table(fit_synthesizer(spec, t, 11), 50, 3, SCHEMA)
    again = draw_table(fit_synthesizer(spec, t, 11), 50, 3, SCHEMA)
    other = draw_table(fit_synthesizer(spec, t, 12), 50, 3, SCHEMA)
    pd.testing.assert_frame_equal(one, again)
    assert not one.equals(other)


def test_prototype_fit_gets_the_seed_only_when_it_takes_one():
    _, kwargs = SynthesizerSpec(SCHEMA, prototype=LaplaceHistogramSynth(SCHEMA)).build(9)
    assert kwargs == {"seed": 9}
    proto = IdentitySynth(SCHEMA)
    copy, kwargs = SynthesizerSpec(SCHEMA, prototype=proto).build(9)
    assert kwargs == {} and copy is not proto


def test_seed_tree_roles_and_job_stages_keep_their_keys():
    # the IMs of a seed depend on these numbers: renumbering them changes every audit
    assert [int(r) for r in Role] == list(range(9))
    assert set(SIDES) == {Role.SHADOW_POS, Role.SHADOW_NEG}
    assert [s.value for s in Stage] == [0, 1, 2, 3, 4]
    assert JobKey(Stage.TRAIN, 1, 2) == JobKey(Stage.TRAIN, 1, 2) != JobKey(Stage.SCORE, 1, 2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"engine": "spark"}, "engine"), ({"trials": 0}, "at least 1"), ({"workers": 0}, "workers")],
)
def test_bad_options_raise_parameter_error(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        run_audit(table(), SCHEMA, "gaussian", attacks="distance", **kwargs)


def test_only_a_deterministic_fit_declares_deterministic_fit():
    """The declared property the audit counts runs by: a registry synthesizer that takes a fit
    seed draws at fit time and must not declare deterministic_fit; one that declares it fits
    the same model whatever the seed (so its tables are independent runs)."""
    from synthcert.audit.adapter import FIT_SEED_PARAM, deterministic_fit
    from synthcert.synthesizers.registry import REGISTRY, accepted_params

    declared = []
    for name, info in REGISTRY.items():
        try:
            cls = info.load()
        except SynthcertError:  # an optional extra that is not installed
            continue
        if cls.deterministic_fit:
            declared.append(name)
            assert FIT_SEED_PARAM not in accepted_params(name), name
    assert declared == ["gaussian"]
    one = fit_synthesizer(SynthesizerSpec(SCHEMA, "gaussian"), table(), 1)
    two = fit_synthesizer(SynthesizerSpec(SCHEMA, "gaussian"), table(), 2)
    assert deterministic_fit(one)
    assert draw_table(one, 50, 9, SCHEMA).equals(draw_table(two, 50, 9, SCHEMA))
    assert not deterministic_fit(LaplaceHistogramSynth(SCHEMA))  # undeclared: drawn at fit
    assert deterministic_fit(IdentitySynth(SCHEMA))  # declared by the test double
