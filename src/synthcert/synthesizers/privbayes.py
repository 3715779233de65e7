"""PrivBayes (Zhang et al. 2017; thesis section 2.4.2, Algorithms 1-3), with and without DP.

Numeric columns are discretised on their public bounds with the shared
:class:`~synthcert.data.discretize.Discretizer` (20 equal-width bins by default) and decoded
uniformly within the bin. With ``epsilon``: a share ``structure_share`` of epsilon selects the
network by the exponential mechanism on mutual information (d-1 selections), the rest noises
the d joint tables of (child, parents) with Laplace (or Staircase, the PrivBayes+ variant)
noise; negative entries are clipped and the tables renormalised. Neighbouring is *bounded*
(one record replaced, n public), as in Zhang et al. Without ``epsilon``: exact mutual
information with greedy argmax and exact counts.
"""

from __future__ import annotations

from typing import Literal, Self

import numpy as np
import pandas as pd

from synthcert.data.discretize import DEFAULT_BINS, Discretizer
from synthcert.data.encode import MissingPolicy
from synthcert.data.schema import Schema
from synthcert.errors import ParameterError, check_choice
from synthcert.privacy.audit_hook import record_measurement, record_selection
from synthcert.privacy.mechanisms import (
    StaircaseForm,
    exponential_mechanism,
    laplace_mechanism,
    staircase_mechanism,
)
from synthcert.seeding import Seed, seed_sequence
from synthcert.statistics.sources import CountSource, check_cardinalities
from synthcert.synthesizers._bayesnet import (
    NetworkNode,
    Node,
    ancestral_sample,
    conditional_table,
    learn_structure,
    prefetch_subsets,
)
from synthcert.synthesizers.base import (
    DPSynthesizer,
    cached_discretizer,
    check_bins,
    check_share,
    require_two_rows,
)
from synthcert.synthesizers.copula import clip_normalise
from synthcert.synthesizers.counts import FitFromTableMixin

Noise = Literal["laplace", "staircase"]
DEFAULT_THETA = 4.0
DEFAULT_DEGREE = 2
MAX_AUTO_DEGREE = 3


def choose_degree(
    n: int, epsilon_p: float | None, cards: list[int], *, theta: float = DEFAULT_THETA
) -> int:
    """Degree k by theta-usefulness (Zhang et al. 2017, section 4.2), for count tables.

    Each of the d tables gets Laplace noise of scale 2d/epsilon_p per cell; a (k+1)-way table
    has about m^{k+1} cells (m the median cardinality), so its average count is n/m^{k+1}.
    k is the largest value in 1..3 whose ratio n epsilon_p / (2 d m^{k+1}) is at least theta
    (1 if none is). Without DP the default is 2.

    Parameters
    ----------
    n : int
        Table size (public under bounded neighbours).
    epsilon_p : float or None
        The budget of the conditional tables (None: no DP).
    cards : list of int
        Column cardinalities.
    theta : float, default 4.0
        The usefulness threshold.

    Returns
    -------
    int
        The degree k.

    Examples
    --------
    >>> choose_degree(30000, 2.0, [10, 10, 10, 10])
    2
    """
    if epsilon_p is None:
        return DEFAULT_DEGREE
    d = len(cards)
    m = float(np.median(cards))
    best = 1
    for k in range(1, MAX_AUTO_DEGREE + 1):
        if n * epsilon_p / (2.0 * d * m ** (k + 1)) >= theta:
            best = k
    return min(best, max(d - 1, 1))


