"""The mean-and-covariance synthesizer M_G of Miura et al. (seed 000, section 3): draw from
N(mu, Sigma) of the encoded table and clip to [-1,1]^d.

Its randomness alone gives (alpha, epsilon)-RDP (Theorem 3.1 / Corollary 3.2), provided the
smallest eigenvalue of Sigma is at least a public sigma. The fitted mean and covariance are
generative parameters: they live in memory only and no release writes them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.data.encode import (
    Encoder,
    EncodeReport,
    MissingPolicy,
    merge_reports,
    missing_policy_for,
)
from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.claims import (
    DATA_DOMAIN,
    DATA_SIGMA,
    GUARANTEE,
    Assumption,
    PrivacyClaim,
    domain_assumption,
    flags_assumption,
)
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.chunks import CHUNK_ROWS, chunk_sizes
from synthcert.statistics.moments import MomentAccumulator
from synthcert.synthesizers.base import Synthesizer, sample_count


@dataclass(frozen=True)
class GaussianFit(Result):
    """Public facts about a fit (never the mean or covariance themselves)."""

    n: int
    d: int
    rows_dropped_missing: int
    values_clipped: dict[str, int]
    sigma: float
    sigma_source: str  # "declared" or "data"
    values_filled: int = 0  # missing values given the public fill (bounded neighbours)

    @property
    def rows_clipped(self) -> int:
        """Total clipped values."""
        return int(sum(self.values_clipped.values()))


def gaussian_factor(cov: np.ndarray) -> np.ndarray:
    """A matrix L with L L^T = cov: Cholesky, or an eigen-factor when cov is only semi-definite.

    Parameters
    ----------
    cov : numpy.ndarray
        A symmetric positive semi-definite (d, d) matrix.

    Returns
    -------
    numpy.ndarray
        A (d, d) factor L.

    Examples
    --------
    >>> import numpy as np
    >>> cov = np.array([[1.0, 1.0], [1.0, 1.0]])  # singular: no Cholesky factor
    >>> L = gaussian_factor(cov)
    >>> bool(np.allclose(L @ L.T, cov))
    True
    """
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        w, V = np.linalg.eigh(cov)
        return V * np.sqrt(np.clip(w, 0.0, None))


class GaussianSynthesizer(Synthesizer):
    """M_G: sample N(mu, Sigma) of the encoded table, clip to [-1,1]^d, decode.

    ``sigma`` is the public lower bound on the smallest eigenvalue of the encoded covariance
    that the certificate assumes; ``None`` takes it from the data (and says so).

    Parameters
    ----------
    schema : Schema
        The public schema (bounds and categories define the encoding to [-1, 1]^d).
    sigma : float, "data" or None, default None
        The declared public sigma of Theorem 3.1 (the class D_sigma); None or ``"data"``
        measures it on the data, which gives no guarantee.
    neighboring : {"unbounded", "bounded"}, default "unbounded"
        Add/remove or replace-one neighbours.
    min_rows : int, optional
        Public lower bound N on the table size; under unbounded neighbours the certificate is
        evaluated at N (required for a claim).
    ridge : float, optional
        Sample from N(mu, Sigma + rho I) instead: the unconditional certificate (no sigma).
    alpha : float, optional
        Rényi order of the certificate (default: optimised).
    delta : float, optional
        delta of the (epsilon, delta) conversion (default 1/n^2 at the public n).
    missing : {"model", "drop"}, default "model"
        Missing-value policy of the encoder.
    chunk_rows : int, default 2**19
        Rows per chunk when fitting and sampling.
    workers : int, optional
        Threads (default min(CPUs, 8)); the rows never depend on it.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0, 1), NumericColumn("y", 0, 1)))
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.uniform(size=200), "y": rng.uniform(size=200)})
    >>> synth = GaussianSynthesizer(schema, ridge=0.5, min_rows=100).fit(df)
    >>> synth.sample(5, seed=1).shape
    (5, 2)
    >>> synth.privacy_claim(5).model
    'inherent-rdp'
    """

    name = "gaussian"
    description = "Mean and covariance of the encoded table, sampled without added noise (M_G)."
    privacy_model = "inherent-rdp"
    deterministic_fit = True  # mean and covariance only: all randomness is in sampling

    def __init__(
        self,
        schema: Schema,
        *,
        sigma: float | str | None = None,
        neighboring: str = "unbounded",
        min_rows: int | None = None,
        ridge: float | None = None,
        alpha: float | None = None,
        delta: float | None = None,
        missing: MissingPolicy = "model",
        chunk_rows: int = CHUNK_ROWS,
        workers: int | None = None,
    ) -> None:
        self._store_params(locals())

    def validate_params(self) -> None:
        """Check sigma, the minimum table size, the ridge and the chunking options.

        Raises
        ------
        AssumptionError
            If sigma or the ridge is not positive, ``min_rows < 2``, both a ridge and a sigma
            are given, or the ridge is asked under a neighbouring relation it does not cover
            (the assumptions of Theorem 3.1 and of the ridged certificate).
        ParameterError
            If ``chunk_rows`` or ``workers`` is not a positive whole number, or ``missing`` is
            not a policy.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> GaussianSynthesizer(Schema((NumericColumn("x", 0, 1),)), sigma=-1).validate_params()
        Traceback (most recent call last):
        ...
        synthcert.errors.AssumptionError: sigma must be positive, got -1
        """
        super().validate_params()
        sigma = None if self.sigma == "data" else self.sigma
        if sigma is not None and not float(sigma) > 0:
            raise AssumptionError(
                f"sigma must be positive, got {sigma}", assumption="sigma > 0", admissible="> 0"
            )
        if self.min_rows is not None and int(self.min_rows) < 2:
            raise AssumptionError(
                f"the declared minimum table size must be at least 2, got {self.min_rows}",
                assumption="min_rows >= 2",
                admissible=">= 2",
            )
        if self.ridge is not None:
            if not float(self.ridge) > 0:
                raise AssumptionError(
                    f"the ridge rho must be positive, got {self.ridge}", assumption="rho > 0"
                )
            if sigma is not None:
                raise AssumptionError(
                    "give either a ridge (--param ridge=RHO: the certificate then assumes nothing "
                    "about the data) or a declared sigma, not both",
                    assumption="one of sigma or ridge",
                )
            if self.neighboring not in ("unbounded", "bounded"):
                raise AssumptionError(
                    "the ridged certificate covers unbounded and bounded neighbours",
                    assumption="neighboring in {unbounded, bounded}",
                )
        if isinstance(self.chunk_rows, bool) or not int(self.chunk_rows) >= 1:
            raise ParameterError(f"chunk_rows must be at least 1, got {self.chunk_rows}")
        if self.workers is not None and not int(self.workers) >= 1:
            raise ParameterError(f"workers must be at least 1 (or None), got {self.workers}")

    @property
    def sigma_declared(self) -> float | None:
        """The declared public sigma, or None when it is measured on the data (``"data"``)."""
        return None if self.sigma is None or self.sigma == "data" else float(self.sigma)

    @property
    def encoder(self) -> Encoder:
        """The encoder of the schema to [-1, 1]^d (public; rebuilt when the schema changes);
        ``missing="model"`` is ``"fill"`` under bounded neighbours (:func:`missing_policy_for`)."""
        key = (self.schema, missing_policy_for(self.missing, self.neighboring))
        cached = self.__dict__.get("_encoder")
        if cached is None or cached[0][0] is not key[0] or cached[0][1] != key[1]:
            cached = (key, Encoder(self.schema, missing=key[1]))
            self._encoder = cached
        return cached[1]

    @property
    def n_workers(self) -> int:
        """Threads used to encode and draw chunks: ``workers``, or min(CPUs, 8)."""
        return int(self.workers or min(os.cpu_count() or 1, 8))

    # -- fitting -------------------------------------------------------------------------
    def _fit(self, table: pd.DataFrame) -> None:
        """Mean and biased covariance of the encoded table, in float64, block by block."""
        step = int(self.chunk_rows)
        self.fit_chunks(table.iloc[i : i + step] for i in range(0, max(len(table), 1), step))

    def fit_chunks(self, chunks: Iterable[pd.DataFrame]) -> Self:
        """Fit from an iterable of frames (a table larger than memory), merging accumulators.

        Waves of ``workers`` chunks are encoded and reduced on a thread pool; the partials are
        merged in chunk order, so the result does not depend on the number of threads.

        Parameters
        ----------
        chunks : iterable of pandas.DataFrame
            Consecutive blocks of the table (columns as in the schema).

        Returns
        -------
        GaussianSynthesizer
            ``self``, fitted (as :meth:`fit_moments`).

        Raises
        ------
        AssumptionError
            As :meth:`fit_moments`.

        Examples
        --------
        >>> import pandas as pd
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1), NumericColumn("y", 0, 1)))
        >>> df = pd.DataFrame({"x": [0.1, 0.4, 0.8, 0.3], "y": [0.9, 0.2, 0.5, 0.6]})
        >>> synth = GaussianSynthesizer(schema).fit_chunks([df.iloc[:2], df.iloc[2:]])
        >>> synth.fit_.n
        4
        """
        self.validate_params()
        workers = self.n_workers
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
                if len(wave) == workers:
                    yield wave
                    wave = []
            if wave:
                yield wave

        with ThreadPoolExecutor(max_workers=workers) as pool:
            for wave in waves():
                for part, report in pool.map(reduce, wave):
                    acc.merge(part)
                    reports.append(report)
        return self.fit_moments(acc, reports)

    def fit_moments(self, acc: MomentAccumulator, reports: list[EncodeReport]) -> Self:
        """Finish a fit from merged moments (used by the streaming and distributed engines).

        The route of :class:`~synthcert.statistics.protocols.FitsFromMoments`.

        Parameters
        ----------
        acc : MomentAccumulator
            Count, sum and cross-products of the encoded rows, merged over all chunks.
        reports : list of EncodeReport
            The encode reports of the chunks (rows dropped, values clipped).

        Returns
        -------
        GaussianSynthesizer
            ``self``, fitted.

        Raises
        ------
        AssumptionError
            With fewer than 2 complete rows, fewer than ``min_rows``, incomplete rows under
            bounded neighbours, a singular covariance, or a table too close to the declared
            sigma (the neighbour margin).

        Examples
        --------
        >>> import numpy as np
        >>> from synthcert.statistics.moments import MomentAccumulator
        >>> from synthcert.data.encode import EncodeReport
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> synth = GaussianSynthesizer(Schema((NumericColumn("x", -1, 1),)))
        >>> acc = MomentAccumulator(1).update(np.array([[-0.5], [0.0], [0.5]]))
        >>> synth.fit_moments(acc, [EncodeReport(3, 3, 0, {"x": 0})]).fit_.n
        3
        """
        self._start_fit()
        self.n_sampled_: int | None = None
        merged = merge_reports(reports)
        dropped, clipped = merged.rows_dropped_missing, merged.values_clipped
        # a declared minimum of 2 or more rows covers n < 2 with its own (public) text, so
        # two neighbours below it (1 row and 2 rows, say) get one refusal, not two
        declared_min = self.min_rows is not None and self.min_rows >= 2
        if acc.count < 2 and not declared_min:
            raise AssumptionError(
                "a covariance needs at least 2 complete rows",
                assumption="n >= 2",
                admissible="n >= 2",
                private_detail=f"{acc.count} complete rows; {dropped} dropped for missing values",
            )
        if self.neighboring != "unbounded" and dropped:
            raise incomplete_rows_under_bounded(dropped)
        if self.min_rows is not None and acc.count < self.min_rows:
            raise AssumptionError(
                f"the table has fewer usable rows than the declared minimum --min-rows "
                f"{self.min_rows} (usable: complete rows, after the public rules drop rows with "
                "a missing value, text in a numeric column or an undeclared category): the "
                "certificate is evaluated at that public size and holds only for tables at "
                "least that large; declare a smaller minimum",
                assumption=f"n >= min_rows = {self.min_rows}",
                admissible="a smaller --min-rows",
                private_detail=f"{acc.count} rows used",
            )
        self.mean_ = acc.mean.copy()
        self.cov_ = acc.covariance
        eigvals, eigvecs = np.linalg.eigh(self.cov_)
        lam_min = float(eigvals[0])
        if self.ridge is None:
            self._check_sigma(lam_min, eigvecs[:, 0], acc.count)
        sigma = self.sigma_declared if self.sigma_declared is not None else lam_min
        self.fit_ = GaussianFit(
            n=acc.count,
            d=self.encoder.dim,
            rows_dropped_missing=dropped,
            values_clipped=clipped,
            sigma=float(sigma),
            sigma_source="declared" if self.sigma_declared is not None else "data",
            values_filled=merged.values_filled,
        )
        self.smallest_eigenvalue_ = lam_min
        sampled = (
            self.cov_
            if self.ridge is None
            else self.cov_ + float(self.ridge) * np.eye(len(self.cov_))
        )
        self._factor = gaussian_factor(sampled)
        return self._end_fit()

    def _check_sigma(self, lam_min: float, direction: np.ndarray, n: int) -> None:
        """Refuse a table whose neighbours may leave D_sigma, or a singular covariance.

        The messages carry no value of the table (a refusal is itself published to whoever
        sees the run fail); the measured eigenvalue and the flattest columns go into
        ``private_detail``. With a declared sigma there is one refusal, whatever the
        eigenvalue: a singular covariance (lambda_min = 0) is below the neighbour margin too,
        and its own text would tell two neighbours apart (a category used by one record, or
        a nullable column with one missing value, is singular without it and within the
        margin's reach with it), so the text depends on the public sigma and schema only.
        """
        names = encoded_column_names(self.schema)
        top = [names[i] for i in np.argsort(-np.abs(direction))[:3] if abs(direction[i]) > 0.1]
        detail = f"smallest eigenvalue {lam_min:.6g}" + (
            f"; the flattest direction involves {', '.join(top)}" if top else ""
        )
        if self.sigma_declared is not None:
            need = neighbour_margin(n, self.encoder.dim, self.sigma_declared, self.neighboring)
            if not (lam_min >= need and lam_min > 1e-12):  # a NaN eigenvalue is refused too
                raise margin_refusal(
                    self.sigma_declared, self.neighboring, detail, need, self.encoder.dim
                )
            return
        if not lam_min > 1e-12:
            raise AssumptionError(
                "the encoded covariance is singular: a constant column, an unused category or "
                "collinear columns; the certificate needs a positive smallest eigenvalue. Drop "
                "or merge those columns.",
                assumption="lambda_min(Sigma) >= sigma > 0",
                admissible="drop the constant or collinear columns",
                private_detail=detail,
            )

    # -- sampling ------------------------------------------------------------------------
    def _chunk_sizes(self, n: int) -> list[int]:
        return chunk_sizes(sample_count(n), int(self.chunk_rows))

    def _draw(self, size: int, child: np.random.SeedSequence) -> np.ndarray:
        """One chunk: Z ~ N(0, I), X = mu + Z L^T, clipped to [-1,1]^d."""
        Z = np.random.default_rng(child).standard_normal((size, self.encoder.dim))
        X = Z @ self._factor.T
        X += self.mean_
        np.clip(X, -1.0, 1.0, out=X)
        return X

    def sample_chunk(self, rows: int, seed: np.random.SeedSequence) -> pd.DataFrame:
        """One decoded chunk drawn from the child seed ``seed``: chunk i of :meth:`sample`.

        ``sample(n, seed=s)`` is the concatenation of ``sample_chunk(rows_i, child_i)`` over
        the chunks of ``chunk_rows`` rows and the children of ``SeedSequence(s)``, bit for bit.

        Parameters
        ----------
        rows : int
            Rows of the chunk.
        seed : numpy.random.SeedSequence
            The chunk's child seed (secret).

        Returns
        -------
        pandas.DataFrame
            ``rows`` decoded rows: N(mu, Sigma) draws clipped to [-1,1]^d, decoded.

        Raises
        ------
        NotFittedError
            The model is not fitted.
        """
        self._check_fitted()
        return self.encoder.decode(self._draw(int(rows), seed))

    def sample_chunk_table(self, rows: int, seed: np.random.SeedSequence) -> Any:
        """:meth:`sample_chunk` as an Arrow table, decoded without a frame when it can be.

        ``pa.Table.from_pandas(self.sample_chunk(rows, seed), preserve_index=False)``, the same
        table: for a schema of numeric columns it is built straight from the decoded arrays
        (:func:`~synthcert.data.encode.arrow_table`), for any other through the frame.

        Parameters
        ----------
        rows : int
            Rows of the chunk.
        seed : numpy.random.SeedSequence
            The chunk's child seed (secret).

        Returns
        -------
        pyarrow.Table
            The chunk's rows, with pandas metadata and without an index.

        Raises
        ------
        NotFittedError
            The model is not fitted.
        """
        import pyarrow as pa

        from synthcert.data.encode import arrow_table

        self._check_fitted()
        columns = self.encoder.decode_columns(self._draw(int(rows), seed))
        table = arrow_table(self.schema, columns)
        if table is None:
            table = pa.Table.from_pandas(self.encoder.frame(columns), preserve_index=False)
        return table

    def sample_encoded_chunks(self, n: int, *, seed: Seed = None) -> Iterator[np.ndarray]:
        """Yield clipped encoded rows chunk by chunk; chunk i uses child i of the seed.

        Chunks are drawn by a thread pool (numpy releases the GIL while filling arrays), in
        waves of ``workers`` chunks, so memory stays bounded and the rows do not depend on the
        number of threads.

        Parameters
        ----------
        n : int
            Rows in all.
        seed : int, SeedSequence, Generator or None
            The secret seed; chunk i draws from its child i.

        Yields
        ------
        numpy.ndarray
            (rows, d) float64 arrays in [-1, 1]^d, ``chunk_rows`` rows each but the last.

        Raises
        ------
        NotFittedError
            Before a fit.
        ParameterError
            If ``n`` is negative.
        """
        self._check_fitted()
        sizes = self._chunk_sizes(n)
        children = seed_sequence(seed).spawn(len(sizes))
        self.n_sampled_ = n
        workers = self.n_workers
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for start in range(0, len(sizes), workers):
                idx = range(start, min(start + workers, len(sizes)))
                yield from pool.map(lambda i: self._draw(sizes[i], children[i]), idx)

    def sample_chunks(self, n: int, *, seed: Seed = None) -> Iterator[pd.DataFrame]:
        """Yield decoded synthetic frames chunk by chunk (for streaming writes).

        Parameters
        ----------
        n : int
            Rows in all.
        seed : int, SeedSequence, Generator or None
            The secret seed: the concatenated chunks are the rows of ``sample(n, seed)``.

        Yields
        ------
        pandas.DataFrame
            Frames of at most ``chunk_rows`` rows in the schema's columns and dtypes.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1), NumericColumn("y", 0, 1)))
        >>> rng = np.random.default_rng(0)
        >>> df = pd.DataFrame({"x": rng.uniform(size=50), "y": rng.uniform(size=50)})
        >>> synth = GaussianSynthesizer(schema, chunk_rows=4).fit(df)
        >>> whole = pd.concat(synth.sample_chunks(10, seed=3), ignore_index=True)
        >>> whole.equals(synth.sample(10, seed=3))
        True
        """
        for X in self.sample_encoded_chunks(n, seed=seed):
            yield self.encoder.decode(X)

    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Draw ``n`` synthetic rows (clipped to the public bounds, decoded).

        Same rows as :meth:`sample_chunks` with the same seed; each thread decodes its chunk
        straight into the output columns, so no intermediate frames are built or concatenated.
        """
        sizes = self._chunk_sizes(n)
        children = seed_sequence(seed).spawn(len(sizes))
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        columns = self.encoder.empty_columns(n)
        self.n_sampled_ = n

        def fill(i: int) -> None:
            X = self._draw(sizes[i], children[i])
            view = {k: v[starts[i] : starts[i + 1]] for k, v in columns.items()}
            self.encoder.decode_columns(X, out=view)

        with ThreadPoolExecutor(max_workers=self.n_workers) as pool:
            list(pool.map(fill, range(len(sizes))))
        return self.encoder.frame(columns)

    # -- privacy -------------------------------------------------------------------------
    def public_n(self) -> int:
        """The table size the certificate is evaluated at: public under both relations.

        Unbounded (add/remove): the declared minimum table size N (Theorem 3.1 at N-1, valid
        for every table of at least N rows since epsilon decreases in n). Bounded (replace):
        n itself, which that relation assumes public.

        Returns
        -------
        int
            N (unbounded) or the fitted n (bounded).

        Raises
        ------
        AssumptionError
            Under unbounded neighbours without ``min_rows``.
        NotFittedError
            Under bounded neighbours before a fit.
        """
        if self.neighboring == "unbounded":
            if self.min_rows is None:
                raise AssumptionError(
                    "under unbounded neighbouring the table size is private: declare a public "
                    "lower bound on it with --min-rows N (min_rows=N); the certificate is "
                    "evaluated at N",
                    assumption="a public minimum table size",
                    admissible="--min-rows N",
                )
            return int(self.min_rows)
        self._check_fitted()
        return self.fit_.n

    def certificate(
        self,
        n_out: int | None = None,
        *,
        alpha: float | None = None,
        delta: float | None = None,
        conversion: str = "ckm",
    ):
        """The RDP figures of releasing ``n_out`` rows (Theorem 3.1 / Corollary 3.2).

        Evaluated at :meth:`public_n`; with ``sigma="data"`` at the measured eigenvalue, which
        makes the figures private (they are not a guarantee and are never published).

        Parameters
        ----------
        n_out : int, optional
            Rows released (default the public n).
        alpha : float, optional
            Rényi order (default the constructor's, else optimised).
        delta : float, optional
            delta of the conversion (default the constructor's, else 1/n^2).
        conversion : str, default "ckm"
            RDP -> (epsilon, delta) conversion.

        Returns
        -------
        Account
            The figures of :func:`synthcert.privacy.budget.account`.

        Raises
        ------
        NotFittedError
            Before a fit.
        AssumptionError
            Without a public table size (see :meth:`public_n`).
        """
        from synthcert.privacy.budget import account

        self._check_fitted()
        n, alpha, delta = self._accounting_inputs(alpha, delta)
        return account(
            n,
            self.fit_.d,
            self.fit_.sigma,
            alpha=alpha,
            n_out=n if n_out is None else n_out,
            neighboring=self.neighboring,
            delta=delta,
            conversion=conversion,
        )

    def privacy_claim(
        self, n_out: int, *, alpha: float | None = None, delta: float | None = None,
        conversion: str = "ckm",
    ) -> PrivacyClaim:  # fmt: skip
        """The public claim of releasing ``n_out`` rows: inherent RDP, converted to (ε, δ).

        Parameters
        ----------
        n_out : int
            Rows released.
        alpha, delta, conversion
            As :meth:`certificate`.

        Returns
        -------
        PrivacyClaim
            The ridged claim, the Theorem 3.1 claim at the declared sigma, or (``sigma`` from
            the data) a claim that states no guarantee.

        Raises
        ------
        NotFittedError
            Before a fit.
        AssumptionError
            If the certificate cannot be computed (no public table size, no admissible
            order).
        """

        self._check_fitted()
        assumptions = gaussian_assumptions(self)
        if self.ridge is not None:
            return self._ridge_claim(n_out, alpha=alpha, delta=delta, conversion=conversion)
        if self.sigma_declared is None:
            return PrivacyClaim(
                model="inherent-rdp",
                guarantee=DATA_SIGMA,
                neighboring=self.neighboring,
                n_out=int(n_out),
                assumptions=assumptions,
                warnings=(SIGMA_DATA_WARNING,),
            )
        cert = self.certificate(n_out, alpha=alpha, delta=delta, conversion=conversion)
        if not cert.feasible:
            raise AssumptionError(
                f"the certificate cannot be computed: {cert.reason}", assumption=cert.reason or ""
            )
        return self._claim_from(
            cert, n_out, "sampling from N(mu, Sigma) (Miura et al. Theorem 3.1 / Corollary 3.2)"
        )

    def _accounting_inputs(
        self, alpha: float | None, delta: float | None
    ) -> tuple[int, float | None, float | None]:
        """(public n, α, δ) of a certificate: the α and δ asked for, else the constructor's;
        with neither an α nor a δ, δ = 1/n² (:func:`default_delta`) and α is optimised."""
        n = self.public_n()
        alpha = alpha if alpha is not None else self.alpha
        delta = delta if delta is not None else self.delta
        if alpha is None and delta is None:
            delta = default_delta(n)
        return n, alpha, delta

    def _claim_from(self, cert: Any, n_out: int, mechanism: str) -> PrivacyClaim:
        """The claim of a feasible certificate (an ``Account`` or a ``RidgeCertificate``)."""

        assumptions = gaussian_assumptions(self)
        data_domain = any(a.source == "data" for a in assumptions)
        return PrivacyClaim(
            model="inherent-rdp",
            guarantee=DATA_DOMAIN if data_domain else GUARANTEE,
            neighboring=self.neighboring,
            epsilon=cert.epsilon,
            delta=cert.delta,
            alpha=cert.alpha,
            epsilon_rdp=cert.epsilon_rdp,
            n_out=int(n_out),
            conversion=cert.conversion,
            mechanisms=(mechanism,),
            assumptions=(*assumptions, Assumption("equation", cert.equation, "definition")),
        )

    def _ridge_claim(
        self, n_out: int, *, alpha: float | None, delta: float | None, conversion: str
    ) -> PrivacyClaim:
        """The unconditional claim of the ridged release (docs/unconditional.md, R1 / R2)."""
        from synthcert.privacy.ridge import certify_ridge, require_ridge

        n, alpha, delta = self._accounting_inputs(alpha, delta)
        cert = require_ridge(
            certify_ridge(
                n, self.encoder.dim, float(self.ridge), alpha=alpha, n_out=int(n_out),  # type: ignore[arg-type]
                neighboring=self.neighboring, delta=delta, conversion=conversion,  # type: ignore[arg-type]
            )
        )  # fmt: skip
        return self._claim_from(
            cert, n_out, "sampling from N(mu, Sigma + rho I) (the ridged release)"
        )


SIGMA_DATA_WARNING = (
    "sigma was measured on the data: no privacy guarantee is stated and no (epsilon, delta) "
    "is published; declare a public sigma to obtain a certificate (release --sigma VALUE, "
    "synthesize --param sigma=VALUE)"
)


def gaussian_assumptions(synth: GaussianSynthesizer) -> tuple:
    """The public assumptions of M_G's certificate, each with its value and source."""

    schema = synth.schema
    domain = domain_assumption(
        schema.bounds_source, [c.name for c in schema.columns if c.source == "data"]
    )
    ridge = Assumption(
        "ridge",
        None if synth.ridge is None else float(synth.ridge),
        "declared",
        "rows are drawn from N(mu, Sigma + rho I): unconditional, nothing is assumed about the "
        "data's covariance",
    )
    flags = flags_assumption(schema.data_flags)
    out = [
        domain,
        *([flags] if flags is not None else []),
        ridge
        if synth.ridge is not None
        else Assumption(
            "sigma",
            "data" if synth.sigma_declared is None else synth.sigma_declared,
            "data" if synth.sigma_declared is None else "declared",
            "every table that differs from the input in one record has an encoded covariance "
            "whose smallest eigenvalue is at least sigma (the class D_sigma)",
        ),
        Assumption("neighboring", synth.neighboring, "definition"),
        Assumption("d", synth.encoder.dim, "public-schema", "encoded dimension of the schema"),
    ]
    if synth.neighboring == "unbounded":
        out.append(
            Assumption(
                "min_rows",
                None if synth.min_rows is None else int(synth.min_rows),
                "declared",
                "the table has at least this many rows; the certificate is evaluated there",
            )
        )
    elif getattr(synth, "_fitted", False):
        out.append(
            Assumption(
                "n", synth.fit_.n, "definition", "bounded neighbouring keeps the table size public"
            )
        )
    return tuple(out)


def incomplete_rows_under_bounded(dropped: int) -> AssumptionError:
    """The refusal when rows cannot be used under bounded neighbours (n is public there).

    Dropping a row that has a missing value (or a value outside the declared categories)
    would change the table size that bounded neighbouring assumes public, and a replaced
    record would then act as a removal. It is a public-assumption failure: the schema says
    the column is always present.
    """
    return AssumptionError(
        "under bounded neighbours the table size is public, so every row must be used, but a "
        "row has a missing value (or a value outside the declared categories) in a column the "
        "schema does not declare nullable. Declare such columns nullable (missing values are "
        "then modelled), or use unbounded neighbours (add/remove), under which such rows are "
        "dropped by a public rule.",
        assumption="bounded neighbours: every row is complete",
        admissible="nullable columns, or unbounded neighbours",
        private_detail=f"{dropped} rows could not be used",
    )


def neighbour_margin(n: int, d: int, sigma: float, neighboring: str) -> float:
    """Smallest lambda_min(Sigma_D) that keeps every neighbour of D in D_sigma.

    With rows in [-1,1]^d and a = x - mu, ||a||^2 <= 4d. Unbounded: adding x gives
    Sigma' = n/(n+1) Sigma + n/(n+1)^2 a a^T, so lambda_min(Sigma') >= n/(n+1) lambda_min;
    removing x gives Sigma' = n/(n-1) Sigma - n/(n-1)^2 a a^T, so
    lambda_min(Sigma') >= n/(n-1) (lambda_min - 4d/(n-1)). Both are >= sigma when
    lambda_min >= max((n+1) sigma/n, (n-1) sigma/n + 4d/(n-1)). Bounded (x replaced by x',
    b = x' - mu): Sigma' = Sigma + (b b^T - a a^T)/n - (b-a)(b-a)^T/n^2, so by Weyl
    lambda_min(Sigma') >= lambda_min - 4d/n - 4d/n^2, and the margin is sigma + 4d(n+1)/n^2.

    Parameters
    ----------
    n, d : int
        Table size and encoded dimension.
    sigma : float
        The declared sigma.
    neighboring : {"unbounded", "bounded"}
        The neighbouring relation.

    Returns
    -------
    float
        The margin (infinite for n < 2).

    Examples
    --------
    >>> round(neighbour_margin(1001, 2, 0.01, "unbounded"), 6)
    0.01799
    """
    n, d = int(n), int(d)
    if n < 2:
        return math.inf
    if neighboring == "unbounded":
        return max((n + 1) * sigma / n, (n - 1) * sigma / n + 4.0 * d / (n - 1))
    return sigma + 4.0 * d * (n + 1) / float(n) ** 2


def default_delta(n: int) -> float:
    """delta = 1/n^2, one of the two choices of thesis section 5.5.4.

    Examples
    --------
    >>> default_delta(1000)
    1e-06
    """
    return 1.0 / float(n) ** 2


def encoded_column_names(schema: Schema) -> list[str]:
    """Names of the d encoded dimensions: ``age`` or ``workclass=Private`` for dummies, and
    ``age=missing`` for the missingness indicator of a nullable column.

    Examples
    --------
    >>> from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
    >>> age = NumericColumn("age", 0, 99, nullable=True)
    >>> schema = Schema((age, CategoricalColumn("c", ("a", "b"))))
    >>> encoded_column_names(schema)
    ['age', 'age=missing', 'c=b']
    """
    names: list[str] = []
    for col in schema.columns:
        if isinstance(col, NumericColumn):
            names.append(col.name)
        else:
            names.extend(f"{col.name}={c}" for c in col.categories[1:])
        if col.nullable:
            names.append(f"{col.name}=missing")
    return names


def margin_refusal(
    sigma: float, neighboring: str, detail: str, need: float, dim: int
) -> AssumptionError:
    """The one refusal of a table outside the neighbour margin of the declared ``sigma``
    (singular covariances included); its text names public quantities only (sigma, the
    relation and the encoded width ``dim``, which the schema fixes)."""
    return AssumptionError(
        "the table does not meet the public assumption of the certificate: every "
        f"table that differs from it in one record ({neighboring} neighbours) "
        "must have an encoded covariance whose smallest eigenvalue is at least the "
        f"declared sigma = {sigma:.6g}, and this table is too close to that limit "
        "(docs/publication.md, 'The neighbour margin'). Declare a smaller public sigma, drop "
        "constant or nearly collinear columns, or merge rare or unused categories. The margin "
        f"grows with the encoded width (d = {dim} here) and shrinks with the rows (about "
        "4d/n), so a small or wide table may pass no sigma at all: the ridged release "
        "(--param ridge=RHO) assumes nothing about the covariance.",
        assumption="lambda_min of every neighbouring table >= sigma",
        admissible="a smaller declared sigma",
        private_detail=f"{detail}; the margin for this table is {need:.6g}",
    )
