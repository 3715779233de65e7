"""Certified release: fit M_G, certify (Theorem 3.1 / Corollary 3.2), sample, write the rows only.

The generative parameters (mean and covariance) never leave memory unless the caller names a
private file for them explicitly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.encode import MissingPolicy
from synthcert.data.io import (
    ChunkedTableWriter,
    CsvOptions,
    atomic_write_path,
    expand_inputs,
    file_sha256,
    refuse_overwriting_inputs,
    write_text,
)
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, BudgetError
from synthcert.synthesizers.gaussian import GaussianSynthesizer, default_delta

Progress = Callable[[str, int, int | None], None]
Notify = Callable[[str], None]


@dataclass(frozen=True)
class Certificate(Result):
    """The certificate of a release (the JSON contract other tools read)."""

    synthesizer: str
    neighboring: str
    n: int
    d: int
    sigma: float
    sigma_source: str
    bounds_source: str
    alpha: float | None
    n_out: int
    epsilon_rdp: float
    epsilon_rdp_per_record: float
    delta: float | None
    epsilon: float | None
    conversion: str | None
    rows_clipped: int
    rows_dropped_missing: int
    seed: int | None
    synthcert_version: str
    created: str
    budget: dict | None = None
    input_file: str | None = None
    input_sha256: str | None = None
    output_file: str | None = None
    command: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ReleaseResult(Result):
    """What a release wrote."""

    certificate: Certificate
    output: str
    certificate_path: str
    private_params_path: str | None = None


def plan_release(
    synth: GaussianSynthesizer,
    *,
    n_out: int | None,
    epsilon: float | None,
    delta: float | None,
    alpha: float | None,
    conversion: str,
):
    """Decide n_out and compute the certificate's privacy figures (refusing when impossible)."""
    from synthcert.privacy.budget import account, max_records

    fit = synth.fit_
    budget = None
    if epsilon is not None:
        if n_out is not None:
            raise BudgetError("give either --n-out or --epsilon, not both")
        if alpha is not None and delta is None:
            allowed = max_records(
                fit.n,
                fit.d,
                fit.sigma,
                neighboring=synth.neighboring,
                alpha=alpha,
                epsilon_rdp=epsilon,
            )
            budget = {"alpha": alpha, "epsilon_rdp": epsilon}
        else:
            delta = default_delta(fit.n) if delta is None else delta
            allowed = max_records(
                fit.n,
                fit.d,
                fit.sigma,
                neighboring=synth.neighboring,
                alpha=alpha,
                epsilon=epsilon,
                delta=delta,
                conversion=conversion,
            )
            budget = {"epsilon": epsilon, "delta": delta}
        if allowed.max_records < 1:
            raise BudgetError(
                f"the budget {budget} allows no record at all for n={fit.n}, d={fit.d}, "
                f"sigma={fit.sigma:.4g} ({synth.neighboring}): raise epsilon, declare a larger "
                "sigma if it is publicly justified, or use a larger input table"
            )
        n_out = int(allowed.max_records)
        alpha = allowed.alpha if alpha is None else alpha
    n_out = fit.n if n_out is None else int(n_out)
    if n_out < 1:
        raise BudgetError("n_out must be at least 1")
    if alpha is None and delta is None:
        delta = default_delta(fit.n)
    cert = account(
        fit.n,
        fit.d,
        fit.sigma,
        alpha=alpha,
        n_out=n_out,
        neighboring=synth.neighboring,
        delta=delta,
        conversion=conversion,
    )
    if not cert.feasible:
        raise AssumptionError(
            f"the certificate cannot be computed: {cert.reason}", assumption=cert.reason or ""
        )
    return cert, budget


