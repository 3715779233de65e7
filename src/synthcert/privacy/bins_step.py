"""The outcome of a DP bins step run before a synthesizer's fit, and its guard on composing.

The quantile bins (:mod:`synthcert.privacy.quantile_bins`) and the tree bins
(:mod:`synthcert.privacy.tree_bins`) each spend a declared share of the synthesizer's budget on
the bins of some columns and return the schema with DP bins, the step's ledger and what it
spent. Their claims compose with the synthesizer's differently (basic composition, thesis
Prop. 2.3.16, or zCDP addition, Bun & Steinke 2016, Lemma 2.3); what they share is stated here
once: a step that did nothing leaves the claim unchanged, and a step that ran needs a DP
synthesizer's claim.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from synthcert._result import Result
from synthcert.data.schema import Schema
from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import LedgerEntry, Spent
from synthcert.privacy.claims import PrivacyClaim


@dataclass(frozen=True)
class BinsStep(Result, ABC):
    """What a DP bins step did: the schema with DP bins, the budget split, the step's ledger
    (private) and totals. ``columns`` empty: the step did nothing.

    Attributes
    ----------
    schema : Schema
        The schema, its estimated columns with DP bins.
    columns : tuple of str
        The columns estimated (empty: the step did nothing).
    share : float
        The declared share of the budget spent here.
    stated_epsilon : float, optional
        The epsilon the step and the synthesizer state together (the epsilon the step was
        given), which what they spend is checked not to exceed.
    synthesizer_epsilon : float, optional
        The epsilon left to the synthesizer (None: no DP).
    ledger : tuple of LedgerEntry
        The step's private ledger.
    spent : Spent, optional
        What the step spent (None when it did nothing).
    """

    STEP: ClassVar[str] = "bins"  # the step as messages name it

    schema: Schema
    columns: tuple[str, ...] = ()
    share: float = 0.0
    stated_epsilon: float | None = None
    synthesizer_epsilon: float | None = None
    ledger: tuple[LedgerEntry, ...] = ()
    spent: Spent | None = None

    def compose(self, claim: PrivacyClaim) -> PrivacyClaim:
        """The claim of this step followed by the synthesizer of ``claim`` (:meth:`composed`),
        stated as the epsilon the step was given; unchanged when the step did nothing.

        Raises
        ------
        AssumptionError
            If the step ran but ``claim`` has no epsilon (not a DP run), or the two spend more
            than the step was given.
        """
        if not self.columns:
            return claim
        if claim.epsilon is None or self.stated_epsilon is None or self.spent is None:
            raise AssumptionError(f"DP {self.STEP} need a DP synthesizer run with --epsilon")
        return self.composed(claim, float(self.stated_epsilon), self.spent)

    @abstractmethod
    def composed(self, claim: PrivacyClaim, stated: float, spent: Spent) -> PrivacyClaim:
        """The composed claim of a step that ran (each step states its own composition)."""


__all__ = ["BinsStep"]
