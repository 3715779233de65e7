"""Red-team findings against the publication boundary (issue 15): each test is one attack.

The attacker knows every row of the table but one and reads everything synthcert publishes:
the rows, the certificate, the manifest, the public report, ``--json`` stdout, and the human
console output and error messages (an operator may paste them publicly). Every test here
demonstrates one way the current code lets that attacker tell a table D from a neighbour D'
(or weakens the secret randomness the guarantees rest on), and fails until it is fixed. The
product code is not changed here; the tests state the behaviour the boundary requires.
"""

from __future__ import annotations

import json
import os
import stat
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from test_publication_boundary import MIN_ROWS, SCHEMA, SIGMA, N, base_table, invoke_in

runner = CliRunner()


def invoke(folder: Path, args: list[str], *, table: pd.DataFrame | None = None):
    """Run the CLI inside ``folder`` (relative paths, as an operator would type them)."""
    folder.mkdir(parents=True, exist_ok=True)
    if table is not None:
        table.to_csv(folder / "private_input.csv", index=False)
    (folder / "schema.json").write_text(SCHEMA.to_json())
    return invoke_in(folder, args)


def one_paragraph(text: str) -> str:
    return " ".join(text.split())


# -- 1. console output: refusals that name private facts ---------------------------------------
def test_missing_fail_refusal_does_not_name_the_column_of_the_missing_value(tmp_path):
    """Attack: run ``release --missing fail`` (a documented CLI option) on D' where the target
    record's ``age`` is missing, and on D'' where its ``income`` is missing. Both are refused
    (a refusal the documented list of public-assumption refusals, then in the README and now in
    docs/explanations/publication-boundary.md, did not mention),
    and the message names the column that holds the missing value ("column 'age' has a missing
    value"), a fact about the target record, printed without --show-private. The two
    neighbours, which publish nothing else, are told apart by the error message alone.
    """
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", MIN_ROWS, "--missing", "fail", "--out", "pub/syn.csv"]
    outputs = {}
    for column in ("age", "income"):
        t = base_table()
        t.loc[t.index[-1], column] = np.nan
        res = invoke(tmp_path / column, args, table=t)
        assert res.exit_code == 2, res.output  # refused
        outputs[column] = one_paragraph(res.output)
    assert outputs["age"] == outputs["income"], outputs


def test_malformed_csv_refusal_does_not_publish_the_line_number(tmp_path):
    """Attack: the target record is malformed (one field too many). synthcert refuses the
    input, and the refusal repeats pandas' parser message "Expected 4 fields in line 1502,
    saw 5": the line number is the record's position, which bounds (here: gives) the table
    size n, private under add/remove neighbours, and "saw 5" describes the target record.
    D (1,500 good rows then the bad one) and its neighbour D' (one more good row) are both
    refused, with messages that differ in the line number only.
    """
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", MIN_ROWS, "--out", "pub/syn.csv"]
    outputs = {}
    for n in (N, N + 1):
        folder = tmp_path / f"n{n}"
        folder.mkdir()
        base_table(n).to_csv(folder / "private_input.csv", index=False)
        with open(folder / "private_input.csv", "a", encoding="utf-8") as fh:
            fh.write("50.0,40.0,1.0,north,extra\n")
        res = invoke(folder, args)
        assert res.exit_code == 2, res.output
        outputs[n] = one_paragraph(res.output)
    assert str(N + 2) not in outputs[N], outputs[N]
    assert outputs[N] == outputs[N + 1], outputs


