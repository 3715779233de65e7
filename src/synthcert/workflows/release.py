"""Certified release: fit M_G, certify (Theorem 3.1 / Corollary 3.2), sample, publish the rows.

What is published (the rows, the certificate, the manifest of a partitioned output, the public
report) depends on the table only through the sampled rows: the certificate is computed from
public quantities (the declared sigma, the declared minimum table size N under add/remove
neighbours or n under replacement, the schema, the budget). Everything the run learns about
the table (n, dropped and clipped values, the smallest eigenvalue, the seed, the input's path
and hash, the command line, timings) goes into a private :class:`~synthcert.run_record.RunRecord`,
written only where the operator asks. The fitted mean and covariance never leave memory unless
the caller names a private file for them explicitly.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.encode import MissingPolicy, dates_as_written
from synthcert.data.io import PARQUET_SUFFIXES, ChunkedTableWriter
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, BudgetError, ParameterError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.results import Certificate
from synthcert.run_record import RunRecord, now_utc, today_utc
from synthcert.seeding import entropy_text, secret_seed, seed_warning
from synthcert.synthesizers.gaussian import GaussianSynthesizer, default_delta
from synthcert.workflows.artefacts import Publication
from synthcert.workflows.job_inputs import Budget, Execution, TableSource
from synthcert.workflows.pipeline import Route, RunOutputs, run_pipeline


@dataclass(frozen=True)
class ReleaseResult(Result):
    """What a release wrote (public) and the private record of the run (memory only)."""

    certificate: Certificate
    output: str
    certificate_path: str
    record: RunRecord
    private_record_path: str | None = None
    private_params_path: str | None = None


def plan_release(
    synth: GaussianSynthesizer,
    *,
    n_out: int | None,
    epsilon: float | None,
    delta: float | None,
    alpha: float | None,
    conversion: str,
) -> tuple[PrivacyClaim, dict | None, float | None]:
    """Decide n_out from public quantities and state the claim (refusing when impossible).

    With a budget ``epsilon``, ``n_out`` is the largest number of rows whose certificate
    (Theorem 3.1 / Corollary 3.2, or Theorems R1/R2 with a ridge) stays within it, evaluated
    at the public table size (``min_rows`` under add/remove neighbours, n under replacement).

    Parameters
    ----------
    synth
        The fitted M_G.
    n_out
        Rows to release (exclusive with ``epsilon``; default: the public table size).
    epsilon, delta, alpha
        A budget: (epsilon, delta)-DP, or an RDP budget epsilon_RDP at ``alpha`` when
        ``delta`` is None; default delta 1/N^2.
    conversion
        ``"ckm"`` or ``"mironov"``.

    Returns
    -------
    tuple
        The claim, the budget as stated in the certificate (or None), and epsilon_RDP per
        released record.

    Raises
    ------
    BudgetError
        Both ``n_out`` and ``epsilon``, or a budget that allows no row.
    AssumptionError
        A budget with ``sigma="data"`` (the size would depend on the data).

    Examples
    --------
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> synth = GaussianSynthesizer(demo_schema(), sigma=0.01, min_rows=20_000)
    >>> _ = synth.fit(make_demo_table(20_000, seed=1))
    >>> claim, budget, per = plan_release(
    ...     synth, n_out=None, epsilon=10.0, delta=1e-9, alpha=None, conversion="ckm"
    ... )
    >>> claim.n_out > 1, claim.epsilon <= 10.0, budget
    (True, True, {'epsilon': 10.0, 'delta': 1e-09})
    """
    from synthcert.privacy.budget import max_records

    fit = synth.fit_
    n_pub = synth.public_n()
    budget = None
    if epsilon is not None:
        if n_out is not None:
            raise BudgetError("give either --param n_out or --epsilon, not both")
        if synth.sigma_declared is None and synth.ridge is None:
            raise AssumptionError(
                "sizing a release to a budget needs a public sigma: with --sigma data the "
                "number of rows would depend on the data; declare --sigma",
                assumption="a declared sigma",
                admissible="--sigma VALUE",
            )
        if synth.ridge is not None:
            from synthcert.privacy.ridge import max_records_ridge

            def sizing(**kw):
                return max_records_ridge(
                    n_pub, fit.d, synth.ridge, neighboring=synth.neighboring, **kw
                )
        else:

            def sizing(**kw):
                return max_records(n_pub, fit.d, fit.sigma, neighboring=synth.neighboring, **kw)

        if alpha is not None and delta is None:
            allowed = sizing(alpha=alpha, epsilon_rdp=epsilon)
            budget = {"alpha": alpha, "epsilon_rdp": epsilon}
        else:
            delta = default_delta(n_pub) if delta is None else delta
            allowed = sizing(alpha=alpha, epsilon=epsilon, delta=delta, conversion=conversion)
            budget = {"epsilon": epsilon, "delta": delta}
        if allowed.max_records < 1:
            size = "--min-rows" if synth.neighboring == "unbounded" else "n"
            scale = (
                f"rho={synth.ridge:.4g}" if synth.ridge is not None else f"sigma={fit.sigma:.4g}"
            )
            raise BudgetError(
                f"the budget {budget} allows no record at all for {size}={n_pub}, d={fit.d}, "
                f"{scale} ({synth.neighboring}): raise epsilon, declare a larger sigma or ridge "
                "if it is publicly justified, or use a larger input table"
            )
        n_out = int(allowed.max_records)
        alpha = allowed.alpha if alpha is None else alpha
    n_out = n_pub if n_out is None else int(n_out)
    if n_out < 1:
        raise BudgetError("n_out must be at least 1")
    if alpha is None and delta is None:
        delta = default_delta(n_pub)
    claim = synth.privacy_claim(n_out, alpha=alpha, delta=delta, conversion=conversion)
    per = None
    if claim.epsilon_rdp is not None:
        per = claim.epsilon_rdp / n_out
    return claim, budget, per


def _refuse_missing_assumptions(budget: Budget) -> None:
    """The public quantities a certificate cannot go without (Theorem 3.1's sigma, and the
    public table size under add/remove neighbours)."""
    if budget.sigma is None and budget.ridge is None:
        raise AssumptionError(
            "the certificate needs a PUBLIC sigma (--sigma VALUE): a lower bound on the "
            "smallest eigenvalue of the encoded covariance that holds for every table that "
            "differs from this one in one record. --sigma data measures it on the table and "
            "then states no guarantee; --param ridge=RHO certifies without any assumption on the "
            "data (docs/unconditional.md).",
            assumption="a declared sigma",
            admissible="--sigma VALUE, --param ridge=RHO, or --sigma data",
        )
    if budget.neighboring == "unbounded" and budget.min_rows is None:
        raise AssumptionError(
            "under unbounded (add/remove) neighbours the table size is private: declare a "
            "public lower bound on it with --min-rows N (the certificate is evaluated at N, "
            "the default n_out is N); or use --param neighboring=bounded, where n is public",
            assumption="a public minimum table size",
            admissible="--min-rows N",
        )


def _model(schema: Schema, budget: Budget, missing: MissingPolicy) -> GaussianSynthesizer:
    """M_G with the budget's public quantities (not yet fitted)."""
    return GaussianSynthesizer(
        schema, sigma=budget.sigma, neighboring=budget.neighboring, missing=missing,
        min_rows=budget.min_rows, ridge=budget.ridge,
    )  # fmt: skip


