"""The privacy-ledger step of ``release`` and ``synthesize``: check and reserve before reading,
record after.

Before any data is read, the claim the run will at most make is planned from public quantities
(its requested budget: :func:`planned_synthesis_claim`, :func:`planned_release_claim`) and
checked against the ledger's lifetime budget (:func:`synthcert.privacy.ledger.check_lifetime`).
Just before the data is read (after the audit gate) the check is made again and the planned
claim reserved in the ledger in one locked step
(:func:`synthcert.privacy.ledger.reserve_claim`), so that two runs started at the same time
cannot both pass; after the output is written, the run's actual claim (never larger) replaces
the reservation. A refused run leaves the ledger byte for byte as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from synthcert.data.schema import Schema
from synthcert.errors import ParameterError
from synthcert.privacy.claims import PrivacyClaim, no_privacy_claim
from synthcert.privacy.ledger import (
    append_claim,
    check_lifetime,
    check_relation,
    commit_claim,
    planned_budget_claim,
    reserve_claim,
)
from synthcert.synthesizers.registry import neighboring_of
from synthcert.workflows.job_inputs import Budget

G = TypeVar("G")  # the result of an audit gate


@dataclass(frozen=True)
class LedgerPolicy:
    """A ledger file and its lifetime budget (all optional).

    Attributes
    ----------
    path : Path or None
        The JSON-lines ledger (None: no ledger).
    epsilon, delta : float or None
        The lifetime budget (ε, δ) the ledger's total may not exceed.
    """

    path: Path | None = None
    epsilon: float | None = None
    delta: float | None = None

    @classmethod
    def of(
        cls,
        path: str | os.PathLike | None,
        epsilon: float | None = None,
        delta: float | None = None,
    ) -> LedgerPolicy:
        """The policy of the command-line options (a lifetime budget needs a ledger)."""
        if path is None and (epsilon is not None or delta is not None):
            raise ParameterError("--lifetime-epsilon and --lifetime-delta need --ledger FILE")
        return cls(None if path is None else Path(path), epsilon, delta)

    def check(
        self, planned: Callable[[], PrivacyClaim], neighboring: str | Callable[[], str]
    ) -> PrivacyClaim | None:
        """Before reading any data: refuse the run if its planned claim (``planned()``, an upper
        bound on the claim it will make) would take the total beyond the lifetime budget, does
        not compose with the ledger (another neighbouring relation) or is no DP guarantee.

        Without a lifetime budget a run whose claim cannot be planned (a release sized by
        ``--n-out``) is checked for its neighbouring relation only. Returns the total the ledger
        would reach (None when not computed). Nothing is written: :meth:`reserve` does.
        """
        if self.path is None:
            return None
        claim = self._planned(planned)
        if claim is None:
            relation = neighboring if isinstance(neighboring, str) else neighboring()
            check_relation(self.path, relation)
            return None
        return check_lifetime(self.path, claim, epsilon=self.epsilon, delta=self.delta)

    def reserve(self, planned: Callable[[], PrivacyClaim]) -> str | None:
        """Just before reading the data: check again and reserve the planned claim in the ledger
        (one locked step), so a run started at the same time composes with it. Returns the
        reservation's token (None: no ledger, or a claim that cannot be planned and so is
        appended by :meth:`record` after the run)."""
        if self.path is None:
            return None
        claim = self._planned(planned)
        if claim is None:
            return None
        return reserve_claim(self.path, claim, epsilon=self.epsilon, delta=self.delta)

    def record(self, claim: PrivacyClaim, token: str | None = None) -> Path | None:
        """Record the run's public claim (after its output was written): it replaces the
        reservation ``token``, or is appended."""
        if self.path is None:
            return None
        if token is None:
            return append_claim(self.path, claim)
        return commit_claim(self.path, token, claim)

    def guard(
        self,
        planned: Callable[[], PrivacyClaim],
        neighboring: str | Callable[[], str],
        gate: Callable[[], G] | None = None,
    ) -> tuple[G | None, str | None]:
        """The steps of ``release`` and ``synthesize`` before any data is read, in their one
        order: :meth:`check` the planned claim, run the audit ``gate`` (public; it refuses a
        refuted claim), then :meth:`reserve` (checked again, atomically). Returns the gate's
        result (None without a gate) and the reservation token for :meth:`record`.

        Examples
        --------
        >>> from synthcert.privacy.claims import no_privacy_claim
        >>> LedgerPolicy().guard(no_privacy_claim, "unbounded", lambda: "not refuted")
        ('not refuted', None)
        """
        self.check(planned, neighboring)
        result = None if gate is None else gate()
        return result, self.reserve(planned)

    def _planned(self, planned: Callable[[], PrivacyClaim]) -> PrivacyClaim | None:
        """The planned claim; None when it cannot be planned and no lifetime budget needs it."""
        if self.epsilon is None and self.delta is None:
            try:
                return planned()
            except ParameterError:
                return None
        return planned()


def planned_synthesis_claim(
    synthesizer: str, schema: Schema, budget: Budget, params: dict[str, Any] | None = None
) -> PrivacyClaim:
    """The claim a ``synthesize`` run will at most make, from its request alone (no data).

    A DP synthesizer claims its requested budget (the accountant refuses any fit beyond it):
    ε-DP for a pure-DP model without a δ asked for, ρ-zCDP for a model accounted in zCDP, else
    (ε, δ)-DP at the model's δ. Without ε: no claim (which a ledger refuses).

    Raises
    ------
    ParameterError
        The certified ``gaussian`` model, whose claim depends on the rows released: use
        ``release --epsilon`` with a ledger.
    """
    from synthcert.synthesizers.registry import make_synthesizer

    eps = budget.epsilon
    if eps is None or not eps < float("inf"):
        return no_privacy_claim()
    if synthesizer == "gaussian":
        raise ParameterError(
            "a ledger records 'gaussian' through `synthcert release --epsilon` (sized to a "
            "budget, so its claim is known before the data is read)"
        )
    kept = {k: v for k, v in (params or {}).items() if k not in ("progress", "seed")}
    synth = make_synthesizer(synthesizer, schema, epsilon=eps, delta=budget.delta, **kept)
    pure = getattr(synth, "privacy_model", "") == "pure-dp" and budget.delta is None
    delta = 0.0 if pure else synth.target_delta()
    return planned_budget_claim(
        epsilon=float(eps), delta=delta, rho=synth.claim_rho(),
        neighboring=str(getattr(synth, "neighboring", "unbounded")),
    )  # fmt: skip


def planned_release_claim(budget: Budget) -> PrivacyClaim:
    """The claim a ``release`` sized to ``budget.epsilon`` will at most make (no data).

    Raises
    ------
    ParameterError
        No ``epsilon`` (``--n-out`` alone: the claim would be known only after reading, under
        replacement neighbours), or no δ where the default 1/n² needs the private n.
    """
    from synthcert.synthesizers.gaussian import default_delta

    if budget.epsilon is None:
        raise ParameterError(
            "with --ledger, size the release by a budget (--epsilon): its claim is then known "
            "before any data is read"
        )
    delta = budget.delta
    if delta is None and budget.alpha is None:
        if budget.neighboring == "unbounded" and budget.min_rows is not None:
            delta = default_delta(int(budget.min_rows))
        else:
            raise ParameterError("with --ledger under replacement neighbours, give --delta")
    return planned_budget_claim(
        epsilon=float(budget.epsilon), delta=delta, neighboring=budget.neighboring,
        alpha=budget.alpha,
    )  # fmt: skip


__all__ = [
    "LedgerPolicy",
    "neighboring_of",
    "planned_release_claim",
    "planned_synthesis_claim",
]
