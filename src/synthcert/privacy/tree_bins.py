"""DP tree bins: bin edges and a decoding law from a noisy dyadic histogram on a public grid.

A numeric column declared ``"bins": "dp-tree"`` (or, by default, every numeric column without
declared bins or a declared log scale of a discretising DP synthesizer) gets k bins of about
equal mass read off a noisy hierarchical histogram (Hay, Rastogi, Miklau & Suciu 2010), and the
post-processed mass of every fine cell, by which a value is decoded inside its bin
(:func:`synthcert.data.discretize.cell_values`): a fine cell by its mass, then uniformly within
it, so a wide top bin that is mostly empty is not sampled uniformly.

**The grid (public).** 2^L fine cells of equal width on the column's scale (x, or
log(1 + x - lower) for a declared ``"scale": "log"``) between the public bounds
(:func:`~synthcert.data.discretize.fine_edges`); L = :data:`DEPTH` by default. The histogram's
levels l = 1..L hold the counts of the 2^l dyadic intervals of that grid; a value outside the
bounds counts in an end cell (clipped, as the discretiser codes it), a missing value in none.

**The atom (public rule, DP decision).** A column whose atoms come from the public default
rule (0 when it is a bound: :attr:`~synthcert.data.schema.NumericColumn.atom_values`) has one
more released count per such atom: the records equal to it, which the levels do not count
(their code is the atom's own). The atom is kept when its noisy count reaches
:data:`ATOM_SD` = 3 noise standard deviations (an empty atom passes with probability 0.13 %
under Gaussian noise, 0.72 % under Laplace noise; at theta's two, 2.3 % of the columns with a
bound at 0 and no record there got exact zeros from Gaussian noise), else the column gets
``atoms = ()`` and the atom's noisy count, when it reaches :data:`END_SD` sd, goes back into the
tree at the cell holding its value (:func:`restore_atom`), which is then an ordinary value of
that cell (below one sd it is read as noise, as the tail rule reads an end leaf: restoring
every count made California's 2-way TV 1.6 % worse, its seven bounds at 0 holding nobody).
Declared atoms are kept as declared, and not counted.

**Sensitivity.** Adding or removing one record changes one count per level by 1, or one
atom's count by 1: L1 sensitivity max(L, 1) = L, L2 sqrt(L). Replacing one record moves one
unit per level from one count to another (2L, sqrt(2L)), or from an atom to the levels
(L + 1 <= 2L, sqrt(L + 1) <= sqrt(2L)), or between two atoms (2, sqrt(2)): L1 2L, L2 sqrt(2L)
for every L >= 1, the same as without atoms. The step keeps the synthesizer's neighbouring relation
(``neighboring`` of its class) and pays in the synthesizer's own privacy model:

* a zCDP synthesizer (AIM, MWEM-PGM): discrete Gaussian noise on every level's counts,
  rho_c-zCDP per column with sigma^2 = Delta_2^2 / (2 rho_c) (Canonne, Kamath & Steinke 2020,
  Thm. 4); the step's rho_b = SHARE x rho is *added* to the synthesizer's rho (zCDP
  composition, Bun & Steinke 2016, Lemma 2.3) and the synthesizer runs on rho - rho_b, so the
  run's claim stays rho-zCDP with the requested (epsilon, delta) (:meth:`TreeBins.compose`);
* any other DP synthesizer (PrivBayes and the DP copula, pure epsilon): discrete Laplace noise
  with scale Delta_1 / epsilon_c, epsilon_c-DP per column; the step's epsilon_b = SHARE x
  epsilon is added by basic composition (thesis Prop. 2.3.16).

The budget is split equally over the columns. **Private**: the values and their counts.
**Public**: the bounds, the scale, L, k, SHARE, theta's rule, and the step's outputs
(the noisy counts and everything computed from them, which is post-processing).

**Post-processing.** (1) Constrained inference: the least-squares consistent tree of the noisy
counts (Hay et al. 2010, Theorem 3, two passes per level-1 subtree; :func:`consistent_tree`).
(2) Leaves and masses, top-down (:func:`allocate`): the root's mass is the sum of the level-1
estimates; a node whose estimate reaches theta = :data:`FLOOR_SD` x the noise's standard
deviation passes its mass to its children in proportion to their estimates clipped at 0; a node
below theta is a *leaf*, whose mass is spread over its fine cells by their public capacity (the
noise hides any shape inside it, so the tree is not read below it). Every stretch keeps its own
estimate: a floor on each child instead (zeroing a child below theta) moved a sparse stretch's
mass into its dense sibling, up to theta per node. The tail rule (:func:`trim_empty_ends`):
a leaf below theta hanging off the outer edge of the resolved tree is cleared when it is wider
than all the data the tree resolved or below :data:`END_SD` noise standard deviations, so the
empty top of a long tail holds no noise-level mass that would become outliers; cleared
leaves join the bin next to them. (3) Bins (:func:`leaf_cuts`): every remaining leaf is a bin
when there are at most k of them, so the synthesizer measures the mass of each stretch the tree
resolved; otherwise :func:`equal_mass_cuts` groups
runs of whole leaves left to right, closing a bin where its mass reaches the remaining mass over
the remaining bins (at least theta), so atoms (a value held by most records) take one bin and
the rest is split again; a last bin below theta is merged into its neighbour. The number of bins
thus follows the table's size at a given budget (about total / theta leaves), by a rule of
public quantities and DP outputs only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from synthcert.data.discretize import atom_index, cell_capacity, fine_codes, fine_edges
from synthcert.data.schema import DEFAULT_QUANTILE_BINS, FINE_CELLS, NumericColumn, Schema
from synthcert.errors import AssumptionError, ParameterError
from synthcert.privacy.accountant import (
    PrivacyAccountant,
    Spent,
    rho_from_epsilon_delta,
    zcdp_epsilon,
)
from synthcert.privacy.bins_step import BinsStep
from synthcert.privacy.claims import Assumption, PrivacyClaim
from synthcert.privacy.mechanisms import gaussian_mechanism, laplace_mechanism
from synthcert.privacy.quantile_bins import (
    compose_basic,
    parsed_values,
    read_counts,
    step_rng,
    undeclared_share,
    with_bins,
    with_columns,
)

DEPTH = FINE_CELLS.bit_length() - 1  # 2^10 = 1024 public fine cells per column
FLOOR_SD = 2.0  # theta: a node below FLOOR_SD noise standard deviations is a leaf
END_SD = 1.0  # the tail rule also clears an end leaf below END_SD noise standard deviations
ATOM_SD = 3.0  # a default atom is kept when its noisy count reaches ATOM_SD noise sd
DEFAULT_SHARE = 0.1  # share of the synthesizer's budget spent on default tree bins
GAUSSIAN_MECHANISM = "Gaussian noise (dyadic histogram: DP tree bins)"
LAPLACE_MECHANISM = "Laplace noise (dyadic histogram: DP tree bins)"
Rng = np.random.Generator


def level_counts(leaves: np.ndarray) -> np.ndarray:
    """The counts of levels 1..L of the dyadic tree over 2^L leaf counts, level 1 first
    (2 + 4 + ... + 2^L = 2^(L+1) - 2 counts); each level sums pairs of the one below."""
    leaves = np.asarray(leaves)
    depth = round(math.log2(len(leaves)))
    if len(leaves) != 2**depth or depth < 1:
        raise ParameterError(f"the leaves must be 2^L >= 2 counts, got {len(leaves)}")
    levels = [leaves]
    while len(levels[-1]) > 2:
        levels.append(levels[-1].reshape(-1, 2).sum(axis=1))
    return np.concatenate(levels[::-1])


def split_levels(flat: np.ndarray) -> list[np.ndarray]:
    """Inverse of the concatenation of :func:`level_counts`: [level 1, ..., level L]."""
    out, start, size = [], 0, 2
    while start < len(flat):
        out.append(np.asarray(flat[start : start + size], dtype=np.float64))
        start, size = start + size, size * 2
    return out


def sensitivity(depth: int, neighboring: str, norm: int) -> float:
    """Sensitivity of the L = ``depth`` levels' counts: L1 L or 2L, L2 sqrt(L) or sqrt(2L)
    (add/remove resp. replace-one; module docstring). The square root is rounded up."""
    per_level = 2 if neighboring == "bounded" else 1
    if norm == 1:
        return float(per_level * depth)
    root = math.sqrt(per_level * depth)
    return math.nextafter(root, math.inf)


def consistent_tree(levels: list[np.ndarray]) -> list[np.ndarray]:
    """Least-squares consistent estimates of a noisy binary tree with equal noise per node
    (Hay et al. 2010, Theorem 3), each level-1 node the root of its own subtree.

    Bottom-up: z = h at the leaves; at height i, z(v) = (2^i - 2^(i-1)) / (2^i - 1) h(v) +
    (2^(i-1) - 1) / (2^i - 1) (z(left) + z(right)). Top-down: hbar = z at level 1; below,
    hbar(u) = z(u) + (hbar(parent) - z(u) - z(sibling)) / 2.
    """
    depth = len(levels)
    z = [np.asarray(h, dtype=np.float64) for h in levels]
    for lev in range(depth - 2, -1, -1):  # level index lev has height depth - lev
        i = depth - lev
        kids = z[lev + 1].reshape(-1, 2).sum(axis=1)
        z[lev] = ((2.0**i - 2.0 ** (i - 1)) * z[lev] + (2.0 ** (i - 1) - 1.0) * kids) / (
            2.0**i - 1.0
        )
    hbar = [z[0]]
    for lev in range(1, depth):
        pair = z[lev].reshape(-1, 2).sum(axis=1)
        hbar.append(z[lev] + np.repeat((hbar[-1] - pair) / 2.0, 2))
    return hbar


def allocate(
    estimates: list[np.ndarray], capacity: np.ndarray, split_at: float
) -> tuple[np.ndarray, np.ndarray]:
    """Fine-cell masses and the tree's leaves, top-down from a consistent tree (module
    docstring, step 2).

    The root holds the sum of the level-1 estimates. A node whose consistent estimate is at
    least ``split_at`` (theta) is *resolved*: its mass is shared between its children in
    proportion to their estimates clipped at 0 (by public capacity when neither is positive).
    A node below theta is a *leaf*: the noise hides how its mass is spread inside it, so the
    tree is not read below it and its mass is shared over its fine cells by capacity. A node
    of the last level is a leaf too. Every leaf thus keeps its own (clipped) estimate: a
    sparse stretch next to a dense one is not emptied in the dense one's favour, which a noise
    floor on every child did (it moved up to theta per node: on 6,000 California rows the
    tenth of longitude west of -122.3 was squeezed into the last 0.1 degree of its bin).

    Parameters
    ----------
    estimates
        Consistent estimates of levels 1..L (:func:`consistent_tree`).
    capacity
        Public size of each of the 2^L fine cells (:func:`~synthcert.data.discretize.
        cell_capacity`); cells of capacity 0 (no integer) get no mass.
    split_at
        theta: a node below it is a leaf.

    Returns
    -------
    mass : numpy.ndarray
        Non-negative masses of the fine cells, summing to max(0, level-1 total) (up to the
        cells of capacity 0); zero when the total is not positive.
    leaf_edges : numpy.ndarray
        Indices 0 = l_0 < l_1 < ... < l_m = 2^L of the fine edges that bound the leaves.

    Examples
    --------
    >>> est = split_levels(level_counts(np.array([0, 0, 1, 99, 50, 50, 0, 0])).astype(float))
    >>> mass, leaves = allocate(est, np.ones(8), split_at=10.0)
    >>> mass.tolist(), leaves.tolist()
    ([0.0, 0.0, 1.0, 99.0, 50.0, 50.0, 0.0, 0.0], [0, 2, 3, 4, 5, 6, 8])
    """
    cap = np.asarray(capacity, dtype=np.float64)
    cells, depth = len(cap), len(estimates)
    mass = np.array([max(float(estimates[0].sum()), 0.0)])  # the root, always resolved
    in_leaf = np.array([False])  # inside a leaf: mass shared by capacity from here down
    leaf_level = np.array([depth - 1])  # the level of each node's leaf (last level if none)
    for level, est in enumerate(estimates):
        w = np.maximum(est, 0.0).reshape(-1, 2)
        node_cap = cap.reshape(len(est), -1).sum(axis=1).reshape(-1, 2)
        by_mass = w / np.maximum(w.sum(axis=1), np.finfo(np.float64).tiny)[:, None]
        by_cap = node_cap / np.maximum(node_cap.sum(axis=1), 1.0)[:, None]
        in_leaf = np.repeat(in_leaf, 2)
        spread = in_leaf | np.repeat(w.sum(axis=1) <= 0, 2)
        mass = np.repeat(mass, 2) * np.where(spread, by_cap.ravel(), by_mass.ravel())
        new_leaf = ~in_leaf & (est < split_at)
        leaf_level = np.where(new_leaf, level, np.repeat(leaf_level, 2))
        in_leaf = in_leaf | new_leaf
    cell = np.arange(cells)
    leaf_id = (leaf_level.astype(np.int64) << 32) | (cell >> (depth - 1 - leaf_level))
    leaf_edges = np.concatenate([[0], np.flatnonzero(np.diff(leaf_id)) + 1, [cells]])
    return np.where(cap > 0, mass, 0.0), leaf_edges.astype(np.int64)


def equal_mass_cuts(mass: np.ndarray, bins: int, floor: float) -> np.ndarray:
    """Indices 0 = c_0 < c_1 < ... < c_m = len(mass) of the edges that cut ``mass`` into at
    most ``bins`` bins of about equal mass (module docstring, step 3).

    Left to right, a bin closes at the first edge where its mass reaches
    max(remaining mass / remaining bins, ``floor``); a last bin below ``floor`` is merged into
    the one before it, unless two bins would be left. Without mass (a total of 0) the cuts split
    the cells evenly; with one bin so far, a cut where the mass is halved makes two.
    """
    mass = np.asarray(mass, dtype=np.float64)
    cells = len(mass)
    if bins < 2:
        raise ParameterError(f"tree bins need at least 2 bins, got {bins}")
    if not mass.sum() > 0:
        return np.unique(np.round(np.linspace(0, cells, bins + 1)).astype(np.int64))
    cuts, acc, remaining, left = [0], 0.0, float(mass.sum()), bins
    for i in range(cells - 1):
        acc += mass[i]
        if left > 1 and acc > 0 and acc >= max(remaining / left, floor):
            cuts.append(i + 1)
            remaining -= acc
            acc, left = 0.0, left - 1
    if len(cuts) > 2 and remaining < floor:
        cuts.pop()  # the last bin is too light: merge it into the one before
    if len(cuts) == 1:  # at least two bins: cut where the mass is halved
        half = int(np.searchsorted(np.cumsum(mass), mass.sum() / 2.0)) + 1
        cuts.append(min(max(half, 1), cells - 1))
    cuts.append(cells)
    return np.asarray(cuts, dtype=np.int64)


def resolved_hull(
    estimates: list[np.ndarray], split_at: float, clear: Callable[[float, int], bool]
) -> tuple[int, int]:
    """The fine cells [lo, hi) left by the walks of :func:`trim_empty_ends`: from the root,
    down the outer edge of the resolved tree on each side, an outer child below ``split_at``
    beside a resolved inner child is an end leaf, cleared when ``clear(its estimate, its width
    in cells)`` holds (the walk then goes on in the inner child); otherwise the walk stops."""
    cells = 2 ** len(estimates)
    lo, hi = 0, cells
    for side in (1, 0):  # 1: walk the right edge, 0: the left one
        index = 0  # the root's children are nodes 0 and 1 of level 1
        for level, est in enumerate(estimates):
            kids = (2 * index, 2 * index + 1) if level else (0, 1)
            outer, inner = (kids[1], kids[0]) if side else (kids[0], kids[1])
            if est[outer] >= split_at:
                index = outer
                continue
            width = cells >> (level + 1)  # cells under one node of this level
            if est[inner] < split_at or not clear(float(est[outer]), width):
                break
            if side:
                hi = min(hi, outer * width)
            else:
                lo = max(lo, (outer + 1) * width)
            index = inner
    return lo, hi


def trim_empty_ends(
    estimates: list[np.ndarray],
    mass: np.ndarray,
    leaf_edges: np.ndarray,
    split_at: float,
    clear_below: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The tail rule: a leaf that hangs off the outer edge of the resolved tree gets no mass
    and joins the bin next to it when it is wider than all the data the tree resolved or its
    estimate is below ``clear_below`` (module docstring, step 2).

    From the root, follow the outer edge of the resolved tree down (:func:`resolved_hull`):
    where a resolved node's outer child is a leaf (below theta) and its inner child is
    resolved, that leaf is an *end leaf*: nothing beyond it was resolved. The *core* is what is
    left when every end leaf is cleared. An end leaf wider than the core (below theta and
    wider than all the data the tree could resolve: the empty rest of the public range), or
    below one noise standard deviation, is cleared and the walk goes on inward; the walk stops
    at the first other one. At the ends of the range noise-level mass becomes outliers.
    Measured on 40 fresh seeds (100-139; lognormal rows under bounds 500x the median, 6,000
    rows, a tenth of AIM's rho over ten columns, bins weighted by noisy counts as a
    synthesizer would): without a rule 33 seeds put rows beyond twice the largest real value
    (0.97 % of the rows on average); with the width test alone 5 seeds (up to 4.1 %); with
    the width or the sd test, none. Clearing every end leaf below theta also gives none, but
    moves sparse real ends: the 1-way TV of 6,000 California rows decoded in their own bins
    got worse by up to 0.08, against at most 0.011 for this rule. Interior leaves keep their
    estimates.

    Parameters
    ----------
    estimates
        Consistent estimates of levels 1..L (:func:`consistent_tree`).
    mass, leaf_edges
        The outputs of :func:`allocate` with the same ``split_at``.
    split_at
        theta.
    clear_below
        An end leaf below it is cleared whatever its width (:data:`END_SD` noise standard
        deviations).

    Returns
    -------
    mass : numpy.ndarray
        The masses with the end leaves' cells at 0.
    leaf_edges : numpy.ndarray
        The leaf edges without those inside or at the inner side of the end leaves' runs.

    Examples
    --------
    >>> est = split_levels(level_counts(np.array([1, 0, 30, 40, 2, 1, 0, 3])).astype(float))
    >>> m, e = allocate(est, np.ones(8), 10.0)
    >>> e.tolist()
    [0, 2, 3, 4, 8]
    >>> m, e = trim_empty_ends(est, m, e, 10.0, 0.5)
    >>> m.tolist(), e.tolist()  # [4, 8) is wider than the core [2, 4); [0, 2) is not
    ([0.5, 0.5, 30.0, 40.0, 0.0, 0.0, 0.0, 0.0], [0, 2, 3, 8])
    """
    cells = len(mass)
    out = np.array(mass, dtype=np.float64)
    core = resolved_hull(estimates, split_at, lambda _est, _width: True)
    core_width = core[1] - core[0]
    lo, hi = resolved_hull(
        estimates, split_at, lambda est, width: est < clear_below or width > core_width
    )
    if lo >= hi:
        return out, np.asarray(leaf_edges, dtype=np.int64)
    edges = np.asarray(leaf_edges, dtype=np.int64)
    inner_edges = edges[(edges > lo) & (edges < hi)]
    out[:lo] = 0.0
    out[hi:] = 0.0
    return out, np.concatenate([[0], inner_edges, [cells]]).astype(np.int64)


