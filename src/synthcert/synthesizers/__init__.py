"""Synthesizers behind one interface; see :mod:`synthcert.synthesizers.registry`.

The classes needing optional extras (``pgm``: mbi and JAX; ``ctgan``: torch) import their
heavy dependencies only when fitted.
"""

from synthcert.synthesizers.base import PrivacyGuarantee, Synthesizer
from synthcert.synthesizers.copula import GaussianCopulaSynthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.pgm import AIMSynthesizer, MWEMPGMSynthesizer
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
from synthcert.synthesizers.registry import REGISTRY, make_synthesizer

__all__ = [
    "REGISTRY",
    "AIMSynthesizer",
    "GaussianCopulaSynthesizer",
    "GaussianSynthesizer",
    "MWEMPGMSynthesizer",
    "PrivBayesSynthesizer",
    "PrivacyGuarantee",
    "Synthesizer",
    "make_synthesizer",
]
