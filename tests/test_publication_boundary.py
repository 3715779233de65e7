"""The neighbour harness: the publication boundary, proved on neighbouring tables.

The attacker knows every row but one and reads every byte synthcert publishes, stderr and exit
codes included. For a table D and each neighbour D' (a row added, removed, replaced by an
extreme corner record; one value outside the declared bounds, one value missing, an unknown
category, text in a numeric column, a whole number set to a fraction, a category blanked;
and, in a schema with a date and a narrow column, -1e308, 1e308, inf, -inf and NaN in every
column kind), every command runs with identical public arguments and no seed, and:

- every published file other than the sampled rows is byte-identical, and so are ``--json``,
  the exit code and stderr (the CLI's own lines and every Python warning raised during the
  run, recorded with ``simplefilter("always")``; a subset also runs as ``python -m synthcert``
  in a subprocess, comparing the stderr bytes Python itself prints);
- the number of sampled rows is identical;
- no public file contains the seed; two runs on one table give different rows;
- the seed-recovery attack (regress the released rows on draws regenerated from every integer
  in the public files) recovers nothing, while the same attack with the private seed does.

Under bounded neighbours n is public by definition: only same-size neighbours apply there.
A neighbour whose value is missing or undeclared in a column that is always present is never
refused under bounded neighbours (the refusal itself would tell D from D'): a public rule
fills it, and it must publish the same bytes as D. Each test records which neighbours were
filled (``outcome`` in the test's user properties, printed with ``-s``).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.encode import Encoder
from synthcert.data.schema import CategoricalColumn, DatetimeColumn, NumericColumn, Schema
from synthcert.privacy.conversion import zcdp_to_dp

runner = CliRunner()
N = 1_500
SCHEMA = Schema(
    (
        NumericColumn("income", 0.0, 100.0),
        NumericColumn("age", 18.0, 90.0),
        NumericColumn("score", -5.0, 5.0),
        CategoricalColumn("region", ("north", "south", "east")),
    )
)
SIGMA = "0.03"  # public: the generator keeps lambda_min near 0.053, above the margin 0.043
MIN_ROWS = "1400"
SAME_SIZE = (
    "replaced",
    "out_of_bounds",
    "missing",
    "unknown_category",
    "text_in_numeric",
    "non_integer",
    "blank_category",
)
ALL = ("added", "removed", *SAME_SIZE)
# neighbours whose target value is missing or undeclared in a column that is not nullable:
# under bounded neighbours filled by a public rule (never refused)
MISSING_LIKE = ("missing", "unknown_category", "text_in_numeric", "blank_category")


def base_table(n: int = N, seed: int = 11) -> pd.DataFrame:
    """Three correlated numeric columns (ages whole) and a category, well inside D_sigma."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3))
    return pd.DataFrame(
        {
            "income": np.clip(50 + 18 * z[:, 0], 0, 100),
            "age": np.round(np.clip(50 + 14 * (0.6 * z[:, 0] + 0.8 * z[:, 1]), 18, 90)),
            "score": np.clip(2.0 * z[:, 2], -5, 5),
            "region": rng.choice(["north", "south", "east"], size=n),
        }
    )


def neighbour(table: pd.DataFrame, kind: str) -> pd.DataFrame:
    """D' of the given kind (the target is the last row)."""
    t = table.copy()
    corner = {"income": 100.0, "age": 18.0, "score": 5.0, "region": "east"}
    if kind == "added":
        return pd.concat([t, pd.DataFrame([corner])], ignore_index=True)
    if kind == "removed":
        return t.iloc[:-1].reset_index(drop=True)
    if kind == "replaced":
        t.iloc[-1] = pd.Series(corner)
    elif kind == "out_of_bounds":
        t.loc[t.index[-1], "income"] = 1e9
    elif kind == "missing":
        t.loc[t.index[-1], "age"] = np.nan
    elif kind == "unknown_category":
        t["region"] = t["region"].astype(object)
        t.loc[t.index[-1], "region"] = "atlantis"
    elif kind == "text_in_numeric":
        t["score"] = t["score"].astype(object)
        t.loc[t.index[-1], "score"] = "n/a (refused to answer)"
    elif kind == "non_integer":  # every age is whole in D
        t.loc[t.index[-1], "age"] = 37.5
    elif kind == "blank_category":  # region has no missing value in D
        t["region"] = t["region"].astype(object)
        t.loc[t.index[-1], "region"] = None
    elif "=" in kind:  # "column=value": one extreme value (extreme_neighbours)
        name, value = kind.split("=", 1)
        t[name] = t[name].astype(object)
        t.loc[t.index[-1], name] = float(value)
    else:  # pragma: no cover - a typo in the test itself
        raise ValueError(kind)
    return t


