"""Privacy math: inherent RDP of M_G, conversions, budgets, zCDP of Gaussian synthesis,
DP mechanisms and the accountant. Pure functions of numbers; nothing here reads data."""

from synthcert.privacy.accountant import PrivacyAccountant, rho_from_epsilon_delta
from synthcert.privacy.budget import Account, RecordBudget, account, max_records, min_dataset_size
from synthcert.privacy.conversion import optimal_dp, rdp_to_dp, zcdp_to_dp
from synthcert.privacy.inherent import (
    alpha_limit,
    certify,
    epsilon_bounded,
    epsilon_bounded_direct,
    epsilon_per_record,
    epsilon_unbounded,
)
from synthcert.privacy.renyi import renyi_gaussian

__all__ = [
    "Account",
    "PrivacyAccountant",
    "RecordBudget",
    "account",
    "alpha_limit",
    "certify",
    "epsilon_bounded",
    "epsilon_bounded_direct",
    "epsilon_per_record",
    "epsilon_unbounded",
    "max_records",
    "min_dataset_size",
    "optimal_dp",
    "rdp_to_dp",
    "renyi_gaussian",
    "rho_from_epsilon_delta",
    "zcdp_to_dp",
]
