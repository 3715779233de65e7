"""The synthesizer registry: names, privacy models, and the one place synthesizers are built.

:func:`make_synthesizer` builds and seeds every synthesizer synthcert runs (the CLI, the
workflows, the audit game, the reproduced studies); :func:`available_synthesizers` lists
those whose optional extras are installed. Classes load on first use, so the heavy
dependencies (JAX, torch) are imported only when asked for.

Where a new synthesizer goes: a module in this package with a subclass of
:class:`~synthcert.synthesizers.base.Synthesizer` (or ``DPSynthesizer``), an entry in
:data:`REGISTRY`, and ``check_synthesizer`` (:mod:`synthcert.testing`) passing in
tests/test_conformance.py.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from synthcert._result import Result
from synthcert.data.schema import Schema
from synthcert.errors import ParameterError, SynthcertError
from synthcert.seeding import Seed
from synthcert.synthesizers.base import Synthesizer, constructor_params, constructor_signature


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
        """Import the class (and its dependencies).

        Returns
        -------
        type
            The synthesizer class.

        Raises
        ------
        SynthcertError
            If a package it needs is not installed (names the pip extra).

        Examples
        --------
        >>> REGISTRY["gaussian"].load().__name__
        'GaussianSynthesizer'
        """
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
    """The registry entry called ``name``.

    Parameters
    ----------
    name : str
        A registered name (``gaussian``, ``gaussian-copula``, ``privbayes``, ``mwem-pgm``,
        ``aim``, ``ctgan``).

    Returns
    -------
    SynthesizerInfo
        Where the class lives, its privacy model and description.

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the known names).

    Examples
    --------
    >>> get_info("privbayes").cls
    'PrivBayesSynthesizer'
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown synthesizer {name!r}; choose one of {', '.join(REGISTRY)}"
        ) from None


def available_synthesizers(
    names: Sequence[str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The requested synthesizers whose class imports, and why each other one does not.

    Parameters
    ----------
    names : sequence of str, optional
        Registry names; default all registered synthesizers, in registry order.

    Returns
    -------
    tuple of (list of str, dict of str to str)
        The names that load, in the order asked, and ``{name: "ErrorType: message"}`` for
        the names that do not (unknown, or an optional extra not installed).

    Examples
    --------
    >>> ok, missing = available_synthesizers(["gaussian", "nope"])
    >>> ok, sorted(missing)
    (['gaussian'], ['nope'])
    """
    ok: list[str] = []
    missing: dict[str, str] = {}
    for name in list(names) if names else list(REGISTRY):
        try:
            get_info(name).load()
        except (SynthcertError, ImportError, AttributeError) as exc:
            missing[name] = f"{type(exc).__name__}: {exc}"
        else:
            ok.append(name)
    return ok, missing


def accepted_params(name: str) -> set[str]:
    """Keyword parameters the registered synthesizer ``name`` accepts.

    Examples
    --------
    >>> sorted(accepted_params("gaussian"))[:3]
    ['alpha', 'chunk_rows', 'delta']
    """
    return set(constructor_params(get_info(name).load()))


def neighboring_of(name: str) -> str:
    """The neighbouring relation the claims of synthesizer ``name`` are under (its class's
    ``neighboring``; public)."""
    return str(getattr(get_info(name).load(), "neighboring", "unbounded"))


PUBLIC_RUN = ("schema", "epsilon", "delta")  # given by synthesize itself, not by --param


def parameter_defaults(name: str) -> dict[str, Any] | str:
    """The parameters ``synthesize --param KEY=VALUE`` accepts for synthesizer ``name``, with
    their defaults (numbers, text, None or a description of an object), or why they cannot be
    listed (a pip extra that is not installed).

    Examples
    --------
    >>> parameter_defaults("privbayes")["theta"]
    4.0
    """
    try:
        cls = get_info(name).load()
    except SynthcertError as exc:
        return str(exc)
    return {
        n: (
            "(required)" if p.default is inspect.Parameter.empty
            else p.default if p.default is None or isinstance(p.default, (bool, int, float, str))
            else repr(p.default)
        )
        for n, p in constructor_signature(cls).items()
        if n not in PUBLIC_RUN
    }  # fmt: skip


def make_synthesizer(
    name: str,
    schema: Schema,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    seed: Seed = None,
    ignore_unknown: bool = False,
    **params: Any,
) -> Synthesizer:
    """Build and seed a registered synthesizer: the one place synthcert constructs them.

    Parameters
    ----------
    name : str
        A registry name (see :data:`REGISTRY`).
    schema : Schema
        The public schema.
    epsilon : float, optional
        The DP budget; None means no DP noise. Refused by a synthesizer without an epsilon
        parameter (``gaussian``: its privacy is certified from its sampling).
    delta : float, optional
        Passed when the synthesizer takes a delta (ignored otherwise).
    seed : int, SeedSequence, Generator or None
        The secret seed of the fit's own randomness (DP noise, network initialisation),
        passed as ``seed`` to the synthesizers whose fit draws; a synthesizer whose fit is
        deterministic (``gaussian``) has no such parameter and ignores it. None: 128 bits of
        OS entropy at fit time.
    ignore_unknown : bool, default False
        Drop the ``params`` the synthesizer does not take (a study passing one set of
        settings to every synthesizer) instead of refusing them.
    **params
        Other constructor parameters of the synthesizer.

    Returns
    -------
    Synthesizer
        An unfitted synthesizer whose parameters passed :meth:`~Synthesizer.validate_params`.

    Raises
    ------
    ParameterError
        For an unknown name, an unknown parameter, an epsilon the synthesizer does not take,
        or an option value it does not accept.
    AssumptionError
        For a parameter that breaks an assumption of the privacy theorem (epsilon <= 0, ...).
    SynthcertError
        If the synthesizer needs a package that is not installed (names the pip extra).

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> schema = Schema((NumericColumn("x", 0, 1),))
    >>> synth = make_synthesizer("privbayes", schema, epsilon=1.0, seed=7, bins=10)
    >>> synth.get_params()["seed"], synth.get_params()["bins"]
    (7, 10)
    >>> make_synthesizer("gaussian", schema, seed=7, sigma=0.01).get_params()["sigma"]
    0.01
    """
    cls = get_info(name).load()
    accepted = constructor_params(cls)
    if epsilon is not None:
        if "epsilon" not in accepted:
            raise ParameterError(
                f"synthesizer {name!r} takes no epsilon: its privacy is not set by noise "
                "(for 'gaussian', use `synthcert release --epsilon` to size the release)"
            )
        params["epsilon"] = epsilon
    if delta is not None and "delta" in accepted:
        params["delta"] = delta
    if seed is not None and "seed" in accepted:
        params["seed"] = seed
    unknown = [k for k in params if k not in accepted or k == "schema"]
    if unknown and not ignore_unknown:
        known = ", ".join(k for k in accepted if k not in PUBLIC_RUN)
        raise ParameterError(
            f"synthesizer {name!r} has no parameter(s) {unknown}; its parameters are {known} "
            "(`synthcert synthesizers --params` lists them with their defaults)"
        )
    synth = cls(schema, **{k: v for k, v in params.items() if k not in unknown})
    synth.validate_params()
    return synth