def _plan(
    synth: GaussianSynthesizer, budget: Budget
) -> tuple[PrivacyClaim, dict | None, float | None]:
    """:func:`plan_release` with the budget's fields."""
    return plan_release(
        synth, n_out=budget.n_out, epsilon=budget.epsilon, delta=budget.delta,
        alpha=budget.alpha, conversion=budget.conversion,
    )  # fmt: skip


def release(
    source: TableSource | str | os.PathLike,
    schema: Schema,
    out: str | os.PathLike,
    budget: Budget,
    execution: Execution | None = None,
    *,
    seed: int | None = None,
    missing: MissingPolicy = "model",
    certificate_path: str | os.PathLike | None = None,
    save_private_params: str | os.PathLike | None = None,
    private_record: str | os.PathLike | None = None,
    report: str | os.PathLike | None = None,
    internal_report: str | os.PathLike | None = None,
    command: str | None = None,
    claim_audit: Any = None,
) -> ReleaseResult:
    """Fit M_G on the input (streamed), certify (Theorem 3.1 / Corollary 3.2), write rows.

    The certificate is (alpha, epsilon)-Renyi DP from the randomness of sampling alone
    (Miura et al., Theorem 3.1 under add/remove neighbours, Corollary 3.2 under replacement),
    converted to (epsilon, delta)-DP; it depends on the table only through public quantities
    (the budget's sigma or ridge, min_rows or the public n, the schema).

    Parameters
    ----------
    source
        The input table: a :class:`TableSource` (file, folder or glob, with CSV options) or a
        path. A frame in memory: use :func:`release_frame`.
    schema
        The public schema (bounds and categories).
    out
        The rows: a ``.csv``/``.parquet`` file, or a folder (a path ending in a slash, or
        ``execution.partitioned``) for a partitioned Parquet dataset with a manifest.
    budget
        ``sigma`` (or ``ridge``), ``min_rows`` under unbounded neighbours, and the size of
        the release: ``n_out``, or a budget ``epsilon`` (with ``delta``, or ``alpha`` alone
        for an RDP budget) that sizes it to the largest number of rows it allows.
    execution
        Engine (``"local"`` threads or ``"dask"``), workers, chunk and partition sizes,
        progress callbacks. The rows do not depend on it.
    seed
        A SECRET seed (written to the private record only). Default: 128 bits of OS entropy.
    missing
        ``"model"``, ``"drop"`` or ``"fail"`` (see :class:`synthcert.data.encode.Encoder`).
    certificate_path
        Where to write the certificate (default: beside ``out``, ``NAME.certificate.json``).
    save_private_params
        Also write the fitted mean and covariance to this PRIVATE file (mode 0600).
    private_record
        Write the private run record here (mode 0600; never inside a public output).
    report, internal_report
        Also write the public HTML report, or the internal one (public report plus the
        private record, marked "do not publish").
    command
        The command line recorded in the private record (default: ``sys.argv``).
    claim_audit
        The worst-case audit of this configuration (:func:`synthcert.workflows.audit_gate.
        release_audit_gate`; public), drawn on the public report's attack-risk figure.

    Returns
    -------
    ReleaseResult
        The certificate, the paths written and the private record (in memory).

    Raises
    ------
    AssumptionError
        sigma or min_rows missing, the table below min_rows or too close to sigma (the
        neighbour margin), or the certificate infeasible. Messages carry no private value.
    BudgetError
        The budget allows no row at all, or both ``n_out`` and ``epsilon`` were given.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from synthcert import Budget, release
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     make_demo_table(20_000, seed=1).to_csv(Path(tmp) / "people.csv", index=False)
    ...     result = release(
    ...         Path(tmp) / "people.csv", demo_schema(), Path(tmp) / "synthetic.csv",
    ...         Budget(sigma=0.01, min_rows=20_000, epsilon=8.0, delta=1e-9), seed=7,
    ...     )
    ...     sorted(path.name for path in Path(tmp).iterdir())
    ['people.csv', 'synthetic.certificate.json', 'synthetic.csv']
    >>> result.certificate.claim.epsilon <= 8.0, result.certificate.claim.n_out
    (True, 99)
    """
    _refuse_missing_assumptions(budget)
    execution = execution or Execution()
    source = TableSource.of(source).reading(schema)
    if source.in_memory:
        raise ParameterError("release() writes rows from a file: use release_frame() for a frame")
    started = time.perf_counter()
    from synthcert.engine.plan import DEFAULT_PARTITION_ROWS

    partition_rows = execution.partition_rows or DEFAULT_PARTITION_ROWS
    cert_path = Path(certificate_path) if certificate_path else default_certificate_path(Path(out))
    params_path = None if save_private_params is None else Path(save_private_params)
    outputs = RunOutputs.at(
        out, partitioned=execution.partitioned, partition_rows=partition_rows, report=report,
        internal_report=internal_report, private_record=private_record,
        public_extra=(cert_path,), private_extra=() if params_path is None else (params_path,),
    )  # fmt: skip
    notes = []
    if save_private_params is not None:
        notes.append(f"{save_private_params} will hold the generative parameters: keep it private")
    pub = outputs.open(
        source, execution, seed=seed, notes=notes,
        command=command if command is not None else " ".join(sys.argv),
    )  # fmt: skip
    route = _ReleaseRoute(
        _model(schema, budget, missing), source, budget, execution, partition_rows, cert_path,
        params_path,
    )  # fmt: skip
    certificate, record = run_pipeline(
        route, pub, outputs, execution, sample_seed=pub.seed, schema=schema,
        claim_audit=claim_audit, started=started, workers=execution.workers,
        one_blas_thread=True,
    )  # fmt: skip
    return ReleaseResult(
        certificate,
        str(outputs.out),
        str(cert_path),
        record,
        None if private_record is None else str(private_record),
        None if params_path is None else str(params_path),
    )


