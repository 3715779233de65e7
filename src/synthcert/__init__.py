"""synthcert: synthetic tabular data with a privacy guarantee that is measured, not assumed."""

from synthcert._version import __version__
from synthcert.data import CsvOptions, Encoder, Schema, infer_schema, read_table, write_table
from synthcert.errors import AssumptionError, BudgetError, DataError, SynthcertError
from synthcert.synthesizers import (
    GaussianSynthesizer,
    PrivacyGuarantee,
    Synthesizer,
    make_synthesizer,
)

__all__ = [
    "AssumptionError",
    "BudgetError",
    "CsvOptions",
    "DataError",
    "Encoder",
    "GaussianSynthesizer",
    "PrivacyGuarantee",
    "Schema",
    "SynthcertError",
    "Synthesizer",
    "__version__",
    "infer_schema",
    "make_synthesizer",
    "read_table",
    "write_table",
]
