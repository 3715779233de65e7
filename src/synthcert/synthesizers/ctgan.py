"""CTGAN (Xu et al. 2019; thesis Table 4.2), and a DP variant with DP-SGD on the discriminator.

Without ``epsilon`` this wraps ``ctgan.CTGAN`` as published (mode-specific normalisation,
conditional generator, WGAN-GP). With ``epsilon`` it trains a GAN in the style of DP-CTGAN
(Fang et al. 2022) whose every contact with the data is private:

* the data representation is public: each column is one-hot over its codes from the shared
  :class:`~synthcert.data.discretize.Discretizer` (numeric columns in public-bound bins,
  decoded within the bin), because CTGAN's Gaussian-mixture normaliser and its
  training-by-sampling use the data's own modes and category frequencies;
* the generator is unconditional, and real batches are Poisson-sampled by Opacus, which its
  RDP accountant assumes (training-by-sampling would break that assumption);
* the discriminator is trained by DP-SGD (per-example clipping + Gaussian noise, Opacus) with
  pac = 1 and the standard GAN loss: the WGAN gradient penalty (``autograd.grad`` with
  ``create_graph=True``) cannot pass through Opacus's per-sample hooks, so it is dropped
  (as in smartnoise's DPCTGAN, whose default loss is also cross-entropy);
* the generator learns only through the discriminator (post-processing); its forward pass
  through the discriminator runs with the per-sample hooks disabled, and the generator's
  samples never touch the private module outside a step.

The noise multiplier is set so that the planned number of steps spends (epsilon, delta)
under the RDP accountant; the RDP curve lands in ``accountant`` (one entry per order).
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Self

import numpy as np
import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.encode import MissingPolicy, category_codes, numeric_values, prepare_frame
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.synthesizers.base import (
    DEFAULT_DELTA,
    NO_PRIVACY,
    PrivacyGuarantee,
    Seed,
    Synthesizer,
)
from synthcert.synthesizers.copula import typed_frame
from synthcert.synthesizers.gaussian import seed_sequence

DEFAULT_EPOCHS = 300  # ctgan's default; about 20 s per epoch on Adult (30k rows) here
DEFAULT_DP_EPOCHS = 20
Progress = Callable[[int, int], None]
MISSING_LEVEL = "__missing__"  # the extra category of a nullable categorical column (ctgan)


def indicator_name(column: str) -> str:
    """Name of the missingness indicator column given to ctgan for a nullable numeric column."""
    return f"{column}__missing"


def int_seed(seed: Seed) -> int:
    """A 31-bit integer seed derived from any :data:`Seed` (None gives a fresh one)."""
    return int(seed_sequence(seed).generate_state(1)[0] & 0x7FFFFFFF)


@contextlib.contextmanager
def torch_seeded(seed: int) -> Iterator[None]:
    """Seed torch's global generator for the block and restore it after (no global leak)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


