"""The synthesize workflow: fit any registered synthesizer, sample, publish rows and claim.

Public: the rows, the synthesizer's name and public parameters, the number of rows released
(declared, or n under bounded neighbours where n is public), and the privacy claim computed
from the requested budget. Private (run record): the seed, how many rows were read, timings,
the accountant's ledger (an adaptive mechanism's number of rounds is itself random), the
input's path and hash.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from synthcert._result import Result
from synthcert._version import __version__
from synthcert.data.encode import dates_as_written
from synthcert.data.io import (
    PARQUET_SUFFIXES,
    CsvOptions,
    is_parquet,
    iter_table_chunks,
    read_table,
    write_table,
)
from synthcert.data.schema import CategoricalColumn, Schema
from synthcert.data.tails import log_scale_long_tails
from synthcert.errors import AssumptionError, ParameterError, SynthcertError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.privacy.domain import (
    DomainBudget,
    DomainEstimate,
    compose_claim,
    estimate_domain,
    plan_budget,
    refuse_data_structure,
)
from synthcert.privacy.quantile_bins import QuantileBins, quantile_bins_step
from synthcert.privacy.quantile_bins import requested_columns as quantile_columns
from synthcert.privacy.tree_bins import TreeBins, tree_bins_step
from synthcert.privacy.tree_bins import requested_columns as tree_columns
from synthcert.results import SynthesisSummary
from synthcert.run_record import RunRecord, today_utc
from synthcert.statistics.protocols import FitsFromCounts, FitsFromMoments
from synthcert.synthesizers.base import DEFAULT_DELTA
from synthcert.synthesizers.gaussian import incomplete_rows_under_bounded
from synthcert.synthesizers.registry import (
    accepted_params,
    get_info,
    make_synthesizer,
    neighboring_of,
)
from synthcert.workflows.artefacts import Publication
from synthcert.workflows.job_inputs import Budget, Execution, TableSource
from synthcert.workflows.pipeline import Route, RunOutputs, run_pipeline

if TYPE_CHECKING:
    import numpy as np

IN_MEMORY_MAX_ROWS = 10**7  # a single Parquet file with more rows is counted, not loaded
BUDGET_PARAMS = frozenset({"epsilon", "delta"})  # set by the budget, never by --param
# synthesizers whose ``progress`` callback reports each selection round as a message
ROUND_REPORTING = ("aim", "mwem-pgm")
# ... and whose ``progress`` callback reports each training epoch as (epoch, epochs)
EPOCH_REPORTING = ("ctgan",)


@dataclass(frozen=True)
class SynthesisResult(Result):
    """The public summary and the private record of the run (memory only)."""

    summary: SynthesisSummary
    record: RunRecord
    private_record_path: str | None = None


def data_derived_parts(schema: Schema) -> str:
    """What of ``schema`` was read from the data, column by column ("age (bounds, integer,
    kind)"), then the choice of dropped columns; "" when nothing was. Public: the schema's
    marks only."""
    parts: dict[str, list[str]] = {}
    for c in schema.columns:
        if c.source == "data":
            parts[c.name] = ["categories" if isinstance(c, CategoricalColumn) else "bounds"]
    for column, flag in schema.data_flag_pairs:
        parts.setdefault(column, []).append(flag)
    text = "; ".join(f"{n} ({', '.join(v)})" for n, v in parts.items())
    if schema.drop_source == "data":
        text += ("; and " if text else "") + "which columns are dropped"
    return text


def refuse_data_domain(schema: Schema, name: str, allow: bool) -> None:
    """Refuse DP synthesis on bounds, categories or flags read from the data, unless allowed.

    A domain read from the table reveals its minimum, maximum and the categories present,
    outside any accounting; the claim would be false (smartnoise-sdk #473, synthcity #278).
    So do the ``nullable`` and ``integer`` flags of ``schema infer``: whether any value was
    missing, whether every value was whole.
    """
    read = data_derived_parts(schema)
    if read and not allow:
        raise AssumptionError(
            f"the schema was read from the data, so a DP synthesis on it would claim a "
            f"guarantee it does not give ({name}): {read}. Either replace them by public ones "
            '(a codebook, legal ranges) and mark them "source": "public" (flags: '
            '"nullable_source"/"integer_source": "public"; kinds and dropped columns: '
            "`schema infer --public-kinds` after review), or pay for a DP estimate of them "
            "with --param private_domain=SHARE (a share of epsilon; category lists also need "
            "--delta; data-derived flags then follow a public rule), or pass "
            "--param allow_data_domain=true: the run then states no guarantee "
            '("none: the domain was read from the data").',
            assumption="a public domain",
            admissible="public bounds and categories, --param private_domain=SHARE, or "
            "--param allow_data_domain=true",
        )


@dataclass(frozen=True)
class BudgetSplit(Result):
    """The requested (epsilon, delta) split between the DP domain step and the synthesizer."""

    share: float
    epsilon: float
    delta: float  # the requested total (0 when nothing uses delta)
    domain_epsilon: float
    domain_delta: float
    synthesizer_epsilon: float
    synthesizer_delta: float | None


def split_budget(
    schema: Schema, synthesizer: str, share: float, epsilon: float | None, delta: float | None
) -> BudgetSplit:
    """Split (epsilon, delta) for ``--private-domain SHARE`` (basic composition).

    The domain step gets SHARE x epsilon; it needs delta only for data-derived category lists.
    A pure-DP synthesizer (gaussian-copula, privbayes) then leaves all of ``delta`` to the
    domain step; an (epsilon, delta) one (mwem-pgm, aim, ctgan; default delta 1e-5) gives
    SHARE x delta to the domain step and keeps the rest.

    Parameters
    ----------
    schema
        The schema whose ``"source": "data"`` columns the domain step estimates.
    synthesizer
        A registry name (its privacy model decides who gets delta).
    share
        The share of epsilon spent on the domain, in (0, 1).
    epsilon, delta
        The requested total budget.

    Returns
    -------
    BudgetSplit
        The domain step's and the synthesizer's (epsilon, delta).

    Raises
    ------
    AssumptionError
        No epsilon, a share outside (0, 1), or a synthesizer that is not DP.

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0.0, 1.0, source="data"),))
    >>> split = split_budget(schema, "aim", 0.1, 1.0, 1e-6)
    >>> round(split.domain_epsilon, 12), round(split.synthesizer_epsilon, 12)
    (0.1, 0.9)
    >>> split.domain_delta, split.synthesizer_delta  # numeric bounds need no delta
    (0.0, 1e-06)
    """
    if epsilon is None:
        raise AssumptionError(
            "private_domain spends a share of the DP budget: give --epsilon",
            assumption="a DP budget",
            admissible="--epsilon E",
        )
    if not 0 < share < 1:
        raise AssumptionError(
            f"private_domain takes the share of epsilon spent on the domain, in (0, 1); got "
            f"{share}",
            assumption="0 < SHARE < 1",
            admissible="for example 0.1",
        )
    model = get_info(synthesizer).load().privacy_model
    if model not in ("pure-dp", "approx-dp", "zcdp"):
        raise AssumptionError(
            f"private_domain needs a DP synthesizer run with --epsilon; {synthesizer!r} is not "
            "one (its privacy is inherent to sampling: give it a public domain)",
            assumption="a DP synthesizer",
            admissible="gaussian-copula, privbayes, mwem-pgm, aim, ctgan",
        )
    has_categories = any(c.source == "data" for c in schema.categorical)
    pure = model == "pure-dp"
    total_delta = (delta or 0.0) if pure else (DEFAULT_DELTA if delta is None else delta)
    dom_eps = share * epsilon
    if not has_categories:
        dom_delta, syn_delta = 0.0, delta
    elif pure:
        dom_delta, syn_delta = total_delta, None
    else:
        dom_delta = share * total_delta
        syn_delta = total_delta - dom_delta
    return BudgetSplit(
        share=float(share),
        epsilon=float(epsilon),
        delta=float(total_delta if (dom_delta > 0 or not pure) else 0.0),
        domain_epsilon=float(dom_eps),
        domain_delta=float(dom_delta),
        synthesizer_epsilon=float(epsilon - dom_eps),
        synthesizer_delta=syn_delta,
    )


def private_domain_step(
    input_path: str | os.PathLike,
    schema: Schema,
    budget: DomainBudget,
    *,
    seed: Any,
    csv: CsvOptions | None,
    ranges: dict[str, tuple[float, float]] | None,
) -> DomainEstimate:
    """One streamed pass over the input: the DP domain of every data-derived column, under
    the neighbouring relation the ``budget`` was planned for (:func:`plan_budget`)."""
    import numpy as np

    return estimate_domain(
        iter_table_chunks(input_path, csv=csv),
        schema,
        budget,
        neighboring=budget.neighboring,
        rng=np.random.default_rng(seed),
        ranges=ranges,
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


def output_rows(name: str, claim_neighboring: str, n_out: int | None, min_rows: int | None,
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
                f"{name} is DP under add/remove neighbours, where the table size is "
                "private: give the number of rows to release (--param n_out=N) or a public "
                "lower bound on the table size (--min-rows), which is then the default",
                assumption="a public number of output rows",
                admissible="--param n_out=N or --min-rows N",
            )
        return int(min_rows)
    return int(rows_in)


def refuse_unsized(synthesizer: str, budget: Budget) -> None:
    """Refuse a DP run under add/remove neighbours without a public size (``n_out`` or
    ``min_rows``) at once, as :func:`output_rows` would after the fit: before the domain
    step, the bins or a ledger reservation. Public: the synthesizer and the budget."""
    if budget.epsilon is None or not budget.epsilon < float("inf"):
        return
    if "epsilon" not in accepted_params(synthesizer):
        return  # make_synthesizer refuses the epsilon, with its own message
    neighbour = neighboring_of(synthesizer)  # a DP synthesizer's, never a parameter's
    output_rows(synthesizer, neighbour, budget.n_out, budget.min_rows, 0, dp=True)


def unused_min_rows_note(synthesizer: str, budget: Budget, dp: bool) -> str | None:
    """The note for a ``min_rows`` the run would otherwise ignore in silence: a DP synthesizer
    under replace-one neighbours (n is public, so the release has n rows) or a run without DP,
    where no synthesizer but one that takes ``min_rows`` reads it. Public: the synthesizer and
    the budget only."""
    if budget.min_rows is None or budget.n_out is not None:
        return None
    if "min_rows" in accepted_params(synthesizer):
        return None
    if dp and neighboring_of(synthesizer) == "unbounded":
        return None  # the default number of rows released (output_rows)
    why = (
        f"{synthesizer} is DP under replace-one neighbours, where the table size is public"
        if dp
        else "without DP no table size is hidden"
    )
    return (
        f"--min-rows is not used: {why}, so the release has as many rows as the input "
        "(--param n_out=N to choose)"
    )


def synthesize(
    source: TableSource | str | os.PathLike,
    schema: Schema,
    synthesizer: str,
    out: str | os.PathLike,
    budget: Budget | None = None,
    execution: Execution | None = None,
    *,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    allow_data_domain: bool = False,
    private_domain: float | None = None,
    domain_ranges: dict[str, tuple[float, float]] | None = None,
    domain_shares: dict[str, float] | None = None,
    dp_bins: float | None = None,
    dp_bins_log: bool = False,
    dp_tree: bool | None = None,
    report: str | os.PathLike | None = None,
    internal_report: str | os.PathLike | None = None,
    private_record: str | os.PathLike | None = None,
    command: str = "",
    claim_audit: Any = None,
) -> SynthesisResult:
    """Fit ``synthesizer`` on the input, sample rows, write them atomically to ``out``.

    The fit route follows the model's typed protocol
    (:mod:`synthcert.statistics.protocols`): a :class:`FitsFromMoments` model (M_G) is fitted
    from the engine's merged moments, streaming the input; a :class:`FitsFromCounts` model
    (PrivBayes, MWEM-PGM, AIM, the copula) from marginal counts on its public bins when the
    input is partitioned or the engine is not local; any other model from the rows in
    memory. The run's secret seed is split into three children: the fit's noise, the
    sampling, and the DP domain step.

    Parameters
    ----------
    source
        The input table (:class:`TableSource` with CSV options, or a path).
    schema
        The public schema.
    synthesizer
        A registry name (``synthcert synthesizers``).
    out
        A ``.csv``/``.parquet`` file, or a folder for a partitioned dataset.
    budget
        ``epsilon``, ``delta`` (None: no DP noise, no privacy claimed), ``n_out`` and
        ``min_rows`` (under add/remove neighbours with DP one of them is required: the table
        size is private there).
    execution
        Engine, scheduler, progress (stages ``count`` and ``sample``), ``notify`` for engine
        status lines and ``warn`` for warnings (a user seed).
    seed
        A SECRET seed for the fit's noise and the sampling (private record only); default
        128 bits of OS entropy. A ``seed`` in ``params`` is the same seed (give it once).
    params
        Extra synthesizer parameters.
    allow_data_domain
        Run a DP synthesizer on bounds or categories read from the data (no guarantee).
    private_domain
        SHARE in (0, 1): spend SHARE x epsilon (and delta for category lists) on a DP estimate
        of every data-derived bound and category list (:mod:`synthcert.privacy.domain`), fit
        on that schema with the rest; the claim is the total (basic composition).
    domain_ranges
        Public ranges {column: (lo, hi)} searched by the DP quantiles instead of the default
        public grid.
    domain_shares
        {column: fraction of the domain budget} overriding the allocation by need for those
        data-derived columns (:func:`synthcert.privacy.domain.plan_budget`).
    dp_bins, dp_bins_log
        SHARE of epsilon spent on DP quantile bin edges of the columns declaring
        ``"bins": "dp-quantile"`` (and, with ``dp_bins_log``, of every ``"scale": "log"``
        column); :mod:`synthcert.privacy.quantile_bins`. For ``"bins": "dp-tree"`` columns
        (and the default tree bins) SHARE of the synthesizer's budget
        (:mod:`synthcert.privacy.tree_bins`; default
        :data:`~synthcert.privacy.tree_bins.DEFAULT_SHARE`).
    dp_tree
        True: DP tree bins for every numeric column without declared bins or log scale; False:
        only for ``"bins": "dp-tree"`` columns; None: :data:`TREE_DEFAULT` for the
        discretising DP synthesizers (:data:`TREE_SYNTHESIZERS`).
    report, internal_report, private_record
        The public HTML report, the internal one, the private run record (mode 0600).
    command
        The command line, for the private record.
    claim_audit
        The worst-case audit of this configuration (:func:`synthcert.workflows.audit_gate.
        audit_gate`; public), drawn on the public report's attack-risk figure.

    Returns
    -------
    SynthesisResult
        The public summary (rows out, the claim) and the private record (memory only).

    Raises
    ------
    AssumptionError
        A DP run on a data-derived domain without ``allow_data_domain``, or no public number
        of output rows under add/remove neighbours.
    SynthcertError
        A non-local engine for a synthesizer that trains on rows in memory; a seed given twice.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from synthcert import Budget, synthesize
    >>> from synthcert.data.schema import CategoricalColumn, Schema
    >>> schema = Schema((CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v"))))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     people = Path(tmp) / "people.csv"
    ...     pd.DataFrame({"a": ["x", "y"] * 20, "b": ["u", "v"] * 20}).to_csv(people, index=False)
    ...     result = synthesize(
    ...         people, schema, "privbayes", Path(tmp) / "synthetic.csv",
    ...         Budget(epsilon=1.0, delta=1e-6, n_out=10), seed=7,
    ...     )
    ...     len(pd.read_csv(Path(tmp) / "synthetic.csv"))
    10
    >>> result.summary.claim.model, result.summary.claim.epsilon, result.summary.rows_out
    ('pure-dp', 1.0, 10)
    """
    budget = budget or Budget()
    budget.refuse_unused("synthesize", "epsilon", "delta", "n_out", "min_rows")
    execution = execution or Execution()
    source = TableSource.of(source).reading(schema)
    input_path = source.path
    csv, engine = source.csv, execution.engine
    epsilon, delta = budget.epsilon, budget.delta
    if epsilon is not None and not epsilon < float("inf"):
        epsilon = None  # epsilon = inf means no DP
    min_rows = budget.min_rows
    params = dict(params or {})
    if budgeted := sorted(BUDGET_PARAMS & set(params)):
        raise ParameterError(
            f"{', '.join(budgeted)} is the run's budget, not a synthesizer parameter: give it as "
            + ", ".join(f"--{k}" for k in budgeted)
            + " (Budget in Python), not --param"
        )
    dp = epsilon is not None
    refuse_unsized(synthesizer, budget)  # before any step reads the table
    if execution.notify is not None and (note := unused_min_rows_note(synthesizer, budget, dp)):
        execution.notify(note)
    split = plan = None
    if private_domain is not None:
        if allow_data_domain:
            raise AssumptionError(
                "private_domain and allow_data_domain exclude each other: the first pays "
                "for a DP domain, the second gives up the guarantee",
                assumption="one domain policy",
                admissible="one of --param private_domain=SHARE, --param allow_data_domain=true",
            )
        split = split_budget(schema, synthesizer, private_domain, epsilon, delta)
        plan = plan_budget(
            schema, private_domain, split.epsilon, split.domain_delta,
            neighboring=neighboring_of(synthesizer), shares=domain_shares, ranges=domain_ranges,
        )  # fmt: skip  # refuses early
        refuse_data_structure(schema)  # before the plan's lines: the run would stop anyway
        if execution.notify is not None:  # public: the budget, the schema and delta only
            for line in ["private_domain needs, per data-derived column:", *plan.needs()]:
                execution.notify(line)
    elif domain_ranges:
        raise AssumptionError("domain_range is used by private_domain only")
    elif domain_shares:
        raise ParameterError("domain_share is used by private_domain only")
    if dp and split is None:
        refuse_data_domain(schema, synthesizer, allow_data_domain)
    seed = user_seed(seed, params)
    outputs = RunOutputs.at(
        out, report=report, internal_report=internal_report, private_record=private_record
    )  # the layout follows the output path alone (``execution.partitioned`` is release's)
    pub = outputs.open(source, execution, seed=seed, command=command)
    fit_seed, sample_seed, domain_seed = pub.seed.spawn(3)
    estimate = None
    if plan is not None:
        with pub.timed("domain"):
            estimate = private_domain_step(
                input_path, schema, plan, seed=domain_seed, csv=csv, ranges=domain_ranges
            )  # type: ignore[arg-type]
        schema = estimate.schema  # public: a DP output
        if execution.notify is not None:  # read off the DP bounds and lists: public
            for note in (estimate.bounds_note(), estimate.lists_note()):
                if note is not None:
                    execution.notify(note)
        epsilon, delta = split.synthesizer_epsilon, split.synthesizer_delta
    quantile_wanted = quantile_columns(schema, log_columns=dp_bins_log)
    if tree_columns(schema) and quantile_wanted:
        raise AssumptionError(
            "dp-quantile and dp-tree bins in one run: choose one kind of DP bins",
            assumption="one DP binning step",
            admissible='"bins": "dp-tree" (or "dp-quantile") for every column that asks',
        )
    by_default = not quantile_wanted and tree_default(synthesizer, dp_tree)
    tree_wanted = tree_columns(schema, default=by_default)
    bins = quantile_bins_step(
        lambda: iter_table_chunks(input_path, csv=csv), schema, epsilon,
        share=None if tree_wanted else dp_bins,
        total_epsilon=split.epsilon if split else epsilon, log_columns=dp_bins_log, seed=pub.seed,
    )  # fmt: skip
    tree = run_tree_bins(
        input_path, csv, bins.schema, synthesizer, bins.synthesizer_epsilon, delta,
        share=dp_bins if tree_wanted else None, default=by_default, seed=pub.seed,
    )  # fmt: skip
    schema, epsilon = tree.schema, tree.synthesizer_epsilon
    if not dp and synthesizer in TAIL_SYNTHESIZERS:  # no DP: the scale may be read from the data
        schema, tailed = log_scale_long_tails(
            schema, lambda: iter_table_chunks(input_path, csv=csv)
        )
        if tailed and execution.notify is not None:
            execution.notify(
                f"no DP: fitting {', '.join(tailed)} on a log scale (a long right tail in the "
                'data); declare "scale" in the schema to choose'
            )
    accepted = accepted_params(synthesizer)
    if "seed" in accepted and "seed" not in params:
        params["seed"] = fit_seed  # the fit's noise and choices: a child of the secret seed
    if "min_rows" in accepted and min_rows is not None:
        params["min_rows"] = min_rows
    if synthesizer in ROUND_REPORTING and "progress" not in params and execution.progress:
        on_round = execution.progress  # rounds and budget spent: functions of DP outputs only
        params["progress"] = lambda message: on_round(f"fit: {message}", 0, None)
    elif synthesizer in EPOCH_REPORTING and "progress" not in params and execution.progress:
        on_epoch = execution.progress  # the epoch count: public (the epochs parameter)
        params["progress"] = lambda done, total: on_epoch(f"fit: epoch {done}/{total}", 0, None)
    synth = make_synthesizer(synthesizer, schema, epsilon=epsilon, delta=delta, **params)
    streamed = isinstance(synth, FitsFromMoments)
    counted = (
        not streamed
        and isinstance(synth, FitsFromCounts)
        and (engine != "local" or partitioned_input(input_path))  # type: ignore[arg-type]
    )
    if engine != "local" and not (streamed or counted):
        raise SynthcertError(
            f"the engine {engine!r} fits only synthesizers whose fit is a reduction over the rows "
            f"(gaussian, gaussian-copula, privbayes, mwem-pgm, aim); {synthesizer!r} trains on "
            "rows in memory: use the local engine (--param engine=local, the default)"
        )
    route = _SynthesisRoute(
        synth, synthesizer, source, execution, outputs.out,
        "streamed" if streamed else "counted" if counted else "rows", budget=budget, dp=dp,
        private_domain=private_domain, bins=bins, tree=tree, estimate=estimate, split=split,
    )  # fmt: skip
    summary, record = run_pipeline(
        route, pub, outputs, execution, sample_seed=sample_seed, schema=schema,
        claim_audit=claim_audit,
    )  # fmt: skip
    return SynthesisResult(summary, record, None if private_record is None else str(private_record))


@dataclass(frozen=True)
class _SynthesisRoute(Route[tuple[int, Any], tuple[int, PrivacyClaim], SynthesisSummary]):
    """The steps of ``synthesize`` in the pipeline: the fit route of the model's protocol, the
    number of rows from public quantities, the claim composed with the DP pre-steps (domain,
    bins), the rows drawn in memory into one file, and the public summary."""

    model: Any
    name: str
    source: TableSource
    execution: Execution
    out: Path
    fit_route: str  # "streamed" (FitsFromMoments), "counted" (FitsFromCounts) or "rows"
    budget: Budget  # n_out and min_rows
    dp: bool
    private_domain: float | None
    bins: QuantileBins  # the DP bins steps (their shares compose into the claim)
    tree: TreeBins
    estimate: DomainEstimate | None
    split: BudgetSplit | None

    def fit(self, engine: Any) -> tuple[int, Any]:
        """Fit by the model's protocol; the rows read and the engine's counts (or None)."""
        from synthcert.engine import EngineCounts, fit_moments

        synth, path, csv = self.model, self.source.path, self.source.csv
        if self.fit_route == "streamed":
            moments = fit_moments(path, synth.encoder, csv=csv, engine=engine)  # type: ignore[arg-type]
            synth.fit_moments(moments.acc, [moments.report])
            return synth.fit_.n, None
        if self.fit_route == "counted":
            counts = EngineCounts(
                path, synth.discretizer, engine=engine, csv=csv,
                progress=self.execution.stage("count"),
            )  # fmt: skip
            synth.fit_counts(counts)
            return counts.rows_read, counts  # rows kept are synth.n_; the difference is private
        table = read_table(path, csv)  # type: ignore[arg-type]
        synth.fit(table)
        return len(table), None

    def plan(
        self, pub: Publication, fitted: tuple[int, Any]
    ) -> tuple[int, tuple[int, PrivacyClaim]]:
        """The private facts of the fit, the number of rows (:func:`output_rows`) and the claim,
        composed with the DP bins and domain steps (basic composition)."""
        synth, (rows_in, counts) = self.model, fitted
        neighboring = getattr(synth, "neighboring", "unbounded")
        pub.facts["rows_in"] = int(rows_in)
        filled = values_filled(synth, counts)
        if filled is not None:
            pub.facts["values_filled"] = filled
        rows_used = getattr(synth, "n_", None)
        if rows_used is not None:
            pub.facts["rows_used"] = int(rows_used)
            if self.dp and neighboring == "bounded" and int(rows_used) != int(rows_in):
                raise incomplete_rows_under_bounded(int(rows_in) - int(rows_used))
        n = output_rows(synth.name, neighboring, self.budget.n_out, self.budget.min_rows, rows_in,
                        self.dp or self.fit_route == "streamed")  # fmt: skip
        claim = self.bins.compose(self.tree.compose(synth.privacy_claim(n)))
        estimate, split = self.estimate, self.split
        if estimate is not None and split is not None:
            claim = compose_claim(claim, estimate, split.epsilon, split.delta)
            public_rows = estimate.rows if neighboring == "bounded" else self.budget.min_rows
            for note in (estimate.fallback_warning(), estimate.reliability_warning(public_rows)):
                if note is not None:
                    claim = claim.with_warnings(note)
        return n, (n, claim)

    def write_file(
        self, n: int, out: Path, *, seed: np.random.SeedSequence, engine: Any, protect: list[Path]
    ) -> None:
        """The n rows drawn in memory (``model.sample``), written atomically (a CSV file holds
        its dates at their declared resolution: :func:`~synthcert.data.encode.dates_as_written`)."""
        rows = self.model.sample(n, seed=seed)
        if out.suffix.lower() not in PARQUET_SUFFIXES:
            rows = dates_as_written(rows, self.model.schema)
        write_table(rows, out, protect=protect)

    def publish(self, pub: Publication, plan: tuple[int, PrivacyClaim]) -> SynthesisSummary:
        """The ledgers of the DP steps and the accountant (private), and the public summary."""
        estimate, split, synth = self.estimate, self.split, self.model
        if estimate is not None and split is not None:
            pub.ledger.extend({"step": "domain", **e.to_dict()} for e in estimate.ledger)
            pub.facts["domain_spent"] = estimate.spent.to_dict()
            pub.facts["budget_split"] = split.to_dict()
        steps = (*self.bins.ledger, *self.tree.ledger)
        pub.ledger.extend({"step": "bins", **e.to_dict()} for e in steps)
        accountant = getattr(synth, "accountant", None)
        if accountant is not None:
            step = {"step": "synthesizer"} if estimate is not None else {}
            pub.ledger.extend({**step, **e.to_dict()} for e in accountant.ledger)
            pub.facts["spent"] = accountant.spent().to_dict()
        return SynthesisSummary(
            synthesizer=self.name,
            params=public_params(synth),
            rows_out=plan[0],
            output=str(self.out),
            claim=plan[1],
            synthcert_version=__version__,
            date=today_utc(),
            private_domain=self.private_domain,
        )


TREE_DEFAULT = True  # DP tree bins by default for the synthesizers of TREE_SYNTHESIZERS
# the zCDP ones, whose tree noise is Gaussian (L2 sensitivity sqrt(L)); measured better than
# equal-width bins on Adult and California (benchmarks/tree_bins.py). PrivBayes and the copula
# would pay Laplace noise of L1 sensitivity 2L: their tree bins stay opt-in ("dp-tree").
TREE_SYNTHESIZERS = frozenset({"aim", "mwem-pgm"})


# the discretising synthesizers whose fit without DP reads long right tails' scale from the data
# (synthcert.data.tails): equal-width bins over bounds set by a few large values lose the column
TAIL_SYNTHESIZERS = frozenset({"privbayes", "mwem-pgm", "aim"})


def tree_default(synthesizer: str, dp_tree: bool | None) -> bool:
    """Whether numeric columns without declared bins get DP tree bins (public: the
    synthesizer's name and the option)."""
    if dp_tree is not None:
        return bool(dp_tree)
    return TREE_DEFAULT and synthesizer in TREE_SYNTHESIZERS


def run_tree_bins(
    input_path: Any,
    csv: Any,
    schema: Schema,
    synthesizer: str,
    epsilon: float | None,
    delta: float | None,
    *,
    share: float | None,
    default: bool,
    seed: Any,
) -> TreeBins:
    """:func:`~synthcert.privacy.tree_bins.tree_bins_step` in the synthesizer's privacy model
    (Gaussian noise composed in zCDP for a zCDP synthesizer, Laplace noise otherwise) and
    under its neighbouring relation; the synthesizer's target delta for the zCDP route.
    ``default``: also every numeric column without declared bins or log scale."""
    cls = get_info(synthesizer).load()
    zcdp = getattr(cls, "privacy_model", "") == "zcdp"
    target_delta = delta if delta is not None else getattr(cls, "default_delta", None)
    return tree_bins_step(
        lambda: iter_table_chunks(input_path, csv=csv), schema, epsilon,
        target_delta if zcdp else None, share=share, noise="gaussian" if zcdp else "laplace",
        neighboring=str(getattr(cls, "neighboring", "unbounded")),
        default=default, seed=seed,
    )  # fmt: skip


def values_filled(synth: Any, counts: Any = None) -> int | None:
    """How many missing values the fit gave public fills (private record only), or None."""
    if counts is not None:
        return int(counts.values_filled)
    filled = getattr(synth, "values_filled_", None)
    if filled is None:
        filled = getattr(getattr(synth, "fit_", None), "values_filled", None)
    return None if filled is None else int(filled)


def user_seed(seed: int | None, params: dict[str, Any]) -> int | None:
    """A seed given as a synthesizer parameter is the run's (secret, user) seed: take it out
    of ``params`` so that it is warned about, recorded as a user seed, and split like --seed."""
    if "seed" not in params:
        return seed
    given = params.pop("seed")
    if seed is not None and given != seed:
        raise SynthcertError("give the seed once: --seed, or --param seed, not both")
    if not isinstance(given, int) or isinstance(given, bool):
        raise SynthcertError(f"--param seed must be a whole number, got {given!r}")
    return given


def public_params(synth: Any) -> dict[str, Any]:
    """The synthesizer's public constructor parameters (never a seed, the schema or a callback)."""
    return {k: v for k, v in synth.get_params().items() if k not in ("seed", "schema", "progress")}


__all__ = [
    "BudgetSplit",
    "SynthesisResult",
    "SynthesisSummary",
    "partitioned_input",
    "private_domain_step",
    "refuse_data_domain",
    "split_budget",
    "synthesize",
]
