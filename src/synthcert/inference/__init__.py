"""Valid inference from m synthetic tables: Rubin-style combining rules (seed 004, §3)."""

from synthcert.inference.combining import (
    METHODS,
    CombinedEstimate,
    combine,
    fully_synthetic_variance,
    plugin_variance,
    ppd_variance,
    summarise,
)
from synthcert.inference.estimates import (
    TableEstimates,
    mean_estimates,
    proportion_estimates,
    regression_estimates,
)

__all__ = [
    "METHODS",
    "CombinedEstimate",
    "TableEstimates",
    "combine",
    "fully_synthetic_variance",
    "mean_estimates",
    "plugin_variance",
    "ppd_variance",
    "proportion_estimates",
    "regression_estimates",
    "summarise",
]