_Plan = tuple[PrivacyClaim, "dict | None", "float | None"]  # claim, budget, per record


@dataclass(frozen=True)
class _ReleaseRoute(Route[None, _Plan, Certificate]):
    """The release's steps of the pipeline: M_G fitted from the engine's merged moments, sized
    by :func:`plan_release`, streamed to one file, certified in ``cert_path``."""

    model: GaussianSynthesizer
    source: TableSource
    budget: Budget
    execution: Execution
    partition_rows: int
    cert_path: Path
    params_path: Path | None

    def fit(self, engine: Any) -> None:
        """The encoded moments, merged over the input's partitions on the engine."""
        from synthcert import engine as eng_mod

        moments = eng_mod.fit_moments(
            self.source.path, self.model.encoder, csv=self.source.csv,
            chunk_rows=self.execution.chunk_rows, partition_rows=self.partition_rows,
            engine=engine, progress=self.execution.stage("fit"),
        )  # fmt: skip
        self.model.fit_moments(moments.acc, [moments.report])

    def plan(self, pub: Publication, fitted: None) -> tuple[int, _Plan]:
        """n_out and the claim, from public quantities (:func:`plan_release`)."""
        planned = _plan(self.model, self.budget)
        return planned[0].n_out, planned  # type: ignore[return-value]

    def write_file(
        self, n: int, out: Path, *, seed: np.random.SeedSequence, engine: Any, protect: list[Path]
    ) -> None:
        """The n rows of ``model.sample(n, seed=seed)``, written to one file chunk by chunk.

        The engine draws, decodes and (for Parquet) converts chunks to Arrow ahead of the
        writer, which writes in this thread: drawing and writing overlap, the rows are the same.
        """
        from synthcert import engine as eng_mod

        synth, progress = self.model, self.execution.progress
        parquet = out.suffix.lower() in PARQUET_SUFFIXES
        chunks = (
            eng_mod.sample_tables(synth, n, seed=seed, engine=engine)
            if parquet
            else eng_mod.sample_frames(synth, n, seed=seed, engine=engine)
        )
        synth.n_sampled_ = n
        with ChunkedTableWriter(out, protect=protect) as writer:
            for chunk in chunks:
                if parquet:
                    writer.write_arrow(chunk)
                else:
                    writer.write(dates_as_written(chunk, synth.schema))
                if progress:
                    progress("sample", writer.rows, n)

    def publish(self, pub: Publication, plan: _Plan) -> Certificate:
        """The certificate (public JSON) and the fit's private facts."""
        certificate = make_certificate(self.model, *plan)
        pub.json(certificate, self.cert_path)
        pub.facts.update(private_facts(self.model))
        return certificate

    def keep_private(self, pub: Publication) -> None:
        """The fitted mean and covariance, only to a private file named for them."""
        if self.params_path is not None:
            names = np.array(self.model.schema.names)
            pub.private_npz(self.params_path, mean=self.model.mean_, cov=self.model.cov_,
                            columns=names)  # fmt: skip


