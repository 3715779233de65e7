"""CTGAN's missing values: the missingness pattern as one discrete variable, sampled first.

A GAN learns each column's missing share only as well as it trains, and CTGAN's
training-by-sampling (conditional vectors drawn with log-frequency weights) and a few epochs
leave the shares far off (0.59-0.70 for a real 0.85 on the loan-book fixture), while one
indicator column per nullable column lets a block of columns that are missing together drift
apart. So the missingness is not learned by the GAN; it is modelled directly:

* the *pattern* of a row is the tuple of missing indicators of the nullable columns, written
  as the label ``"m" + bits`` (``"m0110"``: the second and third nullable columns missing);
  columns that are always missing together (a *block*, as joint income for individual
  applications) share one pattern, so a block can never come apart;
* its distribution is estimated exactly without DP (the observed patterns and their shares),
  and with DP as a noisy histogram over every pattern of the public domain (below);
* a synthetic table draws each row's pattern from that distribution first, then the values
  conditionally on it, and blanks the cells the pattern marks missing. The missing shares and
  the joint pattern are therefore those of the estimated distribution, whatever the number of
  epochs.

Without DP, the pattern is one more discrete column of ``ctgan.CTGAN`` (the missing cells of a
numeric column hold a public fill, those of a categorical column the extra level
``MISSING_LEVEL``), and rows are drawn with ``CTGAN.sample(k, condition_column,
condition_value)`` per pattern. With DP, the generator takes the pattern's bits next to its
noise, and its output for a nullable column is the missing code where the pattern says
missing and a Gumbel-softmax over the column's other codes elsewhere
(:class:`PatternConditioner`).

DP accounting (the DP-CTGAN variant of :mod:`synthcert.synthesizers.ctgan`)
--------------------------------------------------------------------------
*Neighbouring relation*: add/remove one row (unbounded; the table size n is private).

*Pattern histogram*: the k nullable columns (public, from the schema) are cut into G groups of
at most :data:`MAX_GROUP_COLUMNS` consecutive columns; for each group the counts of all
2^|g| patterns are measured (a public domain: cells that no row holds are measured too).
One row adds 1 to exactly one cell of each group, so the vector of all counts has L2
sensitivity Delta_2 = sqrt(G). The discrete Gaussian with sigma^2 >= Delta_2^2 / (2 rho) is
rho-zCDP (Canonne, Kamath & Steinke 2020, Thm. 4, and Thm. 14 for a vector;
:func:`~synthcert.privacy.mechanisms.gaussian_mechanism`), i.e. (alpha, alpha rho)-RDP for
every alpha > 1 (Bun & Steinke 2016, Def. 1.1). rho = share x rho_total, with rho_total the
zCDP budget of (epsilon, delta) by the standard conversion
(:func:`~synthcert.privacy.accountant.rho_from_epsilon_delta`) and share
:data:`PATTERN_BUDGET_SHARE` (a public constant).

*DP-SGD*: T steps of the subsampled Gaussian (sampling rate q, noise multiplier sigma,
sensitivity C), eps_SGD(alpha) by Mironov, Talwar & Zhang (2019) (Opacus ``compute_rdp``).

*Composition*: RDP adds at each order (Mironov 2017, Prop. 1), so the fit is
(alpha, eps_SGD(alpha) + alpha rho)-RDP, converted to (epsilon, delta)-DP by Canonne, Kamath &
Steinke (2020) Prop. 12 at the best order of the grid, by the privacy core's composition
(:mod:`synthcert.privacy.dpsgd`). :func:`~synthcert.privacy.dpsgd.calibrate_noise_multiplier`
finds the smallest sigma whose composed epsilon is at most the requested one, so the total
claim (epsilon, delta) is unchanged; the accountant records both mechanisms (a zCDP entry and
the RDP curve) and checks the sum. Everything after the noise is post-processing: the
projection of the noisy counts onto the simplex, the patterns drawn for fake and synthetic
rows, and the generator (which sees the data only through the private discriminator).

Without nullable columns (or with ``missing="drop"``) nothing here runs: no budget is spent on
patterns, the fit is the one of :mod:`synthcert.synthesizers.ctgan` alone, and the claim names
DP-SGD only (which mechanisms a claim names follows from the schema and the policy, both
public, never from the data).

*Neighbouring relation, checked*: the sqrt(G) above is the add/remove sensitivity; under
replacement one record leaves a cell and enters another in every group, sqrt(2 G). DP-CTGAN
declares add/remove (``CTGANSynthesizer.neighboring``), and
``tests/test_attack_findings.py`` checks the calibrated sensitivity against the worst shift
over every neighbour of the declared relation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from synthcert.errors import AssumptionError
from synthcert.privacy.accountant import PrivacyAccountant, rho_from_epsilon_delta
from synthcert.privacy.dpsgd import calibrate_noise_multiplier, composed_epsilon
from synthcert.privacy.mechanisms import gaussian_mechanism

if TYPE_CHECKING:
    import torch

PATTERN_COLUMN = "__missing_pattern__"  # the discrete column of patterns given to ctgan
MISSING_LEVEL = "__missing__"  # the extra category of a nullable categorical column (ctgan)
PATTERN_BUDGET_SHARE = 0.1  # DP: share of the zCDP budget rho_total spent on the histogram
MAX_GROUP_COLUMNS = 8  # DP: at most 2^8 = 256 cells per pattern histogram
MAX_REDRAWS = 10  # no DP: rounds of redrawing rows whose present category came out missing


# -- patterns -----------------------------------------------------------------------------
def pattern_labels(absent: np.ndarray) -> np.ndarray:
    """Labels ``"m" + bits`` of the rows of a boolean missing-indicator matrix (n, k).

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean (n, k): True where the row's value of nullable column j is missing.

    Returns
    -------
    numpy.ndarray
        Object array of n strings, e.g. ``"m010"`` (a function of the schema and the bits
        only, so public as a name).
    """
    absent = np.asarray(absent, dtype=bool)
    if absent.ndim != 2:
        raise ValueError("absent must be a 2-d boolean matrix")
    bits = np.where(absent, "1", "0").astype(object)
    out = np.full(len(absent), "m", dtype=object)
    for j in range(absent.shape[1]):
        out = out + bits[:, j]
    return out


def label_bits(labels: Sequence[str] | np.ndarray, k: int) -> np.ndarray:
    """The boolean (n, k) matrix of pattern labels (inverse of :func:`pattern_labels`).

    Parameters
    ----------
    labels : sequence of str
        Labels ``"m" + k bits``.
    k : int
        Number of nullable columns.

    Returns
    -------
    numpy.ndarray
        Boolean (n, k) matrix.

    Raises
    ------
    ValueError
        If a label is not ``"m"`` followed by k bits.
    """
    text = [str(s) for s in labels]
    if any(len(s) != k + 1 or s[0] != "m" or set(s[1:]) - {"0", "1"} for s in text):
        raise ValueError(f"pattern labels must be 'm' followed by {k} bits")
    if not text:
        return np.zeros((0, k), dtype=bool)
    return np.array([[c == "1" for c in s[1:]] for s in text], dtype=bool).reshape(-1, k)


def missing_blocks(absent: np.ndarray, names: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Groups of nullable columns whose values are missing in exactly the same rows.

    Data-derived (no DP): a description of the fitted table, e.g.
    ``(("annual_inc_joint", "dti_joint", "verification_status_joint"), ...)``. Columns
    never missing in the table form no block.

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean (n, k) missing indicators.
    names : sequence of str
        The k column names.

    Returns
    -------
    tuple of tuple of str
        Blocks in order of first column, each with its columns in schema order.
    """
    absent = np.asarray(absent, dtype=bool)
    seen: dict[bytes, list[str]] = {}
    for j, name in enumerate(names):
        if absent[:, j].any():
            seen.setdefault(np.packbits(absent[:, j]).tobytes(), []).append(name)
    return tuple(tuple(block) for block in seen.values())