def invoke_in(folder: Path, args: list[str]):
    """Run the CLI inside ``folder`` (relative paths, as an operator would type them)."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return runner.invoke(app, args)
    finally:
        os.chdir(cwd)


def shown_warnings(caught: list[warnings.WarningMessage]) -> str:
    """The warnings as Python would print them on stderr (file name and line, no folder)."""
    return "".join(
        f"{Path(w.filename).name}:{w.lineno}: {w.category.__name__}: {w.message}\n" for w in caught
    )


def command_line(args: list[str], out_name: str) -> list[str]:
    cmd = [args[0], "private_input.csv", "--schema", "schema.json", *args[1:]]
    return [*cmd, "--out", f"pub/{out_name}", "--private-dir", "private", "--json"]


def prepare(folder: Path, table: pd.DataFrame) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "private_input.csv", index=False)
    (folder / "schema.json").write_text(SCHEMA.to_json())
    (folder / "pub").mkdir()


def run(folder: Path, table: pd.DataFrame, args: list[str], out_name: str) -> dict:
    """Run one command on ``table`` inside ``folder`` with the same relative public arguments;
    return what was published (files under pub/, stdout, stderr with every warning raised,
    the exit code), the rows and the private record."""
    prepare(folder, table)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = invoke_in(folder, command_line(args, out_name))
    console = {"exit_code": res.exit_code, "stderr": res.stderr + shown_warnings(caught)}
    if res.exit_code != 0:
        return {"refused": " ".join(res.output.split()), **console}
    pub = folder / "pub"
    files = {str(p.relative_to(pub)): p.read_bytes() for p in sorted(pub.rglob("*")) if p.is_file()}
    return {
        "stdout": res.stdout,
        **console,
        "public": {k: v for k, v in files.items() if not k.endswith(".parquet")},
        "rows": pd.read_parquet(pub / out_name),
        "record": json.loads((folder / "private" / "record.json").read_text()),
    }


def run_process(folder: Path, table: pd.DataFrame, args: list[str], out_name: str) -> dict:
    """:func:`run` as an operator runs it: ``python -m synthcert`` in a subprocess, Python's
    default warning filters (each warning printed once, as a user sees it); the exit code,
    stdout and stderr bytes, and the public files other than the rows."""
    prepare(folder, table)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "100"}
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "synthcert", *command_line(args, out_name)],
        cwd=folder,
        env=env,
        capture_output=True,
        timeout=600,
    )
    pub = folder / "pub"
    files = {str(p.relative_to(pub)): p.read_bytes() for p in sorted(pub.rglob("*")) if p.is_file()}
    public = {k: v for k, v in files.items() if not k.endswith(".parquet")}
    return {"exit_code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr, **public}


# the note stating private_domain's DP bounds (and which columns the DP test found whole): a DP
# output, like the rows, so its values may differ between neighbours; its place, its columns and
# its words may not (the console wraps it where the values' widths put the breaks)
DP_BOUNDS_NOTE = re.compile(
    r"private_domain:\s+the\s+DP\s+bounds\s+are\s.*?--param\s+domain_share\)", re.DOTALL
)
DP_VALUES = re.compile(
    r"\[[^\]]*\](\s+whole)?|\d{4}-\d\d-\d\d(T[\d:]+)?\s+to\s+\d{4}-\d\d-\d\d(T[\d:]+)?"
)


def without_dp_bounds(stderr: str) -> str:
    """``stderr`` with the values of the DP bounds note masked and the note's lines unwrapped."""
    return DP_BOUNDS_NOTE.sub(lambda m: " ".join(DP_VALUES.sub("<dp>", m.group(0)).split()), stderr)


def assert_same_publication(a: dict, b: dict, kind: str) -> None:
    """``b`` (a neighbour's run) published exactly what ``a`` did, rows and DP bounds aside."""
    assert "refused" not in a, a.get("refused")
    assert "refused" not in b, f"neighbour {kind!r} was refused: {b['refused']}"
    assert a["stdout"] == b["stdout"], kind
    assert a["exit_code"] == b["exit_code"] == 0, kind
    assert without_dp_bounds(a["stderr"]) == without_dp_bounds(b["stderr"]), (
        f"{kind}: stderr differs:\n{a['stderr']}\n---\n{b['stderr']}"
    )
    assert a["public"].keys() == b["public"].keys(), kind
    for name in a["public"]:
        assert a["public"][name] == b["public"][name], f"{kind}: {name} differs"
    assert len(a["rows"]) == len(b["rows"]), kind


def check_neighbour(base: dict, other: dict, kind: str, bounded: bool) -> str:
    """Same publication for every neighbour. Under bounded neighbours a target whose value is
    missing (or not a declared value) in a column the schema says is always present can be
    neither dropped nor kept, since n is public: a public rule fills it (the declared fill,
    else the first category or the midpoint of the public bounds), and D' then publishes
    exactly what D publishes; a refusal would itself tell D from D' (issue 25, finding 8).
    Returns "public fill" for such a neighbour, else "same publication"."""
    assert "refused" not in other, f"neighbour {kind!r} was refused: {other['refused']}"
    assert_same_publication(base, other, kind)
    return "public fill" if bounded and may_refuse(kind) else "same publication"


def may_refuse(kind: str) -> bool:
    """Neighbours with a value that is missing or undeclared in a non-nullable column."""
    if kind in MISSING_LIKE:
        return True
    if "=" not in kind:
        return False
    name, value = kind.split("=", 1)
    return value == "nan" or name in ("region", "day")  # a number is no category and no date


