"""The synthesize workflow: fit any registered synthesizer, sample, publish rows and claim.

Public: the rows, the synthesizer's name and public parameters, the number of rows released
(declared, or n under bounded neighbours where n is public), and the privacy claim computed
from the requested budget. Private (run record): the seed, how many rows were read, timings,
the accountant's ledger (an adaptive mechanism's number of rounds is itself random), the
input's path and hash.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.io import CsvOptions, expand_inputs, is_parquet, read_table, write_table
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError, SynthcertError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.run_record import RunRecord, today_utc
from synthcert.synthesizers.gaussian import GaussianSynthesizer, incomplete_rows_under_bounded
from synthcert.synthesizers.registry import accepted_params, make_synthesizer
from synthcert.workflows.artefacts import Publication

IN_MEMORY_MAX_ROWS = 10**7  # a single Parquet file with more rows is counted, not loaded
Stage = Callable[[str, int, int | None], None]


@dataclass(frozen=True)
class SynthesisSummary(Result):
    """The public summary of a synthesis (what ``synthesize --json`` prints)."""

    synthesizer: str
    params: dict[str, Any]
    rows_out: int
    output: str
    claim: PrivacyClaim
    synthcert_version: str
    date: str


@dataclass(frozen=True)
class SynthesisResult(Result):
    """The public summary and the private record of the run (memory only)."""

    summary: SynthesisSummary
    record: RunRecord
    private_record_path: str | None = None


def refuse_data_domain(schema: Schema, name: str, allow: bool) -> None:
    """Refuse DP synthesis on bounds or categories read from the data, unless allowed.

    A domain read from the table reveals its minimum, maximum and the categories present,
    outside any accounting; the claim would be false (smartnoise-sdk #473, synthcity #278).
    """
    cols = [c.name for c in schema.columns if c.source == "data"]
    if cols and not allow:
        raise AssumptionError(
            f"the schema's bounds or categories of {', '.join(cols)} were read from the data "
            '("source": "data"), so a DP synthesis on it would claim a guarantee it does '
            f"not give ({name}). Either replace them by public ones (a codebook, legal ranges) "
            'and mark them "source": "public", or pass --allow-data-domain: the run then '
            'states no guarantee ("none: the domain was read from the data").',
            assumption="a public domain",
            admissible="public bounds and categories, or --allow-data-domain",
        )


def partitioned_input(path: str | os.PathLike) -> bool:
    """True for inputs read in partitions: a folder, a glob, or Parquet of > 10^7 rows."""
    text = os.fspath(path)
    if any(ch in text for ch in "*?[") or Path(text).is_dir():
        return True
    if not (is_parquet(text) and Path(text).is_file()):
        return False
    try:
        return pq.ParquetFile(text).metadata.num_rows > IN_MEMORY_MAX_ROWS
    except (pa.ArrowInvalid, OSError):
        return False  # the in-memory reader reports what is wrong with the file


def output_rows(synth: Any, claim_neighboring: str, n_out: int | None, min_rows: int | None,
                rows_in: int, dp: bool) -> int:  # fmt: skip
    """Rows to release: declared, else the public table size.

    Under add/remove neighbours with DP the table size is private, so it must be declared
    (``n_out`` or ``min_rows``); under replacement neighbours n is public; without DP no
    privacy is claimed and the default is the input's size.
    """
    if n_out is not None:
        return int(n_out)
    if dp and claim_neighboring == "unbounded":
        if min_rows is None:
            raise AssumptionError(
                f"{synth.name} is DP under add/remove neighbours, where the table size is "
                "private: give the number of rows to release (--n-out) or a public lower "
                "bound on the table size (--min-rows), which is then the default",
                assumption="a public number of output rows",
                admissible="--n-out N or --min-rows N",
            )
        return int(min_rows)
    return int(rows_in)


def synthesize(
    input_path: str | os.PathLike,
    schema: Schema,
    synthesizer: str,
    out: str | os.PathLike,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    n_out: int | None = None,
    min_rows: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    allow_data_domain: bool = False,
    engine: str | Any = "local",
    scheduler: str | Any = None,
    csv: CsvOptions | None = None,
    report: str | os.PathLike | None = None,
    internal_report: str | os.PathLike | None = None,
    private_record: str | os.PathLike | None = None,
    command: str = "",
    stage: Stage | None = None,
    notify: Callable[[str], None] | None = None,
) -> SynthesisResult:
    """Fit ``synthesizer`` on the input, sample rows, write them atomically to ``out``.

    Parameters
    ----------
    epsilon, delta
        The DP budget (None: no DP noise, no privacy claimed).
    n_out, min_rows
        Rows to release; under add/remove neighbours with DP one of them is required (the
        table size is private there).
    seed
        A SECRET seed for the fit's noise and the sampling (private record only); default
        128 bits of OS entropy.

    Raises
    ------
    AssumptionError
        A DP run on a data-derived domain without ``allow_data_domain``, or no public number
        of output rows under add/remove neighbours.
    """
    from synthcert.engine import fit_gaussian, is_dataset_target, open_engine, sample_partitioned

    params = dict(params or {})
    dp = epsilon is not None
    if dp:
        refuse_data_domain(schema, synthesizer, allow_data_domain)
    as_dataset = is_dataset_target(out)  # before Path() drops a trailing slash
    out = Path(out)
    inputs = expand_inputs(input_path)
    pub = Publication.start(
        inputs=inputs,
        seed=seed,
        command=command,
        public=[out, *([Path(report)] if report else [])],
        private=[Path(p) for p in (private_record, internal_report) if p is not None],
    )
    fit_seed, sample_seed = pub.seed.spawn(2)
    accepted = accepted_params(synthesizer)
    if "seed" in accepted and "seed" not in params:
        params["seed"] = fit_seed  # the fit's noise and choices: a child of the secret seed
    if "min_rows" in accepted and min_rows is not None:
        params["min_rows"] = min_rows
    synth = make_synthesizer(synthesizer, schema, epsilon=epsilon, delta=delta, **params)
    streamed = isinstance(synth, GaussianSynthesizer)
    counted = hasattr(synth, "fit_counts") and (engine != "local" or partitioned_input(input_path))
    if engine != "local" and not (streamed or counted):
        raise SynthcertError(
            f"--engine {engine} fits only synthesizers whose fit is a reduction over the rows "
            f"(gaussian, gaussian-copula, privbayes, mwem-pgm, aim); {synthesizer!r} trains on "
            "rows in memory: use --engine local"
        )
    neighboring = getattr(synth, "neighboring", "unbounded")

    def report_stage(name: str) -> Callable[[int, int | None], None] | None:
        return None if stage is None else (lambda done, total: stage(name, done, total))

    with open_engine(engine, scheduler, notify=notify) as eng:
        t0 = time.perf_counter()
        if streamed:
            fit_gaussian(input_path, synth, csv=csv, engine=eng)
            rows_in = synth.fit_.n
        elif counted:
            from synthcert.engine import EngineCounts

            source = EngineCounts(
                input_path, synth.discretizer, engine=eng, csv=csv, progress=report_stage("count")
            )
            synth.fit_counts(source)
            rows_in = source.rows
        else:
            table = read_table(input_path, csv)
            rows_in = len(table)
            synth.fit(table)
        pub.timing("fit", time.perf_counter() - t0)
        pub.facts["rows_in"] = int(rows_in)
        rows_used = getattr(synth, "n_", None)
        if rows_used is not None:
            pub.facts["rows_used"] = int(rows_used)
            if dp and neighboring == "bounded" and int(rows_used) != int(rows_in):
                raise incomplete_rows_under_bounded(int(rows_in) - int(rows_used))
        n = output_rows(synth, neighboring, n_out, min_rows, rows_in, dp or streamed)
        claim = synth.privacy_claim(n)
        t0 = time.perf_counter()
        if as_dataset:  # drawn and written part by part on the engine
            sample_partitioned(
                synth, n, out, seed=sample_seed, engine=eng, protect=inputs,
                progress=report_stage("sample"),
            )  # fmt: skip
        else:
            write_table(synth.sample(n, seed=sample_seed), out, protect=inputs)
        pub.timing("sample", time.perf_counter() - t0)
    accountant = getattr(synth, "accountant", None)
    if accountant is not None:
        pub.ledger.extend(e.to_dict() for e in accountant.ledger)
        pub.facts["spent"] = accountant.spent().to_dict()
    summary = SynthesisSummary(
        synthesizer=synthesizer,
        params=public_params(synth),
        rows_out=n,
        output=str(out),
        claim=claim,
        synthcert_version=__version__,
        date=today_utc(),
    )
    if report is not None:
        pub.public_report(report, certificate=claim_certificate(summary), schema=schema)
    record = pub.finish(private_record)
    if internal_report is not None:
        pub.internal_report(internal_report, certificate=claim_certificate(summary), schema=schema)
    return SynthesisResult(summary, record, None if private_record is None else str(private_record))


def public_params(synth: Any) -> dict[str, Any]:
    """The synthesizer's public constructor parameters (never a seed)."""
    return {k: v for k, v in synth.params().items() if k != "seed"}


def claim_certificate(summary: SynthesisSummary) -> dict[str, Any]:
    """What the report shows as the run's guarantee: the claim with the synthesizer's name."""
    claim = summary.claim.to_dict()
    return {
        "synthesizer": summary.synthesizer,
        "privacy_model": claim.pop("model"),
        **claim,
        "synthcert_version": summary.synthcert_version,
        "date": summary.date,
    }


__all__ = [
    "SynthesisResult",
    "SynthesisSummary",
    "partitioned_input",
    "refuse_data_domain",
    "synthesize",
]
