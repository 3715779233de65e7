"""synthcert: synthetic tabular data with a privacy guarantee that is measured, not assumed.

The core (data layer, synthesizers, privacy math, release) is imported eagerly; the audit,
utility, inference, report and engine entry points load on first use.
"""

from importlib import import_module
from typing import Any

from synthcert._version import __version__
from synthcert.data import CsvOptions, Encoder, Schema, infer_schema, read_table, write_table
from synthcert.errors import AssumptionError, BudgetError, DataError, SynthcertError
from synthcert.privacy import PrivacyAccountant, account, max_records
from synthcert.privacy.claims import PrivacyClaim
from synthcert.release import Certificate, release
from synthcert.run_record import RunRecord
from synthcert.synthesizers import (
    GaussianCopulaSynthesizer,
    GaussianSynthesizer,
    PrivBayesSynthesizer,
    Synthesizer,
    make_synthesizer,
)

_LAZY = {
    "AIMSynthesizer": "synthcert.synthesizers.pgm",
    "MWEMPGMSynthesizer": "synthcert.synthesizers.pgm",
    "CTGANSynthesizer": "synthcert.synthesizers.ctgan",
    "run_audit": "synthcert.audit",
    "write_audit": "synthcert.audit",
    "evaluate": "synthcert.utility",
    "UtilityEvaluation": "synthcert.utility",
    "combine": "synthcert.inference",
    "mean_estimates": "synthcert.inference",
    "regression_estimates": "synthcert.inference",
    "univariate_guarantee": "synthcert.privacy.gaussian_zcdp",
    "write_report": "synthcert.report",
    "open_engine": "synthcert.engine",
}


def __getattr__(name: str) -> Any:
    """Load the heavier entry points (audit, utility, report, ...) on first use."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'synthcert' has no attribute {name!r}")


__all__ = [
    "AssumptionError",
    "BudgetError",
    "Certificate",
    "CsvOptions",
    "DataError",
    "Encoder",
    "GaussianCopulaSynthesizer",
    "GaussianSynthesizer",
    "PrivBayesSynthesizer",
    "PrivacyAccountant",
    "PrivacyClaim",
    "RunRecord",
    "Schema",
    "SynthcertError",
    "Synthesizer",
    "__version__",
    "account",
    "infer_schema",
    "make_synthesizer",
    "max_records",
    "read_table",
    "release",
    "write_table",
    *_LAZY,
]
