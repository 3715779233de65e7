"""JT-SIZE (AIM, Algorithm 4 line 13) without building a junction tree: mbi's rule, in O(k^2).

mbi's ``hypothetical_model_size`` builds the junction tree of the cliques
(``make_junction_tree``: a tree graph is kept as it is; otherwise a greedy elimination order,
each step removing the attribute whose clique union has the fewest cells, first in domain
order on ties; then the triangulated graph's maximal cliques) and sums the cells of its
maximal cliques, 8 bytes each. It constructs a domain object per cost evaluation; on a
50-column table one call took 0.14 s, and AIM asks it for each of ~1,300 candidates per round.

:class:`ModelSize` computes the same number from the same rule on integer adjacency sets:
the maximal cliques of a graph triangulated by an elimination order are the maximal
elimination cliques {v} + N(v) (Fulkerson & Gross 1965), and an elimination clique E_v is
not maximal exactly when some vertex w eliminated before v has v as its first eliminated
neighbour and |E_w| = |E_v| + 1 (Blair & Peyton 1993, Lemma 4.5). The greedy costs are kept
incrementally: only the neighbours of the eliminated vertex change.
``tests/synthesizers/test_pgm_size.py`` checks it against mbi on random cliques.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence

Clique = tuple[str, ...]
BYTES_PER_CELL = 8


class ModelSize:
    """JT-SIZE of the model of ``base`` cliques plus one more, for many candidates.

    Parameters
    ----------
    sizes : mapping of str to int
        The domain, in mbi's attribute order (the greedy order's tie-break).
    base : sequence of tuples of str
        The cliques already in the model.
    """

    def __init__(self, sizes: Mapping[str, int], base: Iterable[Sequence[str]]) -> None:
        self.names = list(sizes)
        self.index = {a: i for i, a in enumerate(self.names)}
        self.card = [int(sizes[a]) for a in self.names]
        self.adj: list[set[int]] = [set() for _ in self.names]
        self.covered: set[int] = set()
        for cl in base:
            self._add(self.adj, self.covered, cl)
        self.edges = sum(len(s) for s in self.adj) // 2
        self.costs = [self._cost(self.adj, self.covered, v) for v in range(len(self.names))]
        # connected components: each vertex's component, and (|component|, its cells)
        self.component = [-1] * len(self.names)
        self.parts: list[tuple[int, int]] = []
        for v in range(len(self.names)):
            if self.component[v] < 0:
                comp = _component(self.adj, v)
                for u in comp:
                    self.component[u] = len(self.parts)
                self.parts.append((len(comp), math.prod(self.card[u] for u in comp)))
        self.bound = sum(size * cells for size, cells in self.parts)

    def _add(self, adj: list[set[int]], covered: set[int], clique: Sequence[str]) -> int:
        """Add ``clique``'s edges to ``adj`` and its attributes to ``covered``; new edges."""
        idx = [self.index[a] for a in clique]
        covered.update(idx)
        new = 0
        for u, v in itertools.combinations(idx, 2):
            if u != v and v not in adj[u]:
                adj[u].add(v)
                adj[v].add(u)
                new += 1
        return new

    def cells(self, extra: Sequence[str] = (), limit: int | None = None) -> int:
        """The cells of the maximal cliques of mbi's junction tree of ``base + [extra]``.

        With ``limit``, the elimination may stop at the first elimination clique of more than
        ``limit`` cells (the total is then over the limit too) and return that clique's cells.
        """
        adj = [set(s) for s in self.adj]
        covered = set(self.covered)
        edges = self.edges + self._add(adj, covered, extra)
        k = len(self.names)
        if edges == k - 1 and edges > 0 and _connected(adj):  # a tree: kept as it is
            return sum(self.card[u] * self.card[v] for u in range(k) for v in adj[u] if u < v)
        costs = list(self.costs)
        for v in {self.index[a] for a in extra}:
            costs[v] = self._cost(adj, covered, v)
        return self._greedy_cells(adj, costs, limit)

    def fits(self, extra: Sequence[str], limit_mb: float) -> bool:
        """Whether :meth:`megabytes` of ``extra`` is at most ``limit_mb``, deciding early.

        Every elimination clique lies in one connected component, so the cells are at most
        sum over components of |component| x its cells: when that bound fits, no elimination
        is needed; and the elimination stops at the first clique over the limit. The decision
        is the one :meth:`megabytes` gives.
        """
        limit = math.floor(limit_mb * 2**20 / BYTES_PER_CELL)
        joined = {self.component[self.index[a]] for a in extra}
        merged = sum(self.parts[c][0] for c in joined), math.prod(self.parts[c][1] for c in joined)
        bound = self.bound - sum(math.prod(self.parts[c]) for c in joined) + math.prod(merged)
        if bound <= limit:
            return True
        return self.cells(extra, limit) * BYTES_PER_CELL / 2**20 <= limit_mb

    def megabytes(self, extra: Sequence[str] = ()) -> float:
        """:meth:`cells` in megabytes (as mbi's ``hypothetical_model_size``)."""
        return self.cells(extra) * BYTES_PER_CELL / 2**20

    def _cost(self, adj: list[set[int]], covered: set[int], v: int) -> int:
        """mbi's greedy cost of v: the cells of the union of the cliques holding v, {v} + N(v);
        one cell for an attribute in no clique."""
        if v not in covered:
            return 1
        return self.card[v] * math.prod(self.card[u] for u in adj[v])

    def elimination_order(self) -> list[str] | None:
        """mbi's greedy elimination order of the ``base`` cliques (``greedy_order``), or None
        where mbi keeps a tree graph as it is (then it eliminates no attribute greedily)."""
        adj = [set(s) for s in self.adj]
        k = len(self.names)
        if self.edges == k - 1 and self.edges > 0 and _connected(adj):
            return None
        order: dict[int, int] = {}
        self._greedy_cells(adj, list(self.costs), None, order)
        return [self.names[v] for v in order]  # dicts keep insertion order: the steps

    def _greedy_cells(
        self,
        adj: list[set[int]],
        costs: list[int],
        limit: int | None,
        order: dict[int, int] | None = None,
    ) -> int:
        card = self.card
        # the first minimum in domain order, as mbi's min() over its ordered dict: the least
        # (cost, index); a heap with stale entries skipped
        heap = [(c, v) for v, c in enumerate(costs)]
        heapq.heapify(heap)
        order = {} if order is None else order
        later: list[frozenset[int]] = [frozenset()] * len(card)
        elim: list[int] = [0] * len(card)  # the cells of each elimination clique
        while heap:
            c, v = heapq.heappop(heap)
            if v in order or c != costs[v]:
                continue
            order[v] = len(order)
            nbrs = adj[v]
            later[v] = frozenset(nbrs)
            elim[v] = c if nbrs else card[v]
            if limit is not None and elim[v] > limit:
                return elim[v]  # inside a maximal clique: the total is over the limit
            for u in nbrs:
                adj[u].discard(v)
                fill = [w for w in nbrs if w != u and w not in adj[u]]
                adj[u].update(fill)
                costs[u] = costs[u] // card[v] * math.prod(card[w] for w in fill)
                heapq.heappush(heap, (costs[u], u))
        # E_v = {v} + later[v] is not maximal when some w has v as its first later neighbour
        # and |E_w| = |E_v| + 1 (then E_v is inside E_w)
        dominated = set()
        for w in range(len(card)):
            if later[w]:
                parent = min(later[w], key=order.__getitem__)
                if len(later[parent]) + 1 == len(later[w]):
                    dominated.add(parent)
        return sum(elim[v] for v in range(len(card)) if v not in dominated)


def _component(adj: list[set[int]], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        for u in adj[stack.pop()]:
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return seen


def _connected(adj: list[set[int]]) -> bool:
    return len(_component(adj, 0)) == len(adj)