def release(
    input_path: str | os.PathLike,
    schema: Schema,
    out: str | os.PathLike,
    *,
    n_out: int | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    alpha: float | None = None,
    neighboring: str = "unbounded",
    sigma: float | None = None,
    seed: int | None = None,
    certificate_path: str | os.PathLike | None = None,
    conversion: str = "ckm",
    missing: MissingPolicy = "drop",
    csv: CsvOptions | None = None,
    chunk_rows: int = 1_000_000,
    save_private_params: str | os.PathLike | None = None,
    command: str | None = None,
    progress: Progress | None = None,
    engine: str | Any = "local",
    scheduler: str | Any = None,
    partitioned: bool | None = None,
    partition_rows: int | None = None,
    workers: int | None = None,
    notify: Notify | None = None,
) -> ReleaseResult:
    """Fit M_G on the input (streamed in chunks), certify, sample ``n_out`` rows, write them.

    ``engine="local"`` streams partitions with threads of this process; ``engine="dask"`` runs
    them on the cluster at ``scheduler`` (or a loopback ``LocalCluster`` when None). Both give
    the same moments and, for the same seed, the same rows. ``out`` ending in a slash or naming
    a folder (or ``partitioned=True``) writes a partitioned Parquet dataset with a manifest.
    """
    from synthcert import engine as eng_mod

    inputs = expand_inputs(input_path)
    as_dataset = eng_mod.is_dataset_target(out) if partitioned is None else bool(partitioned)
    partition_rows = partition_rows or eng_mod.plan.DEFAULT_PARTITION_ROWS
    out = Path(out)
    cert_path = Path(certificate_path) if certificate_path else default_certificate_path(out)
    for target in (out, cert_path, *([Path(save_private_params)] if save_private_params else [])):
        refuse_overwriting_inputs(target, inputs)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))

    synth = GaussianSynthesizer(schema, sigma=sigma, neighboring=neighboring, missing=missing)

    def stage(name: str):
        return None if progress is None else (lambda done, total: progress(name, done, total))

    with eng_mod.open_engine(engine, scheduler, workers=workers, notify=notify) as eng:
        eng_mod.fit_gaussian(
            input_path,
            synth,
            csv=csv,
            chunk_rows=chunk_rows,
            partition_rows=partition_rows,
            engine=eng,
            progress=stage("fit"),
        )
        cert, budget = plan_release(
            synth, n_out=n_out, epsilon=epsilon, delta=delta, alpha=alpha, conversion=conversion
        )
        warnings = release_warnings(synth, schema)
        if as_dataset:
            eng_mod.sample_partitioned(
                synth,
                cert.n_out,
                out,
                seed=seed,
                partition_rows=partition_rows,
                engine=eng,
                protect=inputs,
                progress=stage("sample"),
            )
        else:
            frames = (
                synth.sample_chunks(cert.n_out, seed=seed)
                if eng.name == "local"
                else eng_mod.sample_frames(synth, cert.n_out, seed=seed, engine=eng)
            )
            with ChunkedTableWriter(out, protect=inputs) as writer:
                for frame in frames:
                    writer.write(frame)
                    if progress:
                        progress("sample", writer.rows, cert.n_out)
    certificate = Certificate(
        synthesizer="gaussian",
        neighboring=neighboring,
        n=synth.fit_.n,
        d=synth.fit_.d,
        sigma=synth.fit_.sigma,
        sigma_source=synth.fit_.sigma_source,
        bounds_source=schema.bounds_source,
        alpha=cert.alpha,
        n_out=cert.n_out,
        epsilon_rdp=cert.epsilon_rdp,
        epsilon_rdp_per_record=cert.epsilon_rdp_per_record,
        delta=cert.delta,
        epsilon=cert.epsilon,
        conversion=cert.conversion,
        rows_clipped=synth.fit_.rows_clipped,
        rows_dropped_missing=synth.fit_.rows_dropped_missing,
        seed=seed,
        synthcert_version=__version__,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        budget=budget,
        input_file=", ".join(str(p) for p in inputs),
        input_sha256=file_sha256(inputs),
        output_file=str(out),
        command=command if command is not None else " ".join(sys.argv),
        warnings=tuple(warnings),
    )
    import json

    write_text(json.dumps(certificate.to_dict(), indent=2) + "\n", cert_path, protect=inputs)
    private = None
    if save_private_params is not None:
        private = str(save_private_params)
        with atomic_write_path(private, protect=inputs) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, mean=synth.mean_, cov=synth.cov_, columns=np.array(schema.names))
    return ReleaseResult(certificate, str(out), str(cert_path), private)


def default_certificate_path(out: Path) -> Path:
    """``synthetic.csv`` -> ``synthetic.certificate.json`` beside it."""
    return out.with_name(out.name.split(".")[0] + ".certificate.json")


def release_warnings(synth: GaussianSynthesizer, schema: Schema) -> list[str]:
    """Warnings the certificate carries: data-derived sigma or bounds, clipped values."""
    notes = []
    if synth.fit_.sigma_source == "data":
        notes.append(
            "sigma was taken from the data (the smallest eigenvalue of this table's encoded "
            "covariance): the guarantee then depends on the data itself; declare a public "
            "--sigma to make it data-independent"
        )
    if schema.bounds_source == "data":
        data_cols = [c.name for c in schema.columns if c.source == "data"]
        notes.append(
            "bounds or categories of "
            + ", ".join(data_cols)
            + " were taken from the data: they leak the minimum, maximum or categories present; "
            "replace them by public ones (a codebook) before publishing"
        )
    if synth.fit_.rows_clipped:
        notes.append(
            f"{synth.fit_.rows_clipped} values lay outside the declared bounds and were clipped"
        )
    return notes
