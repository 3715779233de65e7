"""Statistics of a table that models are fitted from, and the protocols between models and engines.

Engines (``synthcert.engine``) compute statistics chunk by chunk and merge them; models
(``synthcert.synthesizers``) are fitted from them and draw chunks of rows. Neither imports the
other: they meet in the protocols of :mod:`synthcert.statistics.protocols`.
"""

from synthcert.statistics.protocols import FitsFromCounts, FitsFromMoments, SamplesChunks

__all__ = ["FitsFromCounts", "FitsFromMoments", "SamplesChunks"]
