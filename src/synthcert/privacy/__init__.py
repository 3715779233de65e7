"""Privacy math: inherent RDP of M_G, conversions, budgets, zCDP of Gaussian synthesis,
DP mechanisms and the accountant. Pure functions of numbers; nothing here reads data."""

from synthcert.privacy.accountant import PrivacyAccountant, rho_from_epsilon_delta
from synthcert.privacy.budget import (
    Account,
    GaussianBudget,
    GaussianCertificate,
    RecordBudget,
    account,
    max_records,
    min_dataset_size,
)
from synthcert.privacy.claims import Assumption, PrivacyClaim
from synthcert.privacy.conversion import optimal_dp, rdp_to_dp, zcdp_to_dp
from synthcert.privacy.gaussian_release import (
    alpha_limit,
    certify,
    epsilon_bounded,
    epsilon_bounded_direct,
    epsilon_per_record,
    epsilon_unbounded,
)
from synthcert.privacy.renyi import renyi_gaussian
from synthcert.privacy.ridge import certify_ridge, max_records_ridge, ridge_epsilon_per_record

__all__ = [
    "Account",
    "Assumption",
    "GaussianBudget",
    "GaussianCertificate",
    "PrivacyAccountant",
    "PrivacyClaim",
    "RecordBudget",
    "account",
    "alpha_limit",
    "certify",
    "certify_ridge",
    "epsilon_bounded",
    "epsilon_bounded_direct",
    "epsilon_per_record",
    "epsilon_unbounded",
    "max_records",
    "max_records_ridge",
    "min_dataset_size",
    "optimal_dp",
    "rdp_to_dp",
    "renyi_gaussian",
    "rho_from_epsilon_delta",
    "ridge_epsilon_per_record",
    "zcdp_to_dp",
]
