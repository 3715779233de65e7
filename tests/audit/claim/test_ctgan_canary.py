"""DP-CTGAN's gradient canary: the auditing hook's DP-SGD steps and their projection."""

from __future__ import annotations

import numpy as np
import pytest

from synthcert.audit.claim.ctgan_canary import (
    CANARY_MEASUREMENT,
    canary_projection,
    canary_row,
    gradient_canary_measurements,
    one_torch_thread,
)
from synthcert.audit.claim.design import build_pair
from synthcert.audit.claim.run import AuditSetup, fit_once
from synthcert.data.schema import CategoricalColumn, Schema
from synthcert.privacy.audit_hook import NoisyGradientSum, recording_measurements
from synthcert.synthesizers.ctgan import CTGANSynthesizer

pytest.importorskip("opacus")

ONE_COLUMN = Schema((CategoricalColumn("x", ("0", "1")),))
# the twins' public settings: one DP-SGD step at q = 1, a small network, every per-example
# gradient clipped (C far below its norm)
SMALL = {
    "epochs": 1,
    "embedding_dim": 8,
    "generator_dim": (16,),
    "discriminator_dim": (16,),
    "max_grad_norm": 1e-3,
}


def small_ctgan(epsilon: float, seed: int) -> CTGANSynthesizer:
    return CTGANSynthesizer(
        ONE_COLUMN, epsilon=epsilon, delta=1e-2, seed=seed, min_rows=10, **SMALL
    )


def test_recording_the_steps_does_not_change_the_fit_or_its_rows():
    pair = build_pair(ONE_COLUMN, "unbounded")
    plain = small_ctgan(4.0, 3).fit(pair.with_canary)
    with recording_measurements() as seen:
        audited = small_ctgan(4.0, 3).fit(pair.with_canary)
    steps = [s for s in seen if isinstance(s, NoisyGradientSum)]
    assert len(steps) == audited.steps_ == 1
    for a, b in zip(plain.generator_.parameters(), audited.generator_.parameters(), strict=True):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert plain.sample(30, seed=1).equals(audited.sample(30, seed=1))
    step = steps[0]
    assert step.rows.shape == (11, 2) and step.clipped.shape == (11, step.noisy.size)
    # every example clipped to C; the noise has sd sigma C on each coordinate
    norms = np.linalg.norm(step.clipped, axis=1)
    np.testing.assert_allclose(norms, 1e-3, rtol=1e-5)
    assert step.scale == pytest.approx(audited.noise_multiplier_ * 1e-3)
    noise = (step.noisy - step.clipped.sum(axis=0)) / step.scale
    assert abs(noise.mean()) < 4 / np.sqrt(noise.size) and 0.7 < noise.std() < 1.3
    assert vars(plain).keys() == vars(audited).keys()  # nothing more kept on the model


def test_the_projection_is_a_unit_gaussian_shifted_by_one_over_sigma_with_the_canary():
    setup = AuditSetup("ctgan", 4.0, 1e-2, {**SMALL, "min_rows": 10}, build_pair(
        ONE_COLUMN, "unbounded"), 0)  # fmt: skip
    seeds = np.random.SeedSequence(5).spawn(40)
    z: dict[int, list[float]] = {0: [], 1: []}
    shifts = []
    with one_torch_thread():
        for side in (0, 1):
            for seed in seeds[side * 20 : side * 20 + 20]:
                synth, seen = fit_once(setup, side, seed)
                (m,) = [m for m in seen if m.name == CANARY_MEASUREMENT]
                assert m.noise == "gaussian" and m.scale == 1.0 and m.noisy.shape == (1,)
                # the exact shift: 1/sigma with the canary (its gradient clipped), 0 without
                expected = 1.0 / synth.noise_multiplier_ if side else 0.0
                assert m.true[0] == pytest.approx(expected, rel=1e-4)
                z[side].append(m.noisy[0])
                if side:
                    shifts.append(expected)
    # each side's 20 scores are N(shift, 1): their mean lies within 4 sd (4 / sqrt(20) = 0.89)
    # of the shift, 1/sigma = 1.33 at (4, 1e-2) with the canary, 0 without (a score without
    # the shift, or with twice it, fails the IN side)
    bound = 4.0 / np.sqrt(20)
    assert abs(np.mean(z[0])) < bound
    assert np.mean(shifts) > bound  # the shift is larger than what this check resolves
    assert abs(np.mean(z[1]) - np.mean(shifts)) < bound


def test_a_step_without_the_canary_projects_pure_noise_on_a_fixed_direction():
    rng = np.random.default_rng(0)
    clipped = rng.normal(size=(3, 5))
    rows = np.array([[1.0, 0.0]] * 3)
    noise = rng.normal(size=5) * 0.5
    step = NoisyGradientSum("s", 0.5, clipped.sum(axis=0) + noise, clipped, rows)
    z, shift = canary_projection(step, np.array([0.0, 1.0]))
    assert shift == 0.0
    assert z == pytest.approx(noise.sum() / np.sqrt(5) / 0.5)


def test_other_synthesizers_give_no_gradient_measurement():
    assert gradient_canary_measurements([], None, None) == []


def test_the_canary_row_is_dp_ctgans_own_encoding():
    pair = build_pair(Schema((*ONE_COLUMN.columns, CategoricalColumn("y", ("a", "b", "c")))),
                      "unbounded")  # fmt: skip
    synth = CTGANSynthesizer(pair.schema, epsilon=1.0, min_rows=10)
    expected = synth._one_hot(synth.discretizer.transform(pair.canary))[0]
    np.testing.assert_array_equal(canary_row(synth, pair), expected)