@dataclass(frozen=True)
class PatternDistribution:
    """A distribution of missingness patterns: independent groups of nullable columns.

    ``patterns[g]`` is a boolean (p_g, |groups[g]|) matrix of the group's patterns and
    ``probs[g]`` their probabilities; a row's pattern joins one independent draw per group.
    The exact estimate has a single group (the joint distribution of all nullable columns).
    """

    names: tuple[str, ...]
    groups: tuple[tuple[int, ...], ...]
    patterns: tuple[np.ndarray, ...]
    probs: tuple[np.ndarray, ...]

    @property
    def k(self) -> int:
        """Number of nullable columns."""
        return len(self.names)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw n patterns: a boolean (n, k) matrix of missing indicators."""
        out = np.zeros((n, self.k), dtype=bool)
        for cols, pats, p in zip(self.groups, self.patterns, self.probs, strict=True):
            idx = rng.choice(len(p), size=n, p=p)
            out[:, list(cols)] = pats[idx]
        return out

    def column_shares(self) -> np.ndarray:
        """Missing share of each nullable column under the distribution (length k)."""
        out = np.zeros(self.k)
        for cols, pats, p in zip(self.groups, self.patterns, self.probs, strict=True):
            out[list(cols)] = p @ pats
        return out

    def torch_sample(self, n: int) -> torch.Tensor:
        """Draw n patterns with torch's global generator (seeded by the caller): float (n, k)."""
        import torch

        out = torch.zeros(n, self.k)
        for cols, pats, p in zip(self.groups, self.patterns, self.probs, strict=True):
            idx = torch.multinomial(torch.as_tensor(p, dtype=torch.float64), n, replacement=True)
            out[:, list(cols)] = torch.as_tensor(pats, dtype=torch.float32)[idx]
        return out