def report_outcomes(record_property, outcomes: dict[str, str]) -> None:
    """Record (and print, visible with -s) which neighbours were refused or filled."""
    record_property("outcome", outcomes)
    print(json.dumps(outcomes, indent=1))


REPORT = ["--report", "pub/report.html"]  # the public report is a published file


@pytest.fixture(autouse=True)
def one_day(monkeypatch):
    """The release date of every in-process run: a public fact, but a run that crosses
    midnight UTC between D and its neighbour would publish two dates (a CI flake at 00:00)."""
    from synthcert.workflows import release, synthesize

    for module in (release, synthesize):
        monkeypatch.setattr(module, "today_utc", lambda: "2026-01-01")


RELEASES = {
    "release-unbounded": ["release", "--sigma", SIGMA, "--min-rows", MIN_ROWS, *REPORT],
    "release-bounded": ["release", "--sigma", SIGMA, "--param", "neighboring=bounded", *REPORT],
    "release-ridge": ["release", "--param", "ridge=0.05", "--min-rows", MIN_ROWS, *REPORT],
}


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return base_table()


def neighbours_for(command: str) -> tuple[str, ...]:
    return SAME_SIZE if "bounded" in command and "unbounded" not in command else ALL


@pytest.mark.parametrize("out_name", ["syn.parquet", "syn_dataset/"])
@pytest.mark.parametrize("command", list(RELEASES))
def test_release_publishes_the_same_files_for_every_neighbour(
    tmp_path, table, command, out_name, record_property
):
    base = run(tmp_path / "D", table, RELEASES[command], out_name)
    assert "refused" not in base, base.get("refused")
    assert base["record"]["seed_source"] == "os-entropy"
    outcomes: dict[str, str] = {}
    for kind in neighbours_for(command):
        other = run(tmp_path / kind, neighbour(table, kind), RELEASES[command], out_name)
        bounded = command == "release-bounded"
        outcomes[kind] = check_neighbour(base, other, kind, bounded)
    report_outcomes(record_property, outcomes)


DP_SYNTHESIZERS = {
    "gaussian-copula": [],
    "privbayes": [],
    "mwem-pgm": ["--param", "rounds=3", "--param", "pgm_iters=50"],
    "aim": ["--param", "rounds=8", "--param", "pgm_iters=50"],  # AIM needs rounds >= d
    "ctgan": ["--param", "epochs=1", "--param", "batch_size=500"],
    # AIM's opt-in domain compression: its merged cells come from the noisy one-way counts
    "aim-compress": ["--param", "rounds=8", "--param", "pgm_iters=50", "--param", "compress=true"],
}
SLOW = {"mwem-pgm", "aim", "ctgan", "aim-compress"}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in DP_SYNTHESIZERS],
)
def test_dp_synthesis_publishes_the_same_files_for_every_neighbour(
    tmp_path, table, name, record_property
):
    synthesizer = name.removesuffix("-compress")  # a case id: the synthesizer and its variant
    args = ["synthesize", "--synthesizer", synthesizer, "--epsilon", "1", "--delta", "1e-6"]
    args += [*DP_SYNTHESIZERS[name], "--min-rows", MIN_ROWS, *REPORT]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    claim = json.loads(base["stdout"])["claim"]
    assert claim["guarantee"] == "differential privacy" and claim["epsilon"] == 1.0
    bounded = claim["neighboring"] == "bounded"
    outcomes: dict[str, str] = {}
    for kind in SAME_SIZE if bounded else ALL:
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        outcomes[kind] = check_neighbour(base, other, kind, bounded)
    report_outcomes(record_property, outcomes)


def test_one_record_that_crashes_pandas_neither_aborts_the_fit_nor_shows(tmp_path, table):
    """One record holding a huge exponent, which kills pandas 2.x's number parsers
    (pandas-dev/pandas#63089; the old code exited 139, with no message, when the record was
    there): the run completes and publishes what its bounded neighbour (the same row holding
    a number) publishes, stdout, stderr and the exit code included. In a subprocess: a
    regression kills that process, not the test run."""
    args = ["synthesize", "--synthesizer", "privbayes", "--epsilon", "1", "--delta", "1e-6"]
    args += ["--min-rows", MIN_ROWS, *REPORT]
    base = run_process(tmp_path / "D", table, args, "s.parquet")
    odd = table.copy()
    odd["score"] = odd["score"].astype(object)
    odd.loc[odd.index[-1], "score"] = "2e2812376119"
    other = run_process(tmp_path / "odd", odd, args, "s.parquet")
    assert base["exit_code"] == 0, base["stderr"][-2000:]
    assert other == base


def test_gaussian_through_synthesize_publishes_the_same_files(tmp_path, table):
    args = ["synthesize", "--synthesizer", "gaussian", "--param", f"sigma={SIGMA}"]
    args += ["--min-rows", MIN_ROWS]
    base = run(tmp_path / "D", table, args, "g.parquet")
    for kind in ALL:
        other = run(tmp_path / kind, neighbour(table, kind), args, "g.parquet")
        check_neighbour(base, other, kind, bounded=False)


