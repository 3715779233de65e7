"""The Gaussian release M_G: the RDP of its randomness alone (Miura et al.: seed 000 §3,
thesis 003 §5.3, seed 001 §3), one module per theorem.

M_G draws records from N(μ_D, Σ_D) of a dataset D ⊂ [-1,1]^d whose covariance has every
eigenvalue ≥ σ (the class D_σ). The theorems are closed forms in (α, n, d, σ):

* :mod:`~synthcert.privacy.gaussian_release.theorem31`: Theorem 3.1, unbounded neighbours;
* :mod:`~synthcert.privacy.gaussian_release.corollary32`: Corollary 3.2, bounded neighbours;
* :mod:`~synthcert.privacy.gaussian_release.direct`: Theorem 3.2 of seed 001, bounded, direct;
* :mod:`synthcert.privacy.bounded_exact`: the exact bounded worst case (the default);
* :mod:`~synthcert.privacy.gaussian_release.certificate`: the dispatch by relation and the
  certificate of n_out records; :mod:`~synthcert.privacy.gaussian_release.assumptions`: the
  relations, methods and input checks.

Every public function refuses (returns +inf, or a certificate that says ``feasible=False`` with
the violated assumption) rather than return a meaningless number. This package replaces
``synthcert.privacy.gaussian_release`` (a deprecated alias for one release).
"""

from synthcert.privacy.gaussian_release.assumptions import (
    BOUNDED_METHODS,
    DEFAULT_BOUNDED_METHOD,
    EQUATIONS,
    NEIGHBORINGS,
    Method,
    Neighboring,
    Variant,
    check_method,
    check_neighboring,
)
from synthcert.privacy.gaussian_release.certificate import (
    GaussianCertificate,
    RDPCertificate,
    alpha_limit,
    certify,
    compose,
    epsilon_per_record,
    equation_text,
    infeasibility_reason,
    record_event,
    require,
    setting_fields,
    theorem_n,
)
from synthcert.privacy.gaussian_release.corollary32 import (
    bounded_alpha_limit,
    bounded_objective,
    bounded_optimum,
    bounded_p_interval,
    epsilon_bounded,
)
from synthcert.privacy.gaussian_release.direct import (
    direct_alpha_limit,
    epsilon_bounded_direct,
)
from synthcert.privacy.gaussian_release.theorem31 import (
    epsilon_unbounded,
    theorem31_components,
    theorem31_terms,
    unbounded_alpha_limit,
)

__all__ = [
    "BOUNDED_METHODS",
    "DEFAULT_BOUNDED_METHOD",
    "EQUATIONS",
    "NEIGHBORINGS",
    "GaussianCertificate",
    "Method",
    "Neighboring",
    "RDPCertificate",
    "Variant",
    "alpha_limit",
    "bounded_alpha_limit",
    "bounded_objective",
    "bounded_optimum",
    "bounded_p_interval",
    "certify",
    "check_method",
    "check_neighboring",
    "compose",
    "direct_alpha_limit",
    "epsilon_bounded",
    "epsilon_bounded_direct",
    "epsilon_per_record",
    "epsilon_unbounded",
    "equation_text",
    "infeasibility_reason",
    "record_event",
    "require",
    "setting_fields",
    "theorem31_components",
    "theorem31_terms",
    "theorem_n",
    "unbounded_alpha_limit",
]
