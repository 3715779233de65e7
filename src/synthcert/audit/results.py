"""The audit's result: the target, every attack's scores, the IMs and the records most at risk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.audit.attacks import AttackParams
from synthcert.audit.scoring import AttackScore
from synthcert.audit.targets import TargetChoice

# privacy models whose noise is drawn at fit time (tables of one fit are not independent runs)
FIT_TIME_NOISE_MODELS = ("pure-dp", "approx-dp", "zcdp")


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
        Caveats on reading the bound.
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


def independence_notes(privacy: dict[str, Any] | None, generations: int) -> list[str]:
    """Caveats of the ε lower bound: several tables of one DP fit are not independent runs.

    Parameters
    ----------
    privacy : dict or None
        The synthesizer's claim.
    generations : int
        Tables drawn per fit.

    Returns
    -------
    list of str
        Empty when the bound's independence assumption holds.
    """
    model = (privacy or {}).get("model", "none")
    if model in FIT_TIME_NOISE_MODELS and generations > 1:
        return [
            "the epsilon lower bound treats all IMs as independent; the noise of this "
            "synthesizer is drawn at fit time, so tables of one fit are not independent runs. "
            "For a valid bound use --generations 1 with many --trials."
        ]
    return []


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