@dataclass(frozen=True)
class FrameRelease:
    """What :func:`release_frame` returns: the rows, the certificate and the private record.

    Unpacks as ``rows, certificate = release_frame(...)``.
    """

    rows: pd.DataFrame = field(repr=False)
    certificate: Certificate
    record: RunRecord = field(repr=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.rows, self.certificate))


def release_frame(
    frame: pd.DataFrame,
    schema: Schema,
    budget: Budget,
    *,
    seed: int | np.random.SeedSequence | None = None,
    missing: MissingPolicy = "model",
) -> FrameRelease:
    """The certified release of a table in memory: rows and certificate, nothing on disk.

    The same model, certificate and rows as :func:`release` (and ``synthcert release``) on
    the same table with the same secret seed: M_G is fitted on the frame's encoded moments,
    certified by Theorem 3.1 / Corollary 3.2, and ``n_out`` rows are drawn, chunk i from
    child i of the secret seed.

    Parameters
    ----------
    frame
        The private table (``pandas.DataFrame`` with the schema's columns).
    schema
        The public schema (bounds and categories).
    budget
        ``sigma`` (or ``ridge``), ``min_rows`` under unbounded neighbours, and ``n_out`` or a
        budget ``epsilon`` that sizes the release (see :class:`Budget`).
    seed
        A SECRET seed. Default: 128 bits of OS entropy (never shown anywhere).
    missing
        ``"model"``, ``"drop"`` or ``"fail"``.

    Returns
    -------
    FrameRelease
        ``rows`` (the synthetic frame), ``certificate`` (public) and ``record`` (the private
        run record: rows used, values clipped, the seed's entropy; never publish it).

    Raises
    ------
    AssumptionError
        sigma or min_rows missing, the table below min_rows or too close to sigma, or the
        certificate infeasible.
    BudgetError
        The budget allows no row at all.

    Examples
    --------
    >>> from synthcert import Budget, release_frame
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> rows, cert = release_frame(
    ...     make_demo_table(20_000, seed=1), demo_schema(),
    ...     Budget(sigma=0.01, min_rows=20_000, n_out=100),
    ... )
    >>> len(rows), cert.claim.n_out
    (100, 100)
    """
    _refuse_missing_assumptions(budget)
    started = time.perf_counter()
    secret = secret_seed(seed)
    warnings = [w for w in [seed_warning(seed if isinstance(seed, int) else None)] if w]
    synth = _model(schema, budget, missing)
    t0 = time.perf_counter()
    synth.fit(frame)
    fit_seconds = time.perf_counter() - t0
    claim, budget_doc, per_record = _plan(synth, budget)
    t0 = time.perf_counter()
    rows = synth.sample(int(claim.n_out or 0), seed=secret)
    sample_seconds = time.perf_counter() - t0
    certificate = make_certificate(synth, claim, budget_doc, per_record)
    record = RunRecord(
        command="release_frame",
        started=now_utc(),
        seed_source="os-entropy" if seed is None else "user",
        seed_entropy=entropy_text(secret),
        inputs=(),
        input_sha256=None,
        facts=private_facts(synth),
        timings={
            "fit": round(fit_seconds, 6),
            "sample": round(sample_seconds, 6),
            "total": round(time.perf_counter() - started, 6),
        },
        ledger=(),
        warnings=tuple(warnings),
    )
    return FrameRelease(rows, certificate, record)