# -- the seed ---------------------------------------------------------------------------------
def public_integers(files: dict[str, bytes]) -> set[int]:
    """Every integer written in a published file (the candidates an attacker would try)."""
    found: set[int] = set()
    for blob in files.values():
        found |= {int(m) for m in re.findall(rb"\d+", blob)}
    return found


def seed_recovery_residual(rows: pd.DataFrame, seed: int) -> float:
    """Regress the released encoded rows on N(0, I) draws regenerated from ``seed``.

    A release of n <= 2^19 rows is one chunk drawn from child 0 of SeedSequence(seed): with
    the right seed X = mu + Z L^T exactly (unclipped rows), so the fit is perfect and mu and
    Sigma = L L^T follow; with a wrong seed the residual is the whole variance.
    """
    X, _ = Encoder(SCHEMA).encode(rows)
    child = np.random.SeedSequence(seed).spawn(1)[0]
    Z = np.random.default_rng(child).standard_normal((len(rows), X.shape[1]))
    X = X[:, :3]  # the numeric coordinates decode and re-encode exactly; dummies are rounded
    keep = (np.abs(X) < 1 - 1e-12).all(axis=1)
    A = np.column_stack([np.ones(keep.sum()), Z[keep]])
    coef, *_ = np.linalg.lstsq(A, X[keep], rcond=None)
    resid = X[keep] - A @ coef
    return float((resid**2).mean() / X[keep].var(axis=0).mean())


def test_no_seed_in_public_files_different_rows_and_the_seed_attack_fails(tmp_path, table):
    args = ["release", "--sigma", SIGMA, "--min-rows", MIN_ROWS, "--param", "n_out=800"]
    a = run(tmp_path / "a", table, args, "syn.parquet")
    b = run(tmp_path / "b", table, args, "syn.parquet")
    assert not a["rows"].equals(b["rows"])  # fresh OS entropy each run
    entropy = int(a["record"]["seed_entropy"])
    assert entropy.bit_length() > 100
    blob = b"".join(a["public"].values()) + a["stdout"].encode()
    assert str(entropy).encode() not in blob
    # the positive control: with the private seed the attack recovers everything
    assert seed_recovery_residual(a["rows"], entropy) < 1e-20
    # the attack on what was published: every integer in the public files, and small seeds
    candidates = public_integers({**a["public"], "stdout": a["stdout"].encode()})
    candidates |= set(range(0, 2_000))
    assert len(candidates) > 10
    best = min(seed_recovery_residual(a["rows"], k) for k in candidates)
    assert best > 0.5


def test_categorical_release_rows_decode_within_the_schema(tmp_path, table):
    res = run(
        tmp_path / "c", table, ["release", "--sigma", SIGMA, "--min-rows", MIN_ROWS], "c.parquet"
    )
    rows = res["rows"]
    assert set(rows["region"].astype(str)) <= {"north", "south", "east"}
    assert rows["income"].between(0, 100).all() and len(rows) == int(MIN_ROWS)


def domain_epsilon(record: dict) -> float:
    """The domain step's epsilon recomputed from the private record's ledger: its steps are
    approximately zCDP (exponential: epsilon^2/8; the lists: rho, with their tails delta_a),
    converted at the step's delta minus the tails, plus ln(1/(1 - delta_a)) (the
    conditioning); or, without lists, the quantiles' epsilons added up."""
    domain = [e for e in record["ledger"] if e["step"] == "domain"]
    if all(e["kind"] == "exponential" for e in domain):
        return math.fsum(e["epsilon"] for e in domain)
    rho = math.fsum(e["epsilon"] ** 2 / 8 if e["kind"] == "exponential" else e["rho"]
                    for e in domain)  # fmt: skip
    tails = math.fsum(e["delta"] for e in domain if e["kind"] == "approx_zcdp")
    delta = record["facts"]["budget_split"]["domain_delta"]
    return float(zcdp_to_dp(rho, delta - tails)) - math.log1p(-tails)


