"""CTGAN (Xu et al. 2019; thesis Table 4.2), and a DP variant with DP-SGD on the discriminator.

Without ``epsilon`` this wraps ``ctgan.CTGAN`` as published (mode-specific normalisation,
conditional generator, WGAN-GP). With ``epsilon`` it trains a GAN in the style of DP-CTGAN
(Fang et al. 2022) whose every contact with the data is private:

* the data representation is public: each column is one-hot over its codes from the shared
  :class:`~synthcert.data.discretize.Discretizer` (numeric columns in public-bound bins,
  decoded within the bin), because CTGAN's Gaussian-mixture normaliser and its
  training-by-sampling use the data's own modes and category frequencies;
* the generator is unconditional, and real batches are Poisson-sampled at a public rate
  q = 1/ceil(N/b), N the declared minimum table size (n is private under add/remove
  neighbours), which the RDP accountant assumes (training-by-sampling would break that);
* the discriminator is trained by DP-SGD (per-example clipping + Gaussian noise, Opacus) with
  pac = 1 and the standard GAN loss: the WGAN gradient penalty (``autograd.grad`` with
  ``create_graph=True``) cannot pass through Opacus's per-sample hooks, so it is dropped
  (as in smartnoise's DPCTGAN, whose default loss is also cross-entropy);
* only the real rows pass through the private optimizer, so one record changes the clipped
  sum by at most C = ``max_grad_norm``, the sensitivity the accountant assumes (noise std
  sigma C). The fake rows' gradient, a fixed public number of them per step (Opacus's expected
  batch size), depends only on the generator and the current discriminator (post-processing
  of earlier private steps): it is computed outside Opacus's hooks and added after the noise.
  (Putting m fakes through the per-example clipping beside m Poisson-sampled real rows, as
  before, let one added record add a real and a fake row: sensitivity up to 2C.)
* every torch generator (initialisation and training draws, Poisson batches, DP-SGD noise,
  sampling) has its whole MT19937 state keyed from its own child of the private SeedSequence
  (128 bits of OS entropy unless a secret seed is given;
  :func:`~synthcert.seeding.torch_state`), never through ``manual_seed``, which keeps 32
  bits; ``secure_mode=True`` hands noise and sampling to Opacus's secure mode (a CSPRNG
  from /dev/urandom, each noise coordinate a sum of 4 Gaussian draws against floating-point
  attacks); it needs ``torchcsprng`` and ignores the seed.
* the generator learns only through the discriminator (post-processing); its forward pass
  through the discriminator runs with the per-sample hooks disabled, and the generator's
  samples never touch the private module outside a step.

The noise multiplier is set so that the planned number of steps spends (epsilon, delta)
under the RDP accountant; the RDP curve lands in ``accountant`` (one entry per order).

Missing values (both variants) are modelled by :mod:`synthcert.synthesizers.ctgan_missing`:
each row's missingness pattern is drawn first (exactly without DP, from a noisy histogram
composed with DP-SGD under DP), the values conditionally on it; its docstring has the DP
accounting.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.encode import (
    MissingPolicy,
    category_codes,
    clipped_typed_frame,
    numeric_values,
    prepare_frame,
)
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError, ParameterError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.privacy.dpsgd import SGD_STEP, calibrate_noise_multiplier, dpsgd_rdp
from synthcert.privacy.parameters import check_delta, check_epsilon
from synthcert.seeding import (
    Seed,
    numpy_random_state,
    seed_sequence,
    torch_generator,
    torch_seeded,
    torch_seeds,
)
from synthcert.synthesizers.base import (
    DEFAULT_DELTA,
    DPSynthesizer,
    cached_discretizer,
    check_bins,
)
from synthcert.synthesizers.ctgan_missing import (
    MISSING_LEVEL,
    PATTERN_BUDGET_SHARE,
    PATTERN_COLUMN,
    PatternConditioner,
    exact_patterns,
    label_bits,
    missing_blocks,
    noisy_patterns,
    pattern_labels,
    pattern_rho,
    sample_by_pattern,
)

DEFAULT_EPOCHS = 300  # ctgan's default; about 20 s per epoch on Adult (30k rows) here
DEFAULT_DP_EPOCHS = 20
DP_SGD_MECHANISM = "DP-SGD on the discriminator (Opacus, Poisson sampling)"
PATTERN_MECHANISM = (
    "discrete Gaussian histogram of the missingness patterns (nullable columns only)"
)
Progress = Callable[[int, int], None]


class CTGANSynthesizer(DPSynthesizer):
    """CTGAN; with ``epsilon``, DP-SGD on the discriminator (see the module docstring).

    ``epochs`` defaults to 300 without DP (ctgan's default) and 20 with DP; ``batch_size``
    500 (a multiple of ``pac`` = 10 without DP; the expected Poisson batch under DP).
    ``max_grad_norm`` is the per-example clipping norm C of DP-SGD (the per-step sensitivity).
    ``secure_mode`` (DP only): Opacus's secure mode, see the module docstring.

    Parameters
    ----------
    schema : Schema
        The public schema.
    epsilon, delta : float, optional
        The DP-SGD budget (delta default 1e-5); None trains ctgan as published.
    epochs : int, optional
        Training epochs (default 300, or 20 with DP).
    batch_size, embedding_dim, generator_dim, discriminator_dim : optional
        ctgan's settings (batch 500, embedding 128, layers (256, 256)).
    generator_lr, discriminator_lr, pac : optional
        ctgan's settings (2e-4, 2e-4, 10).
    max_grad_norm : float, default 1.0
        DP-SGD's per-example clipping norm C.
    bins : int, default 20
        Public bins of the DP variant's one-hot representation.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of every torch generator.
    progress : callable, optional
        Called with (epoch, epochs).
    secure_mode : bool, default False
        Opacus's secure mode (needs torchcsprng).
    min_rows : int, optional
        Public minimum table size N fixing DP-SGD's sampling rate (required with DP).

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> synth = CTGANSynthesizer(Schema((NumericColumn("x", 0, 1),)), epsilon=1.0, epochs=2)
    >>> synth.get_params()["epochs"], synth.target_delta()
    (2, 1e-05)
    """

    name: ClassVar[str] = "ctgan"
    description: ClassVar[str] = "Conditional tabular GAN (CTGAN); DP variant after DP-CTGAN."
    privacy_model: ClassVar[str] = "approx-dp"
    neighboring = "unbounded"
    mechanisms = (DP_SGD_MECHANISM, PATTERN_MECHANISM)
    default_delta: ClassVar[float | None] = DEFAULT_DELTA

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
        secure_mode: bool = False,
        min_rows: int | None = None,
    ) -> None:
        self._store_params(locals())

    def validate_params(self) -> None:
        """Check the budget (DP-SGD needs 0 < delta < 1), the epochs, batches and clip norm.

        Raises
        ------
        AssumptionError
            If epsilon is not positive and finite, or delta is outside (0, 1) under DP.
        ParameterError
            If ``epochs < 1``, ``batch_size`` is not a multiple of ``2 * pac`` (without DP) or
            is below 2, ``max_grad_norm`` is not positive, or ``bins < 2``.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> CTGANSynthesizer(Schema((NumericColumn("x", 0, 1),)), epochs=0).validate_params()
        Traceback (most recent call last):
        ...
        synthcert.errors.ParameterError: epochs must be at least 1, got 0
        """
        super().validate_params()
        if self.epsilon is not None:
            check_epsilon(self.epsilon)
            check_delta(self.target_delta(), pure=False)  # DP-SGD's accounting needs delta > 0
        if self.epochs is not None and self.epochs < 1:
            raise ParameterError(f"epochs must be at least 1, got {self.epochs}")
        pac = int(self.pac)
        if self.batch_size < 2 or (self.epsilon is None and self.batch_size % (2 * pac) != 0):
            raise ParameterError(
                f"batch_size {self.batch_size} must be a positive multiple of 2 * pac = "
                f"{2 * pac} (ctgan splits batches into pac groups); for example "
                f"{500 // (2 * pac) * 2 * pac}"
            )
        if not self.max_grad_norm > 0:
            raise ParameterError(f"max_grad_norm must be positive, got {self.max_grad_norm}")
        check_bins(self.bins)

    @property
    def discretizer(self) -> Discretizer:
        """The public bins of the DP variant's one-hot representation."""
        return cached_discretizer(self)

    # -- fitting -------------------------------------------------------------------------
    def _fit(self, table: pd.DataFrame) -> None:
        """Train the GAN (ctgan as published, or the DP variant when epsilon is set)."""
        t0 = time.perf_counter()
        self.accountant = self.new_accountant()
        default = DEFAULT_EPOCHS if self.epsilon is None else DEFAULT_DP_EPOCHS
        self.epochs_ = int(self.epochs or default)
        if self.epsilon is None:
            self._fit_ctgan(table)
        else:
            self._fit_dp(table)
            self.accountant.check_within_budget()
        self.fit_seconds = time.perf_counter() - t0

    def _clean_frame(self, table: pd.DataFrame) -> pd.DataFrame:
        """Schema columns only: numbers as float64, categories as their names.

        A missing numeric value gets the public fill, the centre of its bounds (in the log
        scale for a log column); a missing category the extra level ``MISSING_LEVEL``. With
        nullable columns the frame ends with the discrete column ``PATTERN_COLUMN``, the
        row's missingness pattern (:mod:`~synthcert.synthesizers.ctgan_missing`).
        ``rows_dropped_missing_`` (private) counts the dropped rows.
        """
        frame, self.rows_dropped_missing_ = prepare_frame(table, self.schema, missing=self.missing)
        out: dict[str, Any] = {}
        absent: dict[str, np.ndarray] = {}
        for col in self.schema.columns:
            if isinstance(col, NumericColumn):
                x = numeric_values(frame[col.name], col)
                absent[col.name] = np.isnan(x)
                lo, hi = col.model_bounds
                fill = col.from_model(np.array((lo + hi) / 2))
                out[col.name] = np.where(absent[col.name], fill, x)
            else:
                codes = category_codes(frame[col.name], col)
                absent[col.name] = codes < 0
                names = np.asarray([*col.categories, MISSING_LEVEL], dtype=object)
                out[col.name] = names[np.where(codes < 0, len(col.categories), codes)]
        if self._pattern_names():
            matrix = np.column_stack([absent[c] for c in self._pattern_names()])
            out[PATTERN_COLUMN] = pattern_labels(matrix)
        return pd.DataFrame(out)

    def privacy_claim(self, n_out: int) -> PrivacyClaim:
        """The requested (epsilon, delta) (:meth:`DPSynthesizer.privacy_claim`), naming the
        pattern histogram only when it ran: a nullable column and ``missing="model"``, both
        public (the schema and the policy), so the list never depends on the data."""
        claim = super().privacy_claim(n_out)
        if claim.epsilon is None or self._pattern_names():
            return claim
        kept = tuple(m for m in claim.mechanisms if m != PATTERN_MECHANISM)
        return dataclasses.replace(claim, mechanisms=kept)

    def _pattern_names(self) -> list[str]:
        """The columns of the missingness pattern: nullable ones, unless missing="drop"."""
        if self.missing == "drop":
            return []
        return [c.name for c in self.schema.columns if c.nullable]

    def _discrete_columns(self) -> list[str]:
        """The categorical columns and, with nullable columns, ``PATTERN_COLUMN``."""
        cats = [c.name for c in self.schema.categorical]
        return cats + ([PATTERN_COLUMN] if self._pattern_names() else [])

    @staticmethod
    def _random_states(seed: Seed) -> tuple[np.random.RandomState, Any]:
        """ctgan's (numpy, torch) random states, both keyed in full from the SeedSequence of
        ``seed`` (``set_random_state(int)`` would keep 32 bits of it)."""
        numpy_seq, torch_seq = seed_sequence(seed).spawn(2)
        return numpy_random_state(numpy_seq), torch_generator(torch_seq)

    def _fit_ctgan(self, table: pd.DataFrame) -> None:
        import joblib
        from ctgan import CTGAN

        frame = self._clean_frame(table)
        if len(frame) < self.pac:
            # no count in the text: under add/remove neighbours the table size is private
            raise DataError(f"CTGAN needs at least pac={self.pac} complete rows")
        self.model_ = CTGAN(
            embedding_dim=self.embedding_dim,
            generator_dim=self.generator_dim,
            discriminator_dim=self.discriminator_dim,
            generator_lr=self.generator_lr,
            discriminator_lr=self.discriminator_lr,
            batch_size=self.batch_size,
            epochs=self.epochs_,
            pac=self.pac,
            enable_gpu=False,
        )
        self.model_.set_random_state(self._random_states(self.seed))
        # ctgan transforms tables of 500+ rows in joblib worker processes (n_jobs=-1): starting
        # them costs ~25 s on a shared 2-core machine for the same output; run in-process
        with (
            warnings.catch_warnings(),
            joblib.parallel_config(backend="sequential"),
            reporting_epochs(self.progress),
        ):
            warnings.simplefilter("ignore")
            self.model_.fit(frame, discrete_columns=self._discrete_columns())
        names = self._pattern_names()
        if names:  # the exact pattern distribution (no DP) and its blocks (private)
            absent = label_bits(frame[PATTERN_COLUMN].to_numpy(), len(names))
            self.patterns_ = exact_patterns(absent, names)
            self.missing_blocks_ = missing_blocks(absent, names)

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

    def _discriminator(self, dim: int) -> Any:
        """ctgan's discriminator layout (Linear, LeakyReLU(0.2), Dropout(0.5)) with pac = 1."""
        from torch import nn

        layers: list[nn.Module] = []
        d_in = dim
        for width in self.discriminator_dim:
            layers += [nn.Linear(d_in, width), nn.LeakyReLU(0.2), nn.Dropout(0.5)]
            d_in = width
        return nn.Sequential(*layers, nn.Linear(d_in, 1))

    def _privacy_engine(self) -> Any:
        """Opacus's PrivacyEngine (RDP accountant), in secure mode when asked."""
        from opacus import PrivacyEngine

        if not self.secure_mode:
            return PrivacyEngine(accountant="rdp")
        try:
            return PrivacyEngine(accountant="rdp", secure_mode=True)
        except ImportError as exc:
            raise AssumptionError(
                "secure_mode=True needs the torchcsprng package (Opacus draws noise and batches "
                "from its /dev/urandom generator)",
                assumption="torchcsprng importable",
                admissible="install torchcsprng, or secure_mode=False (seeded torch generators "
                "keyed in full from 128 bits of OS entropy)",
            ) from exc

    @staticmethod
    def _discriminator_step(disc: Any, opt_d: Any, xb: Any, fake: Any) -> None:
        """One DP-SGD step of the discriminator; per-example sensitivity exactly C.

        The real rows go through Opacus: per-example gradients of the row's loss
        softplus(-D(x)) (``loss_reduction="mean"``: Opacus multiplies by the batch size m,
        undoing the 1/m), clipped to C, summed, N(0, sigma^2 C^2) added, divided by the
        expected batch size B. The k = B fake rows' gradient of sum softplus(D(G(z)))/B is
        taken with the hooks off and added after the noise (post-processing). An empty
        Poisson batch still takes a noisy step.
        """
        import torch
        from torch.nn import functional

        params = [p for p in disc.parameters() if p.requires_grad]
        opt_d.zero_grad(set_to_none=True)
        m = xb.shape[0]
        out = disc(xb).squeeze(1)
        (functional.softplus(-out).sum() / max(m, 1)).backward()
        disc.disable_hooks()
        try:
            loss_fake = functional.softplus(disc(fake).squeeze(1)).sum() / fake.shape[0]
            fake_grads = torch.autograd.grad(loss_fake, params)
        finally:
            disc.enable_hooks()
        if opt_d.pre_step():
            _record_step(opt_d, xb)  # auditor only (privacy/audit_hook.py); no-op otherwise
            with torch.no_grad():
                for p, g in zip(params, fake_grads, strict=True):
                    p.grad.add_(g)
            opt_d.original_optimizer.step()

    def _fit_dp(self, table: pd.DataFrame) -> None:
        import torch
        from ctgan.synthesizers.ctgan import Generator
        from opacus.accountants.rdp import RDPAccountant
        from opacus.accountants.utils import get_noise_multiplier
        from opacus.data_loader import DPDataLoader
        from torch.utils.data import TensorDataset

        codes, self.rows_dropped_missing_ = self.discretizer.transform_counted(table)
        n = len(codes)
        if n < 2:  # a public-assumption failure (n >= N): the message carries no count
            raise DataError(
                "DP-CTGAN needs at least 2 complete rows; this table has fewer, below the "
                f"declared minimum table size N = {self.public_rows()} (rows with a missing "
                "value in a column not declared nullable are dropped)"
            )
        real = torch.from_numpy(self._one_hot(codes))
        dim = real.shape[1]
        init_seed, loader_seed, noise_seed, pattern_seed = torch_seeds(self.seed, 4)
        # the noisy pattern histogram (rho-zCDP, recorded) and the generator's pattern input
        self.conditioner_ = self._pattern_conditioner(codes, pattern_seed)
        cond_dim = 0 if self.conditioner_ is None else self.conditioner_.k
        with torch_seeded(init_seed), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            engine = self._privacy_engine()
            gen = Generator(self.embedding_dim + cond_dim, self.generator_dim, dim)
            disc = self._discriminator(dim)
            opt_g = torch.optim.Adam(gen.parameters(), lr=self.generator_lr, betas=(0.5, 0.9))
            opt_d = torch.optim.Adam(disc.parameters(), lr=self.discriminator_lr, betas=(0.5, 0.9))
            # The sampling rate and the number of steps are public: computed from the declared
            # minimum table size N, never from n (private under add/remove neighbours), so
            # neighbouring tables run the same mechanism (q fixed, steps fixed).
            m = max(1, math.ceil(self.public_rows() / self.batch_size))
            loader = DPDataLoader(
                TensorDataset(real),
                sample_rate=1.0 / m,
                generator=torch_generator(loader_seed),
            )
            q = 1.0 / m
            steps_per_epoch = len(loader)  # int(1/q): a function of public m only
            steps = self.epochs_ * steps_per_epoch
            batch = max(1, round(q * self.public_rows()))  # public expected batch size
            orders = [float(a) for a in RDPAccountant.DEFAULT_ALPHAS]
            if self.conditioner_ is None:
                sigma = get_noise_multiplier(
                    target_epsilon=self.epsilon,
                    target_delta=self.target_delta(),
                    sample_rate=q,
                    steps=steps,
                    accountant="rdp",
                    epsilon_tolerance=0.005,
                )
            else:  # DP-SGD composed with the pattern histogram stays within (epsilon, delta)
                sigma = calibrate_noise_multiplier(
                    sample_rate=q,
                    steps=steps,
                    epsilon=float(self.epsilon),
                    delta=float(self.target_delta()),
                    rho=self.pattern_rho_,
                    orders=orders,
                )
            noise_gen = None if self.secure_mode else torch_generator(noise_seed)
            disc, opt_d, loader = engine.make_private(
                module=disc,
                optimizer=opt_d,
                data_loader=loader,
                noise_multiplier=sigma,
                max_grad_norm=self.max_grad_norm,
                poisson_sampling=False,  # the loader above already samples at the public rate
                noise_generator=noise_gen,
            )
            # Opacus sets the averaging denominator to int(n q) from the private n: use the
            # public expected batch size instead (post-processing of the noisy sum by a
            # public constant)
            opt_d.expected_batch_size = batch
            if opt_d.max_grad_norm != self.max_grad_norm or opt_d.noise_multiplier != sigma:
                raise AssumptionError("Opacus's clip norm or noise multiplier is not the plan")
            k = batch  # fake rows per step: public, fixed for the whole fit
            bce = torch.nn.functional.softplus
            taken = 0
            for epoch in range(self.epochs_):
                for (xb,) in loader:
                    taken += 1
                    with torch.no_grad():
                        fake = self._generate(gen, k)
                    self._discriminator_step(disc, opt_d, xb, fake)
                    # generator step: through the discriminator with its hooks off
                    disc.disable_hooks()
                    for p in disc.parameters():
                        p.requires_grad_(False)
                    loss_g = bce(-disc(self._generate(gen, batch)).squeeze(1)).mean()
                    opt_g.zero_grad(set_to_none=True)
                    loss_g.backward()
                    opt_g.step()
                    for p in disc.parameters():
                        p.requires_grad_(True)
                    disc.enable_hooks()
                if self.progress is not None:
                    self.progress(epoch + 1, self.epochs_)
        if taken != steps:
            raise AssumptionError(f"DP-SGD ran {taken} steps, planned {steps}")
        # the subsampled Gaussian with noise std sigma C on a sum of sensitivity C
        rdp = dpsgd_rdp(sigma, sample_rate=q, steps=steps, orders=orders)
        self.accountant.record_rdp_curve(SGD_STEP, orders, rdp)
        self.noise_multiplier_ = float(sigma)
        self.sensitivity_ = float(opt_d.max_grad_norm)
        self.fake_rows_per_step_ = k
        self.steps_ = steps
        self.sample_rate_ = q
        self.generator_ = gen.eval()

    def _pattern_conditioner(self, codes: np.ndarray, seed: Seed) -> PatternConditioner | None:
        """DP: the noisy pattern histogram (recorded) and the generator's pattern input.

        None without nullable columns (no budget spent on patterns). Sets ``pattern_rho_``.
        """
        slots = [
            (j, self.discretizer.missing_code(j))
            for j, c in enumerate(self.schema.columns)
            if self.discretizer.models_missing(c)
        ]
        if not slots:
            return None
        names = [self.schema.columns[j].name for j, _ in slots]
        absent = np.column_stack([codes[:, j] == code for j, code in slots])
        self.pattern_rho_ = pattern_rho(float(self.epsilon), float(self.target_delta()))
        self.pattern_share_ = PATTERN_BUDGET_SHARE
        patterns = noisy_patterns(
            absent,
            names,
            self.pattern_rho_,
            rng=np.random.default_rng(seed),
            accountant=self.accountant,
        )
        return PatternConditioner(self._spans(), slots, patterns)  # type: ignore[arg-type]

    def _generate(self, gen: Any, rows: int, hard: bool = False) -> Any:
        """``rows`` activated generator rows (conditioned on drawn patterns when nullable)."""
        import torch

        if getattr(self, "conditioner_", None) is None:
            return self._activate(gen(torch.randn(rows, self.embedding_dim)), hard=hard)
        return self.conditioner_.generate(gen, rows, self.embedding_dim, hard=hard)

    def public_rows(self) -> int:
        """The declared minimum table size N that fixes DP-SGD's sampling rate q = 1/ceil(N/b).

        Returns
        -------
        int
            N.

        Raises
        ------
        AssumptionError
            Without ``min_rows`` (n is private under add/remove neighbours).
        """
        if self.min_rows is None:
            raise AssumptionError(
                "DP-CTGAN is DP under add/remove neighbours, where the table size is private, "
                "but its sampling rate q = batch/n would be computed from it: declare a public "
                "lower bound on the table size (min_rows=N, --min-rows N); q and the number of "
                "steps are then computed from N",
                assumption="a public minimum table size",
                admissible="min_rows=N",
            )
        return int(self.min_rows)

    # -- sampling ------------------------------------------------------------------------
    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Draw ``n`` rows; numbers clipped to public bounds, integers rounded."""
        if self.epsilon is None:
            self.model_.set_random_state(self._random_states(seed))
            if n == 0:  # ctgan cannot sample no rows
                empty = {c.name: np.empty(0) for c in self.schema.columns}
                return clipped_typed_frame(self.schema, empty)
            if not self._pattern_names():
                return self._typed(self.model_.sample(n))
            return self._typed(self._sample_patterns(n, seed))
        import torch

        ss = seed_sequence(seed)
        (torch_seed,) = torch_seeds(ss, 1)
        rng = np.random.default_rng(ss)
        with torch_seeded(torch_seed), torch.no_grad():
            onehot = self._generate(self.generator_, n, hard=True).numpy() if n else None
        spans = self._spans()
        if onehot is None:
            codes = np.zeros((0, len(spans)), dtype=np.int64)
        else:
            bounds = np.cumsum([0, *spans])
            codes = np.column_stack(
                [onehot[:, bounds[j] : bounds[j + 1]].argmax(axis=1) for j in range(len(spans))]
            )
        return self.discretizer.inverse_transform(codes, rng)

    def _sample_patterns(self, n: int, seed: Seed) -> pd.DataFrame:
        """No DP: n patterns drawn from the exact distribution, then ctgan's rows conditioned
        on them (:func:`~synthcert.synthesizers.ctgan_missing.sample_by_pattern`)."""
        model_seq, pattern_seq = seed_sequence(seed).spawn(2)
        self.model_.set_random_state(self._random_states(model_seq))
        absent = self.patterns_.sample(n, np.random.default_rng(pattern_seq))
        names = self._pattern_names()
        nullable_cats = {
            names.index(c.name): c.name for c in self.schema.categorical if c.name in names
        }
        others = [c.name for c in self.schema.categorical if c.name not in names]
        return sample_by_pattern(
            self.model_, absent, categorical=nullable_cats, other_categorical=others
        )

    def _typed(self, raw: pd.DataFrame) -> pd.DataFrame:
        """ctgan's output as a schema-valid frame (bounds clipped, categories declared, missing
        where ``PATTERN_COLUMN`` or the missing level says so)."""
        names = self._pattern_names()
        absent = {}
        if names:
            bits = label_bits(raw[PATTERN_COLUMN].astype(str).to_numpy(), len(names))
            absent = {name: bits[:, j] for j, name in enumerate(names)}
        data: dict[str, np.ndarray] = {}
        for col in self.schema.columns:
            if isinstance(col, CategoricalColumn):
                text = raw[col.name].astype(str)
                level = (text == MISSING_LEVEL).to_numpy()
                codes = category_codes(text.where(~level, col.categories[0]), col)
                data[col.name] = np.where(level | absent.get(col.name, False), -1, codes)
            else:
                x = np.asarray(pd.to_numeric(raw[col.name]), dtype=np.float64)
                if col.name in absent:
                    x = np.where(absent[col.name], np.nan, x)
                data[col.name] = x
        return clipped_typed_frame(self.schema, data)


class _Epochs:
    """The epochs of ctgan's training loop, reporting each one as it ends."""

    def __init__(self, epochs: int, progress: Progress) -> None:
        self.epochs, self.progress = epochs, progress

    def __iter__(self) -> Iterator[int]:
        for i in range(self.epochs):
            yield i
            self.progress(i + 1, self.epochs)

    def set_description(self, *_: Any, **__: Any) -> None:
        """Its losses: not reported (they are read from the data)."""


