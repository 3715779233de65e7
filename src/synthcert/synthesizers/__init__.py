"""Synthesizers behind one interface; see :mod:`synthcert.synthesizers.registry`.

The classes needing optional extras (``pgm``: mbi, JAX, networkx; ``ctgan``: torch) load on
first use, so the core installs and runs without them; so do the copula and PrivBayes, whose
scipy.stats import would otherwise add about half a second to every release.
"""

from importlib import import_module
from typing import Any

from synthcert.synthesizers.base import DPSynthesizer, Synthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.registry import REGISTRY, make_synthesizer

_LAZY = {
    "GaussianCopulaSynthesizer": "synthcert.synthesizers.copula",
    "PrivBayesSynthesizer": "synthcert.synthesizers.privbayes",
    "AIMSynthesizer": "synthcert.synthesizers.pgm",
    "MWEMPGMSynthesizer": "synthcert.synthesizers.pgm",
    "CTGANSynthesizer": "synthcert.synthesizers.ctgan",
}


def __getattr__(name: str) -> Any:
    """Import the synthesizers of the optional extras on first use."""
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'synthcert.synthesizers' has no attribute {name!r}")


__all__ = [
    "REGISTRY",
    "GaussianSynthesizer",
    "DPSynthesizer",
    "Synthesizer",
    "make_synthesizer",
    *_LAZY,
]