@pytest.mark.parametrize(
    ("name", "ranged"),
    [("gaussian-copula", ()), ("privbayes", ()), ("privbayes", ("age=0:120",))],
    ids=["gaussian-copula", "privbayes", "privbayes-age-range"],
)
def test_private_domain_on_an_inferred_schema_publishes_the_same_files(
    tmp_path, table, name, ranged, monkeypatch, record_property
):
    """``--private-domain`` on a schema drafted from each table itself (every bound and
    category list read from the data): the data-derived parts are replaced by DP estimates,
    so every published file and ``--json`` are identical between neighbours (the DP bounds
    appear in no published file, the claim states the total budget) and the row counts agree.
    The neighbour with income 1e9 drafts a schema whose upper bound is 1e9; that value must
    reach no public output. Under replace-one neighbours, a missing value or a category below
    the DP threshold is the documented refusal. With a public range, age's bounds are two DP
    quantiles and its integer test is paid from them."""
    import sys

    from synthcert.data.infer import draft_schema

    module = sys.modules[__name__]
    args = ["synthesize", "--synthesizer", name, "--epsilon", "2", "--delta", "1e-6"]
    args += ["--param", "private_domain=0.4", *REPORT]
    args += [x for r in ranged for x in ("--param", f"domain_range={r}")]

    def run_inferred(kind: str, t: pd.DataFrame) -> dict:
        monkeypatch.setattr(module, "SCHEMA", draft_schema(t).schema.with_public_kinds())
        assert module.SCHEMA.bounds_source == "data"
        return run(tmp_path / kind, t, args, "s.parquet")

    base = run_inferred("D", table)
    assert "refused" not in base, base.get("refused")
    claim = json.loads(base["stdout"])["claim"]
    assert claim["guarantee"] == "differential privacy"
    assert (claim["epsilon"], claim["delta"], claim["neighboring"]) == (2.0, 1e-6, "bounded")
    domain = [e for e in base["record"]["ledger"] if e.get("step") == "domain"]
    # a magnitude histogram (two DP quantiles with a range) and an integer test per numeric
    # column, one category list
    assert len(domain) == 3 + 3 + 1 + len(ranged)
    assert domain_epsilon(base["record"]) == pytest.approx(0.8)
    assert domain_epsilon(base["record"]) <= 0.8
    # Column kinds are still read from the data by a drafted schema (documented), declared
    # public here as after a review: every neighbour must draft D's kinds (one line of text in
    # a numeric column is under draft_schema's 5% of unparsable values: a missing value).
    kinds = drafted_kinds(module.SCHEMA)
    outcomes: dict[str, str] = {}
    for kind in SAME_SIZE:
        other = run_inferred(kind, neighbour(table, kind))
        assert drafted_kinds(module.SCHEMA) == kinds, kind
        if kind == "unknown_category":  # below the DP threshold: the column's missing level
            assert_same_publication(base, other, kind)
            outcomes[kind] = "same publication"
        else:
            outcomes[kind] = check_neighbour(base, other, kind, True)
        if "refused" not in other:
            public = [v.decode("utf-8", "replace") for v in other["public"].values()]
            assert not any("1e+09" in x or "1000000000" in x for x in public), kind
    report_outcomes(record_property, outcomes)


def drafted_kinds(schema: Schema) -> list[tuple[str, str, str | None]]:
    """Each column's name, kind and category dtype: what a drafted schema reads from the data
    and a review declares public (``with_public_kinds``)."""
    return [(c.name, c.kind, getattr(c, "dtype", None)) for c in schema.columns]


# -- DP quantile bins and CTGAN's missingness patterns ----------------------------------------
def with_columns(**changes: dict) -> Schema:
    """SCHEMA with some columns' declarations changed (``income={"quantile_bins": 5}``)."""
    from dataclasses import replace

    return Schema(tuple(replace(c, **changes.get(c.name, {})) for c in SCHEMA.columns))


DP_BINS_SCHEMA = with_columns(income={"quantile_bins": 5}, score={"quantile_bins": 4})
DP_BINS_CASES = {
    "gaussian-copula": [],
    "privbayes": [],
    "mwem-pgm": ["--param", "rounds=3", "--param", "pgm_iters=50"],
}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in DP_BINS_CASES],
)
def test_dp_quantile_bins_publish_the_same_files_for_every_neighbour(
    tmp_path, table, name, monkeypatch, record_property
):
    """``--dp-bins``: the edges are DP outputs; they reach no published file (the schema with
    the edges is in no public output), the claim states the requested total with the bins'
    share and mechanism, and the neighbours publish the same bytes, refusals aside."""
    import sys

    monkeypatch.setattr(sys.modules[__name__], "SCHEMA", DP_BINS_SCHEMA)
    args = ["synthesize", "--synthesizer", name, "--epsilon", "1", "--delta", "1e-6"]
    args += [*DP_BINS_CASES[name], "--param", "dp_bins=0.2", "--min-rows", MIN_ROWS, *REPORT]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    claim = json.loads(base["stdout"])["claim"]
    assert claim["guarantee"] == "differential privacy" and claim["epsilon"] == 1.0
    assert "exponential mechanism (DP quantiles: bin edges)" in claim["mechanisms"]
    bins = [a for a in claim["assumptions"] if a["name"] == "quantile_bins"]
    assert bins == [
        {
            "name": "quantile_bins",
            "value": {"columns": ["income", "score"], "share": 0.2},
            "source": "dp-estimate",
            "meaning": bins[0]["meaning"],
        }
    ]
    ledger = [e for e in base["record"]["ledger"] if e.get("step") == "bins"]
    assert len(ledger) == (5 - 1) + (4 - 1)  # one exponential mechanism per interior edge
    assert sum(e["epsilon"] for e in ledger) == pytest.approx(0.2)
    bounded = claim["neighboring"] == "bounded"
    outcomes: dict[str, str] = {}
    for kind in SAME_SIZE if bounded else ALL:
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        outcomes[kind] = check_neighbour(base, other, kind, bounded)
    report_outcomes(record_property, outcomes)


