"""The mean-and-covariance synthesizer M_G of Miura et al. (seed 000, section 3): draw from
N(mu, Sigma) of the encoded table and clip to [-1,1]^d.

Its randomness alone gives (alpha, epsilon)-RDP (Theorem 3.1 / Corollary 3.2), provided the
smallest eigenvalue of Sigma is at least a public sigma. The fitted mean and covariance are
generative parameters: they live in memory only and no release writes them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Self

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.accumulate import MomentAccumulator
from synthcert.data.encode import Encoder, EncodeReport, MissingPolicy, merge_reports
from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import AssumptionError, DataError
from synthcert.synthesizers.base import PrivacyGuarantee, Seed, Synthesizer

DEFAULT_CHUNK_ROWS = 1 << 19


@dataclass(frozen=True)
class GaussianFit(Result):
    """Public facts about a fit (never the mean or covariance themselves)."""

    n: int
    d: int
    rows_dropped_missing: int
    values_clipped: dict[str, int]
    sigma: float
    sigma_source: str  # "declared" or "data"

    @property
    def rows_clipped(self) -> int:
        """Total clipped values."""
        return int(sum(self.values_clipped.values()))


def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """A SeedSequence from an int, a SeedSequence, a Generator (one draw from it) or None."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return np.random.SeedSequence(seed)


