"""Bayesian-network pieces of PrivBayes (thesis Algorithms 2-3; Zhang et al. 2017): mutual
information and its sensitivity, structure learning, conditional tables, ancestral sampling.
The data are read only through a :class:`~synthcert.statistics.sources.CountSource` (joint
counts of (child, parents) on public bins), so the same code fits in memory or on an engine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from synthcert._result import Result
from synthcert.statistics.sources import CountSource

Node = tuple[int, tuple[int, ...]]  # (child, parents)
PREFETCH_CELLS = 10**7  # cells (int64) of all subset tables counted in one first pass


@dataclass(frozen=True)
class NetworkNode(Result):
    """One node of the learned network: a column and its parents (all earlier in the order)."""

    child: str
    parents: tuple[str, ...]


def mutual_information(table: np.ndarray) -> float:
    """I(X, Pi) in nats of a 2-D contingency table (rows X, columns Pi): thesis Def. 2.4.3."""
    total = table.sum()
    if total <= 0:
        return 0.0
    p = table / total
    px = p.sum(axis=1, keepdims=True)
    pp = p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float(np.sum(p[nz] * np.log(p[nz] / (px @ pp)[nz])))


def mi_sensitivity(n: int, *, binary: bool) -> float:
    """Sensitivity of I(X, Pi) under replacement of one of n records (Zhang et al. 2017, Lemma 1).

    binary (X or Pi has two values): (1/n) log n + ((n-1)/n) log(n/(n-1));
    otherwise: (2/n) log((n+1)/2) + ((n-1)/n) log((n+1)/(n-1)). Natural logs, like the score.
    """
    if n < 2:
        return math.log(2.0)
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return 2.0 / n * math.log((n + 1) / 2.0) + (n - 1) / n * math.log((n + 1) / (n - 1))


def candidate_score(joint: np.ndarray) -> float:
    """I(child, parents) of a joint count table with axes (child, *parents), parents joined."""
    return mutual_information(joint.reshape(joint.shape[0], -1).astype(np.float64))


def prefetch_subsets(source: CountSource, degree: int) -> bool:
    """Ask for every (degree+1)-subset of the columns in one request, if their tables hold at
    most ``PREFETCH_CELLS`` cells in all: every (child, parents) table of the structure search
    and of the fit is then a sum over one of them, so the data are counted in a single pass.
    Returns whether it asked."""
    cards = source.cardinalities
    size = min(degree + 1, len(cards))
    total = 0
    for s in combinations(range(len(cards)), size):
        total += math.prod(cards[c] for c in s)
        if total > PREFETCH_CELLS:
            return False
    source.marginal(list(combinations(range(len(cards)), size)))
    return True


def learn_structure(
    source: CountSource,
    degree: int,
    rng: np.random.Generator,
    choose: Callable[[np.ndarray, float], int],
    max_cells: float | None = None,
) -> list[Node]:
    """Thesis Algorithm 2 with PC_k: a random first node, then d-1 picks of (child, parents)
    among all k-subsets (fewer while fewer nodes are done) of the nodes already placed.

    ``choose(scores, sensitivity)`` picks an index: greedy argmax, or the exponential mechanism.
    ``max_cells`` (theta-usefulness, Zhang et al. 2017 section 4.2) keeps, for each child, the
    largest parent sets whose table of (child, parents) has at most that many cells (the empty
    set if none does); it depends on public cardinalities only. The joint tables of each
    pick's new candidates are asked of ``source`` in one request.
    """
    cards = source.cardinalities
    n, d = source.rows, len(cards)
    first = int(rng.integers(d))
    order: list[Node] = [(first, ())]
    done = [first]
    cache: dict[Node, float] = {}
    while len(done) < d:
        cands = [
            (y, t)
            for y in range(d)
            if y not in done
            for t in parent_sets(y, done, cards, degree, max_cells)
        ]
        new = [c for c in cands if c not in cache]
        if new:
            joints = source.marginal([(y, *t) for y, t in new])
            for y, t in new:
                cache[(y, t)] = candidate_score(joints[(y, *t)])
        scores = np.array([cache[c] for c in cands], dtype=np.float64)
        binary = all(cards[y] == 2 or math.prod(cards[p] for p in t) == 2 for y, t in cands)
        pick = cands[choose(scores, mi_sensitivity(n, binary=binary))]
        order.append(pick)
        done.append(pick[0])
    return order


def parent_sets(
    child: int, done: list[int], cards: list[int], degree: int, max_cells: float | None
) -> list[tuple[int, ...]]:
    """PC_k(child, done): the k-subsets of ``done``; with ``max_cells``, the largest subsets
    (size k down to 0) whose table has at most ``max_cells`` cells."""
    for size in range(min(degree, len(done)), -1, -1):
        sets = [tuple(sorted(t)) for t in combinations(sorted(done), size)]
        if max_cells is not None:
            sets = [t for t in sets if cards[child] * math.prod(cards[p] for p in t) <= max_cells]
        if sets:
            return sets
    return [()]


def conditional_table(joint: np.ndarray) -> np.ndarray:
    """P(child | parents) from a non-negative joint of shape (child, *parents), flattened to
    (parent configurations, child values); a parent configuration without mass gets the
    child's marginal from the same joint (uniform if that is empty too)."""
    c = joint.shape[0]
    table = joint.reshape(c, -1).T  # (P, C)
    row = table.sum(axis=1, keepdims=True)
    marginal = table.sum(axis=0)
    fallback = marginal / marginal.sum() if marginal.sum() > 0 else np.full(c, 1.0 / c)
    safe = np.where(row > 0, row, 1.0)
    return np.where(row > 0, table / safe, fallback[None, :])


def ancestral_sample(
    order: list[Node],
    tables: list[np.ndarray],
    cards: list[int],
    n: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Sample codes (n, d) node by node in topological order (thesis Algorithm 1, line 3)."""
    out = np.zeros((n, len(cards)), dtype=np.int64)
    for (child, parents), table in zip(order, tables, strict=True):
        if parents:
            pidx = np.ravel_multi_index(
                tuple(out[:, p] for p in parents), tuple(cards[p] for p in parents)
            )
        else:
            pidx = np.zeros(n, dtype=np.int64)
        cum = np.cumsum(table, axis=1)
        cum /= cum[:, -1:]
        u = rng.random(n)
        codes = np.empty(n, dtype=np.int64)
        for start in range(0, n, 1 << 16):  # bounded memory: (chunk, |child|) at a time
            sl = slice(start, min(start + (1 << 16), n))
            codes[sl] = (u[sl, None] > cum[pidx[sl]]).sum(axis=1)
        out[:, child] = np.minimum(codes, cards[child] - 1)
    return out
