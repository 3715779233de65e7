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

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.encode import MissingPolicy
from synthcert.data.io import ChunkedTableWriter, CsvOptions, expand_inputs
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, BudgetError
from synthcert.privacy.claims import Assumption, PrivacyClaim
from synthcert.run_record import RunRecord, today_utc
from synthcert.statistics.chunks import CHUNK_ROWS
from synthcert.synthesizers.gaussian import GaussianSynthesizer, default_delta
from synthcert.workflows.artefacts import Publication

Progress = Callable[[str, int, int | None], None]
Notify = Callable[[str], None]


@dataclass(frozen=True)
class Certificate(Result):
    """The published certificate of a release: public fields only (the JSON contract).

    ``min_rows`` is the declared public lower bound on the table size (unbounded neighbours:
    the theorem is evaluated there); ``n`` is the table size, published only under bounded
    neighbours, whose definition makes it public. With ``sigma_source == "data"`` no figure is
    published: ``guarantee`` says why.
    """

    synthesizer: str
    model: str
    guarantee: str
    neighboring: str
    d: int
    sigma: float | None
    sigma_source: str
    ridge: float | None
    bounds_source: str
    min_rows: int | None
    n: int | None
    n_out: int
    alpha: float | None
    epsilon_rdp: float | None
    epsilon_rdp_per_record: float | None
    delta: float | None
    epsilon: float | None
    conversion: str | None
    budget: dict | None
    assumptions: tuple[Assumption, ...]
    synthcert_version: str
    date: str
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def claim(self) -> PrivacyClaim:
        """The privacy claim this certificate states."""
        return PrivacyClaim(
            model=self.model,  # type: ignore[arg-type]
            guarantee=self.guarantee,
            neighboring=self.neighboring,
            epsilon=self.epsilon,
            delta=self.delta,
            alpha=self.alpha,
            epsilon_rdp=self.epsilon_rdp,
            n_out=self.n_out,
            conversion=self.conversion,
            assumptions=self.assumptions,
            warnings=self.warnings,
        )


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

    Returns the claim, the budget (or None) and the per-record epsilon_RDP.
    """
    from synthcert.privacy.budget import max_records

    fit = synth.fit_
    n_pub = synth.public_n()
    budget = None
    if epsilon is not None:
        if n_out is not None:
            raise BudgetError("give either --n-out or --epsilon, not both")
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


def release(
    input_path: str | os.PathLike,
    schema: Schema,
    out: str | os.PathLike,
    *,
    sigma: float | str | None = None,
    min_rows: int | None = None,
    ridge: float | None = None,
    n_out: int | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    alpha: float | None = None,
    neighboring: str = "unbounded",
    seed: int | None = None,
    certificate_path: str | os.PathLike | None = None,
    conversion: str = "ckm",
    missing: MissingPolicy = "model",
    csv: CsvOptions | None = None,
    chunk_rows: int = CHUNK_ROWS,
    save_private_params: str | os.PathLike | None = None,
    private_record: str | os.PathLike | None = None,
    report: str | os.PathLike | None = None,
    internal_report: str | os.PathLike | None = None,
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

    Parameters
    ----------
    sigma
        The PUBLIC lower bound on the smallest eigenvalue of every neighbouring table's encoded
        covariance, or ``"data"`` to measure it on the table (then no guarantee is stated and
        no figure is published). Required unless ``ridge`` is given.
    ridge
        A PUBLIC rho > 0: sample from N(mu, Sigma + rho I) instead, whose certificate assumes
        nothing about the data (docs/unconditional.md, Theorems R1 and R2).
    min_rows
        Under unbounded neighbours, a PUBLIC lower bound N on the table size: the certificate
        is evaluated at N (valid for every table of at least N rows), the default ``n_out`` is
        N and the default delta 1/N^2; a smaller table is refused. Required there.
    seed
        A SECRET seed (written to the private record only). Default: 128 bits of OS entropy.

    ``engine="local"`` streams partitions with threads of this process; ``engine="dask"`` runs
    them on the cluster at ``scheduler``. ``out`` ending in a slash or naming a folder (or
    ``partitioned=True``) writes a partitioned Parquet dataset with a manifest.

    Raises
    ------
    AssumptionError
        sigma or min_rows missing, the table below min_rows or too close to sigma (the
        neighbour margin), or the certificate infeasible. Messages carry no private value.
    """
    from synthcert import engine as eng_mod

    if sigma is None and ridge is None:
        raise AssumptionError(
            "the certificate needs a PUBLIC sigma (--sigma VALUE): a lower bound on the "
            "smallest eigenvalue of the encoded covariance that holds for every table that "
            "differs from this one in one record. --sigma data measures it on the table and "
            "then states no guarantee; --ridge RHO certifies without any assumption on the "
            "data (docs/unconditional.md).",
            assumption="a declared sigma",
            admissible="--sigma VALUE, --ridge RHO, or --sigma data",
        )
    if neighboring == "unbounded" and min_rows is None:
        raise AssumptionError(
            "under unbounded (add/remove) neighbours the table size is private: declare a "
            "public lower bound on it with --min-rows N (the certificate is evaluated at N, "
            "the default n_out is N); or use --neighboring bounded, where n is public",
            assumption="a public minimum table size",
            admissible="--min-rows N",
        )
    started = time.perf_counter()
    inputs = expand_inputs(input_path)
    as_dataset = eng_mod.is_dataset_target(out) if partitioned is None else bool(partitioned)
    partition_rows = partition_rows or eng_mod.plan.DEFAULT_PARTITION_ROWS
    out = Path(out)
    cert_path = Path(certificate_path) if certificate_path else default_certificate_path(out)
    pub = Publication.start(
        inputs=inputs,
        seed=seed,
        command=command if command is not None else " ".join(sys.argv),
        public=[out, cert_path, *([Path(report)] if report else [])],
        private=[
            Path(p) for p in (private_record, save_private_params, internal_report) if p is not None
        ],
    )
    synth = GaussianSynthesizer(
        schema, sigma=sigma, neighboring=neighboring, missing=missing, min_rows=min_rows,
        ridge=ridge,
    )  # fmt: skip

    def stage(name: str):
        return None if progress is None else (lambda done, total: progress(name, done, total))

    with eng_mod.open_engine(engine, scheduler, workers=workers, notify=notify) as eng:
        t0 = time.perf_counter()
        try:
            moments = eng_mod.fit_moments(
                input_path, synth.encoder, csv=csv, chunk_rows=chunk_rows,
                partition_rows=partition_rows, engine=eng, progress=stage("fit"),
            )  # fmt: skip
            synth.fit_moments(moments.acc, [moments.report])
        finally:
            pub.timing("fit", time.perf_counter() - t0)
        claim, budget, per_record = plan_release(
            synth, n_out=n_out, epsilon=epsilon, delta=delta, alpha=alpha, conversion=conversion
        )
        t0 = time.perf_counter()
        if as_dataset:
            eng_mod.sample_partitioned(
                synth, claim.n_out, out, seed=pub.seed, partition_rows=partition_rows,
                engine=eng, protect=inputs, progress=stage("sample"),
            )  # fmt: skip
        else:
            frames = (
                synth.sample_chunks(claim.n_out, seed=pub.seed)
                if eng.name == "local"
                else eng_mod.sample_frames(synth, claim.n_out, seed=pub.seed, engine=eng)
            )
            with ChunkedTableWriter(out, protect=inputs) as writer:
                for frame in frames:
                    writer.write(frame)
                    if progress:
                        progress("sample", writer.rows, claim.n_out)
        pub.timing("sample", time.perf_counter() - t0)
    certificate = make_certificate(synth, claim, budget, per_record)
    pub.json(certificate, cert_path)
    pub.facts.update(private_facts(synth))
    if report is not None:
        pub.public_report(report, certificate=certificate, schema=schema)
    params_path = None
    if save_private_params is not None:
        params_path = str(pub.private_npz(
            save_private_params, mean=synth.mean_, cov=synth.cov_, columns=np.array(schema.names)
        ))  # fmt: skip
    pub.timing("total", time.perf_counter() - started)
    record = pub.finish(private_record)
    if internal_report is not None:
        pub.internal_report(internal_report, certificate=certificate, schema=schema)
    return ReleaseResult(
        certificate,
        str(out),
        str(cert_path),
        record,
        None if private_record is None else str(private_record),
        params_path,
    )