def gaussian_factor(cov: np.ndarray) -> np.ndarray:
    """A matrix L with L L^T = cov: Cholesky, or an eigen-factor when cov is only semi-definite."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        w, V = np.linalg.eigh(cov)
        return V * np.sqrt(np.clip(w, 0.0, None))


class GaussianSynthesizer(Synthesizer):
    """M_G: sample N(mu, Sigma) of the encoded table, clip to [-1,1]^d, decode.

    ``sigma`` is the public lower bound on the smallest eigenvalue of the encoded covariance
    that the certificate assumes; ``None`` takes it from the data (and says so).
    """

    name = "gaussian"
    description = "Mean and covariance of the encoded table, sampled without added noise (M_G)."
    privacy_model = "inherent-rdp"

    def __init__(
        self,
        schema: Schema,
        *,
        sigma: float | None = None,
        neighboring: str = "unbounded",
        alpha: float | None = None,
        delta: float | None = None,
        missing: MissingPolicy = "model",
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        workers: int | None = None,
    ) -> None:
        super().__init__(schema)
        if sigma is not None and not sigma > 0:
            raise AssumptionError(
                f"sigma must be positive, got {sigma}", assumption="sigma > 0", admissible="> 0"
            )
        self.sigma_declared = sigma
        self.neighboring = neighboring
        self.alpha = alpha
        self.delta = delta
        self.encoder = Encoder(schema, missing=missing)
        self.chunk_rows = int(chunk_rows)
        self.workers = workers or min(os.cpu_count() or 1, 8)
        self._n_sampled: int | None = None

    def params(self) -> dict:
        """Constructor parameters, for provenance."""
        return {"sigma": self.sigma_declared, "neighboring": self.neighboring}

    # -- fitting -------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame) -> Self:
        """Mean and biased covariance of the encoded table, in float64, block by block."""
        step = self.chunk_rows
        return self.fit_chunks(table.iloc[i : i + step] for i in range(0, max(len(table), 1), step))

    def fit_chunks(self, chunks: Iterable[pd.DataFrame]) -> Self:
        """Fit from an iterable of frames (a table larger than memory), merging accumulators.

        Waves of ``workers`` chunks are encoded and reduced on a thread pool; the partials are
        merged in chunk order, so the result does not depend on the number of threads.
        """
        acc = MomentAccumulator(self.encoder.dim)
        reports: list[EncodeReport] = []

        def reduce(item: tuple[int, pd.DataFrame]) -> tuple[MomentAccumulator, EncodeReport]:
            X, report = self.encoder.encode(item[1], row_offset=item[0])
            return MomentAccumulator(self.encoder.dim).update(X), report

        def waves() -> Iterator[list[tuple[int, pd.DataFrame]]]:
            wave, offset = [], 0
            for chunk in chunks:
                wave.append((offset, chunk))
                offset += len(chunk)
                if len(wave) == self.workers:
                    yield wave
                    wave = []
            if wave:
                yield wave

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for wave in waves():
                for part, report in pool.map(reduce, wave):
                    acc.merge(part)
                    reports.append(report)
        return self.fit_moments(acc, reports)

    def fit_moments(self, acc: MomentAccumulator, reports: list[EncodeReport]) -> Self:
        """Finish a fit from merged moments (used by the streaming and distributed engines)."""
        merged = merge_reports(reports)
        dropped, clipped = merged.rows_dropped_missing, merged.values_clipped
        if acc.count == 0:
            raise DataError(
                f"no complete row to fit on ({dropped} rows dropped for missing values)"
            )
        if acc.count < 2:
            raise AssumptionError(
                "a covariance needs at least 2 rows; the table has 1",
                assumption="n >= 2",
                admissible="n >= 2",
            )
        self.mean_ = acc.mean.copy()
        self.cov_ = acc.covariance
        eigvals, eigvecs = np.linalg.eigh(self.cov_)
        lam_min = float(eigvals[0])
        self._check_sigma(lam_min, eigvecs[:, 0])
        sigma = self.sigma_declared if self.sigma_declared is not None else lam_min
        self.fit_ = GaussianFit(
            n=acc.count,
            d=self.encoder.dim,
            rows_dropped_missing=dropped,
            values_clipped=clipped,
            sigma=float(sigma),
            sigma_source="declared" if self.sigma_declared is not None else "data",
        )
        self.smallest_eigenvalue_ = lam_min
        self._factor = gaussian_factor(self.cov_)
        self._fitted = True
        return self

    def _check_sigma(self, lam_min: float, direction: np.ndarray) -> None:
        """Refuse when the covariance is flatter than the declared sigma (or singular)."""
        names = encoded_column_names(self.schema)
        top = [names[i] for i in np.argsort(-np.abs(direction))[:3] if abs(direction[i]) > 0.1]
        where = f" (the flattest direction involves {', '.join(top)})" if top else ""
        if lam_min <= 1e-12:
            raise AssumptionError(
                f"the encoded covariance is singular (smallest eigenvalue {lam_min:.3g}){where}: "
                "a constant column, an unused category or collinear columns; the certificate "
                "needs a positive smallest eigenvalue. Drop or merge those columns.",
                assumption="lambda_min(Sigma) >= sigma > 0",
                admissible="drop the constant or collinear columns",
            )
        if self.sigma_declared is not None and lam_min < self.sigma_declared:
            raise AssumptionError(
                f"the smallest eigenvalue of the encoded covariance is {lam_min:.6g}, below the "
                f"declared sigma = {self.sigma_declared:.6g}{where}. The certificate assumes "
                "every dataset has lambda_min >= sigma; declare a smaller public sigma (at most "
                f"{lam_min:.6g}) or drop the nearly collinear columns.",
                assumption="lambda_min(Sigma) >= sigma",
                admissible=f"sigma <= {lam_min:.6g}",
            )

    # -- sampling ------------------------------------------------------------------------
    def _chunk_sizes(self, n: int) -> list[int]:
        if n < 0:
            raise ValueError("n must be non-negative")
        return [min(self.chunk_rows, n - s) for s in range(0, n, self.chunk_rows)]

    def _draw(self, size: int, child: np.random.SeedSequence) -> np.ndarray:
        """One chunk: Z ~ N(0, I), X = mu + Z L^T, clipped to [-1,1]^d."""
        Z = np.random.default_rng(child).standard_normal((size, self.encoder.dim))
        X = Z @ self._factor.T
        X += self.mean_
        np.clip(X, -1.0, 1.0, out=X)
        return X

    def sample_encoded_chunks(self, n: int, *, seed: Seed = None) -> Iterator[np.ndarray]:
        """Yield clipped encoded rows chunk by chunk; chunk i uses child i of the seed.

        Chunks are drawn by a thread pool (numpy releases the GIL while filling arrays), in
        waves of ``workers`` chunks, so memory stays bounded and the rows do not depend on the
        number of threads.
        """
        self._check_fitted()
        sizes = self._chunk_sizes(n)
        children = seed_sequence(seed).spawn(len(sizes))
        self._n_sampled = n
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for start in range(0, len(sizes), self.workers):
                idx = range(start, min(start + self.workers, len(sizes)))
                yield from pool.map(lambda i: self._draw(sizes[i], children[i]), idx)

    def sample_chunks(self, n: int, *, seed: Seed = None) -> Iterator[pd.DataFrame]:
        """Yield decoded synthetic frames chunk by chunk (for streaming writes)."""
        for X in self.sample_encoded_chunks(n, seed=seed):
            yield self.encoder.decode(X)

    def sample(self, n: int, *, seed: Seed = None) -> pd.DataFrame:
        """Draw ``n`` synthetic rows (clipped to the public bounds, decoded).

        Same rows as :meth:`sample_chunks` with the same seed; each thread decodes its chunk
        straight into the output columns, so no intermediate frames are built or concatenated.
        """
        self._check_fitted()
        sizes = self._chunk_sizes(n)
        children = seed_sequence(seed).spawn(len(sizes))
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        columns = self.encoder.empty_columns(n)
        self._n_sampled = n

        def fill(i: int) -> None:
            X = self._draw(sizes[i], children[i])
            view = {k: v[starts[i] : starts[i + 1]] for k, v in columns.items()}
            self.encoder.decode_columns(X, out=view)

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            list(pool.map(fill, range(len(sizes))))
        return self.encoder.frame(columns)

    # -- privacy -------------------------------------------------------------------------
    def certificate(
        self,
        n_out: int | None = None,
        *,
        alpha: float | None = None,
        delta: float | None = None,
        conversion: str = "ckm",
    ):
        """The RDP certificate of releasing ``n_out`` rows (Theorem 3.1 / Corollary 3.2)."""
        from synthcert.privacy.budget import account

        self._check_fitted()
        alpha = alpha if alpha is not None else self.alpha
        delta = delta if delta is not None else self.delta
        if alpha is None and delta is None:
            delta = default_delta(self.fit_.n)
        return account(
            self.fit_.n,
            self.fit_.d,
            self.fit_.sigma,
            alpha=alpha,
            n_out=self.fit_.n if n_out is None else n_out,
            neighboring=self.neighboring,
            delta=delta,
            conversion=conversion,
        )

    @property
    def privacy(self) -> PrivacyGuarantee:
        """Inherent RDP of the last sample size (or n rows if nothing was sampled yet)."""
        if not self._fitted:
            return PrivacyGuarantee("inherent-rdp", note="not fitted")
        cert = self.certificate(self._n_sampled)
        return PrivacyGuarantee(
            "inherent-rdp",
            epsilon=cert.epsilon,
            delta=cert.delta,
            alpha=cert.alpha,
            epsilon_rdp=cert.epsilon_rdp,
            note=cert.reason or "",
        )


def default_delta(n: int) -> float:
    """delta = 1/n^2, one of the two choices of thesis section 5.5.4."""
    return 1.0 / float(n) ** 2


def encoded_column_names(schema: Schema) -> list[str]:
    """Names of the d encoded dimensions: ``age`` or ``workclass=Private`` for dummies, and
    ``age=missing`` for the missingness indicator of a nullable column."""
    names: list[str] = []
    for col in schema.columns:
        if isinstance(col, NumericColumn):
            names.append(col.name)
        else:
            names.extend(f"{col.name}={c}" for c in col.categories[1:])
        if col.nullable:
            names.append(f"{col.name}=missing")
    return names