def make_certificate(
    synth: GaussianSynthesizer, claim: PrivacyClaim, budget: dict | None, per: float | None
) -> Certificate:
    """The published certificate: the claim plus public facts about the release.

    Parameters
    ----------
    synth
        The fitted M_G (only its public settings and, under bounded neighbours, n are read).
    claim
        The claim from :func:`plan_release`.
    budget, per
        The budget as stated, and epsilon_RDP per released record.

    Returns
    -------
    Certificate
        Public fields only: the JSON contract of ``NAME.certificate.json``.

    Examples
    --------
    >>> from synthcert.data.datasets import demo_schema, make_demo_table
    >>> synth = GaussianSynthesizer(demo_schema(), sigma=0.01, min_rows=20_000)
    >>> _ = synth.fit(make_demo_table(20_000, seed=1))
    >>> claim, budget, per = plan_release(
    ...     synth, n_out=100, epsilon=None, delta=None, alpha=None, conversion="ckm"
    ... )
    >>> cert = make_certificate(synth, claim, budget, per)
    >>> cert.claim.n_out, cert.min_rows, cert.n
    (100, 20000, None)
    """
    bounded = synth.neighboring != "unbounded"
    return Certificate(
        synthesizer="gaussian",
        d=synth.encoder.dim,
        sigma=synth.sigma_declared,
        sigma_source=sigma_source(synth),
        ridge=synth.ridge,
        bounds_source=synth.schema.bounds_source,
        min_rows=synth.min_rows,
        n=synth.fit_.n if bounded else None,
        epsilon_rdp_per_record=per,
        budget=budget,
        claim=dataclasses.replace(
            claim,
            neighboring=synth.neighboring,
            n_out=int(claim.n_out or 0),
            warnings=(*claim.warnings, *release_warnings(synth.schema)),
        ),
        synthcert_version=__version__,
        date=today_utc(),
    )


