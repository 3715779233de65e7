"""Target choice of the Setsubun game (thesis, seed 003, section 3.3.2): which record to attack.

Every method returns one score per record (larger = more exposed); the target is the arg-max.
Scores are computed on the encoded table (``synthcert.data.encode.Encoder``, [-1,1]^d).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from synthcert._result import Result
from synthcert.errors import AssumptionError, ParameterError, SynthcertError

TARGET_METHODS = ("random", "mah-max", "iforest", "ocsvm", "divergence")
OCSVM_MAX_FIT_ROWS = 5_000


@dataclass(frozen=True)
class TargetChoice(Result):
    """The chosen record (0-based row of the complete rows), its score and the method used.

    Attributes
    ----------
    method : str
        How it was chosen (``random``, ``mah-max``, ``iforest``, ``ocsvm``, ``divergence``,
        ``row``).
    row : int
        Its row among the complete rows.
    score : float or None
        Its score under ``method``.
    mahalanobis : float
        Its Mahalanobis distance.
    ranking_method : str
        The score the at-risk ranking uses.
    """

    method: str
    row: int
    score: float | None
    mahalanobis: float
    ranking_method: str


def biased_moments(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased covariance (1/n) Σ (x-μ)(x-μ)ᵗ of the rows of X.

    An outer product: the thesis (Def. 3.3.1) writes xᵗx − μᵗμ, a slip.
    """
    mu = X.mean(axis=0)
    C = X - mu
    return mu, C.T @ C / max(X.shape[0], 1)


