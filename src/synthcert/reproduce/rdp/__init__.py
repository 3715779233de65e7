"""Regenerate Tables 1-2 of seed 000 and thesis Tables 5.1-5.2, §5.5.4, Figures 5.3-5.8 (003).

``printed`` holds the values the papers print, ``matching`` decides when a computed value
matches one, ``tables`` computes every table, ``figures`` draws the figures, ``markdown``
writes the summary page and ``run`` (:func:`reproduce_rdp`) writes them all.
"""

from synthcert.reproduce.rdp.matching import decimals, matches_printed, matches_truncated
from synthcert.reproduce.rdp.run import Reproduction, reproduce_rdp
from synthcert.reproduce.rdp.tables import (
    table1,
    table2,
    table52,
    table_paper_vs_exact,
    thesis_554,
)

__all__ = [
    "Reproduction",
    "decimals",
    "matches_printed",
    "matches_truncated",
    "reproduce_rdp",
    "table1",
    "table2",
    "table52",
    "table_paper_vs_exact",
    "thesis_554",
]
