"""DP-CTGAN: one record moves the discriminator's clipped gradient sum by at most C, the
sensitivity its accountant assumes; seeds and Opacus's secure mode (issue 16)."""

from __future__ import annotations

import struct
import sys
import types

import numpy as np
import pytest

from synthcert.data.datasets import adult_schema
from synthcert.errors import AssumptionError
from synthcert.seeding import (
    numpy_random_state,
    torch_generator,
    torch_seeded,
    torch_seeds,
    torch_state,
)
from synthcert.synthesizers.ctgan import CTGANSynthesizer

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")
pytest.importorskip("ctgan")

COLS = ["age", "sex", "race", "income"]
TINY = {"embedding_dim": 8, "generator_dim": (16,), "discriminator_dim": (32, 32)}
C = 0.05  # small, so that the clip binds for most rows of the trained discriminator


@pytest.fixture(scope="module")
def trained(adult):
    """A DP discriminator (noise 0 to read the clipped sum) after 24 ordinary DP-SGD steps."""
    from torch.utils.data import DataLoader, TensorDataset

    schema = adult_schema().select(COLS)
    df = adult[COLS].iloc[:400].reset_index(drop=True)
    syn = CTGANSynthesizer(schema, epsilon=1.0, max_grad_norm=C, batch_size=100, **TINY)
    real = torch.from_numpy(syn._one_hot(syn.discretizer.transform(df)))
    torch.manual_seed(0)
    disc = syn._discriminator(real.shape[1])
    opt = torch.optim.Adam(disc.parameters(), lr=2e-3, betas=(0.5, 0.9))
    loader = DataLoader(TensorDataset(real), batch_size=100)
    engine = opacus.PrivacyEngine(accountant="rdp")
    disc, opt, loader = engine.make_private(
        module=disc, optimizer=opt, data_loader=loader, noise_multiplier=0.0,
        max_grad_norm=C, poisson_sampling=True,
    )  # fmt: skip
    k = int(opt.expected_batch_size)
    steps = 0
    while steps < 24:
        for (xb,) in loader:
            fake = syn._activate(torch.randn(k, real.shape[1]))
            syn._discriminator_step(disc, opt, xb, fake)
            steps += 1
    for group in opt.param_groups:
        group["lr"] = 0.0  # from here on, steps only read the gradient
    for module in disc.modules():  # no dropout: the two batches of a pair see the same network
        if isinstance(module, torch.nn.Dropout):  # (eval() would also stop Opacus's hooks)
            module.p = 0.0
    fake = syn._activate(torch.randn(k, real.shape[1]))
    return syn, disc, opt, real, fake, k


def _clipped_sum(disc, opt, k: int, step) -> np.ndarray:
    """B * p.grad after a step with noise 0: sum of clipped real gradients (+ the fakes')."""
    step()
    return np.concatenate([p.grad.detach().numpy().ravel() for p in disc.parameters()]) * k


def test_one_record_moves_the_clipped_sum_by_at_most_c(trained):
    syn, disc, opt, real, fake, k = trained
    assert opt.max_grad_norm == C and opt.noise_multiplier == 0.0
    base = real[:60]
    s0 = _clipped_sum(disc, opt, k, lambda: syn._discriminator_step(disc, opt, base, fake))
    shifts = []
    for i in range(60, 400, 8):  # 43 candidate records, each added to the same batch
        xb = torch.cat([base, real[i : i + 1]])
        s1 = _clipped_sum(disc, opt, k, lambda xb=xb: syn._discriminator_step(disc, opt, xb, fake))
        shifts.append(np.linalg.norm(s1 - s0))
    shifts = np.array(shifts)
    # never above the sensitivity the accountant uses (float32 sums: 1e-4 relative slack) ...
    assert shifts.max() <= C * (1 + 1e-4)
    # ... and the clip binds: the added record's clipped gradient has norm C for most records
    assert np.median(shifts) == pytest.approx(C, rel=1e-3)


def test_the_shift_is_exactly_the_added_records_clipped_gradient(trained):
    # The fakes stay out of the private sum: adding x* changes it by clip_C(grad of
    # softplus(-D(x*))) and by nothing else. (With the old k = m fakes inside the clipping,
    # the shift also held the clipped gradient of one more fake row.)
    from torch.nn import functional

    syn, disc, opt, real, fake, k = trained
    params = [p for p in disc.parameters() if p.requires_grad]
    base = real[:60]
    s0 = _clipped_sum(disc, opt, k, lambda: syn._discriminator_step(disc, opt, base, fake))
    for i in (61, 150, 333):
        x = real[i : i + 1]
        s1 = _clipped_sum(
            disc, opt, k, lambda x=x: syn._discriminator_step(disc, opt, torch.cat([base, x]), fake)
        )
        disc.disable_hooks()
        try:
            grads = torch.autograd.grad(functional.softplus(-disc(x).squeeze(1)).sum(), params)
        finally:
            disc.enable_hooks()
        g = np.concatenate([t.detach().numpy().ravel() for t in grads])
        clipped = g * min(1.0, C / np.linalg.norm(g))
        # Opacus clips with factor C / (norm + 1e-6); float32 sums
        np.testing.assert_allclose(s1 - s0, clipped, rtol=0, atol=2e-4 * C)


