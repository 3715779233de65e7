"""Synthesizers behind one interface; see :mod:`synthcert.synthesizers.registry`.

The classes needing optional extras (``pgm``: mbi, JAX, networkx; ``ctgan``: torch) load on
first use, so the core installs and runs without them; so do the copula and PrivBayes, whose
scipy.stats import would otherwise add about half a second to every release.
"""

from synthcert._lazy import lazy_exports
from synthcert.synthesizers.base import DPSynthesizer, Synthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.registry import REGISTRY, make_synthesizer

_LAZY = {
    "GaussianCopulaSynthesizer": "copula",
    "PrivBayesSynthesizer": "privbayes",
    "AIMSynthesizer": "pgm",
    "MWEMPGMSynthesizer": "pgm",
    "CTGANSynthesizer": "ctgan",
}


# the synthesizers of the optional extras (and the scipy-backed ones) import on first use
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "REGISTRY",
    "GaussianSynthesizer",
    "DPSynthesizer",
    "Synthesizer",
    "make_synthesizer",
    *_LAZY,
]
