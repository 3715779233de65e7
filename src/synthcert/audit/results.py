"""The audit's result: the target, every attack's scores, the IMs and the records most at risk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.audit.attacks import AttackParams
from synthcert.audit.scoring import AttackScore, runs_needed
from synthcert.audit.targets import TargetChoice

NO_BOUND = "No ε lower bound:"  # how the note on a null bound starts (the report looks for it)


@dataclass(frozen=True)
class AuditResult(Result):
    """Outcome of the Setsubun game (seed 003, Algorithms 7-8).

    Attributes
    ----------
    synthesizer : str
        Label of the audited synthesizer (name, epsilon and parameters).
    privacy : dict or None
        The synthesizer's public claim (``PrivacyClaim.to_dict()``), None when it states none.
    target : TargetChoice
        The target record and how it was chosen.
    target_row : int
        Position of the target in the input table (0-based).
    attacks : dict of str to AttackScore
        AUC, its interval, TPR at low FPR and the ε lower bound of every attack.
    ims : dict
        ``{attack: {"pos": [...], "neg": [...]}}``: the inference measures, trial-major.
    at_risk : list of dict
        The records most at risk (input position and score, no values).
    notes : list of str
        How the ε lower bounds were computed (one run per fit or per table) and why any is
        missing.
    """

    synthesizer: str
    privacy: dict[str, Any] | None
    target: TargetChoice
    target_row: int  # position of the target in the input table (0-based)
    target_mahalanobis: float
    trials: int
    generations: int
    rows: int
    encoded_dim: int
    seed: int
    workers: int
    params: AttackParams
    attacks: dict[str, AttackScore]
    ims: dict[str, dict[str, list[float]]]
    at_risk: list[dict[str, float]]
    ranking_method: str
    elapsed_seconds: float
    notes: list[str]

    def auc_rows(self) -> list[dict[str, Any]]:
        """One dict per attack: AUC, its interval, TPR at 1 % FPR, ε lower bound.

        Returns
        -------
        list of dict
            Keys ``attack``, ``auc``, ``auc_low``, ``auc_high``, ``tpr_at_1pct_fpr``,
            ``epsilon_lower_bound``.
        """
        return [
            {
                "attack": name,
                "auc": s.auc,
                "auc_low": s.auc_ci[0],
                "auc_high": s.auc_ci[1],
                "tpr_at_1pct_fpr": s.tpr_at_1pct_fpr,
                "epsilon_lower_bound": s.epsilon_lower_bound,
            }
            for name, s in self.attacks.items()
        ]

    def auc_table(self) -> pd.DataFrame:
        """:meth:`auc_rows` as a frame.

        Returns
        -------
        pandas.DataFrame
            One row per attack.
        """
        return pd.DataFrame(self.auc_rows())


def bound_notes(attacks: dict[str, AttackScore], trials: int, generations: int) -> list[str]:
    """How the ε lower bounds were computed, and why any of them is missing.

    Parameters
    ----------
    attacks : dict of str to AttackScore
        The attacks' scores.
    trials, generations : int
        Fits per side, and tables drawn per fit.

    Returns
    -------
    list of str
        Empty when every bound comes from one table per run.

    Examples
    --------
    >>> import numpy as np
    >>> from synthcert.audit.scoring import score_attack
    >>> s = score_attack("x", np.ones((3, 2)), np.zeros((3, 2)), unit="fit")
    >>> [n[:25] for n in bound_notes({"x": s}, 3, 2)]
    ['The ε lower bound uses on', 'No ε lower bound: 3 fits ']
    """
    bounds = [s.epsilon_bound for s in attacks.values()]
    if not bounds:
        return []
    notes = []
    if bounds[0].unit == "fit" and generations > 1:
        notes.append(
            f"The ε lower bound uses one score per fit (the mean IM of its {generations} tables): "
            "the synthesizer draws randomness when it is fitted, so the tables of one fit are "
            "not independent runs of the mechanism. AUC and TPR use every table, so their 95 % "
            f"intervals treat the tables of one fit as independent: they describe these {trials} "
            "fits a side, not the synthesizer, and with few fits an AUC can sit far from 0.5 by "
            "chance (a new user's 3 fits gave 0.685 and 0.112 at epsilon = 1)."
        )
    missing = [b for b in bounds if b.epsilon is None]
    if missing:
        b = missing[0]
        need = runs_needed(delta=b.delta, confidence=b.confidence, family=b.family)
        runs = f"{trials} fits" if b.unit == "fit" else f"{trials * generations} tables"
        how = (
            f"--trials {need}; --generations can then be small"
            if b.unit == "fit"
            else f"--trials × --generations ≥ {need}"
        )
        what = (
            f"at least {need} independent runs per side are needed ({how})"
            if need
            else "no number of runs suffices at this δ"
        )
        shared = f" (shared by {b.family} attacks)" if b.family > 1 else ""
        notes.append(
            f"{NO_BOUND} {runs} per side cannot show any ε > 0 at {b.confidence:.0%} "
            f"confidence{shared}, even if perfectly separated; {what}."
        )
    return notes


def flatten_ims(
    names: list[str], pos: dict[str, np.ndarray], neg: dict[str, np.ndarray]
) -> dict[str, dict[str, list[float]]]:
    """The (trials, generations) IM arrays of every attack as trial-major lists.

    Parameters
    ----------
    names : list of str
        Attacks, in the result's order.
    pos, neg : dict of str to numpy.ndarray
        IMs of the tables drawn from the fits on D_pos and on D_neg.

    Returns
    -------
    dict
        ``{attack: {"pos": [...], "neg": [...]}}``.
    """
    return {n: {"pos": pos[n].ravel().tolist(), "neg": neg[n].ravel().tolist()} for n in names}
