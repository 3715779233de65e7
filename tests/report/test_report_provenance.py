"""Provenance: checksums, command line, precedence of the certificate's values."""

from __future__ import annotations

import hashlib

from synthcert.report.provenance import collect_provenance, command_line, file_sha256


def test_sha256_matches_hashlib_on_a_multi_chunk_file(tmp_path):
    data = bytes(range(256)) * 9000  # > 2 MiB: several 1 MiB blocks
    f = tmp_path / "x.bin"
    f.write_bytes(data)
    assert file_sha256(f) == hashlib.sha256(data).hexdigest()


def test_certificate_values_win_and_missing_ones_are_filled(tmp_path):
    f = tmp_path / "in.csv"
    f.write_text("a\n1\n")
    prov = collect_provenance(certificate={"seed": 3, "command": "synthcert release in.csv"})
    assert prov["seed"] == 3 and prov["command"] == "synthcert release in.csv"
    assert prov["report_generated"] and prov["synthcert_version"]
    prov = collect_provenance(certificate={}, input_file=f, seed=11)
    assert prov["input_sha256"] == hashlib.sha256(b"a\n1\n").hexdigest()
    assert prov["seed"] == 11


def test_command_line_is_shell_quoted():
    assert command_line(["/usr/bin/synthcert", "report", "--out", "my report.html"]) == (
        "synthcert report --out 'my report.html'"
    )
