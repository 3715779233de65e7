"""Data layer: schema, reading and atomic writing, encoding to [-1,1]^d, reference datasets."""

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, EncodeReport
from synthcert.data.infer import SchemaDraft, draft_schema, infer_schema
from synthcert.data.io import CsvOptions, iter_table_chunks, read_table, write_table
from synthcert.data.schema import (
    CategoricalColumn,
    DatetimeColumn,
    NumericColumn,
    Schema,
)

__all__ = [
    "CategoricalColumn",
    "CsvOptions",
    "DatetimeColumn",
    "Discretizer",
    "EncodeReport",
    "Encoder",
    "NumericColumn",
    "Schema",
    "SchemaDraft",
    "draft_schema",
    "infer_schema",
    "iter_table_chunks",
    "read_table",
    "write_table",
]
