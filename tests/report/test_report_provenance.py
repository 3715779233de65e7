"""Provenance: public facts only in the public report; the run record in the internal one."""

from __future__ import annotations

import hashlib

from synthcert.data.io import file_sha256
from synthcert.report.provenance import collect_provenance, command_line


def test_sha256_matches_hashlib_on_a_multi_chunk_file(tmp_path):
    data = bytes(range(256)) * 9000  # > 2 MiB: several 1 MiB blocks
    f = tmp_path / "x.bin"
    f.write_bytes(data)
    assert file_sha256(f) == hashlib.sha256(data).hexdigest()


def test_public_provenance_holds_version_and_date_only():
    cert = {"synthcert_version": "9.9", "date": "2026-01-02", "seed": 3, "command": "x"}
    assert collect_provenance(certificate=cert) == {
        "synthcert_version": "9.9",
        "date": "2026-01-02",
    }


def test_internal_provenance_adds_the_run_record_but_never_the_seed():
    record = {
        "command": "synthcert release in.csv",
        "seed_source": "user",
        "seed_entropy": "123456789",
        "inputs": ["in.csv"],
        "input_sha256": "ab",
        "started": "2026-01-02T03:04:05+00:00",
    }
    prov = collect_provenance(certificate={"date": "2026-01-02"}, record=record)
    assert prov["command"] == "synthcert release in.csv" and prov["input_sha256"] == "ab"
    assert prov["report_generated"] and prov["synthcert_version"]
    assert "123456789" not in str(prov)


def test_command_line_is_shell_quoted():
    assert command_line(["/usr/bin/synthcert", "report", "--out", "my report.html"]) == (
        "synthcert report --out 'my report.html'"
    )
