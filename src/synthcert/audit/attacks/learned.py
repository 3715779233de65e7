"""Machine-learning-based inference, eqs. (3.1)-(3.2) of seed 003 (after Stadler et al.).

Four classifiers (random forest, logistic regression, MLP, gradient boosting with XGBoost) on
two feature sets, trained on the shadow tables of Algorithm 8 (label 1 = from D_pos):

* ``*-dataset``: chunks of c1 records drawn at random from a table, each flattened to a vector
  of c1·d encoded values; ``chunks`` chunks per table. A table's IM combines its chunks by the
  mean of their log-odds (the naive-Bayes combination of independent chunks, divided by the
  number of chunks so the scale is that of one chunk).
* ``*-hist``: the per-column histograms on the shared public bins (``Discretizer``), normalised
  and concatenated, one vector per table.

IM = logit(f(T)) with the predicted probability clipped to [1e-6, 1 − 1e-6].
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar, Self

import numpy as np

from synthcert.audit.attacks import Attack, AttackContext, SyntheticTable
from synthcert.errors import ParameterError, SynthcertError, import_extra

MODELS = ("rf", "lr", "mlp", "xgb")
FEATURE_SETS = ("dataset", "hist")
LEARNED_ATTACKS = tuple(f"{m}-{f}" for m in MODELS for f in FEATURE_SETS)
PROBA_CLIP = 1e-6
# Training seconds on Adult's numeric columns (benchmarks/audit_workers.py), to start the
# slowest first; the hist attacks train on c2 rows a side, the dataset ones on c2·chunks.
TRAINING_COST = {"rf": 1.2, "mlp": 0.64, "xgb": 0.16, "lr": 0.01}


def chunk_features(X: np.ndarray, c1: int, chunks: int, rng: np.random.Generator) -> np.ndarray:
    """``chunks`` random chunks of ``c1`` rows of X, each flattened: shape (chunks, c1·d)."""
    n, d = X.shape
    need = c1 * chunks
    rows = rng.choice(n, size=need, replace=need > n)
    return X[rows].reshape(chunks, c1 * d)


def hist_features(codes: np.ndarray, cardinalities: Sequence[int]) -> np.ndarray:
    """Concatenated normalised histograms of each column's bin codes: shape (1, Σ cardinalities)."""
    n = max(codes.shape[0], 1)
    parts = [np.bincount(codes[:, j], minlength=k)[:k] / n for j, k in enumerate(cardinalities)]
    return np.concatenate(parts)[None, :]


def make_model(model: str, seed: int) -> Any:
    """An untrained classifier; single-threaded (parallelism comes from the game's workers)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if model == "rf":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=seed)
    if model == "lr":
        from sklearn.linear_model import LogisticRegression

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    if model == "mlp":
        from sklearn.neural_network import MLPClassifier

        return make_pipeline(
            StandardScaler(),
            MLPClassifier(hidden_layer_sizes=(64, 32), max_iter=500, random_state=seed),
        )
    if model == "xgb":
        xgboost = import_extra(
            "xgboost", "the xgb-* attacks need xgboost: pip install 'synthcert[ml]'"
        )
        return xgboost.XGBClassifier(
            n_estimators=100,
            max_depth=3,
            learning_rate=0.1,
            n_jobs=1,
            random_state=seed,
            tree_method="hist",
            verbosity=0,
        )
    raise ParameterError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 − p)) with p clipped away from 0 and 1."""
    p = np.clip(p, PROBA_CLIP, 1.0 - PROBA_CLIP)
    return np.log(p) - np.log1p(-p)


class LearnedAttack(Attack):
    """One classifier on one feature set (Table 3.1's RF/LR/MLP/XGB × dataset/hist)."""

    name: ClassVar[str] = "learned"

    def __init__(self, model: str, featureset: str) -> None:
        if model not in MODELS or featureset not in FEATURE_SETS:
            raise ParameterError(f"unknown learned attack {model}-{featureset}")
        self.model_name = model
        self.featureset = featureset
        self.name = f"{model}-{featureset}"  # type: ignore[misc]
        self.feature_key = "chunks" if featureset == "dataset" else "hist"  # type: ignore[misc]
        self.needs_codes = featureset == "hist"  # type: ignore[misc]
        scale = 1.0 if featureset == "dataset" else 0.1
        self.training_cost = TRAINING_COST[model] * scale  # type: ignore[misc]

    def features(
        self, table: SyntheticTable, ctx: AttackContext, rng: np.random.Generator
    ) -> np.ndarray:
        """Chunks of c1 records, or the concatenated histograms."""
        if self.featureset == "dataset":
            return chunk_features(table.X, ctx.params.c1, ctx.params.chunks, rng)
        if table.codes is None:
            raise SynthcertError("the *-hist attacks need the discretised table")
        return hist_features(table.codes, ctx.cardinalities)

    def fit(
        self, ctx: AttackContext, shadow_pos: Sequence[np.ndarray], shadow_neg: Sequence[np.ndarray]
    ) -> Self:
        """Algorithm 8, line 5: train on shadow features, label 1 for D_pos and 0 for D_neg."""
        self.ctx = ctx
        pos, neg = np.vstack(list(shadow_pos)), np.vstack(list(shadow_neg))
        X = np.vstack([pos, neg])
        y = np.concatenate([np.ones(len(pos), dtype=int), np.zeros(len(neg), dtype=int)])
        self.model = make_model(self.model_name, ctx.seed).fit(X, y)
        return self

    def score(self, features: Sequence[np.ndarray]) -> np.ndarray:
        """IM = mean over a table's feature rows of logit(P[D_pos]) (eqs. 3.1-3.2)."""
        if not features:
            return np.empty(0)
        sizes = [len(f) for f in features]
        proba = self.model.predict_proba(np.vstack(list(features)))[:, 1]
        lo = logit(proba)
        bounds = np.cumsum([0, *sizes])
        return np.array([lo[a:b].mean() for a, b in itertools.pairwise(bounds)])