def test_dp_quantile_bins_with_private_domain_publish_the_same_files(tmp_path, table, monkeypatch):
    """``--private-domain`` then ``--dp-bins`` on a schema drafted from each table: the
    domain's share, then the bins' share of the *requested* epsilon, the rest to the
    synthesizer; the claim is the requested total and the neighbours publish the same bytes."""
    import sys
    from dataclasses import replace

    from synthcert.data.infer import draft_schema

    module = sys.modules[__name__]
    args = ["synthesize", "--synthesizer", "gaussian-copula", "--epsilon", "2"]
    args += ["--delta", "1e-6", "--param", "private_domain=0.3", "--param", "dp_bins=0.2", *REPORT]

    def run_inferred(kind: str, t: pd.DataFrame) -> dict:
        drafted = draft_schema(t).schema.with_public_kinds()
        cols = tuple(
            replace(c, quantile_bins=5, bins=None) if c.name == "income" else c
            for c in drafted.columns
        )
        monkeypatch.setattr(module, "SCHEMA", Schema(cols, drafted.drop, drafted.file_columns))
        return run(tmp_path / kind, t, args, "s.parquet")

    base = run_inferred("D", table)
    assert "refused" not in base, base.get("refused")
    claim = json.loads(base["stdout"])["claim"]
    assert (claim["epsilon"], claim["delta"], claim["neighboring"]) == (2.0, 1e-6, "bounded")
    ledger = base["record"]["ledger"]
    domain = domain_epsilon(base["record"])
    bins = sum(e["epsilon"] for e in ledger if e.get("step") == "bins")
    assert domain == pytest.approx(0.6) and bins == pytest.approx(0.4)
    assert base["record"]["facts"]["spent"]["epsilon"] <= 1.0 + 1e-9  # 2 - 0.6 - 0.4
    for kind in ("replaced", "out_of_bounds"):
        other = run_inferred(kind, neighbour(table, kind))
        assert_same_publication(base, other, kind)


NULLABLE_SCHEMA = with_columns(age={"nullable": True}, region={"nullable": True})
TINY_CTGAN = ["--param", "epochs=1", "--param", "batch_size=100", "--param", "embedding_dim=8"]
TINY_CTGAN += ["--param", "generator_dim=[16]", "--param", "discriminator_dim=[16]"]


def nullable_table(n: int = 300) -> pd.DataFrame:
    """base_table with missing ages and regions (the patterns to model)."""
    t = base_table(n, seed=5)
    rng = np.random.default_rng(6)
    t["region"] = t["region"].astype(object)
    t.loc[rng.random(n) < 0.3, "age"] = np.nan
    t.loc[rng.random(n) < 0.2, "region"] = np.nan
    return t


@pytest.mark.parametrize("dp_bins", [False, True])
def test_dp_ctgan_with_nullable_columns_publishes_the_same_files(
    tmp_path, monkeypatch, request, dp_bins
):
    """DP-CTGAN with nullable columns: the pattern histogram is a DP output and the noise
    multiplier recalibrated from public numbers only; the claim is the requested (epsilon,
    delta) with both mechanisms named, and every neighbour (a missing value is a pattern
    here, not a refusal) publishes the same bytes. With ``--dp-bins`` the histogram's rho is
    a share of what the bins leave, and the whole fit stays within that rest."""
    import sys

    import torch

    schema = NULLABLE_SCHEMA
    if dp_bins:
        from dataclasses import replace

        schema = Schema(
            tuple(replace(c, quantile_bins=4) if c.name == "income" else c for c in schema.columns)
        )
    monkeypatch.setattr(sys.modules[__name__], "SCHEMA", schema)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a shared 2-core machine
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    table = nullable_table()
    args = ["synthesize", "--synthesizer", "ctgan", "--epsilon", "1", "--delta", "1e-6"]
    args += [*TINY_CTGAN, "--min-rows", "250", "--param", "n_out=200", *REPORT]
    args += ["--param", "dp_bins=0.3"] if dp_bins else []
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    claim = json.loads(base["stdout"])["claim"]
    assert (claim["epsilon"], claim["delta"], claim["neighboring"]) == (1.0, 1e-6, "unbounded")
    assert any("missingness patterns" in m for m in claim["mechanisms"])
    blob = base["stdout"] + "".join(v.decode("utf-8", "replace") for v in base["public"].values())
    assert "noise_multiplier" not in blob and "pattern_rho" not in blob
    ledger = base["record"]["ledger"]
    assert any("missing-pattern" in str(e.get("mechanism")) for e in ledger)
    assert sum(e["epsilon"] for e in ledger if e.get("step") == "bins") == pytest.approx(
        0.3 if dp_bins else 0.0
    )
    spent = base["record"]["facts"]["spent"]
    assert spent["epsilon"] <= (0.7 if dp_bins else 1.0) + 1e-9 and spent["delta"] <= 1e-6
    # missing values come only where the schema declares them; how often they come is a
    # random DP output here (sigma ~ 24 on counts of 18 and 42 can zero a pattern), so the
    # shares are asserted with fixed seeds in tests/synthesizers/test_ctgan_missing.py
    assert not base["rows"][["income", "score"]].isna().any().any()
    assert base["rows"][["age", "region"]].notna().any().all()
    for kind in ALL:
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        assert_same_publication(base, other, kind)