def exact_patterns(absent: np.ndarray, names: Sequence[str]) -> PatternDistribution:
    """The empirical joint distribution of the observed patterns (no DP).

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean (n, k) missing indicators of the table, n >= 1.
    names : sequence of str
        The k nullable columns.

    Returns
    -------
    PatternDistribution
        One group; its patterns are the distinct rows of ``absent``, with their shares.
    """
    absent = np.asarray(absent, dtype=bool)
    if len(absent) == 0:
        raise ValueError("the pattern distribution needs at least one row")
    pats, counts = np.unique(absent, axis=0, return_counts=True)
    return PatternDistribution(
        tuple(names), (tuple(range(len(names))),), (pats,), (counts / counts.sum(),)
    )


def column_groups(k: int, max_group: int = MAX_GROUP_COLUMNS) -> tuple[tuple[int, ...], ...]:
    """The public cut of k nullable columns into consecutive groups of at most max_group."""
    if max_group < 1:
        raise AssumptionError("max_group must be at least 1", assumption="max_group >= 1")
    return tuple(tuple(range(s, min(s + max_group, k))) for s in range(0, k, max_group))


def all_patterns(width: int) -> np.ndarray:
    """Every pattern of ``width`` columns, (2^width, width), in binary counting order."""
    codes = np.arange(2**width)
    return ((codes[:, None] >> np.arange(width - 1, -1, -1)[None, :]) & 1).astype(bool)


def project_to_simplex(y: np.ndarray, total: float) -> np.ndarray:
    """Euclidean projection of y onto {x >= 0, sum x = total} (total > 0).

    x_i = max(y_i - tau, 0) with tau solving sum x = total (Held, Wolfe & Crowder 1974;
    Duchi et al. 2008, Fig. 1): the least-squares consistent histogram of noisy counts, which
    removes the positive mass that clipping alone leaves on empty cells.
    """
    y = np.asarray(y, dtype=np.float64)
    if not total > 0:
        raise ValueError("total must be positive")
    u = np.sort(y)[::-1]
    css = np.cumsum(u) - total
    idx = np.arange(1, len(u) + 1)
    rho = int(np.nonzero(u - css / idx > 0)[0][-1])
    tau = css[rho] / (rho + 1)
    return np.maximum(y - tau, 0.0)


