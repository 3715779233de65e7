"""synthcert: synthetic tabular data with a privacy guarantee that is measured, not assumed.

Every public name loads on first use (module ``__getattr__``, PEP 562): ``import synthcert``
(and so ``import synthcert.cli``) imports neither pandas nor scipy nor matplotlib, and
``from synthcert import release_frame`` imports only what that name needs.
"""

from importlib import import_module
from typing import Any

from synthcert._version import __version__
from synthcert.errors import (
    AssumptionError,
    BudgetError,
    DataError,
    ParameterError,
    SynthcertError,
)

_LAZY = {
    # data layer
    "CsvOptions": "synthcert.data.io",
    "Encoder": "synthcert.data.encode",
    "Schema": "synthcert.data.schema",
    "infer_schema": "synthcert.data.schema",
    "read_table": "synthcert.data.io",
    "write_table": "synthcert.data.io",
    # privacy
    "PrivacyAccountant": "synthcert.privacy.accountant",
    "PrivacyClaim": "synthcert.privacy.claims",
    "account": "synthcert.privacy.budget",
    "max_records": "synthcert.privacy.budget",
    "univariate_guarantee": "synthcert.privacy.gaussian_zcdp",
    "RunRecord": "synthcert.run_record",
    # synthesizers
    "GaussianCopulaSynthesizer": "synthcert.synthesizers.copula",
    "GaussianSynthesizer": "synthcert.synthesizers.gaussian",
    "PrivBayesSynthesizer": "synthcert.synthesizers.privbayes",
    "Synthesizer": "synthcert.synthesizers.base",
    "make_synthesizer": "synthcert.synthesizers.registry",
    "AIMSynthesizer": "synthcert.synthesizers.pgm",
    "MWEMPGMSynthesizer": "synthcert.synthesizers.pgm",
    "CTGANSynthesizer": "synthcert.synthesizers.ctgan",
    # workflows
    "Budget": "synthcert.workflows.job_inputs",
    "Execution": "synthcert.workflows.job_inputs",
    "TableSource": "synthcert.workflows.job_inputs",
    "Certificate": "synthcert.results",
    "SynthesisSummary": "synthcert.results",
    "release": "synthcert.workflows.release",
    "release_frame": "synthcert.workflows.release",
    "synthesize": "synthcert.workflows.synthesize",
    # audit, utility, inference, report, engines
    "run_audit": "synthcert.audit",
    "write_audit": "synthcert.audit",
    "evaluate": "synthcert.utility.evaluate",
    "UtilityEvaluation": "synthcert.utility.evaluate",
    "combine": "synthcert.inference",
    "mean_estimates": "synthcert.inference",
    "regression_estimates": "synthcert.inference",
    "write_report": "synthcert.report",
    "open_engine": "synthcert.engine",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use, and keep it (PEP 562)."""
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'synthcert' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names, loaded or not (for tab completion)."""
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AssumptionError",
    "BudgetError",
    "DataError",
    "ParameterError",
    "SynthcertError",
    "__version__",
    *_LAZY,
]