# -- extreme values in every column kind; warnings on stderr (issue 25, finding 3) -----------
EXTREME_SCHEMA = Schema(
    (
        NumericColumn("income", 0.0, 100.0),
        NumericColumn("age", 18.0, 90.0, scale="log"),
        NumericColumn("score", -5.0, 5.0),
        NumericColumn("share", 0.0, 1.0),  # narrow: 1e308 * 2 / (1 - 0) overflows
        CategoricalColumn("region", ("north", "south", "east")),
        DatetimeColumn("day", 10_957.0, 18_627.0),  # 2000-01-01 .. 2020-12-31, in days
    )
)
EXTREME_VALUES = ("-1e308", "1e308", "inf", "-inf", "nan")
EXTREME_KINDS = tuple(
    f"{c}={v}" for c in ("age", "score", "share", "region", "day") for v in EXTREME_VALUES
)


def extreme_table(n: int = N) -> pd.DataFrame:
    """base_table with a uniform share in [0, 1] and a date column."""
    t = base_table(n)
    rng = np.random.default_rng(12)
    t["share"] = rng.uniform(0, 1, n)
    days = rng.integers(0, 7_600, n)
    t["day"] = (pd.Timestamp("2000-01-01") + pd.to_timedelta(days, unit="D")).strftime("%Y-%m-%d")
    return t


EXTREME_SIGMA = "0.025"  # lambda_min of extreme_table 0.047; margin 0.045 (eq. 1 needs > 0.02)
DP = ["--epsilon", "1", "--delta", "1e-6"]
EXTREME_COMMANDS = {
    "release-unbounded": ["release", "--sigma", EXTREME_SIGMA, "--min-rows", MIN_ROWS, *REPORT],
    "privbayes": ["synthesize", "--synthesizer", "privbayes", *DP, "--min-rows", MIN_ROWS, *REPORT],
    "gaussian-copula": [
        *["synthesize", "--synthesizer", "gaussian-copula", *DP, "--min-rows", MIN_ROWS, *REPORT]
    ],
    "release-bounded": [
        "release",
        "--sigma",
        EXTREME_SIGMA,
        "--param",
        "neighboring=bounded",
        *REPORT,
    ],
    "mwem-pgm": [
        *["synthesize", "--synthesizer", "mwem-pgm", *DP, "--param", "rounds=3"],
        *["--param", "pgm_iters=50", "--min-rows", MIN_ROWS, *REPORT],
    ],
}
SLOW_EXTREMES = {"release-bounded", "mwem-pgm"}


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(c, marks=pytest.mark.slow) if c in SLOW_EXTREMES else c
        for c in EXTREME_COMMANDS
    ],
)
def test_extreme_values_in_every_column_kind_publish_the_same_bytes(
    tmp_path, command, monkeypatch, record_property
):
    """-1e308, 1e308, inf, -inf and NaN as the target's value in a log-scale, a plain, a
    narrow numeric column, a category and a date: the same files, stdout, exit code and
    stderr, warnings included (on main, ``score = -1e308`` made the discretiser print
    ``RuntimeWarning: overflow encountered in multiply`` for PrivBayes and no other table
    did). A number in the category or the date column is no declared value: missing by the
    public rule, so under bounded neighbours it is refused or filled like ``missing``."""
    monkeypatch.setattr(sys.modules[__name__], "SCHEMA", EXTREME_SCHEMA)
    table = extreme_table()
    args = EXTREME_COMMANDS[command]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    assert base["stderr"] == "" or "warning" not in base["stderr"].lower(), base["stderr"]
    bounded = json.loads(base["stdout"]).get("claim", {}).get("neighboring") == "bounded"
    bounded = bounded or command == "release-bounded"
    outcomes: dict[str, str] = {}
    for kind in EXTREME_KINDS:
        other = run(tmp_path / kind.replace("=", "_"), neighbour(table, kind), args, "s.parquet")
        outcomes[kind] = check_neighbour(base, other, kind, bounded)
    report_outcomes(record_property, outcomes)


def test_extreme_value_prints_no_warning_in_a_real_process(tmp_path, monkeypatch):
    """The same check as Python runs for an operator: ``python -m synthcert`` with default
    warning filters, stderr compared byte for byte, for PrivBayes with ``score = -1e308`` and
    the release with ``share = 1e308`` (the narrow column of the encoder)."""
    monkeypatch.setattr(sys.modules[__name__], "SCHEMA", EXTREME_SCHEMA)
    table = extreme_table()
    for command, kind in (("privbayes", "score=-1e308"), ("release-unbounded", "share=1e308")):
        args = EXTREME_COMMANDS[command]
        a = run_process(tmp_path / command / "D", table, args, "s.parquet")
        b = run_process(tmp_path / command / "odd", neighbour(table, kind), args, "s.parquet")
        assert a["exit_code"] == b["exit_code"] == 0, (a["stderr"], b["stderr"])
        assert a["stderr"] == b["stderr"], (command, a["stderr"], b["stderr"])
        assert b"Warning" not in b["stderr"], b["stderr"]
        assert a == b, command  # stdout, stderr, exit code and every public file but the rows


