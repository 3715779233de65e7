"""MWEM+PGM and AIM on Private-PGM (thesis section 2.4.2, Algorithms 4-6; Table 4.2).

Columns are discretised with the shared :class:`~synthcert.data.discretize.Discretizer`
(numeric columns in equal-width bins over their public bounds, or the schema's bins: the
``synthesize`` workflow gives undeclared numeric columns DP tree bins by default,
:mod:`synthcert.privacy.tree_bins`) and decoded within the bin.
With ``epsilon`` the whole fit is rho-zCDP with rho from (epsilon, delta) by the standard
conversion (``rho_from_epsilon_delta``), spent exactly and recorded step by step in
``accountant``; neighbouring is unbounded (add or remove one record). Without ``epsilon`` the
marginals are measured exactly (the thesis's audit, section 3.5, uses this mode).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Self

import numpy as np
import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS, Discretizer, n_bins
from synthcert.data.encode import MissingPolicy
from synthcert.data.schema import NumericColumn, Schema
from synthcert.errors import DataError, ParameterError
from synthcert.privacy.accountant import rho_from_epsilon_delta
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.sources import CountSource, check_cardinalities
from synthcert.synthesizers._pgm_inference import sample_codes
from synthcert.synthesizers._pgm_mechanisms import (
    Clique,
    MechanismInputs,
    PGMState,
    Progress,
    all_pairs,
    needed_marginals,
    run_aim,
    run_mwem,
)
from synthcert.synthesizers.base import (
    DEFAULT_DELTA,
    DPSynthesizer,
    cached_discretizer,
    check_bins,
    check_share,
)
from synthcert.synthesizers.counts import FitFromTableMixin

NO_DP_BYTES_PER_ROW = 16  # without DP: a model of at most two float64 cells a row ...
NO_DP_MIN_MB = 1.0  # ... and at least 1 MB (:meth:`_PGMSynthesizer.model_size_limit`)


class _PGMSynthesizer(FitFromTableMixin, DPSynthesizer):
    """Shared parts: discretisation, budget, workload, sampling from the fitted model.

    ``pgm_iters`` mirror-descent iterations for the final estimate, ``round_iters`` (default
    the same) inside the selection loop, warm-started from the previous round.

    Parameters
    ----------
    schema : Schema
        The public schema.
    epsilon : float, optional
        The (epsilon, delta) budget, spent as rho-zCDP; None measures exactly (no DP).
    delta : float, optional
        Default 1e-5 under DP.
    workload : sequence of sequences of str, optional
        The marginals of interest (default: all pairs).
    rounds : int, optional
        AIM's T under DP / the number of selection rounds (see the subclasses).
    max_model_size : float, optional
        Model-size limit in MB (default 80 for AIM, 25 for MWEM under DP; without DP,
        :meth:`model_size_limit`'s rule).
    pgm_iters : int, default 1000
        Mirror-descent iterations of the final estimate.
    round_iters : int, optional
        Iterations inside the selection loop (default ``pgm_iters``).
    measure_share : float, default 0.9
        Share of each round's budget spent on the Gaussian measurement (AIM's alpha in
        McKenna et al. 2022, renamed: in synthcert alpha is always a Rényi order).
    bins : int, default 20
        Equal-width public bins of the numeric columns.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's selections and noise.
    progress : callable, optional
        Called with the progress of the mechanism.
    """

    privacy_model: ClassVar[str] = "zcdp"
    neighboring = "unbounded"
    mechanisms = (
        "Gaussian noise (marginal measurements)",
        "exponential mechanism (marginal selection)",
    )
    default_max_model_size: ClassVar[float] = 80.0
    default_delta: ClassVar[float | None] = DEFAULT_DELTA
    mechanism: ClassVar[Callable[..., PGMState]]  # run_aim or run_mwem

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        workload: Sequence[Sequence[str]] | None = None,
        rounds: int | None = None,
        max_model_size: float | None = None,
        pgm_iters: int = 1000,
        round_iters: int | None = None,
        measure_share: float = 0.9,
        bins: int = DEFAULT_BINS,
        missing: MissingPolicy = "model",
        seed: Seed = None,
        progress: Progress | None = None,
        compress: bool = False,
    ) -> None:
        self._store_params(locals())

    def validate_params(self) -> None:
        """Check the budget (as zCDP), the measurement share, the rounds and the workload.

        Raises
        ------
        AssumptionError
            If epsilon is not positive and finite or delta is outside (0, 1) (the conversion
            to zCDP needs both).
        ParameterError
            If ``measure_share`` is outside (0, 1), ``rounds``, ``pgm_iters`` or ``round_iters`` is
            below 1, ``bins < 2``, or a workload clique names no or unknown columns.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1),))
        >>> AIMSynthesizer(schema, measure_share=1.0).validate_params()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        synthcert.errors.ParameterError: measure_share (the share ... must lie in (0, 1), got 1.0
        """
        super().validate_params()
        if self.epsilon is not None:
            rho_from_epsilon_delta(self.epsilon, self.target_delta())  # checks both
        check_share(
            "measure_share (the share of each round's budget spent on measurement)",
            self.measure_share,
        )
        if self.rounds is not None and self.rounds < 1:
            raise ParameterError(f"rounds must be at least 1, got {self.rounds}")
        if self.pgm_iters < 1:
            raise ParameterError(f"pgm_iters must be at least 1, got {self.pgm_iters}")
        if self.round_iters is not None and self.round_iters < 1:
            raise ParameterError(f"round_iters must be at least 1, got {self.round_iters}")
        if self.max_model_size is not None and not self.max_model_size > 0:
            raise ParameterError(f"max_model_size must be positive, got {self.max_model_size}")
        check_bins(self.bins)
        names = set(self.schema.names)
        for cl in self.workload or ():
            unknown = [a for a in cl if a not in names]
            if unknown or not cl:
                raise ParameterError(
                    f"workload clique {tuple(cl)} names no schema column or unknown "
                    f"column(s) {unknown}; the columns are {', '.join(self.schema.names)}"
                )

    @property
    def rho(self) -> float | None:
        """rho-zCDP of the requested (epsilon, delta) (AIM's conversion), None without DP."""
        if self.epsilon is None:
            return None
        return rho_from_epsilon_delta(self.epsilon, self.target_delta())

    @property
    def discretizer(self) -> Discretizer:
        """The public bins the counts are taken on (rebuilt when a parameter changes)."""
        return cached_discretizer(self)

    def _workload(self) -> list[tuple[Clique, float]]:
        names = self.schema.names
        if self.workload is not None:
            return [(tuple(cl), 1.0) for cl in self.workload]
        if len(names) == 1:
            return [((names[0],), 1.0)]
        return all_pairs(names)

    def fit_counts(self, source: CountSource) -> Self:
        """Run the mechanism (AIM or MWEM) on the marginals of ``source`` (counted on
        ``self.discretizer``'s bins), and keep the calibrated model (in memory only).

        Every marginal the mechanism may score or measure (the one-way marginals and the
        workload's downward closure) is asked of ``source`` in one request.

        The route of :class:`~synthcert.statistics.protocols.FitsFromCounts`.

        Parameters
        ----------
        source : CountSource
            Counts of the table on ``self.discretizer``'s codes.

        Returns
        -------
        AIMSynthesizer or MWEMPGMSynthesizer
            ``self``, fitted.

        Raises
        ------
        DataError
            If the counts are on other bins, or hold no row.

        Examples
        --------
        >>> import numpy as np
        >>> from synthcert.data.schema import CategoricalColumn, Schema
        >>> from synthcert.statistics.sources import CodesCounts
        >>> cols = (CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v")))
        >>> schema = Schema(cols)
        >>> synth = MWEMPGMSynthesizer(schema, pgm_iters=20)
        >>> synth.fit_counts(CodesCounts(np.array([[0, 0], [1, 1], [1, 0]]), [2, 2])).n_
        3
        """
        self._start_fit()
        cards = self.discretizer.cardinalities
        check_cardinalities(source, cards)
        names = self.schema.names
        sizes = dict(zip(names, cards, strict=True))
        workload = self._workload()
        needed = needed_marginals(names, workload)
        keys = [tuple(names.index(a) for a in cl) for cl in needed]
        counts = source.marginal(keys)
        answers = {cl: counts[k].astype(np.float64) for cl, k in zip(needed, keys, strict=True)}
        n = source.rows
        if n == 0:
            raise DataError(f"{type(self).__name__} needs at least one complete row")
        rng = np.random.default_rng(seed_sequence(self.seed))
        self.accountant = self.new_accountant()
        run = MechanismInputs(
            answers,
            n,
            sizes,
            workload,
            rho=self.rho,
            accountant=self.accountant,
            rng=rng,
            rounds=self.rounds,
            max_model_size=self.model_size_limit(n),
            measure_share=float(self.measure_share),
            pgm_iters=int(self.pgm_iters),
            round_iters=self.round_iters,
            progress=self.progress,
        )
        self.state_ = type(self).mechanism(run, **self._mechanism_options())
        self.accountant.check_within_budget()
        self.n_ = n
        return self._end_fit()

    def model_size_limit(self, rows: int) -> float:
        """The junction tree's size limit in MB: ``max_model_size`` when given; else the
        class default under DP, and without DP what the rows can fill.

        Without noise the model matches every measured marginal exactly, and a model of more
        cells than the table has rows mostly holds empty cells, at a cost that grows with its
        size (a 13-column table of 4,000 rows took 175 s under the DP limit of 80 MB and 6 s
        under 1 MB, with the same selections and 2-way TV). So without DP the default is
        :data:`NO_DP_BYTES_PER_ROW` bytes a row, at least :data:`NO_DP_MIN_MB`, at most the
        class default. Under DP it never depends on the rows (the limit must be public).

        Parameters
        ----------
        rows : int
            Rows the counts are taken from (read only without DP).

        Returns
        -------
        float
            Megabytes.

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1), NumericColumn("y", 0, 1)))
        >>> AIMSynthesizer(schema).model_size_limit(4_000)
        1.0
        >>> AIMSynthesizer(schema).model_size_limit(2_000_000)
        32.0
        >>> AIMSynthesizer(schema, epsilon=1.0).model_size_limit(4_000)
        80.0
        """
        if self.max_model_size is not None:
            return float(self.max_model_size)
        if self.epsilon is not None:
            return float(self.default_max_model_size)
        fill = NO_DP_BYTES_PER_ROW * rows / 1e6
        return float(min(self.default_max_model_size, max(NO_DP_MIN_MB, fill)))

    def _mechanism_options(self) -> dict[str, object]:
        """Keyword arguments of this synthesizer's mechanism beyond the shared ones."""
        return {}

    @property
    def selected(self) -> list[Clique]:
        """The marginals measured, in order.

        Raises
        ------
        NotFittedError
            Before a fit.
        """
        self._check_fitted()
        return list(self.state_.selected)

    @property
    def fit_seconds(self) -> float:
        """Wall-clock seconds of the last fit's mechanism (selection + estimation)."""
        self._check_fitted()
        return self.state_.seconds

    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Forward-sample codes from the model's junction tree, then decode within bins."""
        rng = np.random.default_rng(seed_sequence(seed))
        codes = sample_codes(self.state_.calib, self.schema.names, int(n), rng)  # type: ignore[arg-type]
        if self.state_.compression:
            codes = self.state_.compression.expand_codes(codes, self.schema.names, rng)
        return self.discretizer.inverse_transform(codes, rng)

    def model_marginal(self, columns: Sequence[str]) -> np.ndarray:
        """The fitted model's marginal (probabilities) over ``columns`` (post-processing).

        Parameters
        ----------
        columns : sequence of str
            Schema columns.

        Returns
        -------
        numpy.ndarray
            Probabilities summing to 1, axes in the order of ``columns``.

        Raises
        ------
        NotFittedError
            Before a fit.
        """
        self._check_fitted()
        p = self.state_.calib.project(tuple(columns))  # type: ignore[union-attr]
        if self.state_.compression:
            sizes = dict(zip(self.schema.names, self.discretizer.cardinalities, strict=True))
            p = self.state_.compression.expand_table(tuple(columns), p, sizes)
        return p / p.sum()

    def claim_rho(self) -> float | None:
        """rho-zCDP of the requested (epsilon, delta) (AIM's conversion; public)."""
        return self.rho


class AIMSynthesizer(_PGMSynthesizer):
    """AIM: adaptive, iterative marginal selection with Private-PGM (McKenna et al. 2022).

    Defaults follow thesis Algorithm 4: all 2-way marginals as workload, MAX-SIZE 80 MB,
    T = 16 k, measure_share = 0.9. ``rounds`` overrides T under DP, and is the number of selection
    rounds without DP (default k). The budget is accounted in rho-zCDP and converted to
    (epsilon, delta)-DP.

    Parameters
    ----------
    schema : Schema
        The public schema (bounds, categories).
    epsilon : float, optional
        The (epsilon, delta)-DP budget, spent as rho-zCDP; None fits exactly (no DP).
    delta : float, optional
        Default 1e-5 under DP.
    workload : sequence of sequences of str, optional
        The marginals of interest (default: all 2-way marginals).
    rounds : int, optional
        T under DP (default 16 k); without DP, the number of selection rounds (default k).
    max_model_size : float, optional
        MAX-SIZE of the graphical model in MB (default 80 under DP; without DP see
        :meth:`~_PGMSynthesizer.model_size_limit`).
    pgm_iters : int, default 1000
        Mirror-descent iterations of the final Private-PGM estimate.
    round_iters : int, optional
        Iterations inside the selection loop, warm-started (default ``pgm_iters``).
    measure_share : float, default 0.9
        Share of each round's budget spent on the Gaussian measurement (the rest on the
        exponential-mechanism selection).
    bins : int, default 20
        Equal-width public bins of the numeric columns.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's selections and noise (default: OS entropy).
    progress : callable, optional
        Called with the progress of the mechanism.
    compress : bool, default False
        Under DP, merge the codes whose noisy one-way count is below 3 sigma into shared
        cells of the model's domain after the one-way measurements (adjacent bins of a
        numeric column, one cell for categories), and decompress sampled cells by those noisy
        counts (:func:`~synthcert.synthesizers._pgm_mechanisms.compression_rule`);
        post-processing, so the privacy claim is unchanged. Off by default: on 6,000-row
        samples it left California unchanged and made Adult's 2-way TV about 8 % worse
        (merged rare categories are decompressed independently of the other columns), though
        it cut the RMSE of a long-tailed regression target with rare categories by 12 %.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.schema import CategoricalColumn, Schema
    >>> schema = Schema((CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v"))))
    >>> df = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": ["u", "v", "v", "u"]})
    >>> synth = AIMSynthesizer(schema, epsilon=1.0, rounds=8, pgm_iters=20, seed=1).fit(df)
    >>> round(synth.privacy_claim(4).epsilon, 6)
    1.0
    """

    name = "aim"
    description = "AIM: adaptive, iterative marginal selection with Private-PGM."
    mechanism = staticmethod(run_aim)

    def validate_params(self) -> None:
        """The shared checks, and ``compress`` a bool.

        Raises
        ------
        ParameterError
            If ``compress`` is not True or False (or a shared check fails).
        """
        super().validate_params()
        if not isinstance(self.compress, bool):
            raise ParameterError(f"compress must be true or false, got {self.compress!r}")

    def _mechanism_options(self) -> dict[str, object]:
        """``compress``, and ``ordered``: the number of value bins of each numeric column
        (public), which the compression merges in runs of adjacent bins."""
        ordered = {
            c.name: n_bins(c, self.bins)
            for c in self.schema.columns
            if isinstance(c, NumericColumn)
        }
        return {"compress": bool(self.compress), "ordered": ordered}


class MWEMPGMSynthesizer(_PGMSynthesizer):
    """MWEM+PGM (McKenna et al. 2019): T rounds (default k) of select-measure-estimate.

    Each round spends rho/T, a share ``measure_share`` on the Gaussian measurement; the model-size
    limit grows as max_model_size * t / T (25 MB by default, as in the reference).

    Parameters
    ----------
    schema : Schema
        The public schema (bounds, categories).
    epsilon : float, optional
        The (epsilon, delta)-DP budget, spent as rho-zCDP; None fits exactly (no DP).
    delta : float, optional
        Default 1e-5 under DP.
    workload : sequence of sequences of str, optional
        The marginals of interest (default: all 2-way marginals).
    rounds : int, optional
        T, the number of select-measure-estimate rounds (default k).
    max_model_size : float, optional
        Final model-size limit in MB (default 25 under DP; without DP see
        :meth:`~_PGMSynthesizer.model_size_limit`).
    pgm_iters : int, default 1000
        Mirror-descent iterations of the final Private-PGM estimate.
    round_iters : int, optional
        Iterations inside the selection loop, warm-started (default ``pgm_iters``).
    measure_share : float, default 0.9
        Share of each round's budget spent on the Gaussian measurement (the rest on the
        exponential-mechanism selection).
    bins : int, default 20
        Equal-width public bins of the numeric columns.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's selections and noise (default: OS entropy).
    progress : callable, optional
        Called with the progress of the mechanism.
    compress : bool, default False
        AIM's domain compression; MWEM-PGM refuses True.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.schema import CategoricalColumn, Schema
    >>> schema = Schema((CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v"))))
    >>> df = pd.DataFrame({"a": ["x", "y", "y", "x"], "b": ["u", "v", "v", "u"]})
    >>> synth = MWEMPGMSynthesizer(schema, rounds=1, pgm_iters=20).fit(df)
    >>> synth.sample(3, seed=2).shape
    (3, 2)
    """

    name = "mwem-pgm"
    description = "MWEM with Private-PGM estimation of a graphical model."

    def validate_params(self) -> None:
        """The shared checks; ``compress`` is AIM's (MWEM-PGM measures no one-way marginals
        first to compress by).

        Raises
        ------
        ParameterError
            If ``compress`` is not False (or a shared check fails).
        """
        super().validate_params()
        if self.compress is not False:
            raise ParameterError("compress is an AIM parameter; mwem-pgm does not take it")

    default_max_model_size = 25.0
    mechanism = staticmethod(run_mwem)