def _range_basis(X: np.ndarray, rtol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, and eigen-pairs of the biased covariance restricted to its range (pseudo-inverse)."""
    mu, cov = biased_moments(X)
    w, V = np.linalg.eigh(cov)
    keep = w > rtol * max(float(w[-1]), np.finfo(float).tiny)
    return mu, w[keep], V[:, keep]


def _squared_distances(X: np.ndarray) -> tuple[np.ndarray, int]:
    """M(D,x)² for every row of X, and the rank of the covariance."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise SynthcertError("Mahalanobis distances need an (n, d) array with n >= 2")
    mu, w, V = _range_basis(X)
    Z = ((X - mu) @ V) / np.sqrt(w)
    return np.einsum("ij,ij->i", Z, Z), w.size


def mahalanobis_distances(X: np.ndarray) -> np.ndarray:
    """Def. 3.3.1 of seed 003, corrected: M(D,x) = sqrt((x−μ)ᵗ Σ⁺ (x−μ)) for every row of X.

    The thesis writes sqrt(xᵗ(x−μ)Σ⁻¹(x−μ)) with a stray xᵗ (a slip). Σ is the biased
    covariance; where it is singular its Moore-Penrose pseudo-inverse is used, i.e. the
    distance is measured inside the affine span of the data. With the biased covariance,
    M² = n·h − 1 where h ≤ 1 is the record's leverage, so M ≤ sqrt(n − 1) always, with
    equality for a record that is alone in some direction (e.g. the only member of a category).

    Parameters
    ----------
    X : numpy.ndarray
        Encoded rows, shape (n, d).

    Returns
    -------
    numpy.ndarray
        One distance per row.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    >>> int(np.argmax(mahalanobis_distances(X)))
    4
    """
    return np.sqrt(_squared_distances(X)[0])


def divergence_scores(X: np.ndarray, alpha: float = 2.0) -> np.ndarray:
    """Exact Rényi divergence of order α between N(μ_D, Σ_D) and N(μ_D', Σ_D'), D' = D \\ {x}.

    Prop. 4.1 of seed 000 (Gil et al.) in closed form per record: removing x changes the mean by
    −v/(n−1) and the biased covariance to n/(n−1)·Σ − n/(n−1)²·vvᵗ (v = x − μ), a rank-one update,
    so in the basis whitening Σ the two normals are diagonal, differing only along Σ^{-1/2}v, and
    D_α depends on x only through s = M(D,x)². The score is the larger of the two directions
    (D‖D' and D'‖D); +inf when Σ_D' is singular (x alone in some direction, s = n − 1). On a
    singular Σ_D both normals live in the same span and the divergence is taken there. The score
    is increasing in s, so for mean-and-covariance synthesizers this target equals ``mah-max``.

    Parameters
    ----------
    X : numpy.ndarray
        Encoded rows, shape (n, d).
    alpha : float
        Rényi order.

    Returns
    -------
    numpy.ndarray
        One divergence per row.
    """
    if not alpha > 1:
        raise AssumptionError(
            f"the divergence target needs an order alpha > 1, got {alpha}",
            assumption="alpha > 1",
            admissible="alpha > 1",
        )
    s, k = _squared_distances(X)
    n = s.size
    c = n / (n - 1.0)
    lam_u = np.clip(c * (1.0 - s / (n - 1.0)), 0.0, None)  # whitened variance of D' along v
    delta2 = s / (n - 1.0) ** 2  # squared whitened mean shift
    ones = np.ones_like(s)

    def d_alpha(l1: np.ndarray, l2: np.ndarray, l1o: float, l2o: float) -> np.ndarray:
        # one special axis (l1, l2) plus k-1 axes with variances (l1o, l2o); mean shift on the axis
        with np.errstate(divide="ignore", invalid="ignore"):
            mix = (1 - alpha) * l1 + alpha * l2
            mix_o = (1 - alpha) * l1o + alpha * l2o
            mean_term = 0.5 * alpha * delta2 / mix
            log_ratio = np.log(mix) - (1 - alpha) * np.log(l1) - alpha * np.log(l2)
            if k > 1:
                log_ratio = log_ratio + (k - 1) * (
                    np.log(mix_o) - (1 - alpha) * np.log(l1o) - alpha * np.log(l2o)
                )
            out = mean_term - log_ratio / (2.0 * (alpha - 1.0))
        bad = ~((mix > 0) & (l1 > 0) & (l2 > 0)) | (not mix_o > 0)
        return np.where(bad, np.inf, np.maximum(out, 0.0))

    forward = d_alpha(ones, lam_u, 1.0, c)
    backward = d_alpha(lam_u, ones, c, 1.0)
    return np.maximum(forward, backward)


def outlier_scores(X: np.ndarray, method: str, *, seed: int = 0) -> np.ndarray:
    """Outlier scores from scikit-learn (larger = more anomalous); thesis section 6.2 future work.

    ``iforest``: minus IsolationForest.score_samples. ``ocsvm``: minus the decision function of
    a OneClassSVM (RBF, nu = 0.1; with a much smaller nu an isolated record becomes a boundary
    support vector scoring ~0) fitted on at most 5,000 rows drawn with ``seed`` (its cost grows
    quadratically with n) and evaluated on every row.

    Parameters
    ----------
    X : numpy.ndarray
        Encoded rows.
    method : {"iforest", "ocsvm"}
        The detector.
    seed : int
        Its seed.

    Returns
    -------
    numpy.ndarray
        One score per row.

    Raises
    ------
    ParameterError
        For an unknown method.
    """
    from sklearn.ensemble import IsolationForest
    from sklearn.svm import OneClassSVM

    X = np.asarray(X, dtype=np.float64)
    if method == "iforest":
        model = IsolationForest(n_estimators=200, random_state=seed, n_jobs=1).fit(X)
        return -model.score_samples(X)
    if method == "ocsvm":
        rng = np.random.default_rng(seed)
        fit_rows = X
        if X.shape[0] > OCSVM_MAX_FIT_ROWS:
            fit_rows = X[rng.choice(X.shape[0], OCSVM_MAX_FIT_ROWS, replace=False)]
        model = OneClassSVM(kernel="rbf", gamma="scale", nu=0.1).fit(fit_rows)
        return -model.decision_function(X)
    raise ParameterError(f"unknown outlier method {method!r}; use 'iforest' or 'ocsvm'")


def target_scores(X: np.ndarray, method: str, *, seed: int = 0, alpha: float = 2.0) -> np.ndarray:
    """Per-record exposure scores of ``method`` (``random`` has none: it returns Mahalanobis)."""
    if method in ("random", "mah-max"):
        return mahalanobis_distances(X)
    if method in ("iforest", "ocsvm"):
        return outlier_scores(X, method, seed=seed)
    if method == "divergence":
        return divergence_scores(X, alpha=alpha)
    raise ParameterError(
        f"unknown target choice {method!r}; use one of {', '.join(TARGET_METHODS)} or a row index"
    )


def choose_target(
    X: np.ndarray, method: str | int, *, seed: int = 0, alpha: float = 2.0
) -> tuple[TargetChoice, np.ndarray]:
    """Section 3.3.2: pick the target row; also return the per-record scores used for ranking.

    ``random`` draws a row uniformly with ``seed`` (the game of Stadler et al.); ``mah-max``,
    ``iforest``, ``ocsvm`` and ``divergence`` take the arg-max of their score (ties: lowest row);
    an int picks that row. Ranking scores are those of the method, Mahalanobis for ``random``
    and an explicit row.

    Parameters
    ----------
    X : numpy.ndarray
        Encoded complete rows.
    method : str or int
        ``random``, ``mah-max``, ``iforest``, ``ocsvm``, ``divergence`` or a row.
    seed : int
        Seed of ``random`` and of the outlier detectors.
    alpha : float
        Rényi order of ``divergence``.

    Returns
    -------
    tuple
        The :class:`TargetChoice` and the per-record ranking scores.

    Raises
    ------
    ParameterError
        For an unknown method.
    SynthcertError
        When the row is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    >>> choose_target(X, "mah-max")[0].row
    4
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    mah = mahalanobis_distances(X)
    if isinstance(method, (int, np.integer)) or (isinstance(method, str) and method.isdigit()):
        row = int(method)
        if not 0 <= row < n:
            raise SynthcertError(f"target row {row} is outside the {n} complete rows (0..{n - 1})")
        choice = TargetChoice("row", row, float(mah[row]), float(mah[row]), "mah-max")
        return choice, mah
    if method == "random":
        row = int(np.random.default_rng(seed).integers(n))
        return TargetChoice("random", row, None, float(mah[row]), "mah-max"), mah
    scores = mah if method == "mah-max" else target_scores(X, method, seed=seed, alpha=alpha)
    row = int(np.argmax(scores))
    return TargetChoice(method, row, float(scores[row]), float(mah[row]), method), scores


def top_at_risk(scores: np.ndarray, k: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Rows and scores of the ``k`` records with the largest scores (stable order on ties)."""
    order = np.argsort(-np.asarray(scores), kind="stable")[:k]
    return order, np.asarray(scores)[order]