def leaf_cuts(mass: np.ndarray, leaf_edges: np.ndarray, bins: int, floor: float) -> np.ndarray:
    """The bins' fine-edge indices: every leaf of :func:`allocate` is a bin when there are at
    most ``bins`` leaves; otherwise :func:`equal_mass_cuts` of the leaves' masses, so a bin is
    always a run of whole leaves (its law inside is the leaves' masses, each spread by
    capacity, and never a shape the noise could not resolve). A single leaf is cut in two
    where its mass is halved (a column needs two bins)."""
    leaf_edges = np.asarray(leaf_edges, dtype=np.int64)
    if len(leaf_edges) < 3:  # one leaf (everything else cleared): cut where the mass halves
        return equal_mass_cuts(mass, 2, floor)
    if len(leaf_edges) - 1 <= bins:
        return leaf_edges
    leaf_mass = np.add.reduceat(np.asarray(mass, dtype=np.float64), leaf_edges[:-1])
    return leaf_edges[equal_mass_cuts(leaf_mass, bins, floor)]


def merge_empty_bins(cuts: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """The cuts without those that leave a bin of zero public capacity (an integer column's
    bin between two consecutive integers, which no value can fall in): such a bin joins its
    left neighbour (the first bin its right one). Post-processing of public sizes only.

    Examples
    --------
    >>> merge_empty_bins(np.array([0, 2, 3, 6]), np.array([1, 0, 0, 1, 0, 1])).tolist()
    [0, 3, 6]
    """
    out = [int(c) for c in cuts]
    cap = np.asarray(capacity, dtype=np.float64)
    i = 1
    while i < len(out) and len(out) > 2:
        if cap[out[i - 1] : out[i]].sum() > 0:
            i += 1
        elif i > 1:
            del out[i - 1]  # merge into the bin on the left, then look at the merged bin
            i -= 1
        else:
            del out[i]  # the first bin: merge into the bin on the right
    return np.asarray(out, dtype=np.int64)


def noise_sd(noise: str, depth: int, neighboring: str, budget: float) -> float:
    """Standard deviation of one noisy count: sigma = Delta_2 / sqrt(2 rho) (Gaussian) or
    sqrt(2) Delta_1 / epsilon (Laplace), as calibrated by the mechanisms (nominal)."""
    if noise == "gaussian":
        return sensitivity(depth, neighboring, 2) / math.sqrt(2.0 * budget)
    return math.sqrt(2.0) * sensitivity(depth, neighboring, 1) / budget


def tree_bin_column(
    column: NumericColumn,
    leaves: np.ndarray,
    budget: float,
    *,
    noise: str,
    neighboring: str,
    bins: int,
    rng: Rng,
    accountant: PrivacyAccountant | None = None,
    atom_counts: np.ndarray | None = None,
) -> NumericColumn:
    """One column's DP tree bins: noisy levels, consistent tree, allocation, cuts; and the
    decision on each atom of the default rule (kept when its noisy count reaches ATOM_SD sd).

    Parameters
    ----------
    column
        The column (public bounds, scale, integer flag).
    leaves
        Counts of its values in the 2^L public fine cells (private).
    budget
        rho (``noise="gaussian"``) or epsilon (``"laplace"``) of this column.
    noise
        ``"gaussian"`` (rho-zCDP) or ``"laplace"`` (epsilon-DP).
    neighboring
        ``"unbounded"`` (add/remove) or ``"bounded"`` (replace one): the sensitivity.
    bins
        The number of bins asked for (public); fewer come out where mass is concentrated.
    rng, accountant
        Randomness, and the accountant that records the mechanism.
    atom_counts
        The records at each atom of :func:`undecided_atoms` (private), released with the
        levels under the same noise (the sensitivity is unchanged: module docstring); None:
        no decision, the column keeps its atoms as they are.

    Returns
    -------
    NumericColumn
        The column with DP ``bins`` (fine edges), ``cell_mass`` (probabilities) and
        ``bins_source="dp"``; with ``atoms`` the kept ones when some were to be decided.
    """
    leaves = np.asarray(leaves, dtype=np.float64)
    depth = round(math.log2(len(leaves)))
    candidates = () if atom_counts is None else undecided_atoms(column)
    atom_counts = np.zeros(0) if atom_counts is None else np.asarray(atom_counts, np.float64)
    if len(atom_counts) != len(candidates):
        raise ParameterError(f"{len(candidates)} atom count(s) expected, got {len(atom_counts)}")
    levels = level_counts(leaves)
    flat = np.concatenate([levels, atom_counts])
    name = f"{GAUSSIAN_MECHANISM if noise == 'gaussian' else LAPLACE_MECHANISM}: {column.name}"
    if noise == "gaussian":
        noisy = gaussian_mechanism(
            flat, sensitivity(depth, neighboring, 2), rho=budget, integer=True,
            rng=rng, accountant=accountant, name=name,
        )  # fmt: skip
    elif noise == "laplace":
        noisy = laplace_mechanism(
            flat, sensitivity(depth, neighboring, 1), budget, integer=True,
            rng=rng, accountant=accountant, name=name,
        )  # fmt: skip
    else:
        raise ParameterError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
    sd = noise_sd(noise, depth, neighboring, budget)
    theta = FLOOR_SD * sd
    edges = fine_edges(column, len(leaves))
    noisy, noisy_atoms = noisy[: len(levels)], noisy[len(levels) :]
    kept = [bool(c >= ATOM_SD * sd) for c in noisy_atoms]
    atoms = tuple(a for a, keep in zip(candidates, kept, strict=True) if keep)
    decided = replace(column, atoms=atoms) if candidates else column
    cap = cell_capacity(decided, edges)  # a dropped atom is an ordinary value of its cell again
    tree = split_levels(noisy)
    for atom, count, keep in zip(candidates, noisy_atoms, kept, strict=True):
        if not keep and count >= END_SD * sd:  # below one sd: noise, as the tail rule reads it
            restore_atom(tree, int(fine_codes(np.array([atom]), edges)[0]), float(count))
    estimates = consistent_tree(tree)
    mass, leaf_edges = allocate(estimates, cap, theta)
    mass, leaf_edges = trim_empty_ends(estimates, mass, leaf_edges, theta, END_SD * sd)
    total = float(mass.sum())
    cuts = merge_empty_bins(leaf_cuts(mass, leaf_edges, bins, theta), cap)
    prob = mass / total if total > 0 else cap / cap.sum()
    return replace(
        column,
        bins=tuple(float(e) for e in edges[cuts]),
        cell_mass=tuple(float(p) for p in prob),
        tree_bins=None,
        bins_source="dp",
        atoms=decided.atoms,
    )


def restore_atom(levels: list[np.ndarray], cell: int, count: float) -> None:
    """Put a dropped atom's records back in the tree (in place): its noisy count added to the
    fine cell holding its value and to that cell's ancestors at every level.

    The levels never counted the atom's records (their code was the atom's own); once the atom
    is dropped its value is an ordinary value of its cell, which would otherwise keep none of
    their mass and never decode to it (a length of stay of 0 days, 5 % of the rows, came out
    in no row). Post-processing of the released noisy count: no privacy cost.
    """
    depth = len(levels)
    for lev, counts in enumerate(levels):  # level lev + 1 has 2^(lev + 1) nodes
        counts[cell >> (depth - lev - 1)] += count


@dataclass
class CellCounts:
    """Counts of the requested columns in their public fine cells, chunk by chunk.
    Private: never published."""

    columns: tuple[NumericColumn, ...]
    depth: int = DEPTH
    edges: dict[str, np.ndarray] = field(init=False)
    leaves: dict[str, np.ndarray] = field(init=False)
    atoms: dict[str, np.ndarray] = field(init=False)  # the records at each undecided atom

    def __post_init__(self) -> None:
        self.edges = {c.name: fine_edges(c, 2**self.depth) for c in self.columns}
        self.leaves = {c.name: np.zeros(2**self.depth, dtype=np.int64) for c in self.columns}
        self.atoms = {
            c.name: np.zeros(len(undecided_atoms(c)), dtype=np.int64) for c in self.columns
        }

    def update(self, chunk: pd.DataFrame) -> CellCounts:
        """Add one chunk (missing and unparsable values skipped, by public rule); a value at
        one of the column's atoms counts in none of the cells, and in its atom's count when
        the atom is still to be decided (:func:`undecided_atoms`)."""
        for col in self.columns:
            x = parsed_values(chunk, col)  # parsed once: the atoms' records, then the cells'
            at = atom_index(x, col)
            codes = fine_codes(np.where(at >= 0, np.nan, x), self.edges[col.name])
            self.leaves[col.name] += np.bincount(codes[codes >= 0], minlength=2**self.depth)
            counted = self.atoms[col.name]  # undecided atoms: all of the column's, or none
            if len(counted):
                counted += np.bincount(at[at >= 0], minlength=len(counted))
        return self


def undecided_atoms(column: NumericColumn) -> tuple[float, ...]:
    """The atoms of the column's public default rule (none when atoms are declared), which the
    step keeps or drops by their noisy counts."""
    return column.atom_values if column.atoms is None else ()


def requested_columns(schema: Schema, *, default: bool = False) -> list[NumericColumn]:
    """Columns that get tree bins: ``"bins": "dp-tree"``, and with ``default`` every numeric
    column with no declared bins (explicit, dp-quantile) and a linear scale (a declared log
    scale keeps its free public bins) except an integer column of at most that many integers
    (equal-width bins already hold one value each), given :data:`~synthcert.data.schema.
    DEFAULT_QUANTILE_BINS` bins."""
    out = []
    for c in schema.numeric:
        if c.tree_bins is not None:
            out.append(c)
        elif default and c.bins is None and c.quantile_bins is None and c.scale == "linear":
            values = math.floor(c.upper) - math.ceil(c.lower) + 1
            if not (c.integer and values <= DEFAULT_QUANTILE_BINS):
                out.append(replace(c, tree_bins=DEFAULT_QUANTILE_BINS))
    return out


@dataclass(frozen=True)
class TreeBins(BinsStep):
    """The outcome of the tree-bins step (:class:`~synthcert.privacy.bins_step.BinsStep`: the
    schema with DP bins, the budget split, the step's ledger and totals), with its noise, budget
    and delta.

    ``noise`` is ``"gaussian"`` (the step spent ``budget`` = rho, composed with the
    synthesizer's rho-zCDP) or ``"laplace"`` (``budget`` = epsilon, basic composition)."""

    STEP = "tree bins"

    noise: str = "laplace"
    budget: float = 0.0
    delta: float | None = None

    def composed(self, claim: PrivacyClaim, stated: float, spent: Spent) -> PrivacyClaim:
        """The claim of this step followed by the synthesizer, stated as the epsilon the step
        was given (checked not to be exceeded). Gaussian: rho_b + rho_s-zCDP (Bun & Steinke
        2016, Lemma 2.3), stated as the rho of that epsilon at the synthesizer's delta (the
        requested budget, as a synthesizer states it), which the sum is checked not to exceed
        (by more than the conversion's 1e-9 relative headroom); Laplace: (epsilon_b +
        epsilon_s, delta_s) by basic composition (thesis Prop. 2.3.16)."""
        bins = Assumption(
            "tree_bins",
            {"columns": list(self.columns), "share": self.share, "cells": 2**DEPTH},
            "dp-estimate",
            "bin edges of these columns, the law of values within a bin and whether a bound at 0 "
            f"is a point mass come from a noisy dyadic histogram ({self.noise} noise) on a "
            "public grid within the column's bounds, paid from this share of the synthesizer's "
            "budget",
        )
        if self.noise != "gaussian":
            return compose_basic(
                claim, spent.epsilon, stated, LAPLACE_MECHANISM, bins, f"the {self.STEP}"
            )
        if claim.rho is None or not claim.delta:
            raise AssumptionError(
                "Gaussian tree bins compose in zCDP: the synthesizer's claim needs rho",
                assumption="a rho-zCDP synthesizer",
            )
        total = float(claim.rho) + float(spent.rho or 0.0)
        rho = rho_from_epsilon_delta(stated, float(claim.delta))
        if total > rho * (1.0 + 1e-9):
            raise AssumptionError(
                f"the tree bins and the synthesizer spend rho {total:.6g}, more than the "
                f"{rho:.6g} of the epsilon {stated:.6g} they were given"
            )
        return with_bins(claim, GAUSSIAN_MECHANISM, bins, epsilon=stated, rho=rho)


def tree_bins_step(
    chunks: Callable[[], Iterable[pd.DataFrame]],
    schema: Schema,
    epsilon: float | None,
    delta: float | None,
    *,
    share: float | None,
    noise: str,
    neighboring: str,
    default: bool = False,
    seed: np.random.SeedSequence | None = None,
) -> TreeBins:
    """DP tree bins for every column that asks for them (or by default), before a fit.

    Parameters
    ----------
    chunks
        Called once, and only when some column is estimated: the input's chunks.
    schema
        The (public or DP) schema; its tree columns get DP ``bins`` and ``cell_mass``.
    epsilon, delta
        The synthesizer's (epsilon, delta) before this step (epsilon None: no DP, nothing is
        read). ``delta`` is the synthesizer's target delta (Gaussian noise only).
    share
        The declared share in (0, 1) of the synthesizer's budget spent here: of its rho
        (Gaussian) or epsilon (Laplace). None with ``default``: :data:`DEFAULT_SHARE`.
    noise
        ``"gaussian"`` for a zCDP synthesizer, ``"laplace"`` otherwise.
    neighboring
        The synthesizer's neighbouring relation (``"bounded"``: replace one).
    default
        Give tree bins to every numeric column without declared bins and a linear scale.
    seed
        The run's secret seed sequence; one child is spawned, only when the step runs.

    Returns
    -------
    TreeBins
        The new schema, the synthesizer's remaining epsilon, and the step's ledger.

    Raises
    ------
    AssumptionError
        Tree columns in a DP run without a share, or a share outside (0, 1).
    """
    if epsilon is None:
        return TreeBins(schema=schema, synthesizer_epsilon=epsilon)
    cols = requested_columns(schema, default=default)
    if not cols:
        return TreeBins(schema=schema, synthesizer_epsilon=epsilon)
    names = tuple(c.name for c in cols)
    if share is None:
        if not default:
            raise undeclared_share("DP tree bins", names, "the budget")
        share = DEFAULT_SHARE
    if not 0 < share < 1:
        raise AssumptionError(
            f"--param dp_bins={share} must lie in (0, 1)",
            assumption="0 < SHARE < 1",
            admissible="for example --param dp_bins=0.1",
        )
    counts = read_counts(CellCounts(tuple(cols)), chunks)
    rng = step_rng(seed)
    if noise == "gaussian":
        if delta is None:
            raise AssumptionError("Gaussian tree bins need the synthesizer's delta")
        rho = rho_from_epsilon_delta(float(epsilon), float(delta))
        budget = float(share) * rho
        rest = zcdp_epsilon(rho - budget, float(delta))
        accountant = PrivacyAccountant(zcdp_epsilon(budget, float(delta)), float(delta))
    else:
        budget = float(share) * float(epsilon)
        rest = float(epsilon) - budget
        accountant = PrivacyAccountant(budget, None)
    per_column = budget / len(cols)
    done: dict[str, NumericColumn] = {}
    for col in cols:
        done[col.name] = tree_bin_column(
            col, counts.leaves[col.name], per_column, noise=noise, neighboring=neighboring,
            bins=int(col.tree_bins or DEFAULT_QUANTILE_BINS), rng=rng, accountant=accountant,
            atom_counts=counts.atoms[col.name],
        )  # fmt: skip
    spent = accountant.check_within_budget()
    if noise == "gaussian" and not (spent.rho or 0.0) <= budget * (1.0 + 1e-9):
        raise AssumptionError(f"the tree bins spent rho {spent.rho}, more than {budget}")
    return TreeBins(
        schema=with_columns(schema, done),
        columns=names,
        share=float(share),
        noise=noise,
        budget=budget,
        stated_epsilon=float(epsilon),
        synthesizer_epsilon=rest,
        delta=delta,
        ledger=accountant.ledger,
        spent=spent,
    )


__all__ = [
    "ATOM_SD",
    "DEFAULT_SHARE",
    "DEPTH",
    "END_SD",
    "FLOOR_SD",
    "GAUSSIAN_MECHANISM",
    "LAPLACE_MECHANISM",
    "CellCounts",
    "TreeBins",
    "allocate",
    "consistent_tree",
    "equal_mass_cuts",
    "leaf_cuts",
    "level_counts",
    "merge_empty_bins",
    "noise_sd",
    "requested_columns",
    "resolved_hull",
    "restore_atom",
    "sensitivity",
    "split_levels",
    "tree_bin_column",
    "tree_bins_step",
    "trim_empty_ends",
    "undecided_atoms",
]