# -- 2. seeds --------------------------------------------------------------------------------
def test_a_seed_given_through_param_is_a_warned_secret_user_seed(tmp_path):
    """Attack: ``synthesize --param seed=7`` sets the seed of the DP fit's noise (the
    workflow keeps a user ``seed`` param instead of the child of the secret SeedSequence).
    The run prints no warning (``--seed 7`` would warn that a guessable seed voids the
    guarantee), and the private record claims "os-entropy". The DP noise is then a fixed
    function of a seed anyone can guess: an attacker who knows D minus one row refits on each
    candidate with seed 7 and obtains the exact noisy model behind the published rows.
    """
    from synthcert.synthesizers.registry import make_synthesizer

    # the noise is a function of the guessable seed: two fits give one model
    a = make_synthesizer("gaussian-copula", SCHEMA, epsilon=1.0, seed=7).fit(base_table())
    b = make_synthesizer("gaussian-copula", SCHEMA, epsilon=1.0, seed=7).fit(base_table())
    pd.testing.assert_frame_equal(a.sample(200, seed=1), b.sample(200, seed=1))

    args = ["synthesize", "private_input.csv", "--schema", "schema.json"]
    args += ["--synthesizer", "gaussian-copula", "--epsilon", "1", "--param", "seed=7"]
    args += ["--out", "pub/s.csv", "--private-record", "record.json"]
    res = invoke(tmp_path, args, table=base_table())
    assert res.exit_code == 0, res.output
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["seed_source"] == "user", record["seed_source"]
    assert "guessable" in one_paragraph(res.output), res.output


def test_dp_ctgan_noise_seed_is_not_truncated_to_31_or_32_bits(monkeypatch):
    """Attack: DP-CTGAN seeds torch (the generator's init, the Poisson sampler and the DP-SGD
    noise generator) with ``int_seed``, the secret SeedSequence truncated to 31 bits
    (``generate_state(1)[0] & 0x7FFFFFFF``). The DP-SGD noise then takes at most 2^31
    values: an attacker who knows D minus one row enumerates the 2^31 noise seeds (each a
    re-training) instead of facing 128 bits, and the issue forbids any 31/32-bit truncation
    on a DP path. We record every seed handed to torch during one tiny DP fit.
    """
    pytest.importorskip("opacus")
    import torch

    from synthcert.synthesizers.registry import make_synthesizer

    seeds: list[int] = []
    states: list[bytes] = []
    real_global = torch.manual_seed
    real_set_rng_state = torch.set_rng_state

    class SpyGenerator(torch.Generator):
        def manual_seed(self, seed):
            seeds.append(int(seed))
            return super().manual_seed(seed)

        def set_state(self, state):
            states.append(state.numpy().tobytes())
            return super().set_state(state)

    def record_global(seed):
        seeds.append(int(seed))
        return real_global(seed)

    def record_set_rng_state(state):
        states.append(state.numpy().tobytes())
        return real_set_rng_state(state)

    monkeypatch.setattr(torch, "Generator", SpyGenerator)
    monkeypatch.setattr(torch, "manual_seed", record_global)
    monkeypatch.setattr(torch, "set_rng_state", record_set_rng_state)
    synth = make_synthesizer(
        "ctgan", SCHEMA, epsilon=5.0, delta=1e-5, epochs=1, batch_size=100,
        embedding_dim=8, generator_dim=(8,), discriminator_dim=(8,), min_rows=200,
        seed=np.random.SeedSequence(),
    )  # fmt: skip
    synth.fit(base_table(200))
    synth.sample(10)
    # issue 25: torch's manual_seed keeps the low 32 bits of any seed, so no stream may be
    # seeded through it (a 64-bit seed there still buys 32 bits); every stream's MT19937 key
    # is set in full from the secret SeedSequence instead
    assert not seeds, f"manual_seed was called ({[s.bit_length() for s in seeds]} bits)"
    keyed = {b for b in states if struct.unpack_from("<QiiQ", b, 0) == (0, 1, 1, 0)}
    # initialisation and training, Poisson batches, DP-SGD noise, sampling
    assert len(keyed) >= 4, len(keyed)
    for b in keyed:  # init_genrand(s) writes s at key[0]; numpy's MT19937 key writes 2^31
        key = np.frombuffer(b, dtype="<u8", count=624, offset=24)
        assert key[0] == 0x80000000 and len(set(key.tolist())) > 600


