"""Statistics of a table that models are fitted from, and the protocols between models and engines.

Engines (``synthcert.engine``) compute statistics chunk by chunk and merge them; models
(``synthcert.synthesizers``) are fitted from them and draw chunks of rows. Neither imports the
other: they meet here. One module per idea:

- :mod:`~synthcert.statistics.chunks`: the one chunk size :data:`CHUNK_ROWS` and the chunk
  arithmetic;
- :mod:`~synthcert.statistics.moments`: moments of the encoded table (M_G's statistics);
- :mod:`~synthcert.statistics.counts`: counts of cliques of columns on public bins;
- :mod:`~synthcert.statistics.sources`: count sources that answer marginal queries, cached;
- :mod:`~synthcert.statistics.protocols`: the typed fit routes and ``sample_chunk``.
"""

from synthcert.statistics.chunks import CHUNK_ROWS, chunk_sizes
from synthcert.statistics.counts import (
    Clique,
    HistogramAccumulator,
    MarginalCounts,
    clique_counts,
)
from synthcert.statistics.moments import MomentAccumulator, MomentPartial, encoded_moments
from synthcert.statistics.protocols import (
    FitsFromCounts,
    FitsFromMoments,
    SamplesChunks,
    SamplesChunkTables,
)
from synthcert.statistics.sources import (
    CachedCounts,
    CodesCounts,
    CountSource,
    check_cardinalities,
    maximal_sets,
)

__all__ = [
    "CHUNK_ROWS",
    "CachedCounts",
    "Clique",
    "CodesCounts",
    "CountSource",
    "FitsFromCounts",
    "FitsFromMoments",
    "HistogramAccumulator",
    "MarginalCounts",
    "MomentAccumulator",
    "MomentPartial",
    "SamplesChunkTables",
    "SamplesChunks",
    "check_cardinalities",
    "chunk_sizes",
    "clique_counts",
    "encoded_moments",
    "maximal_sets",
]
