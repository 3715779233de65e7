"""Data layer: schema, reading and atomic writing, encoding to [-1,1]^d, reference datasets."""

from synthcert.data.discretize import Discretizer
from synthcert.data.encode import Encoder, EncodeReport
from synthcert.data.io import CsvOptions, iter_table_chunks, read_table, write_table
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema, infer_schema

__all__ = [
    "CategoricalColumn",
    "CsvOptions",
    "Discretizer",
    "EncodeReport",
    "Encoder",
    "NumericColumn",
    "Schema",
    "infer_schema",
    "iter_table_chunks",
    "read_table",
    "write_table",
]