# -- 3. file modes of private artefacts ------------------------------------------------------
def test_private_params_file_is_never_readable_by_others(tmp_path, monkeypatch):
    """Attack (local, on a shared machine): ``release --save-private-params`` writes the
    fitted mean and covariance, which defeat the guarantee outright. It is written through
    the public atomic writer, which chmods the temporary file to 0666 & ~umask (0644 here)
    and renames it into place; only then is it chmod-ed to 0600. Between the rename and the
    chmod the private parameters sit at their path readable by every local user. A reader
    polling the path wins that race; we observe the mode at the moment of the rename.
    """
    import synthcert.data.io as io_mod
    from synthcert.workflows import Budget
    from synthcert.workflows.release import release

    modes: dict[str, int] = {}
    real_replace = os.replace

    def spy(src, dst, *a, **kw):
        modes[os.path.basename(os.fspath(dst))] = stat.S_IMODE(os.stat(src).st_mode)
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(io_mod.os, "replace", spy)
    old = os.umask(0o022)
    try:
        table = base_table()
        table.to_csv(tmp_path / "in.csv", index=False)
        release(
            tmp_path / "in.csv",
            SCHEMA,
            tmp_path / "pub" / "syn.csv",
            Budget(sigma=float(SIGMA), min_rows=int(MIN_ROWS)),
            save_private_params=tmp_path / "private" / "params.npz",
        )
    finally:
        os.umask(old)
    assert "params.npz" in modes
    assert modes["params.npz"] & 0o077 == 0, oct(modes["params.npz"])


def test_internal_report_is_written_mode_0600(tmp_path):
    """Attack (local): ``release --internal-report`` writes the operator's report, which
    carries the private run record's command line, input path and SHA-256 and the run's start
    time (and, through ``report --internal``, real marginals and at-risk rows). Unlike the
    private record (0600) it is written with the public writer's mode, 0666 & ~umask (0644
    under the usual umask): every local user can read it.
    """
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", MIN_ROWS, "--out", "pub/syn.csv"]
    args += ["--internal-report", "private/internal.html", "--private-record", "private/r.json"]
    old = os.umask(0o022)
    try:
        res = invoke(tmp_path, args, table=base_table())
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.output
    record_mode = stat.S_IMODE((tmp_path / "private" / "r.json").stat().st_mode)
    report_mode = stat.S_IMODE((tmp_path / "private" / "internal.html").stat().st_mode)
    assert record_mode == 0o600
    assert report_mode == 0o600, oct(report_mode)