LOW_32_TWINS = (5, 5 + (7 << 32))  # seeds that share their low 32 bits


def test_manual_seed_keeps_only_32_bits_which_is_why_it_is_not_used():
    """torch's own behaviour (issue 25, finding 2): ``manual_seed`` keys the Mersenne Twister
    from the low 32 bits, so two 64-bit seeds sharing them give one stream."""
    a, b = (torch.randn(5, generator=torch.Generator().manual_seed(s)) for s in LOW_32_TWINS)
    assert torch.equal(a, b)


def test_torch_state_has_torchs_layout():
    """The state tensor is torch's CPUGeneratorImplState: the header and tail of
    ``manual_seed(s).get_state()`` (left 1, seeded 1, next 0, no cached normal) and its key
    is the MT19937 key numpy's RandomState(s) builds (init_genrand), so a key written at
    bytes 24..5016 is the key torch draws from."""
    state = torch_state(np.random.SeedSequence(1)).numpy().tobytes()
    ref = torch.Generator().manual_seed(5).get_state().numpy().tobytes()
    assert len(state) == len(ref) == 5056
    assert struct.unpack_from("<iiQ", ref, 8) == struct.unpack_from("<iiQ", state, 8) == (1, 1, 0)
    assert state[24 + 8 * 624 :] == ref[24 + 8 * 624 :] == bytes(len(ref) - 24 - 8 * 624)
    key = np.frombuffer(ref, dtype="<u8", count=624, offset=24)
    assert np.array_equal(key, np.random.RandomState(5).get_state()[1].astype(np.uint64))
    # the key of torch_state is numpy's MT19937 key of the sequence
    mt = np.random.MT19937(np.random.SeedSequence(1)).state["state"]["key"]
    assert np.array_equal(np.frombuffer(state, "<u8", 624, 24), mt.astype(np.uint64))
    # a key written this way is drawn from exactly as torch's own: rebuild manual_seed(5)
    rebuilt = bytearray(state)
    rebuilt[24 : 24 + 8 * 624] = key.tobytes()
    g = torch.Generator()
    g.set_state(torch.frombuffer(rebuilt, dtype=torch.uint8).clone())
    assert torch.equal(
        torch.randn(7, generator=g), torch.randn(7, generator=torch.Generator().manual_seed(5))
    )


@pytest.mark.parametrize("kind", ["generator", "global", "numpy"])
def test_every_torch_stream_keeps_more_than_32_bits_of_its_seed(kind):
    """Two seeds sharing their low 32 bits give different draws; one seed, the same draws."""

    def draw(seed: int) -> np.ndarray:
        seq = np.random.SeedSequence(seed)
        if kind == "generator":  # Poisson batches, DP-SGD noise, ctgan's torch state
            return torch.randn(5, generator=torch_generator(seq)).numpy()
        if kind == "numpy":  # ctgan's numpy state (no DP)
            return numpy_random_state(seq).standard_normal(5)
        with torch_seeded(seq):  # initialisation, training draws, sampling
            return torch.randn(5).numpy()

    a, b = (draw(s) for s in LOW_32_TWINS)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, draw(LOW_32_TWINS[0]))
    # the streams spawned for one fit are distinct children of the secret sequence
    children = torch_seeds(np.random.SeedSequence(LOW_32_TWINS[0]), 4)
    draws = [torch.randn(3, generator=torch_generator(c)) for c in children]
    assert len({tuple(d.tolist()) for d in draws}) == 4


def test_torch_seeded_restores_the_global_generator():
    before = torch.get_rng_state()
    with torch_seeded(np.random.SeedSequence(3)):
        torch.randn(4)
    assert torch.equal(torch.get_rng_state(), before)


def test_secure_mode_without_torchcsprng_refuses(adult, monkeypatch):
    monkeypatch.setitem(sys.modules, "torchcsprng", None)  # import fails
    schema = adult_schema().select(COLS)
    syn = CTGANSynthesizer(schema, epsilon=1.0, epochs=1, secure_mode=True, min_rows=200, **TINY)
    with pytest.raises(AssumptionError, match="torchcsprng"):
        syn.fit(adult[COLS].iloc[:200])


def test_secure_mode_uses_the_secure_generator_and_ignores_the_seed(adult, monkeypatch):
    # a stand-in for torchcsprng: the point is that Opacus draws noise and batches from it and
    # that no seeded generator is passed (Opacus refuses a seed in secure mode)
    made = []

    def create_random_device_generator(path):
        made.append(path)
        return torch.Generator().manual_seed(int.from_bytes(np.random.bytes(8), "little"))

    fake = types.ModuleType("torchcsprng")
    fake.create_random_device_generator = create_random_device_generator
    monkeypatch.setitem(sys.modules, "torchcsprng", fake)
    schema = adult_schema().select(COLS)
    kw = dict(epsilon=2.0, epochs=1, batch_size=100, seed=1, secure_mode=True, min_rows=200, **TINY)
    syn = CTGANSynthesizer(schema, **kw).fit(adult[COLS].iloc[:300])
    assert made == ["/dev/urandom"]
    assert syn.accountant.check_within_budget().epsilon <= 2.0
    assert syn.get_params()["secure_mode"] is True