def pattern_counts(absent: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """The concatenated histograms of the groups' patterns (cells in binary counting order).

    One row adds 1 to exactly one cell of each group's histogram, so adding or removing a row
    moves the vector by sqrt(G) in L2 norm (G = number of groups).

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean (n, k) missing indicators.
    groups : sequence of sequence of int
        The column groups (:func:`column_groups`).

    Returns
    -------
    numpy.ndarray
        Integer counts, sum over groups of 2^|g| cells.
    """
    absent = np.asarray(absent, dtype=bool)
    counts = []
    for cols in groups:
        width = len(cols)
        weights = 1 << np.arange(width - 1, -1, -1)
        cells = absent[:, list(cols)].astype(np.int64) @ weights
        counts.append(np.bincount(cells, minlength=2**width))
    return np.concatenate(counts)


def l2_sensitivity_of_groups(groups: int) -> float:
    """sqrt(G) rounded up to a float whose square is at least G (one cell per group moves)."""
    s = math.sqrt(groups)
    while Fraction(s) ** 2 < groups:
        s = math.nextafter(s, math.inf)
    return s


def noisy_patterns(
    absent: np.ndarray,
    names: Sequence[str],
    rho: float,
    *,
    rng: np.random.Generator,
    accountant: PrivacyAccountant | None = None,
    max_group: int = MAX_GROUP_COLUMNS,
) -> PatternDistribution:
    """A rho-zCDP estimate of the pattern distribution (module docstring, "DP accounting").

    Parameters
    ----------
    absent : numpy.ndarray
        Boolean (n, k) missing indicators (private).
    names : sequence of str
        The k nullable columns (public).
    rho : float
        zCDP budget of the histogram.
    rng : numpy.random.Generator
        The private generator of the noise.
    accountant : PrivacyAccountant, optional
        Records the Gaussian mechanism (rho-zCDP).
    max_group : int
        Columns per group: each group's histogram has 2^max_group cells at most.

    Returns
    -------
    PatternDistribution
        One group per public column group, all 2^|g| patterns with the projected noisy
        shares (uniform if every noisy count is at most 0).
    """
    absent = np.asarray(absent, dtype=bool)
    groups = column_groups(len(names), max_group)
    noisy = gaussian_mechanism(
        pattern_counts(absent, groups).astype(np.float64),
        l2_sensitivity_of_groups(len(groups)),
        rho=rho,
        integer=True,
        rng=rng,
        accountant=accountant,
        name="gaussian:missing-pattern histogram",
    )
    pats, probs, start = [], [], 0
    for cols in groups:
        cells = noisy[start : start + 2 ** len(cols)]
        start += len(cells)
        total = float(cells.sum())
        p = project_to_simplex(cells, total) if total > 0 else np.ones(len(cells))
        pats.append(all_patterns(len(cols)))
        probs.append(p / p.sum())
    return PatternDistribution(tuple(names), groups, tuple(pats), tuple(probs))


# -- DP accounting ------------------------------------------------------------------------
def pattern_rho(epsilon: float, delta: float, share: float = PATTERN_BUDGET_SHARE) -> float:
    """rho of the pattern histogram: share x rho_total(epsilon, delta) (standard conversion).

    Raises
    ------
    AssumptionError
        If share is not in (0, 1).
    """
    if not 0 < share < 1:
        raise AssumptionError(
            f"the pattern histogram's budget share must be in (0, 1), got {share}",
            assumption="0 < share < 1",
            admissible="for example 0.1",
        )
    return share * rho_from_epsilon_delta(epsilon, delta)


# -- no DP: ctgan.CTGAN conditioned on the pattern ---------------------------------------
def sample_by_pattern(
    model: Any,
    absent: np.ndarray,
    *,
    categorical: dict[int, str] | None = None,
    other_categorical: Sequence[str] = (),
) -> pd.DataFrame:
    """Rows of a fitted ``ctgan.CTGAN`` drawn conditionally on given patterns.

    Row i is drawn by ``model.sample(., PATTERN_COLUMN, label_i)`` (one call per distinct
    pattern) and its ``PATTERN_COLUMN`` set to ``label_i``. A row with ``MISSING_LEVEL`` in a
    categorical cell the pattern marks present is redrawn, at most :data:`MAX_REDRAWS` times
    (the cell stays missing if the generator insists).

    Parameters
    ----------
    model : ctgan.CTGAN
        Fitted on a frame with the discrete column ``PATTERN_COLUMN``; seeded by the caller.
    absent : numpy.ndarray
        Boolean (n, k): the patterns of the rows to draw.
    categorical : dict of int to str, optional
        Nullable categorical columns: position in the pattern -> column name.
    other_categorical : sequence of str
        Categorical columns that are not nullable (never missing).

    Returns
    -------
    pandas.DataFrame
        n rows in the order of ``absent``.
    """
    categorical = categorical or {}
    labels = pattern_labels(absent)
    out: pd.DataFrame | None = None
    todo = np.arange(len(labels))
    for _ in range(MAX_REDRAWS + 1):
        parts = []
        for label in sorted(set(labels[todo])):
            rows = todo[labels[todo] == label]
            part = model.sample(len(rows), condition_column=PATTERN_COLUMN, condition_value=label)
            part.index = rows
            parts.append(part)
        drawn = pd.concat(parts).sort_index()
        drawn[PATTERN_COLUMN] = labels[drawn.index]
        out = drawn if out is None else pd.concat([out.drop(index=drawn.index), drawn])
        out = out.sort_index()
        bad = np.zeros(len(out), dtype=bool)
        for j, name in categorical.items():
            bad |= (out[name].astype(str).to_numpy() == MISSING_LEVEL) & ~absent[:, j]
        for name in other_categorical:
            bad |= out[name].astype(str).to_numpy() == MISSING_LEVEL
        todo = np.flatnonzero(bad)
        if not len(todo):
            break
    assert out is not None
    return out.reset_index(drop=True)


# -- DP: the generator conditioned on the pattern ----------------------------------------
class PatternConditioner:
    """The DP generator's pattern input and its masked output activation.

    The generator gets ``[z, m]`` (noise and the k missing bits of the row). Its output for
    nullable column ``j`` (span ``s_j`` of the one-hot layout, missing code ``c_j``) is the
    one-hot of ``c_j`` where ``m_j = 1`` and a Gumbel-softmax over the other codes where
    ``m_j = 0``; other columns are a plain Gumbel-softmax (ctgan's activation).

    Parameters
    ----------
    spans : sequence of int
        Width of each column's one-hot span, in schema order.
    missing_codes : sequence of (int, int)
        For each nullable column in pattern order: (span index, missing code in the span).
    patterns : PatternDistribution
        The (noisy) pattern distribution the fake and synthetic rows draw from.
    """

    def __init__(
        self,
        spans: Sequence[int],
        missing_codes: Sequence[tuple[int, int]],
        patterns: PatternDistribution,
    ) -> None:
        if len(missing_codes) != patterns.k:
            raise ValueError("one missing code per nullable column of the patterns")
        self.spans = [int(w) for w in spans]
        self.missing_codes = [(int(j), int(c)) for j, c in missing_codes]
        self.patterns = patterns
        self._slot = {j: (i, c) for i, (j, c) in enumerate(self.missing_codes)}

    @property
    def k(self) -> int:
        """Width of the pattern input (number of nullable columns)."""
        return len(self.missing_codes)

    def generate(self, gen: Any, rows: int, embedding_dim: int, hard: bool = False) -> Any:
        """``rows`` fake rows: z ~ N(0, I), m ~ patterns, activate(gen([z, m]), m).

        Draws from torch's global generator (seeded by the caller), z first.
        """
        import torch

        z = torch.randn(rows, embedding_dim)
        m = self.patterns.torch_sample(rows)
        return self.activate(gen(torch.cat([z, m], dim=1)), m, hard=hard)

    def activate(self, raw: Any, m: Any, hard: bool = False) -> Any:
        """The masked activation (class docstring) of generator output ``raw`` under ``m``."""
        import torch
        from torch.nn import functional

        parts, st = [], 0
        for j, width in enumerate(self.spans):
            logits = raw[:, st : st + width]
            st += width
            if j not in self._slot:
                parts.append(functional.gumbel_softmax(logits, tau=0.2, hard=hard))
                continue
            i, code = self._slot[j]
            mask = torch.zeros(width, dtype=torch.bool)
            mask[code] = True
            present = functional.gumbel_softmax(
                logits.masked_fill(mask, float("-inf")), tau=0.2, hard=hard
            )
            missing = mask.to(present.dtype).expand_as(present)
            parts.append(torch.where(m[:, i : i + 1] > 0.5, missing, present))
        return torch.cat(parts, dim=1)


__all__ = [
    "MAX_GROUP_COLUMNS",
    "MISSING_LEVEL",
    "PATTERN_BUDGET_SHARE",
    "PATTERN_COLUMN",
    "PatternConditioner",
    "PatternDistribution",
    "all_patterns",
    "calibrate_noise_multiplier",
    "column_groups",
    "composed_epsilon",
    "exact_patterns",
    "label_bits",
    "missing_blocks",
    "noisy_patterns",
    "pattern_counts",
    "pattern_labels",
    "pattern_rho",
    "project_to_simplex",
    "sample_by_pattern",
]