# -- 4. warnings of the libraries synthcert calls --------------------------------------------
def test_text_in_a_numeric_column_raises_no_visible_parser_warning(tmp_path):
    """Attack: the target record has text ("abc") in the numeric column ``income``. The
    documented public rule treats it as a missing value (the row is dropped), so the published
    files are identical; but pandas' chunked CSV reader, seeing a column of mixed types,
    emits ``DtypeWarning: Columns (0) have mixed types`` on stderr (Python shows it by
    default, without --show-private). The console of D' carries a warning that names the
    column position of the target's odd value; the console of D carries none. (It needs a
    file longer than one of pandas' internal low-memory blocks: 200,000 rows here.)
    """
    import warnings

    n = 200_000
    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        {
            "income": rng.uniform(0, 100, n).round(2),
            "age": rng.uniform(18, 90, n).round(1),
            "score": rng.uniform(-5, 5, n).round(2),
            "region": rng.choice(["north", "south", "east"], n),
        }
    )
    odd = table.copy()
    odd["income"] = odd["income"].astype(object)
    odd.loc[n - 1, "income"] = "abc"
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", "1000", "--n-out", "10", "--out", "pub/syn.csv", "--json"]
    seen = {}
    for name, t in (("D", table), ("odd", odd)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = invoke(tmp_path / name, args, table=t)
        assert res.exit_code == 0, res.output
        seen[name] = sorted(f"{w.category.__name__}: {w.message}" for w in caught)
    assert seen["odd"] == seen["D"], seen


# -- 5. where private files may land; what refusals advise -------------------------------------
def test_private_record_and_params_are_refused_beside_the_published_rows(tmp_path):
    """Attack (operator error the boundary should catch): ``--out pub/syn.csv`` puts the rows,
    the default certificate ``pub/syn.certificate.json`` and the report ``pub/report.html``
    in the folder ``pub/``, the folder an operator publishes. ``--private-record pub/run.json``
    and ``--save-private-params pub/params.npz`` are accepted there: the run record (seed
    entropy, n, dropped/clipped counts, lambda_min, input path and hash) and the fitted mean
    and covariance land in the published folder. The check refuses only paths equal to, or
    inside, a public artefact, so for a single-file output it never fires. (Whether "the
    public output folder" of a one-file release is its parent folder is the lead's call; the
    certificate is written there by default, so we take it to be.)
    """
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", MIN_ROWS, "--out", "pub/syn.csv", "--report", "pub/report.html"]
    accepted = {}
    for extra in (
        ["--private-record", "pub/run.json"],
        ["--save-private-params", "pub/params.npz"],
    ):
        folder = tmp_path / extra[0].strip("-")
        res = invoke(folder, [*args, *extra], table=base_table())
        if res.exit_code == 0:
            accepted[extra[0]] = sorted(p.name for p in (folder / "pub").glob("*"))
    assert not accepted, f"private files accepted inside the published folder: {accepted}"


def test_bounded_refusal_advice_declare_nullable_is_possible(tmp_path):
    """Attack on the documentation: under bounded neighbours a row with a missing value is
    refused, and the refusal (and the README's "What is published", now
    docs/explanations/publication-boundary.md) told the operator to "Declare
    such columns nullable (missing values are then modelled)". The schema has no such
    option: a column declared ``"nullable": true`` is accepted and ignored, and the table is
    still refused. Either the schema models missing values, or the message stops advising it.
    """
    schema = json.loads(SCHEMA.to_json())
    for col in schema["columns"]:
        if col["name"] == "age":
            col["nullable"] = True
    t = base_table()
    t.loc[t.index[-1], "age"] = np.nan
    folder = tmp_path / "n"
    folder.mkdir()
    t.to_csv(folder / "private_input.csv", index=False)
    (folder / "nullable_schema.json").write_text(json.dumps(schema))
    args = ["release", "private_input.csv", "--schema", "nullable_schema.json", "--sigma", SIGMA]
    args += ["--neighboring", "bounded", "--out", "pub/syn.csv"]
    res = invoke_in(folder, args)
    message = one_paragraph(res.output)
    assert res.exit_code == 0 or "nullable" not in message, message


def test_min_rows_refusal_says_rows_with_missing_values_do_not_count(tmp_path):
    """Attack on the documentation of a refusal: a table of exactly --min-rows = 1,400 rows is
    released; its neighbour in which the target record has one missing value (or an
    undeclared category, or text in a numeric column) has 1,400 rows too, yet is refused
    with "the table has fewer rows than the declared minimum --min-rows 1400". The docs
    (docs/explanations/publication-boundary.md, formerly the README) document "a table below
    --min-rows" as a visible refusal, which an operator reads as the file's row count; in fact
    the count is of complete rows, so one odd value in one record flips the go/no-go decision
    at the boundary. The message (and the docs) must say that rows dropped by the
    missing-value rule do not count, or the operator cannot choose a --min-rows that keeps
    this signal away.
    """
    args = ["release", "private_input.csv", "--schema", "schema.json", "--sigma", SIGMA]
    args += ["--min-rows", "1400", "--out", "pub/syn.csv"]
    table = base_table().iloc[:1400].reset_index(drop=True)
    ok = invoke(tmp_path / "D", args, table=table)
    assert ok.exit_code == 0, ok.output
    odd = table.copy()
    odd.loc[odd.index[-1], "age"] = np.nan
    res = invoke(tmp_path / "odd", args, table=odd)
    assert res.exit_code == 2, res.output
    message = one_paragraph(res.output)
    assert "missing" in message or "complete" in message, message


# -- 6. documentation that teaches the attack ------------------------------------------------
def test_documented_release_and_synthesize_examples_pass_no_guessable_seed():
    """Attack via the manuals: an operator copies an example. docs/report.md
    (``release ... --seed 7``), docs/scale.md (``release ... --seed 7``, twice) and
    docs/pgm_ctgan.md (``synthesize --synthesizer aim ... --seed 0``) and docs/synthesizers.md
    (``synthesize ... --seed 7``) still pass small seeds
    to DP or certified commands, which the seed warning itself calls guessable: whoever
    tries seed 7 regenerates the draws and, for ``release``, recovers the fitted mean and
    covariance from the rows (the seed-recovery regression of the boundary harness). Issue 15
    asks the examples to stop passing small seeds or to say why they need one. (The same
    examples also predate --sigma/--min-rows, and docs/report.md still lists "command line,
    seed, input file and SHA-256" in the report's provenance, which the public report no
    longer carries.)
    """
    import re

    root = Path(__file__).resolve().parents[1]
    offenders = []
    docs = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    assert len(docs) > 20, "the documentation pages were not found"
    for doc in docs:
        text = doc.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in text.splitlines():
            if not re.search(r"synthcert (release|synthesize)\b", line):
                continue
            for m in re.finditer(r"--seed[ =](\d+)", line):
                if int(m.group(1)).bit_length() < 64:
                    offenders.append(f"{doc.name}: --seed {m.group(1)}")
    assert not offenders, offenders


# -- 7. the counted (partitioned-input) path of the bounded DP synthesizers -------------------
@pytest.mark.parametrize("synthesizer", ["gaussian-copula", "privbayes"])
@pytest.mark.parametrize("kind", ["missing", "unknown_category"])
def test_bounded_dp_synthesis_from_a_folder_does_not_publish_rows_used(tmp_path, synthesizer, kind):
    """Attack: under bounded (replace-one) neighbours the table size n is public, and a row
    with a missing value or an undeclared category can be neither dropped nor kept, so the
    in-memory path refuses it (documented). When the input is a folder (or a glob, or a
    Parquet file of more than 10^7 rows) the bounded synthesizers fit from engine counts
    instead, and that path drops the incomplete row silently: the run succeeds and publishes
    ``rows_out`` = 1,499 and the claim's assumption ``n`` = 1,499, where D (1,500 complete
    rows, same file layout) publishes 1,500. Replacing the target's ``age`` by a missing
    value, a bounded neighbour, is read off ``--json`` (and off the row count).
    """
    args = ["synthesize", "in", "--schema", "schema.json", "--synthesizer", synthesizer]
    args += ["--epsilon", "1", "--delta", "1e-6", "--out", "pub/s.csv", "--json"]
    table = base_table()
    odd = table.copy()
    if kind == "missing":
        odd.loc[odd.index[-1], "age"] = np.nan
    else:
        odd["region"] = odd["region"].astype(object)
        odd.loc[odd.index[-1], "region"] = "atlantis"
    results = {}
    for name, t in (("D", table), ("odd", odd)):
        folder = tmp_path / name
        (folder / "in").mkdir(parents=True)
        t.iloc[:700].to_parquet(folder / "in" / "a.parquet")
        t.iloc[700:].to_parquet(folder / "in" / "b.parquet")
        results[name] = invoke(folder, args)
    assert results["D"].exit_code == 0, results["D"].output
    d_json = json.loads(results["D"].stdout)
    assert d_json["rows_out"] == N
    odd_res = results["odd"]
    if odd_res.exit_code == 0:  # then it must publish exactly what D published
        assert odd_res.stdout == results["D"].stdout, json.loads(odd_res.stdout)["rows_out"]
    else:  # or the documented refusal, naming no value of the table
        message = one_paragraph(odd_res.output)
        assert "bounded" in message and "1499" not in message and "atlantis" not in message


# -- 8. the two DP steps of 24 Nov: DP quantile bins, CTGAN's missingness patterns -----------
# The attacks below found nothing (the steps hold); they stay as regression guards: each fails
# if the sensitivity, the budget split, the claim or a refusal comes to depend on the data.
def worst_pattern_shift(absent: np.ndarray, groups, relation: str) -> float:
    """max ||h(D) - h(D')||_2 of the pattern histograms over D's neighbours under
    ``relation`` (exhaustive over the rows of D and every pattern of a new record)."""
    from itertools import product

    from synthcert.synthesizers.ctgan_missing import pattern_counts

    base = pattern_counts(absent, groups)
    k = absent.shape[1]
    records = [np.array(bits, dtype=bool) for bits in product((False, True), repeat=k)]
    worst = 0.0
    for i in range(len(absent)):
        others = [np.delete(absent, i, axis=0)]  # remove row i
        if relation == "bounded":  # replace row i by any record
            others = [np.vstack([absent[:i], r[None], absent[i + 1 :]]) for r in records]
        for other in others:
            worst = max(worst, float(np.linalg.norm(pattern_counts(other, groups) - base)))
    if relation == "unbounded":  # add any record
        for r in records:
            other = np.vstack([absent, r[None]])
            worst = max(worst, float(np.linalg.norm(pattern_counts(other, groups) - base)))
    return worst


@pytest.mark.parametrize("max_group", [8, 2, 1])
def test_pattern_histogram_sensitivity_covers_ctgan_declared_neighbours(max_group):
    """Attack: under *replacement* one record leaves one cell and enters another in every
    group, so the histogram moves by sqrt(2 G), not sqrt(G). The noise is calibrated to
    sqrt(G), so it is only right if DP-CTGAN's claim is add/remove. The worst shift over
    every neighbour of the relation CTGAN declares must not exceed the calibrated
    sensitivity (and the replacement worst case shows the declaration matters)."""
    from synthcert.synthesizers.ctgan import CTGANSynthesizer
    from synthcert.synthesizers.ctgan_missing import column_groups, l2_sensitivity_of_groups

    rng = np.random.default_rng(8)
    absent = rng.random((12, 3)) < 0.4
    groups = column_groups(3, max_group)
    used = l2_sensitivity_of_groups(len(groups))
    declared = CTGANSynthesizer.neighboring
    assert worst_pattern_shift(absent, groups, declared) <= used
    assert worst_pattern_shift(absent, groups, "unbounded") == pytest.approx(len(groups) ** 0.5)
    assert worst_pattern_shift(absent, groups, "bounded") == pytest.approx((2 * len(groups)) ** 0.5)


def tiny_ctgan(schema, **kw):
    from synthcert.synthesizers.registry import make_synthesizer

    return make_synthesizer(
        "ctgan", schema, epochs=1, batch_size=100, embedding_dim=8, generator_dim=(8,),
        discriminator_dim=(8,), **kw,
    )  # fmt: skip


def test_dp_ctgan_patterns_and_dp_sgd_compose_within_the_claim(request):
    """The fitted DP-CTGAN with nullable columns: the histogram gets the discrete Gaussian at
    the calibrated sensitivity and rho = 0.1 rho(epsilon, delta) (standard conversion), and
    DP-SGD at the recorded (q, sigma, steps) composed with that rho is within the claimed
    (epsilon, delta) by Google's dp-accounting (its own RDP code and conversion); the claim
    states the requested budget, add/remove neighbours, both mechanisms."""
    pytest.importorskip("opacus")
    import torch
    from dp_accounting import dp_event
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

    from synthcert.privacy.accountant import rho_from_epsilon_delta
    from test_publication_boundary import NULLABLE_SCHEMA, nullable_table

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    eps, delta = 1.0, 1e-6
    synth = tiny_ctgan(NULLABLE_SCHEMA, epsilon=eps, delta=delta, min_rows=250)
    synth.fit(nullable_table())
    assert synth.pattern_rho_ == pytest.approx(0.1 * rho_from_epsilon_delta(eps, delta))
    entries = [e for e in synth.accountant.ledger if "missing-pattern" in e.mechanism]
    assert len(entries) == 1 and entries[0].rho == pytest.approx(synth.pattern_rho_)
    ref = RdpAccountant()
    sgd = dp_event.PoissonSampledDpEvent(
        synth.sample_rate_, dp_event.GaussianDpEvent(synth.noise_multiplier_)
    )
    ref.compose(dp_event.SelfComposedDpEvent(sgd, synth.steps_))
    ref.compose(dp_event.ZCDpEvent(synth.pattern_rho_))
    assert 0.9 * eps <= ref.get_epsilon(delta) <= eps + 1e-3
    claim = synth.privacy_claim(100)
    assert (claim.epsilon, claim.delta, claim.neighboring) == (eps, delta, "unbounded")
    assert any("missingness patterns" in m for m in claim.mechanisms)


def test_ctgan_without_dp_claims_no_privacy_with_nullable_columns(request):
    """Without epsilon the exact pattern distribution is read from the data (no noise):
    nothing may claim privacy, nothing may be recorded in a ledger."""
    import torch

    from test_publication_boundary import NULLABLE_SCHEMA, nullable_table

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    synth = tiny_ctgan(NULLABLE_SCHEMA, seed=np.random.SeedSequence())
    synth.fit(nullable_table(200))
    claim = synth.privacy_claim(50)
    assert claim.model == "none" and claim.epsilon is None and claim.delta is None
    assert claim.mechanisms == () and claim.neighboring == "none"
    assert not synth.accountant.ledger
    assert not hasattr(synth, "pattern_rho_") and not hasattr(synth, "noise_multiplier_")


def test_dp_bins_refusals_depend_on_public_arguments_only(tmp_path):
    """Every refusal of ``--dp-bins`` (no epsilon, no share, no column asking, a share leaving
    nothing) is decided before the table is read: the same message for D and a neighbour,
    and none for a table that cannot even be parsed."""
    from dataclasses import replace

    from synthcert.data.schema import Schema
    from test_publication_boundary import SCHEMA as PLAIN

    asking = Schema(
        tuple(replace(c, quantile_bins=4) if c.name == "income" else c for c in PLAIN.columns)
    )
    cases = [
        (asking, ["--dp-bins", "0.2"]),  # no epsilon
        (asking, ["--epsilon", "1"]),  # no share
        (PLAIN, ["--epsilon", "1", "--dp-bins", "0.2"]),  # no column asks
        (asking, ["--epsilon", "1", "--dp-bins", "1"]),  # nothing left
    ]
    for i, (schema, extra) in enumerate(cases):
        outputs = []
        for name, content in (("D", None), ("garbage", "\x00not,a\ncsv\x00\n")):
            folder = tmp_path / f"{i}{name}"
            folder.mkdir()
            if content is None:
                base_table().to_csv(folder / "private_input.csv", index=False)
            else:
                (folder / "private_input.csv").write_text(content)
            (folder / "schema.json").write_text(schema.to_json())
            args = ["synthesize", "private_input.csv", "--schema", "schema.json"]
            args += ["--synthesizer", "privbayes", "--out", "pub/s.csv", *extra]
            res = invoke_in(folder, args)
            assert res.exit_code != 0, (extra, res.output)
            outputs.append(one_paragraph(res.output))
        assert outputs[0] == outputs[1], (extra, outputs)


@pytest.mark.parametrize("nullable,missing", [(False, "model"), (True, "drop"), (True, "model")])
def test_dp_ctgan_claim_names_the_pattern_histogram_only_when_it_ran(request, nullable, missing):
    """Finding (claim accuracy, public inputs only): the DP-CTGAN claim listed the discrete
    Gaussian pattern histogram among its mechanisms on every run, also where it never ran (no
    nullable column, or ``missing="drop"``) and no budget went to it. The mechanisms a claim
    names must be the ones in the ledger; which ones run depends on the schema and the
    missing-value policy only (public), never on the data."""
    pytest.importorskip("opacus")
    import torch

    from test_publication_boundary import NULLABLE_SCHEMA, nullable_table

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    schema = NULLABLE_SCHEMA if nullable else SCHEMA
    table = nullable_table() if nullable else base_table(300)
    synth = tiny_ctgan(schema, epsilon=1.0, delta=1e-6, min_rows=200, missing=missing)
    synth.fit(table)
    claim = synth.privacy_claim(50)
    ran = any("missing-pattern" in e.mechanism for e in synth.accountant.ledger)
    assert ran == (nullable and missing == "model")
    named = any("missingness patterns" in m for m in claim.mechanisms)
    assert named == ran, claim.mechanisms
    assert any("DP-SGD" in m for m in claim.mechanisms)


def test_dp_ctgan_too_few_rows_refusal_names_no_count():
    """Finding (pre-existing, beside the pattern step): DP-CTGAN refused a table with fewer
    than 2 complete rows saying "got {n}", the private number of complete rows (with
    ``missing="drop"`` it counts the rows without a missing value). The refusal is a
    public-assumption failure (n >= the declared minimum N); its message must be the same for
    0 and 1 complete rows and carry no count."""
    pytest.importorskip("opacus")
    from synthcert.errors import DataError
    from test_publication_boundary import NULLABLE_SCHEMA

    messages = []
    for complete in (0, 1):
        t = base_table(3)
        t.loc[complete:, "income"] = np.nan  # income is not nullable: those rows are dropped
        synth = tiny_ctgan(NULLABLE_SCHEMA, epsilon=1.0, delta=1e-6, min_rows=200)
        with pytest.raises(DataError) as err:
            synth.fit(t)
        messages.append(str(err.value))
    assert messages[0] == messages[1], messages
    assert "got" not in messages[0] and "200" in messages[0], messages[0]
