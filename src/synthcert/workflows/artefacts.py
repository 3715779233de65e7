"""The one place a run writes its artefacts: public ones, and the private run record.

Public artefacts (the rows, the certificate or claim, the manifest, the public report) are
written atomically and may only hold what is declared public or is the output of an accounted
mechanism. What the run learns besides (facts about the table, the seed, timings, the input's
path and hash, the command line) is collected here and written only to the private record the
operator names (mode 0600, never inside a public output folder), or into an internal report
that says on every page that it must not be published.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from synthcert._result import jsonable
from synthcert.data.io import (
    atomic_write_path,
    file_sha256,
    refuse_overwriting_inputs,
    write_text,
)
from synthcert.data.schema import Schema
from synthcert.run_record import RunRecord, now_utc, refuse_inside_public, write_private_json
from synthcert.seeding import entropy_text, secret_seed, seed_warning

if TYPE_CHECKING:
    from synthcert.report.inputs import Released


@dataclass
class Publication:
    """A run's artefacts: what it publishes, and its private record (kept in memory).

    Create it with :meth:`start` before reading the input (it refuses private paths inside
    public outputs, and outputs that would overwrite an input, before any work is done).
    """

    inputs: list[Path]
    seed: np.random.SeedSequence
    seed_source: str
    command: str
    started: str
    public: list[Path]
    private: list[Path]
    facts: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    _digest: str | None = field(default=None, repr=False)

    @classmethod
    def start(
        cls,
        *,
        inputs: Sequence[str | os.PathLike],
        seed: int | np.random.SeedSequence | None,
        command: str,
        public: Sequence[str | os.PathLike],
        private: Sequence[str | os.PathLike] = (),
    ) -> Publication:
        """Check the output paths and draw the run's secret randomness."""
        ins = [Path(p) for p in inputs]
        pubs = [Path(p) for p in public]
        privs = [Path(p) for p in private]
        for target in (*pubs, *privs):
            refuse_overwriting_inputs(target, ins)
        for target in privs:
            refuse_inside_public(target, pubs)
        warnings = [w for w in [seed_warning(seed if isinstance(seed, int) else None)] if w]
        return cls(
            inputs=ins,
            seed=secret_seed(seed),
            seed_source="os-entropy" if seed is None else "user",
            command=command,
            started=now_utc(),
            public=pubs,
            private=privs,
            warnings=warnings,
        )

    # -- public ---------------------------------------------------------------------------
    def json(self, payload: Any, path: str | os.PathLike) -> Path:
        """Write a public JSON artefact atomically (``to_dict`` of a result, or plain values)."""
        if hasattr(payload, "to_dict"):
            payload = payload.to_dict()
        return write_text(json.dumps(jsonable(payload), indent=2) + "\n", path, protect=self.inputs)

    def public_report(
        self,
        path: str | os.PathLike,
        *,
        certificate: Released,
        schema: Schema | None,
        claim_audit: Any = None,
    ) -> Path:
        """The public report: the certificate, its curves and assumptions, public provenance,
        and the worst-case audit of the configuration when one was run (public)."""
        from synthcert.report.build import write_report

        return write_report(
            path, certificate=certificate, schema=schema, protect=self.inputs,
            claim_audit=claim_audit,
        )  # fmt: skip

    def table(self, frame: Any, path: str | os.PathLike) -> Path:
        """Write a table (CSV or Parquet by its suffix) atomically, never over an input."""
        from synthcert.data.io import write_table

        return write_table(frame, path, protect=self.inputs)

    def figure(self, draw: Callable[[Path], Path], path: str | os.PathLike) -> Path:
        """Write a figure with ``draw(path)`` (which saves atomically), never over an input."""
        target = Path(path)
        refuse_overwriting_inputs(target, self.inputs)
        return draw(target)

    # -- private --------------------------------------------------------------------------
    def timing(self, name: str, seconds: float) -> None:
        """Record how long a stage took (private: timings depend on the data)."""
        self.timings[name] = round(float(seconds), 6)

    @contextlib.contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Record the block's duration as the private timing ``name`` (also when it fails)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timing(name, time.perf_counter() - t0)

    def record(self) -> RunRecord:
        """The private run record of everything collected so far (the input's SHA-256 once it
        has been computed for a record that is written)."""
        return RunRecord(
            command=self.command,
            started=self.started,
            seed_source=self.seed_source,
            seed_entropy=entropy_text(self.seed),
            inputs=tuple(str(p) for p in self.inputs),
            input_sha256=self._digest,
            facts=dict(self.facts),
            timings=dict(self.timings),
            ledger=tuple(self.ledger),
            warnings=tuple(self.warnings),
        )

    def _hash_inputs(self) -> None:
        """Hash the input once, and only for a record that is written (a large table costs)."""
        if self._digest is None and all(p.is_file() for p in self.inputs):
            with contextlib.suppress(OSError):
                self._digest = file_sha256(self.inputs)

    def finish(self, path: str | os.PathLike | None) -> RunRecord:
        """The private record; written (mode 0600) only when the operator named a path."""
        if path is not None:
            self._hash_inputs()
        record = self.record()
        if path is not None:
            write_private_json(record, path, public=self.public, protect=self.inputs)
        return record

    def private_npz(self, path: str | os.PathLike, **arrays: np.ndarray) -> Path:
        """Write generative parameters to a private .npz file (mode 0600, never public)."""
        target = Path(path)
        refuse_inside_public(target, self.public)
        with (
            atomic_write_path(target, protect=self.inputs, private=True) as tmp,
            open(tmp, "wb") as fh,
        ):
            np.savez(fh, **arrays)
        return target

    def internal_report(
        self,
        path: str | os.PathLike,
        *,
        certificate: Released | None,
        schema: Schema | None,
        evaluation: Mapping[str, Any] | None = None,
        audit: Mapping[str, Any] | None = None,
        with_record: bool = True,
    ) -> Path:
        """The operator's report: public content plus the private record, marked internal.

        ``with_record=False`` leaves the run record out (an evaluation or an audit report,
        whose content is already internal and whose run drew no secret randomness).
        """
        from synthcert.report.build import write_report

        target = Path(path)
        refuse_inside_public(target, self.public)
        if with_record:
            self._hash_inputs()
        return write_report(
            target,
            certificate=certificate,
            evaluation=evaluation,
            audit=audit,
            schema=schema,
            protect=self.inputs,
            internal=True,
            record=self.record().to_dict() if with_record else None,
        )


__all__ = ["Publication"]
