"""The audit's view of a synthesizer: build a fresh one, fit it on a table, draw a table.

The game fits the synthesizer hundreds of times, in worker processes too, so it carries a
:class:`SynthesizerSpec` (picklable) rather than a fitted object. A registry name is built by
:func:`synthcert.synthesizers.registry.make_synthesizer`; any other object with ``fit`` and
``sample`` is deep-copied for every fit. Every fit and draw is seeded from the game's seed tree
(``synthcert.seeding.derive_seed``), so the inference measures do not depend on the workers.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthcert.data.schema import Schema
from synthcert.errors import SynthcertError

# the stored parameter a registered synthesizer draws its fit randomness from (its constructor
# argument of that name, kept as an attribute of the same name: scikit-learn's convention)
FIT_SEED_PARAM = "seed"


@dataclass(frozen=True)
class SynthesizerSpec:
    """How to build a fresh synthesizer in any process: a registry name or a user prototype.

    Parameters
    ----------
    schema : Schema
        The table's public schema.
    name : str, optional
        A registry name (``synthcert.synthesizers.registry.REGISTRY``); None with a prototype.
    epsilon, delta : float, optional
        The DP budget of a registry synthesizer (None: no DP noise).
    params : dict
        Further constructor keywords of the registry synthesizer.
    prototype : object, optional
        A user synthesizer with ``fit(table)`` and ``sample(n)``, deep-copied for every fit.

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> spec = SynthesizerSpec(Schema((NumericColumn("a", 0.0, 1.0),)), "privbayes", 1.0)
    >>> spec.label
    'privbayes (epsilon=1)'
    """

    schema: Schema
    name: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    prototype: Any = None

    @property
    def label(self) -> str:
        """Name for reports, with epsilon and the parameters given, e.g. ``x (marginals=beta)``."""
        base = self.name or type(self.prototype).__name__
        given = {} if self.epsilon is None else {"epsilon": f"{self.epsilon:g}"}
        given.update(self.params)
        return f"{base} ({', '.join(f'{k}={v}' for k, v in given.items())})" if given else base

    def build(self, seed: int) -> tuple[Any, dict[str, Any]]:
        """A fresh unfitted synthesizer and the keyword arguments its ``fit`` takes.

        Parameters
        ----------
        seed : int
            Seed of the fit's randomness: a registry synthesizer that draws during ``fit``
            stores it as its ``seed`` parameter (unless ``params`` sets one); a prototype whose
            ``fit`` takes ``seed`` receives it there.

        Returns
        -------
        tuple
            The synthesizer and the keyword arguments for its ``fit``.

        Raises
        ------
        SynthcertError
            When the registry cannot build ``name`` with these parameters.
        """
        if self.prototype is not None:
            synth = copy.deepcopy(self.prototype)
            return synth, ({"seed": seed} if _accepts(synth.fit, "seed") else {})
        from synthcert.synthesizers.registry import make_synthesizer

        synth = make_synthesizer(
            self.name, self.schema, epsilon=self.epsilon, delta=self.delta, **self.params
        )
        if FIT_SEED_PARAM not in self.params and hasattr(synth, FIT_SEED_PARAM):
            setattr(synth, FIT_SEED_PARAM, seed)
        return synth, {}


def _accepts(func: Callable, name: str) -> bool:
    """Whether a user object's method takes the keyword ``name`` (duck-typed prototypes only)."""
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def fit_synthesizer(spec: SynthesizerSpec, table: pd.DataFrame, seed: int) -> Any:
    """F_ext of seed 003, Algorithm 7: a synthesizer fitted on ``table``.

    Parameters
    ----------
    spec : SynthesizerSpec
        What to build.
    table : pandas.DataFrame
        The (public to the game) table to fit on.
    seed : int
        Seed of the fit's randomness, where the synthesizer takes one.

    Returns
    -------
    object
        The fitted synthesizer.
    """
    synth, kwargs = spec.build(seed)
    if getattr(synth, "min_rows", 0) is None and getattr(synth, "epsilon", None) is not None:
        synth.min_rows = len(table)  # DP-SGD's public rate: the game's tables are public to it
    out = synth.fit(table, **kwargs)
    return synth if out is None else out


