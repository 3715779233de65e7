"""synthcert: synthetic tabular data with a privacy guarantee that is measured, not assumed.

Every public name loads on first use (module ``__getattr__``, PEP 562): ``import synthcert``
(and so ``import synthcert.cli``) imports neither pandas nor scipy nor matplotlib, and
``from synthcert import release_frame`` imports only what that name needs.
"""

from synthcert._lazy import lazy_exports
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
    "CsvOptions": "data.io",
    "Encoder": "data.encode",
    "Schema": "data.schema",
    "infer_schema": "data.infer",
    "read_table": "data.io",
    "write_table": "data.io",
    # privacy
    "PrivacyAccountant": "privacy.accountant",
    "PrivacyClaim": "privacy.claims",
    "account": "privacy.budget",
    "max_records": "privacy.budget",
    "univariate_guarantee": "privacy.gaussian_zcdp",
    "RunRecord": "run_record",
    # synthesizers
    "GaussianCopulaSynthesizer": "synthesizers.copula",
    "GaussianSynthesizer": "synthesizers.gaussian",
    "PrivBayesSynthesizer": "synthesizers.privbayes",
    "Synthesizer": "synthesizers.base",
    "make_synthesizer": "synthesizers.registry",
    "AIMSynthesizer": "synthesizers.pgm",
    "MWEMPGMSynthesizer": "synthesizers.pgm",
    "CTGANSynthesizer": "synthesizers.ctgan",
    # workflows
    "Budget": "workflows.job_inputs",
    "Execution": "workflows.job_inputs",
    "TableSource": "workflows.job_inputs",
    "Certificate": "results",
    "SynthesisSummary": "results",
    "release": "workflows.release",
    "release_frame": "workflows.release",
    "synthesize": "workflows.synthesize",
    # audit, utility, inference, report, engines
    "run_audit": "audit",
    "write_audit": "audit",
    "evaluate": "utility.evaluate",
    "UtilityEvaluation": "utility.evaluate",
    "combine": "inference",
    "mean_estimates": "inference",
    "regression_estimates": "inference",
    "write_report": "report",
    "open_engine": "engine",
}


# a public name loads from its submodule on first use and is kept (PEP 562); dir() lists
# the public names, loaded or not (for tab completion)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "AssumptionError",
    "BudgetError",
    "DataError",
    "ParameterError",
    "SynthcertError",
    "__version__",
    *_LAZY,
]