def private_facts(synth: GaussianSynthesizer) -> dict[str, Any]:
    """What the fit learnt about the table (for the private record only)."""
    fit = synth.fit_
    facts: dict[str, Any] = {
        "rows_used": fit.n,
        "rows_dropped_missing": fit.rows_dropped_missing,
        "values_filled": fit.values_filled,
        "values_clipped": dict(fit.values_clipped),
        "lambda_min": synth.smallest_eigenvalue_,
    }
    if synth.sigma_declared is not None:
        from synthcert.synthesizers.gaussian import neighbour_margin

        facts["neighbour_margin"] = neighbour_margin(
            fit.n, fit.d, synth.sigma_declared, synth.neighboring
        )
    elif synth.ridge is None:
        facts["sigma_measured"] = fit.sigma
    measured = synth.sigma_declared is None and synth.ridge is None
    if synth.n_sampled_ is not None and measured and synth.min_rows:
        cert = synth.certificate(synth.n_sampled_)
        facts["figures_at_measured_sigma"] = cert.to_dict()
    return facts


def sigma_source(synth: GaussianSynthesizer) -> str:
    """Where the covariance assumption comes from: declared sigma, a ridge (none), the data."""
    if synth.ridge is not None:
        return "none (ridge: nothing is assumed about the data)"
    return "declared" if synth.sigma_declared is not None else "data"


def default_certificate_path(out: Path) -> Path:
    """``synthetic.csv`` -> ``synthetic.certificate.json`` beside it."""
    return out.with_name(out.name.split(".")[0] + ".certificate.json")


def release_warnings(schema: Schema) -> list[str]:
    """Public warnings of a release: bounds, categories or flags read from the data (schema
    facts)."""
    notes = []
    if schema.bounds_source == "data":
        data_cols = [c.name for c in schema.columns if c.source == "data"]
        notes.append(
            "bounds or categories of "
            + ", ".join(data_cols)
            + " were taken from the data: they leak the minimum, maximum or categories present; "
            "replace them by public ones (a codebook) before publishing"
        )
    if schema.data_flags:
        notes.append(
            "the flags " + ", ".join(schema.data_flags) + " were read from the data (whether a "
            "value can be missing or fractional): declare them public after checking them "
            '("nullable_source"/"integer_source": "public")'
        )
    return notes


__all__ = [
    "Certificate",
    "FrameRelease",
    "ReleaseResult",
    "make_certificate",
    "plan_release",
    "release",
    "release_frame",
]
