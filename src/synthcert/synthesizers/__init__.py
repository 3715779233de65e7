"""Synthesizers behind one interface; see :mod:`synthcert.synthesizers.registry`."""

from synthcert.synthesizers.base import PrivacyGuarantee, Synthesizer
from synthcert.synthesizers.gaussian import GaussianSynthesizer
from synthcert.synthesizers.registry import REGISTRY, make_synthesizer

__all__ = ["REGISTRY", "GaussianSynthesizer", "PrivacyGuarantee", "Synthesizer", "make_synthesizer"]