@contextlib.contextmanager
def reporting_epochs(progress: Progress | None) -> Iterator[None]:
    """While ctgan's ``CTGAN.fit`` runs, report each epoch to ``progress`` (epoch, epochs).

    Its training loop is ``tqdm(range(epochs))`` with no other hook, so the module's ``tqdm``
    is replaced for the duration by :class:`_Epochs` (the count is public: the ``epochs``
    parameter; the losses ctgan would print are not reported). Not thread-safe: one fit at a
    time in a process, as ctgan itself assumes.
    """
    if progress is None:
        yield
        return
    import ctgan.synthesizers.ctgan as module

    original = module.tqdm
    module.tqdm = lambda iterable, **_: _Epochs(len(iterable), progress)
    try:
        yield
    finally:
        module.tqdm = original


def _record_step(opt_d: Any, xb: Any) -> None:
    """Hand one DP-SGD step of the discriminator to the auditor, if one records.

    Called right after Opacus's ``pre_step`` (clip, sum, add N(0, sigma^2 C^2), divide by the
    expected batch size B), before the fake rows' gradient is added: the noisy sum is
    ``p.grad * B``. The clipped per-example gradients are Opacus's per-sample gradients times
    its clip factor min(1, C / (norm + 1e-6)), recomputed here. Nothing is drawn and no tensor
    of the fit is altered; without an auditor nothing is computed.
    """
    from synthcert.privacy.audit_hook import record_gradient_sum, recording

    if not recording():
        return
    import torch

    with torch.no_grad():
        m = int(xb.shape[0])
        pairs = zip(opt_d.grad_samples, opt_d.params, strict=True)
        flat = [g.reshape(m, p.numel()).double() for g, p in pairs]
        per_example = torch.cat(flat, dim=1)
        norms = torch.cat([f.norm(2, dim=1, keepdim=True) for f in flat], dim=1).norm(2, dim=1)
        clip = float(opt_d.max_grad_norm)
        factor = (clip / (norms + 1e-6)).clamp(max=1.0)
        batch = float(opt_d.expected_batch_size) * float(opt_d.accumulated_iterations)
        noisy = torch.cat([p.grad.reshape(-1).double() for p in opt_d.params]) * batch
        record_gradient_sum(
            "dp-sgd:discriminator",
            float(opt_d.noise_multiplier) * clip,
            noisy.numpy(),
            (per_example * factor[:, None]).numpy(),
            xb.numpy(),
        )
