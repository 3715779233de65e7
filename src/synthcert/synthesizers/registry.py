"""The synthesizer registry: names, privacy models, and lazy construction (heavy deps on demand)."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from synthcert._result import Result
from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError
from synthcert.synthesizers.base import Synthesizer


@dataclass(frozen=True)
class SynthesizerInfo(Result):
    """One registry entry: where the class lives and what guarantee it gives."""

    name: str
    module: str
    cls: str
    privacy: str
    description: str
    extra: str | None = None  # the pip extra that installs its dependencies

    def load(self) -> type[Synthesizer]:
        """Import the class (and its dependencies)."""
        try:
            module = importlib.import_module(self.module)
        except ImportError as exc:
            hint = f" Install it with: pip install 'synthcert[{self.extra}]'" if self.extra else ""
            raise SynthcertError(
                f"synthesizer {self.name!r} needs a package that is not installed "
                f"({exc.name}).{hint}"
            ) from exc
        return getattr(module, self.cls)


REGISTRY: dict[str, SynthesizerInfo] = {
    info.name: info
    for info in [
        SynthesizerInfo(
            "gaussian",
            "synthcert.synthesizers.gaussian",
            "GaussianSynthesizer",
            "inherent (alpha, epsilon)-RDP from sampling alone (Miura et al.)",
            "Mean and covariance of the encoded table, sampled without added noise (M_G).",
        ),
        SynthesizerInfo(
            "gaussian-copula",
            "synthcert.synthesizers.copula",
            "GaussianCopulaSynthesizer",
            "none, or epsilon-DP (Laplace marginals + noisy Kendall tau)",
            "Empirical marginals joined by a Gaussian copula; DP version after DPCopula.",
        ),
        SynthesizerInfo(
            "privbayes",
            "synthcert.synthesizers.privbayes",
            "PrivBayesSynthesizer",
            "none, or epsilon-DP (exponential mechanism + Laplace or Staircase)",
            "Bayesian network of degree k over discretised columns (PrivBayes).",
        ),
        SynthesizerInfo(
            "mwem-pgm",
            "synthcert.synthesizers.pgm",
            "MWEMPGMSynthesizer",
            "none, or (epsilon, delta)-DP via zCDP",
            "MWEM with Private-PGM estimation of a graphical model.",
            "pgm",
        ),
        SynthesizerInfo(
            "aim",
            "synthcert.synthesizers.pgm",
            "AIMSynthesizer",
            "none, or (epsilon, delta)-DP via zCDP",
            "AIM: adaptive, iterative marginal selection with Private-PGM.",
            "pgm",
        ),
        SynthesizerInfo(
            "ctgan",
            "synthcert.synthesizers.ctgan",
            "CTGANSynthesizer",
            "none, or (epsilon, delta)-DP via DP-SGD on the discriminator (Opacus)",
            "Conditional tabular GAN (CTGAN); DP variant in the style of DP-CTGAN.",
            "ctgan",
        ),
    ]
}


def get_info(name: str) -> SynthesizerInfo:
    """The registry entry called ``name``; a clear error lists the known names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise SynthcertError(
            f"unknown synthesizer {name!r}; choose one of {', '.join(REGISTRY)}"
        ) from None


def constructor_params(cls: type) -> set[str]:
    """Keyword parameters a class's constructor takes, following ``**kwargs`` up the MRO
    (a subclass ``__init__(self, schema, *, extra=None, **kwargs)`` passes the rest on)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters
        names.update(
            n for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        )
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            break
    names.discard("self")
    return names


def accepted_params(name: str) -> set[str]:
    """Keyword parameters the registered synthesizer ``name`` accepts."""
    return constructor_params(get_info(name).load())


def make_synthesizer(
    name: str,
    schema: Schema,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    **params: Any,
) -> Synthesizer:
    """Construct a registered synthesizer; ``epsilon=None`` means no DP noise."""
    cls = get_info(name).load()
    accepted = constructor_params(cls)
    if epsilon is not None:
        if "epsilon" not in accepted:
            raise SynthcertError(
                f"synthesizer {name!r} takes no epsilon: its privacy is not set by noise "
                "(for 'gaussian', use `synthcert release --epsilon` to size the release)"
            )
        params["epsilon"] = epsilon
    if delta is not None and "delta" in accepted:
        params["delta"] = delta
    unknown = [k for k in params if k not in accepted]
    if unknown:
        raise SynthcertError(f"synthesizer {name!r} has no parameter(s) {unknown}")
    return cls(schema, **params)