def draw_table(synth: Any, n: int, seed: int, schema: Schema) -> pd.DataFrame:
    """F_gen of seed 003, Algorithm 7: ``n`` synthetic rows with the schema's columns.

    Parameters
    ----------
    synth : object
        A fitted synthesizer.
    n : int
        Rows to draw.
    seed : int
        Seed of the draw (passed when ``sample`` takes one).
    schema : Schema
        Names the columns of an array output.

    Returns
    -------
    pandas.DataFrame
        The synthetic table.

    Raises
    ------
    SynthcertError
        When ``sample`` returns neither a frame nor an array.
    """
    out = synth.sample(n, seed=seed) if _accepts(synth.sample, "seed") else synth.sample(n)
    if isinstance(out, np.ndarray):
        out = pd.DataFrame(out, columns=schema.names)
    if not isinstance(out, pd.DataFrame):
        raise SynthcertError(
            f"{type(synth).__name__}.sample returned {type(out).__name__}, not a table"
        )
    return out


def privacy_of(synth: Any, n_out: int) -> dict[str, Any] | None:
    """The synthesizer's public claim for ``n_out`` rows, as a dict (None when it has none).

    Parameters
    ----------
    synth : object
        A fitted synthesizer, with or without ``privacy_claim``.
    n_out : int
        Rows released per fit.

    Returns
    -------
    dict or None
        ``PrivacyClaim.to_dict()`` of a guarantee or of an explicit no-privacy claim.
    """
    try:
        claim = synth.privacy_claim(n_out)
    except (SynthcertError, ImportError, AttributeError, ValueError):
        return None
    return claim.to_dict() if claim.is_guarantee or claim.model == "none" else None


def deterministic_fit(synth: Any) -> bool:
    """Whether the synthesizer declares that its fit draws no randomness.

    The declared property is the attribute ``deterministic_fit`` (a class variable of the
    registry synthesizers: True for the certified Gaussian release, whose randomness is all in
    sampling; a user object may set it too). Anything else counts as drawing at fit time, the
    safe side: the audit then takes one run per fit, not per table.

    Parameters
    ----------
    synth : object
        A synthesizer (fitted or not).

    Returns
    -------
    bool
        True only when ``synth.deterministic_fit is True``.

    Examples
    --------
    >>> from synthcert.data.schema import NumericColumn, Schema
    >>> from synthcert.synthesizers.registry import make_synthesizer
    >>> schema = Schema((NumericColumn("a", 0.0, 1.0),))
    >>> deterministic_fit(make_synthesizer("gaussian", schema))
    True
    >>> deterministic_fit(make_synthesizer("privbayes", schema, epsilon=1.0))
    False
    """
    return getattr(synth, "deterministic_fit", False) is True


def check_synthesizer_object(synthesizer: Any, workers: int) -> None:
    """Refuse a user synthesizer the game cannot play with.

    Parameters
    ----------
    synthesizer : object
        The user's synthesizer.
    workers : int
        Worker processes; above 1 the object must pickle.

    Raises
    ------
    SynthcertError
        When it lacks ``fit``/``sample`` or cannot be sent to worker processes.
    """
    if not (hasattr(synthesizer, "fit") and hasattr(synthesizer, "sample")):
        raise SynthcertError("the synthesizer must be a registry name or have fit and sample")
    if workers > 1:
        import pickle

        try:
            pickle.dumps(synthesizer)
        except Exception as exc:  # any pickling failure: say what to do instead
            raise SynthcertError(
                f"{type(synthesizer).__name__} cannot be sent to worker processes ({exc}); "
                "define it at module level or use workers=1"
            ) from exc