class CTGANSynthesizer(Synthesizer):
    """CTGAN; with ``epsilon``, DP-SGD on the discriminator (see the module docstring).

    ``epochs`` defaults to 300 without DP (ctgan's default) and 20 with DP; ``batch_size``
    500 (a multiple of ``pac`` = 10 without DP; the expected Poisson batch under DP).
    ``max_grad_norm`` is the per-example clipping norm of DP-SGD.
    """

    name: ClassVar[str] = "ctgan"
    description: ClassVar[str] = "Conditional tabular GAN (CTGAN); DP variant after DP-CTGAN."
    privacy_model: ClassVar[str] = "approx-dp"

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        epochs: int | None = None,
        batch_size: int = 500,
        embedding_dim: int = 128,
        generator_dim: tuple[int, ...] = (256, 256),
        discriminator_dim: tuple[int, ...] = (256, 256),
        generator_lr: float = 2e-4,
        discriminator_lr: float = 2e-4,
        max_grad_norm: float = 1.0,
        pac: int = 10,
        bins: int = DEFAULT_BINS,
        missing: MissingPolicy = "model",
        seed: Seed = None,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(schema)
        if epsilon is not None:
            delta = DEFAULT_DELTA if delta is None else delta
            if not (epsilon > 0 and np.isfinite(epsilon)):
                raise AssumptionError(
                    f"epsilon must be positive and finite, got {epsilon}",
                    assumption="0 < epsilon < inf",
                    admissible="> 0, or None for no DP",
                )
            if not 0 < delta < 1:
                raise AssumptionError(
                    f"DP-SGD needs 0 < delta < 1, got {delta}",
                    assumption="0 < delta < 1",
                    admissible="for example 1e-5",
                )
        if epochs is not None and epochs < 1:
            raise AssumptionError("epochs must be at least 1", assumption="epochs >= 1")
        if batch_size < 2 or (epsilon is None and batch_size % (2 * pac) != 0):
            raise AssumptionError(
                f"batch_size {batch_size} must be a positive multiple of 2 * pac = {2 * pac} "
                "(ctgan splits batches into pac groups)",
                assumption="batch_size % (2 pac) == 0",
                admissible=f"for example {500 // (2 * pac) * 2 * pac}",
            )
        if not max_grad_norm > 0:
            raise AssumptionError("max_grad_norm must be positive", assumption="C > 0")
        self.epsilon = epsilon
        self.delta = delta
        self.epochs = int(epochs or (DEFAULT_EPOCHS if epsilon is None else DEFAULT_DP_EPOCHS))
        self.batch_size = int(batch_size)
        self.embedding_dim = int(embedding_dim)
        self.generator_dim = tuple(generator_dim)
        self.discriminator_dim = tuple(discriminator_dim)
        self.generator_lr = float(generator_lr)
        self.discriminator_lr = float(discriminator_lr)
        self.max_grad_norm = float(max_grad_norm)
        self.pac = int(pac)
        self.bins = int(bins)
        self.missing = missing
        self.discretizer = Discretizer(schema, bins=bins, missing=missing)
        self.seed = seed
        self.progress = progress
        self.accountant = PrivacyAccountant(epsilon, delta)

    def params(self) -> dict[str, Any]:
        """Constructor parameters, for provenance."""
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "embedding_dim": self.embedding_dim,
            "generator_dim": list(self.generator_dim),
            "discriminator_dim": list(self.discriminator_dim),
            "generator_lr": self.generator_lr,
            "discriminator_lr": self.discriminator_lr,
            "max_grad_norm": self.max_grad_norm,
            "pac": self.pac,
            "bins": self.bins,
        }

    # -- fitting -------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Self:
        """Train the GAN (ctgan as published, or the DP variant when epsilon is set)."""
        t0 = time.perf_counter()
        self.accountant = PrivacyAccountant(self.epsilon, self.delta)
        if self.epsilon is None:
            self._fit_ctgan(table)
        else:
            self._fit_dp(table)
            self.accountant.check_within_budget()
        self.fit_seconds = time.perf_counter() - t0
        self._fitted = True
        return self

    def _clean_frame(self, table: pd.DataFrame) -> pd.DataFrame:
        """Schema columns only: numbers as float64, categories as their names.

        A nullable numeric column gets an indicator column ``<name>__missing`` ("0"/"1",
        discrete) and its missing values the public fill, the centre of its bounds (in the
        log scale for a log column); a nullable categorical column gets the extra category
        ``MISSING_LEVEL``. ``rows_dropped_missing_`` (private) counts the dropped rows.
        """
        frame, self.rows_dropped_missing_ = prepare_frame(table, self.schema, missing=self.missing)
        out: dict[str, Any] = {}
        for col in self.schema.columns:
            if isinstance(col, NumericColumn):
                x = numeric_values(frame[col.name], col)
                absent = np.isnan(x)
                lo, hi = col.model_bounds
                out[col.name] = np.where(absent, col.from_model(np.array((lo + hi) / 2)), x)
                if col.nullable:
                    out[indicator_name(col.name)] = np.where(absent, "1", "0").astype(object)
            else:
                codes = category_codes(frame[col.name], col)
                names = np.asarray([*col.categories, MISSING_LEVEL], dtype=object)
                out[col.name] = names[np.where(codes < 0, len(col.categories), codes)]
        return pd.DataFrame(out)

    def _discrete_columns(self) -> list[str]:
        """The categorical columns and the indicators of nullable numeric columns."""
        return [c.name for c in self.schema.categorical] + [
            indicator_name(c.name) for c in self.schema.numeric if c.nullable
        ]

    def _fit_ctgan(self, table: pd.DataFrame) -> None:
        from ctgan import CTGAN

        frame = self._clean_frame(table)
        if len(frame) < self.pac:
            raise DataError(f"CTGAN needs at least pac={self.pac} complete rows, got {len(frame)}")
        self.model_ = CTGAN(
            embedding_dim=self.embedding_dim,
            generator_dim=self.generator_dim,
            discriminator_dim=self.discriminator_dim,
            generator_lr=self.generator_lr,
            discriminator_lr=self.discriminator_lr,
            batch_size=self.batch_size,
            epochs=self.epochs,
            pac=self.pac,
            enable_gpu=False,
        )
        self.model_.set_random_state(int_seed(self.seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model_.fit(frame, discrete_columns=self._discrete_columns())

    def _spans(self) -> list[int]:
        return list(self.discretizer.cardinalities)

    def _one_hot(self, codes: np.ndarray) -> np.ndarray:
        spans = self._spans()
        offsets = np.concatenate([[0], np.cumsum(spans)[:-1]])
        x = np.zeros((len(codes), int(sum(spans))), dtype=np.float32)
        rows = np.arange(len(codes))[:, None]
        x[rows, codes + offsets[None, :]] = 1.0
        return x

    def _activate(self, raw: Any, hard: bool = False) -> Any:
        """Gumbel-softmax per column span (ctgan's activation for discrete outputs)."""
        import torch
        from torch.nn import functional

        parts, st = [], 0
        for width in self._spans():
            parts.append(functional.gumbel_softmax(raw[:, st : st + width], tau=0.2, hard=hard))
            st += width
        return torch.cat(parts, dim=1)

    def _fit_dp(self, table: pd.DataFrame) -> None:
        import torch
        from ctgan.synthesizers.ctgan import Generator
        from opacus import PrivacyEngine
        from opacus.accountants.analysis.rdp import compute_rdp
        from opacus.accountants.rdp import RDPAccountant
        from opacus.accountants.utils import get_noise_multiplier
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        codes, self.rows_dropped_missing_ = self.discretizer.transform_counted(table)
        n = len(codes)
        if n < 2:
            raise DataError(f"DP-CTGAN needs at least 2 complete rows, got {n}")
        real = torch.from_numpy(self._one_hot(codes))
        dim = real.shape[1]
        seed = int_seed(self.seed)
        with torch_seeded(seed), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gen = Generator(self.embedding_dim, self.generator_dim, dim)
            layers: list[nn.Module] = []
            d_in = dim
            for width in self.discriminator_dim:
                layers += [nn.Linear(d_in, width), nn.LeakyReLU(0.2), nn.Dropout(0.5)]
                d_in = width
            disc = nn.Sequential(*layers, nn.Linear(d_in, 1))
            opt_g = torch.optim.Adam(gen.parameters(), lr=self.generator_lr, betas=(0.5, 0.9))
            opt_d = torch.optim.Adam(disc.parameters(), lr=self.discriminator_lr, betas=(0.5, 0.9))
            batch = min(self.batch_size, n)
            loader = DataLoader(
                TensorDataset(real),
                batch_size=batch,
                shuffle=False,
                generator=torch.Generator().manual_seed(seed),
            )
            steps_per_epoch = len(loader)
            q = 1.0 / steps_per_epoch
            steps = self.epochs * steps_per_epoch
            sigma = get_noise_multiplier(
                target_epsilon=self.epsilon,
                target_delta=self.delta,
                sample_rate=q,
                steps=steps,
                accountant="rdp",
                epsilon_tolerance=0.005,
            )
            engine = PrivacyEngine(accountant="rdp")
            disc, opt_d, loader = engine.make_private(
                module=disc,
                optimizer=opt_d,
                data_loader=loader,
                noise_multiplier=sigma,
                max_grad_norm=self.max_grad_norm,
                poisson_sampling=True,
                noise_generator=torch.Generator().manual_seed(seed + 1),
            )
            bce = nn.functional.softplus
            taken = 0
            for epoch in range(self.epochs):
                for (xb,) in loader:
                    taken += 1
                    m = xb.shape[0]
                    k = max(m, 1)  # an empty Poisson batch still takes a (noisy) step
                    z = torch.randn(k, self.embedding_dim)
                    with torch.no_grad():
                        fake = self._activate(gen(z))
                    opt_d.zero_grad(set_to_none=True)
                    # one forward pass over real and fake rows: per-example gradients of a
                    # loss summed over rows (Opacus undoes the mean over the m + k rows)
                    out = disc(torch.cat([xb, fake], dim=0)).squeeze(1)
                    loss_d = (bce(-out[:m]).sum() + bce(out[m:]).sum()) / (m + k)
                    loss_d.backward()
                    opt_d.step()
                    # generator step: through the discriminator with its hooks off
                    disc.disable_hooks()
                    for p in disc.parameters():
                        p.requires_grad_(False)
                    z = torch.randn(batch, self.embedding_dim)
                    loss_g = bce(-disc(self._activate(gen(z))).squeeze(1)).mean()
                    opt_g.zero_grad(set_to_none=True)
                    loss_g.backward()
                    opt_g.step()
                    for p in disc.parameters():
                        p.requires_grad_(True)
                    disc.enable_hooks()
                if self.progress is not None:
                    self.progress(epoch + 1, self.epochs)
        if taken != steps:
            raise AssumptionError(f"DP-SGD ran {taken} steps, planned {steps}")
        orders = [float(a) for a in RDPAccountant.DEFAULT_ALPHAS]
        rdp = compute_rdp(q=q, noise_multiplier=sigma, steps=steps, orders=orders)
        self.accountant.record_rdp_curve("dp-sgd:discriminator", orders, [float(r) for r in rdp])
        self.noise_multiplier_ = float(sigma)
        self.steps_ = steps
        self.sample_rate_ = q
        self.generator_ = gen.eval()

    # -- sampling ------------------------------------------------------------------------
    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Draw ``n`` rows; numbers clipped to public bounds, integers rounded."""
        self._check_fitted()
        if n < 0:
            raise ValueError("n must be non-negative")
        s = int_seed(seed)
        if self.epsilon is None:
            self.model_.set_random_state(s)
            if n == 0:  # ctgan cannot sample no rows
                return typed_frame(self.schema, {c.name: np.empty(0) for c in self.schema.columns})
            return self._typed(self.model_.sample(n))
        import torch

        rng = np.random.default_rng(seed_sequence(seed))
        with torch_seeded(s), torch.no_grad():
            z = torch.randn(n, self.embedding_dim)
            onehot = self._activate(self.generator_(z), hard=True).numpy() if n else None
        spans = self._spans()
        if onehot is None:
            codes = np.zeros((0, len(spans)), dtype=np.int64)
        else:
            bounds = np.cumsum([0, *spans])
            codes = np.column_stack(
                [onehot[:, bounds[j] : bounds[j + 1]].argmax(axis=1) for j in range(len(spans))]
            )
        return self.discretizer.inverse_transform(codes, rng)

    def _typed(self, raw: pd.DataFrame) -> pd.DataFrame:
        """ctgan's output as a schema-valid frame (bounds clipped, categories declared, missing
        where the indicator or the missing level says so)."""
        data: dict[str, np.ndarray] = {}
        for col in self.schema.columns:
            if isinstance(col, CategoricalColumn):
                text = raw[col.name].astype(str)
                absent = (text == MISSING_LEVEL).to_numpy()
                codes = category_codes(text.where(~absent, col.categories[0]), col)
                data[col.name] = np.where(absent, -1, codes)
            else:
                x = np.asarray(pd.to_numeric(raw[col.name]), dtype=np.float64)
                if col.nullable:
                    flag = raw[indicator_name(col.name)].astype(str).to_numpy()
                    x = np.where(flag == "1", np.nan, x)
                data[col.name] = x
        return typed_frame(self.schema, data)

    # -- privacy -------------------------------------------------------------------------
    @property
    def privacy(self) -> PrivacyGuarantee:
        """(epsilon, delta)-DP from Opacus's RDP curve of DP-SGD; none without epsilon."""
        if self.epsilon is None:
            return NO_PRIVACY
        sigma = getattr(self, "noise_multiplier_", None)
        return self.accountant.guarantee(
            note="DP-SGD on the discriminator (Opacus RDP accountant, Poisson sampling, "
            f"noise multiplier {sigma}, clip {self.max_grad_norm}); public one-hot "
            "representation on public bins; add/remove neighbouring"
        )