def make_certificate(
    synth: GaussianSynthesizer, claim: PrivacyClaim, budget: dict | None, per: float | None
) -> Certificate:
    """The published certificate: the claim plus public facts about the release."""
    bounded = synth.neighboring != "unbounded"
    return Certificate(
        synthesizer="gaussian",
        model=claim.model,
        guarantee=claim.guarantee,
        neighboring=synth.neighboring,
        d=synth.encoder.dim,
        sigma=synth.sigma_declared,
        sigma_source=sigma_source(synth),
        ridge=synth.ridge,
        bounds_source=synth.schema.bounds_source,
        min_rows=synth.min_rows,
        n=synth.fit_.n if bounded else None,
        n_out=int(claim.n_out or 0),
        alpha=claim.alpha,
        epsilon_rdp=claim.epsilon_rdp,
        epsilon_rdp_per_record=per,
        delta=claim.delta,
        epsilon=claim.epsilon,
        conversion=claim.conversion,
        budget=budget,
        assumptions=claim.assumptions,
        synthcert_version=__version__,
        date=today_utc(),
        warnings=(*claim.warnings, *release_warnings(synth.schema)),
    )


def private_facts(synth: GaussianSynthesizer) -> dict[str, Any]:
    """What the fit learnt about the table (for the private record only)."""
    fit = synth.fit_
    facts: dict[str, Any] = {
        "rows_used": fit.n,
        "rows_dropped_missing": fit.rows_dropped_missing,
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
    if synth._n_sampled is not None and measured and synth.min_rows:
        cert = synth.certificate(synth._n_sampled)
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
    """Public warnings of a release: bounds or categories read from the data (schema facts)."""
    notes = []
    if schema.bounds_source == "data":
        data_cols = [c.name for c in schema.columns if c.source == "data"]
        notes.append(
            "bounds or categories of "
            + ", ".join(data_cols)
            + " were taken from the data: they leak the minimum, maximum or categories present; "
            "replace them by public ones (a codebook) before publishing"
        )
    return notes


__all__ = ["Certificate", "ReleaseResult", "make_certificate", "plan_release", "release"]