class PrivBayesSynthesizer(FitFromTableMixin, DPSynthesizer):
    """A degree-k Bayesian network over discretised columns (PrivBayes).

    ``degree=None`` picks k by theta-usefulness under DP (2 without DP); ``structure_share``
    is the share of epsilon for structure learning (0.3 as in Zhang et al.); ``noise`` is
    ``"laplace"`` or ``"staircase"``, whose ``staircase_form`` is the d-dimensional ``"l1"``
    form of thesis Def. 2.3.13 (default) or per-cell 1-D draws (``"coordinate"``: two cells
    change by one under replacement, so each cell gets half the table's epsilon).
    ``delta`` is accepted for a uniform interface; the mechanism is pure epsilon-DP.

    Parameters
    ----------
    schema : Schema
        The public schema.
    epsilon : float, optional
        The pure-DP budget; None fits without noise.
    delta : float, optional
        Accepted for a uniform interface.
    degree : int, optional
        The network degree k (default: theta-usefulness under DP, 2 without).
    structure_share : float, default 0.3
        Share of epsilon for structure learning, in (0, 1).
    noise : {"laplace", "staircase"}, default "laplace"
        Noise of the conditional tables.
    staircase_form : {"l1", "coordinate"}, default "l1"
        Form of the Staircase noise.
    theta : float, default 4.0
        The theta of theta-usefulness.
    bins : int, default 20
        Equal-width public bins of the numeric columns.
    missing : {"model", "drop"}, default "model"
        Missing-value policy.
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's choices and noise.

    Examples
    --------
    >>> import pandas as pd
    >>> from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b"))))
    >>> df = pd.DataFrame({"x": [0.1, 0.4, 0.8, 0.3], "c": ["a", "b", "b", "a"]})
    >>> synth = PrivBayesSynthesizer(schema, epsilon=1.0, seed=3).fit(df)
    >>> sorted(node.child for node in synth.network)
    ['c', 'x']
    """

    name = "privbayes"
    description = "Bayesian network of degree k over discretised columns (PrivBayes)."
    neighboring = "bounded"
    mechanisms = (
        "exponential mechanism (network structure)",
        "Laplace or Staircase noise (conditional tables)",
    )
    privacy_model = "pure-dp"

    def __init__(
        self,
        schema: Schema,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        degree: int | None = None,
        structure_share: float = 0.3,
        noise: Noise = "laplace",
        staircase_form: StaircaseForm = "l1",
        theta: float = DEFAULT_THETA,
        bins: int = DEFAULT_BINS,
        missing: MissingPolicy = "model",
        seed: Seed = None,
    ) -> None:
        self._store_params(locals())

    def validate_params(self) -> None:
        """Check the budget, the degree, the structure share, the noise and the bins.

        Raises
        ------
        ParameterError
            For a negative degree, a structure share outside (0, 1), an unknown ``noise`` or
            ``staircase_form``, a non-positive theta or ``bins < 2``.
        AssumptionError
            If epsilon is not positive or delta is outside [0, 1).

        Examples
        --------
        >>> from synthcert.data.schema import NumericColumn, Schema
        >>> schema = Schema((NumericColumn("x", 0, 1),))
        >>> PrivBayesSynthesizer(schema, noise="gaussian").validate_params()
        Traceback (most recent call last):
        ...
        synthcert.errors.ParameterError: unknown noise 'gaussian'; choose one of laplace, staircase
        """
        super().validate_params()
        if self.degree is not None and self.degree < 0:
            raise ParameterError(f"degree must be >= 0, got {self.degree}")
        check_share("structure_share", self.structure_share)
        check_choice("noise", self.noise, ("laplace", "staircase"))
        check_choice("staircase_form", self.staircase_form, ("l1", "coordinate"))
        if not self.theta > 0:
            raise ParameterError(f"theta must be positive, got {self.theta}")
        check_bins(self.bins)

    @property
    def discretizer(self) -> Discretizer:
        """The public bins the counts are taken on (rebuilt when a parameter changes)."""
        return cached_discretizer(self)

    # -- fitting -------------------------------------------------------------------------
    def fit_counts(self, source: CountSource) -> Self:
        """Learn the network (Algorithm 2) and its conditional tables (Algorithm 3) from the
        joint counts of ``source`` (counted on ``self.discretizer``'s bins).

        Every (child, parents) table is asked of ``source`` in batches: all the (k+1)-subsets
        of the columns in one request when they hold at most ``PREFETCH_CELLS`` cells, else
        the new candidates of each greedy step in one request (d-1 requests).

        The route of :class:`~synthcert.statistics.protocols.FitsFromCounts`.

        Parameters
        ----------
        source : CountSource
            Counts of the table on ``self.discretizer``'s codes.

        Returns
        -------
        PrivBayesSynthesizer
            ``self``, fitted.

        Raises
        ------
        DataError
            If the counts are on other bins, or hold fewer than 2 rows.

        Examples
        --------
        >>> import numpy as np
        >>> from synthcert.data.schema import CategoricalColumn, Schema
        >>> from synthcert.statistics.sources import CodesCounts
        >>> cols = (CategoricalColumn("a", ("x", "y")), CategoricalColumn("b", ("u", "v")))
        >>> schema = Schema(cols)
        >>> synth = PrivBayesSynthesizer(schema)
        >>> synth.fit_counts(CodesCounts(np.array([[0, 0], [1, 1], [1, 0]]), [2, 2])).n_
        3
        """
        self._start_fit()
        cards = self.discretizer.cardinalities
        check_cardinalities(source, cards)
        d = len(cards)
        rng = np.random.default_rng(seed_sequence(self.seed))
        self.accountant = acc = self.new_accountant()
        eps = self.epsilon
        eps_g = eps * float(self.structure_share) if eps is not None and d > 1 else 0.0
        eps_p = None if eps is None else eps - eps_g
        if self.degree is not None:
            self.degree_ = self.degree
        elif eps_p is None:
            self.degree_ = DEFAULT_DEGREE
        else:  # theta-usefulness needs n
            self.degree_ = choose_degree(source.rows, eps_p, cards, theta=float(self.theta))
        prefetch_subsets(source, self.degree_)
        n = source.rows
        require_two_rows(n, "PrivBayes")

        if eps is None:

            def choose(scores: np.ndarray, sensitivity: float) -> int:
                return int(np.argmax(scores))
        else:
            eps_each = eps_g / max(d - 1, 1)

            def choose(scores: np.ndarray, sensitivity: float) -> int:
                chosen = exponential_mechanism(
                    scores, sensitivity, eps_each, rng=rng, accountant=acc,
                    name="exponential:structure",
                )  # fmt: skip
                record_selection(
                    "exponential:structure", eps_each, sensitivity, scores, chosen
                )  # auditor only (privacy/audit_hook.py); no-op otherwise
                return chosen

        # theta-usefulness: a table is kept only if its average count n/cells is at least
        # theta times the noise scale 2d/eps_p (Zhang et al. 2017, section 4.2)
        self.max_cells_ = None if eps_p is None else n * eps_p / (2.0 * d * float(self.theta))
        self.order_: list[Node] = learn_structure(
            source, self.degree_, rng, choose, self.max_cells_
        )
        joints = source.marginal([(c, *ps) for c, ps in self.order_])
        self.tables_ = [
            self._table(joints[(c, *ps)], (c, *ps), eps_p, rng) for c, ps in self.order_
        ]
        self.n_ = n
        acc.check_within_budget()
        self._cards = cards
        return self._end_fit()

    def _table(
        self,
        joint: np.ndarray,
        axes: tuple[int, ...],
        eps_p: float | None,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Joint counts of ``axes`` = (child, *parents), noised when DP, clipped, renormalised,
        conditioned. The Laplace-noised counts go to the auditing hook
        (:mod:`synthcert.privacy.audit_hook`: nothing happens unless an auditor records)."""
        child = axes[0]
        counts = joint.astype(np.float64)
        if eps_p is not None:
            eps_t = eps_p / len(self.schema.columns)
            name = f"{self.noise}:table:{self.schema.columns[child].name}"
            # replacing one record moves one count down and one up: L1 sensitivity 2
            if self.noise == "laplace":
                counts = laplace_mechanism(
                    counts, 2.0, eps_t, integer=True, rng=rng, accountant=self.accountant,
                    name=name,
                )  # fmt: skip
                record_measurement(name, "laplace", 2.0 / eps_t, counts, joint, axes, integer=True)
            elif self.staircase_form == "l1":
                counts = staircase_mechanism(
                    counts, 2.0, eps_t, rng=rng, accountant=self.accountant, name=name
                )
            else:
                counts = staircase_mechanism(
                    counts, 1.0, eps_t, form="coordinate", max_changed=2, rng=rng,
                    accountant=self.accountant, name=name,
                )  # fmt: skip
        joint = clip_normalise(counts.ravel()).reshape(counts.shape)
        return conditional_table(joint)

    @property
    def network(self) -> list[NetworkNode]:
        """The learned network in sampling order (column names).

        Raises
        ------
        NotFittedError
            Before a fit.
        """
        self._check_fitted()
        names = self.schema.names
        return [NetworkNode(names[c], tuple(names[p] for p in ps)) for c, ps in self.order_]

    # -- sampling ------------------------------------------------------------------------
    def _sample(self, n: int, seed: Seed) -> pd.DataFrame:
        """Ancestral sampling of codes, then decoding (numeric values uniform within the bin)."""
        rng = np.random.default_rng(seed_sequence(seed))
        codes = ancestral_sample(self.order_, self.tables_, self._cards, n, rng)
        return self.discretizer.inverse_transform(codes, rng)