# -- one refusal text per public assumption (issue 25, finding 4) ----------------------------
def refused_alike(a: dict, b: dict, what: str) -> None:
    """Both neighbours refused, with one text, one exit code and one stderr."""
    assert "refused" in a and "refused" in b, (what, a.get("refused"), b.get("refused"))
    assert a["refused"] == b["refused"], (what, a["refused"], b["refused"])
    assert a["exit_code"] == b["exit_code"] == 2, what
    assert a["stderr"] == b["stderr"], what
    assert "too close to that limit" in a["refused"] or "at least" in a["refused"], a["refused"]


def test_singular_and_near_singular_covariances_get_one_refusal(tmp_path, monkeypatch):
    """``release --sigma 0.001 --min-rows 1400`` with a nullable column: with no missing value
    its indicator is constant (a singular covariance), with one missing value lambda_min is
    tiny. On main the first said "the encoded covariance is singular", the second "too close
    to that limit (neighbour margin)": the text told the neighbours apart. Likewise a category
    used by no record or by one, and the same fits through ``synthesize``."""
    module = sys.modules[__name__]
    table = base_table()
    blank = neighbour(table, "blank_category")
    west = table.copy()
    west.loc[west.index[-1], "region"] = "west"
    release_args = ["release", "--sigma", "0.001", "--min-rows", MIN_ROWS]
    synth_args = ["synthesize", "--synthesizer", "gaussian", "--param", "sigma=0.001"]
    synth_args += ["--min-rows", MIN_ROWS]
    cases = {
        "nullable column, 0 or 1 missing": (with_columns(region={"nullable": True}), blank),
        "category used by 0 or 1 records": (
            with_columns(region={"categories": ("north", "south", "east", "west")}),
            west,
        ),
    }
    for what, (schema, other) in cases.items():
        monkeypatch.setattr(module, "SCHEMA", schema)
        for args in (release_args, synth_args):
            folder = tmp_path / f"{what[:8]}-{args[0]}"
            a = run(folder / "D", table, args, "s.parquet")
            b = run(folder / "D1", other, args, "s.parquet")
            refused_alike(a, b, f"{what}, {args[0]}")
            assert "singular" not in a["refused"], a["refused"]


@pytest.mark.parametrize(
    "args",
    [
        ["release", "--sigma", SIGMA, "--min-rows", MIN_ROWS],
        ["synthesize", "--synthesizer", "privbayes", "--epsilon", "1", "--min-rows", MIN_ROWS],
        ["synthesize", "--synthesizer", "gaussian-copula", "--epsilon", "1", "--min-rows", "2"],
    ],
    ids=["release", "privbayes", "gaussian-copula"],
)
def test_tables_too_small_to_fit_get_one_refusal_without_a_count(tmp_path, args):
    """A table of one complete row and one of none (its row has a missing value): both are
    below every minimum; the refusal names no count (on main: "got 0" and "got 1", or for
    the release "needs at least 2 complete rows" for one and the --min-rows text for two)."""
    one = base_table(1)
    none = base_table(1)
    none.loc[0, "income"] = np.nan
    two = base_table(2)
    a = run(tmp_path / "one", one, args, "s.parquet")
    b = run(tmp_path / "none", none, args, "s.parquet")
    refused_alike(a, b, args[0])
    assert not re.search(r"\bgot \d", a["refused"]), a["refused"]
    if args[0] == "release":  # two rows, still below --min-rows: the same refusal
        refused_alike(a, run(tmp_path / "two", two, args, "s.parquet"), "two rows")


def test_ledger_and_audit_gate_publish_the_same_bytes_for_every_neighbour(tmp_path, table):
    """The ledger line and the audit gate's result are public: neither may depend on a record."""
    args = ["synthesize", "--synthesizer", "privbayes", "--epsilon", "1", "--min-rows", MIN_ROWS]
    args += ["--ledger", "pub/ledger.jsonl", "--lifetime-epsilon", "3", "--audit-gate", "20"]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    assert "ledger.jsonl" in base["public"] and "audit_gate" in json.loads(base["stdout"])
    for kind in SAME_SIZE:  # privbayes: bounded neighbours
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        check_neighbour(base, other, kind, bounded=True)


@pytest.mark.slow  # a minute: ten releases with their gate
def test_release_audit_gate_publishes_the_same_bytes_for_every_neighbour(tmp_path, table):
    """release --audit-gate on the four-column schema (d = 5): the gate's result is built from
    public quantities only (n = --min-rows, d, sigma, n_out, delta), so every neighbour
    publishes the same bytes."""
    args = [*RELEASES["release-unbounded"], "--audit-gate", "20"]
    base = run(tmp_path / "D", table, args, "s.parquet")
    assert "refused" not in base, base.get("refused")
    assert json.loads(base["stdout"])["audit_gate"]["runs"] == 20
    for kind in ALL:
        other = run(tmp_path / kind, neighbour(table, kind), args, "s.parquet")
        check_neighbour(base, other, kind, bounded=False)
