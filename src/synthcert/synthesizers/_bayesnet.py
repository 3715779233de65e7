"""Bayesian-network pieces of PrivBayes (thesis Algorithms 2-3; Zhang et al. 2017): joint counts,
mutual information and its sensitivity, structure learning, conditional tables, ancestral
sampling. Everything works on integer codes (n, d) with known cardinalities.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from synthcert._result import Result

Node = tuple[int, tuple[int, ...]]  # (child, parents)


@dataclass(frozen=True)
class NetworkNode(Result):
    """One node of the learned network: a column and its parents (all earlier in the order)."""

    child: str
    parents: tuple[str, ...]


def joint_counts(codes: np.ndarray, cols: tuple[int, ...], cards: list[int]) -> np.ndarray:
    """Counts of every combination of the columns ``cols`` (an array of shape cards[cols])."""
    shape = tuple(cards[c] for c in cols)
    if not cols:
        return np.array(float(len(codes)))
    flat = np.ravel_multi_index(tuple(codes[:, c] for c in cols), shape)
    return np.bincount(flat, minlength=math.prod(shape)).reshape(shape).astype(np.float64)


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


def candidate_score(
    codes: np.ndarray, cards: list[int], child: int, parents: tuple[int, ...]
) -> float:
    """I(child, parents) from the data (parents joined into one variable)."""
    table = joint_counts(codes, (child, *parents), cards).reshape(cards[child], -1)
    return mutual_information(table)


def learn_structure(
    codes: np.ndarray,
    cards: list[int],
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
    set if none does); it depends on public cardinalities only.
    """
    n, d = codes.shape
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
        scores = np.empty(len(cands))
        for i, c in enumerate(cands):
            if c not in cache:
                cache[c] = candidate_score(codes, cards, *c)
            scores[i] = cache[c]
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
