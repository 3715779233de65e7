"""Utility of a synthetic table: marginal distances, correlation differences, ML efficacy, and
the repeated evaluation of thesis chapter 4 (Algorithm 9). Figures live in ``utility.plots``.
"""

from synthcert.utility.correlation import (
    MatrixDifference,
    association_difference,
    association_matrix,
    correlation_difference,
    correlation_matrix,
    correlation_ratio,
    cramers_v,
)
from synthcert.utility.efficacy import Efficacy, efficacy
from synthcert.utility.evaluate import UtilityEvaluation, evaluate
from synthcert.utility.marginals import (
    ColumnDistance,
    MarginalComparison,
    compare_marginals,
    hellinger_distance,
    l1_distance,
    l2_distance,
    wasserstein_categorical,
)
from synthcert.utility.repeat import Repeated, aggregate, repeat, repeat_synthesis

__all__ = [
    "ColumnDistance",
    "Efficacy",
    "MarginalComparison",
    "MatrixDifference",
    "Repeated",
    "UtilityEvaluation",
    "aggregate",
    "association_difference",
    "association_matrix",
    "compare_marginals",
    "correlation_difference",
    "correlation_matrix",
    "correlation_ratio",
    "cramers_v",
    "efficacy",
    "evaluate",
    "hellinger_distance",
    "l1_distance",
    "l2_distance",
    "repeat",
    "repeat_synthesis",
    "wasserstein_categorical",
]
