"""Execution engines for tables of 10^8+ rows: local streaming, or a Dask cluster.

The reductions (counts, moments, histograms, marginals on public bins) run per partition with
the mergeable accumulators of ``synthcert.statistics`` and merge in one fixed tree, so every
engine gives the same numbers; sampling draws chunk i as ``model.sample_chunk(rows_i,
child_i)`` of ``SeedSequence(seed)``, so every engine gives the same rows. The engine never
imports a model: fitting from its statistics is the caller's step (for M_G,
``model.fit_moments(m.acc, [m.report])`` with ``m = fit_moments(...)``). ``EngineCounts``
serves marginal counts to the count-based synthesizers' ``fit_counts`` (PrivBayes, MWEM-PGM,
AIM, the copula). ``synthcert.engine.dask`` also offers
``parallel_map`` and ``joblib_backend`` for running audit trials on a cluster.
"""

from synthcert.engine.counts import EngineCounts
from synthcert.engine.local import LocalEngine
from synthcert.engine.ops import (
    ENGINES,
    fit_moments,
    histograms,
    marginals,
    numeric_correlation,
    open_engine,
    sample_frames,
    sample_partitioned,
    sample_tables,
)
from synthcert.engine.partitioned import (
    Manifest,
    PartitionedDatasetWriter,
    is_dataset_target,
    read_manifest,
)
from synthcert.engine.plan import Partition, plan_partitions

__all__ = [
    "ENGINES",
    "EngineCounts",
    "LocalEngine",
    "Manifest",
    "Partition",
    "PartitionedDatasetWriter",
    "fit_moments",
    "histograms",
    "is_dataset_target",
    "marginals",
    "numeric_correlation",
    "open_engine",
    "plan_partitions",
    "read_manifest",
    "sample_frames",
    "sample_partitioned",
    "sample_tables",
]
