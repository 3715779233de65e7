"""Exact inference and sampling on a Private-PGM model's junction tree, in numpy.

McKenna et al. (2019) represent the estimated distribution as a graphical model; its calibrated
junction-tree marginals determine every other marginal, since p(x) = prod_C p(C) / prod_S p(S)
(Koller & Friedman 2009, section 10.2). Computing the candidates' marginals here (instead of
with mbi's jitted variable elimination, which compiles once per query clique) keeps each AIM
round cheap, and sampling with our own ``numpy.random.Generator`` makes the output depend on
the seed only (mbi's own sampler draws from numpy's global state).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from synthcert.synthesizers._pgm_backend import load_mbi
from synthcert.synthesizers._pgm_size import ModelSize

Attrs = tuple[str, ...]


@dataclass(frozen=True)
class Factor:
    """A table over named attributes; axis ``i`` of ``values`` belongs to ``attrs[i]``."""

    attrs: Attrs
    values: np.ndarray

    def aligned(self, target: Sequence[str]) -> np.ndarray:
        """Values transposed and reshaped to broadcast against a table over ``target``."""
        order = [a for a in target if a in self.attrs]
        arr = np.transpose(self.values, [self.attrs.index(a) for a in order])
        shape = [arr.shape[order.index(a)] if a in self.attrs else 1 for a in target]
        return arr.reshape(shape)

    def sum_to(self, keep: Iterable[str]) -> Factor:
        """Marginalise onto ``keep`` (in this factor's attribute order)."""
        keep_set = set(keep)
        axes = tuple(i for i, a in enumerate(self.attrs) if a not in keep_set)
        kept = tuple(a for a in self.attrs if a in keep_set)
        return Factor(kept, self.values.sum(axis=axes) if axes else self.values)

    def transpose(self, attrs: Sequence[str]) -> np.ndarray:
        """Values with axes in the order ``attrs`` (which must equal this factor's set)."""
        return np.transpose(self.values, [self.attrs.index(a) for a in attrs])


def _product(factors: Sequence[Factor]) -> Factor:
    """Pointwise product over the union of the factors' attributes."""
    attrs: list[str] = []
    for f in factors:
        attrs.extend(a for a in f.attrs if a not in attrs)
    out = np.ones([1] * len(attrs))
    for f in factors:
        out = out * f.aligned(attrs)
    return Factor(tuple(attrs), out)


def _conditional(f: Factor, sep: Sequence[str]) -> Factor:
    """p(C)/p(S) = p(C \\ S | S) on C's table, zero where the separator has no mass.

    Each entry is at most one, so a product of conditionals and one marginal never overflows;
    the factor 1/p(S) taken alone does where p(S) is subnormal (an infinite weight, then
    inf * 0 = NaN in the product).
    """
    p_sep = f.sum_to(sep).aligned(f.attrs)
    ratio = np.divide(f.values, p_sep, out=np.zeros_like(f.values), where=p_sep > 0)
    return Factor(f.attrs, ratio)


@dataclass
class CalibratedTree:
    """The junction tree of a fitted model with the exact marginal (counts) of each clique."""

    tree: nx.Graph
    marginals: dict[Attrs, Factor]
    sizes: dict[str, int]
    total: float
    _home: dict[str, Attrs] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for clique in self.marginals:
            for a in clique:
                self._home.setdefault(a, clique)

    def separator(self, c1: Attrs, c2: Attrs) -> Attrs:
        """The attributes two neighbouring cliques share."""
        return tuple(a for a in c1 if a in c2)

    def project(self, query: Sequence[str]) -> np.ndarray:
        """The exact marginal (counts) of ``query``, axes in query order.

        Product of p(C)/p(S) over the smallest subtree whose cliques cover the query; summing
        out the leaves of a junction tree leaves a junction tree, so this is exact.
        """
        query = tuple(query)
        if not query:
            return np.asarray(self.total)
        for clique, f in self.marginals.items():
            if set(query) <= set(clique):
                return f.sum_to(query).transpose(query)
        components = [
            c for c in nx.connected_components(self.tree) if any(self._home[a] in c for a in query)
        ]
        if len(components) > 1:  # independent groups: outer product, scaled to the total
            groups = [tuple(a for a in query if self._home[a] in c) for c in components]
            parts = [Factor(g, self.project(g) / self.total) for g in groups]
            return _product(parts).transpose(query) * self.total
        homes = list(dict.fromkeys(self._home[a] for a in query))
        root = homes[0]
        nodes: set[Attrs] = {root}
        for other in homes[1:]:
            nodes.update(nx.shortest_path(self.tree, root, other))
        sub = self.tree.subgraph(nodes)
        parent = dict(nx.bfs_predecessors(sub, root))
        children: dict[Attrs, list[Attrs]] = {n: [] for n in nodes}
        for child, par in parent.items():
            children[par].append(child)
        qset = set(query)

        def upward(node: Attrs) -> Factor:
            f = self.marginals[node]
            if node != root:
                f = _conditional(f, self.separator(node, parent[node]))
            parts = [f, *(upward(c) for c in children[node])]
            prod = _product(parts)
            keep = qset | (set(self.separator(node, parent[node])) if node != root else set())
            return prod.sum_to(keep)

        return upward(root).transpose(query)

    def _covering(self, query: Sequence[str]) -> Attrs | None:
        """The first clique containing every attribute of ``query`` (as :meth:`project`)."""
        qset = set(query)
        for clique in self.marginals:
            if qset <= set(clique):
                return clique
        return None

    def project_many(self, queries: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """:meth:`project` of every query, the out-of-clique pairs in one pass per attribute.

        A query inside a clique is summed out of it (as :meth:`project`). For the pairs (a, b)
        no clique covers, p(a, C) is carried from a's home clique to every clique C of its
        component, parents first: p(a, C) = p(a, S) p(C | S) over the separator S (the
        conditional at most one, as in :meth:`project`; p(a, C) = p(C) where C holds a), and
        p(a, b) is read off b's home clique. One pass per attribute costs
        sum_C |a| |C| cells, instead of a subtree product per pair; other queries (three or
        more attributes across cliques) go through :meth:`project`.
        """
        out: list[np.ndarray | None] = [None] * len(queries)
        pending: dict[str, list[tuple[int, str]]] = {}
        component = {n: i for i, c in enumerate(nx.connected_components(self.tree)) for n in c}
        one_way: dict[str, np.ndarray] = {}
        for i, q in enumerate(queries):
            q = tuple(q)
            clique = self._covering(q)
            if clique is not None:
                out[i] = self.marginals[clique].sum_to(q).transpose(q)
            elif len(q) != 2:
                out[i] = self.project(q)
            elif component[self._home[q[0]]] == component[self._home[q[1]]]:
                pending.setdefault(q[0], []).append((i, q[1]))
            else:  # independent: the outer product scaled to the total, as in project
                for a in q:
                    if a not in one_way:
                        one_way[a] = self.project((a,)) / self.total
                out[i] = np.multiply.outer(one_way[q[0]], one_way[q[1]]) * self.total
        for a, wanted in pending.items():
            joint = self._joint_with(a, {self._home[b] for _, b in wanted})
            for i, b in wanted:
                out[i] = joint[self._home[b]].sum_to((a, b)).transpose((a, b))
        return out  # type: ignore[return-value]

    def _joint_with(self, a: str, targets: set[Attrs]) -> dict[Attrs, Factor]:
        """p(a, C) for the cliques C on the paths from a's home to ``targets``."""
        root = self._home[a]
        parent = dict(nx.bfs_predecessors(self.tree, root))
        needed: set[Attrs] = set()
        for node in targets:
            while node not in needed:
                needed.add(node)
                if node == root:
                    break
                node = parent[node]
        joint: dict[Attrs, Factor] = {root: self.marginals[root]}
        for node in nx.bfs_tree(self.tree, root):
            if node == root or node not in needed:
                continue
            f = self.marginals[node]
            if a in f.attrs:
                joint[node] = f
                continue
            sep = self.separator(node, parent[node])
            carried = joint[parent[node]].sum_to({a, *sep})
            joint[node] = _product([carried, _conditional(f, sep)])
        return joint


def smallest_cover(
    clique: Sequence[str], candidates: Sequence[Sequence[str]], sizes: Mapping[str, int]
) -> int:
    """The index of the candidate with the fewest cells that contains every attribute of
    ``clique`` (the first of equal sizes)."""
    covering = [i for i, c in enumerate(candidates) if set(clique) <= set(c)]
    cells = [float(np.prod([sizes[a] for a in candidates[i]])) for i in covering]
    return min(zip(cells, covering, strict=True))[1]


@dataclass(frozen=True)
class Placement:
    """How a table over ``attrs`` broadcasts into a table over a target's attributes:
    transpose by ``perm`` (None when already in target order), then reshape to ``shape``."""

    perm: tuple[int, ...] | None
    shape: tuple[int, ...]

    @classmethod
    def of(cls, attrs: Sequence[str], target: Sequence[str], sizes: Mapping[str, int]) -> Placement:
        """The placement of a table over ``attrs`` (a subset of ``target``)."""
        attrs = list(attrs)
        perm = tuple(attrs.index(a) for a in target if a in attrs)
        shape = tuple(sizes[a] if a in attrs else 1 for a in target)
        return cls(None if perm == tuple(range(len(perm))) else perm, shape)

    def apply(self, table: np.ndarray) -> np.ndarray:
        """``table`` transposed and reshaped to broadcast against the target."""
        if self.perm is not None:
            table = table.transpose(self.perm)
        return table.reshape(self.shape)


@dataclass(frozen=True)
class Reduction:
    """Summing a table over some of its axes, planned once: the kept axes are moved first and
    the rest flattened into one contiguous trailing axis (numpy's sum over several strided
    axes can be ten times slower), so every reduction is one pass in the same order."""

    perm: tuple[int, ...]  # kept axes, then reduced axes
    shape: tuple[int, ...]  # the transposed table's shape
    kept: tuple[int, ...]  # the kept axes' sizes, in table order
    inverse: tuple[int, ...]  # the transpose back to the table's order

    @classmethod
    def of(cls, shape: Sequence[int], axes: Iterable[int]) -> Reduction:
        """The reduction of a table of ``shape`` over ``axes``."""
        out = set(axes)
        keep = [i for i in range(len(shape)) if i not in out]
        perm = (*keep, *sorted(out))
        inverse = tuple(int(i) for i in np.argsort(perm))
        return cls(perm, tuple(shape[i] for i in perm), tuple(shape[i] for i in keep), inverse)

    def matrix(self, table: np.ndarray) -> np.ndarray:
        """``table`` as a (kept cells, reduced cells) matrix."""
        return table.transpose(self.perm).reshape(math.prod(self.kept), -1)

    def table(self, matrix: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`matrix`: a table in the original axis order."""
        return matrix.reshape(self.shape).transpose(self.inverse)

    def sum(self, table: np.ndarray) -> np.ndarray:
        """``table`` summed over the reduced axes (kept axes in table order)."""
        return self.matrix(table).sum(axis=1).reshape(self.kept)


@dataclass(frozen=True)
class _Edge:
    """A node and its parent in the schedule, with the separator's placements both ways."""

    node: int
    parent: int
    reduce: Reduction  # the node's table onto the separator
    parent_reduce: Reduction  # the parent's table onto the separator
    up: Placement  # the separator (in node order) onto the parent's axes
    down: Placement  # the separator (in parent order) onto the node's axes


class JunctionTree:
    """The junction tree of a set of cliques, with its message schedule planned once.

    mbi builds the tree (``make_junction_tree``: a greedy elimination order, then a maximum
    spanning tree of the triangulated graph's cliques); the schedule (collect towards each
    component's smallest node, then distribute) and every axis permutation are planned here
    once, so :meth:`marginals` is plain numpy calls: cheap enough for every iteration of
    mirror descent, with nothing to compile.

    Parameters
    ----------
    sizes : mapping of str to int
        Every attribute's number of codes (the model's domain).
    cliques : sequence of tuples of str
        The cliques the potentials live on.
    """

    def __init__(self, sizes: Mapping[str, int], cliques: Sequence[Attrs]) -> None:
        mbi = load_mbi()
        names = list(sizes)
        domain = mbi.Domain(names, [sizes[a] for a in names])
        cliques = [tuple(c) for c in cliques]
        # mbi's greedy order, computed without its per-step domain objects (the same order)
        order = ModelSize(sizes, cliques).elimination_order()
        tree, _ = mbi.junction_tree.make_junction_tree(domain, cliques, elimination_order=order)
        self.sizes = dict(sizes)
        self.tree: nx.Graph = tree
        self.nodes: list[Attrs] = sorted(tuple(n) for n in tree.nodes)
        index = {n: i for i, n in enumerate(self.nodes)}
        self.roots: list[int] = []
        self.edges: list[_Edge] = []  # children before parents (post-order)
        for component in sorted(nx.connected_components(tree), key=min):
            root = min(component)  # not set order, which follows str hashing (varies by process)
            self.roots.append(index[root])
            parent = dict(nx.bfs_predecessors(tree, root))
            for node in nx.dfs_postorder_nodes(tree, root):
                if node == root:
                    continue
                up = parent[node]
                self.edges.append(
                    _Edge(
                        index[node],
                        index[up],
                        Reduction.of(
                            [sizes[a] for a in node], [i for i, a in enumerate(node) if a not in up]
                        ),
                        Reduction.of(
                            [sizes[a] for a in up], [i for i, a in enumerate(up) if a not in node]
                        ),
                        Placement.of([a for a in node if a in up], up, sizes),
                        Placement.of([a for a in up if a in node], node, sizes),
                    )
                )

    def home(self, clique: Sequence[str]) -> int:
        """The index of the smallest node whose attributes cover ``clique``."""
        return smallest_cover(clique, self.nodes, self.sizes)

    def placements(self, cliques: Sequence[Attrs]) -> list[tuple[int, Placement]]:
        """Each clique's home node and how its table broadcasts into that node's table."""
        homes = [self.home(c) for c in cliques]
        return [
            (h, Placement.of(c, self.nodes[h], self.sizes))
            for c, h in zip(cliques, homes, strict=True)
        ]

    def log_potentials(
        self, tables: Sequence[np.ndarray], placed: Sequence[tuple[int, Placement]]
    ) -> list[np.ndarray]:
        """Every node's log-potential: the sum of the clique tables placed on it (zeros else)."""
        psi = [np.zeros([self.sizes[a] for a in n]) for n in self.nodes]
        for table, (home, place) in zip(tables, placed, strict=True):
            psi[home] = psi[home] + place.apply(table)
        return psi

    def marginals(self, psi: Sequence[np.ndarray], total: float) -> list[np.ndarray]:
        """Every node's marginal (counts summing to ``total``) from its log-potential ``psi``.

        Sum-product on the tree (Koller & Friedman 2009, section 10.2), collect then
        distribute. Collect, children first: a node's belief A_c is its potential plus the
        messages of its children; it sends its parent m_c = log sum_{c \\ s} exp A_c (each
        slice shifted by its maximum, so nothing overflows or underflows to an empty slice)
        and keeps the conditional exp(A_c - m_c) = p(c \\ s | s). Distribute, parents first:
        a root's marginal is its normalised belief, and a child's is its conditional times
        its parent's marginal on the separator s, p(c) = p(c \\ s | s) p(s). One exponential
        per node, no division by a marginal (so no 0/0 where a separator has no mass).
        """
        belief = list(psi)
        conditional: list[np.ndarray] = [np.empty(0)] * len(psi)
        for e in self.edges:
            a = e.reduce.matrix(belief[e.node])  # (separator cells, the rest)
            top = a.max(axis=1, keepdims=True)
            shifted = np.exp(a - top)
            mass = shifted.sum(axis=1, keepdims=True)
            conditional[e.node] = shifted / mass
            message = (np.log(mass) + top).reshape(e.reduce.kept)
            belief[e.parent] = belief[e.parent] + e.up.apply(message)
        out: list[np.ndarray] = [np.empty(0)] * len(psi)
        for r in self.roots:
            shifted = np.exp(belief[r] - belief[r].max())
            out[r] = shifted * (total / shifted.sum())
        for e in reversed(self.edges):
            separator = e.down.apply(e.parent_reduce.sum(out[e.parent]))
            joint = conditional[e.node] * separator.transpose(e.reduce.perm).reshape(-1, 1)
            out[e.node] = e.reduce.table(joint)
        return out

    def calibrated(self, marginals: Sequence[np.ndarray], total: float) -> CalibratedTree:
        """The tree with its node ``marginals`` as a :class:`CalibratedTree`."""
        factors = {n: Factor(n, m) for n, m in zip(self.nodes, marginals, strict=True)}
        return CalibratedTree(self.tree, factors, dict(self.sizes), float(total))


def calibrate(
    log_potentials: dict[Attrs, np.ndarray], sizes: dict[str, int], total: float
) -> CalibratedTree:
    """Sum-product on the junction tree of the potentials' cliques (:class:`JunctionTree`).

    Koller & Friedman (2009) Algorithm 10.2; marginals are scaled to sum to ``total``.
    """
    cliques = list(log_potentials)
    jt = JunctionTree(sizes, cliques)
    psi = jt.log_potentials(list(log_potentials.values()), jt.placements(cliques))
    return jt.calibrated(jt.marginals(psi, total), total)


def sample_codes(
    calib: CalibratedTree, columns: Sequence[str], n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` i.i.d. rows of codes from the model, by forward sampling along the junction tree.

    Each clique's new attributes are drawn from p(C) / p(S) given the separator already drawn.
    """
    drawn: dict[str, np.ndarray] = {}
    tree = calib.tree
    for component in sorted(nx.connected_components(tree), key=min):
        root = min(component)  # not set order, which follows str hashing (varies by process)
        for node in nx.dfs_preorder_nodes(tree, root):
            sep = [a for a in node if a in drawn]
            new = [a for a in node if a not in drawn]
            if not new:
                continue
            table = calib.marginals[node].transpose(sep + new)
            s_size = int(np.prod([calib.sizes[a] for a in sep], dtype=np.int64))
            r_size = int(np.prod([calib.sizes[a] for a in new], dtype=np.int64))
            cond = table.reshape(s_size, r_size)
            mass = cond.sum(axis=1, keepdims=True)
            cond = np.where(mass > 0, cond / np.where(mass > 0, mass, 1.0), 1.0 / r_size)
            cdf = np.cumsum(cond, axis=1)
            cdf[:, -1] = 1.0
            if sep:
                s_idx = np.ravel_multi_index([drawn[a] for a in sep], [calib.sizes[a] for a in sep])
            else:
                s_idx = np.zeros(n, dtype=np.int64)
            # one sorted array of row-shifted CDFs: a single vectorised searchsorted
            flat = (cdf + np.arange(s_size)[:, None]).ravel()
            u = rng.random(n)
            pos = np.searchsorted(flat, s_idx + u, side="right") - s_idx * r_size
            pos = np.clip(pos, 0, r_size - 1)
            for a, v in zip(new, np.unravel_index(pos, [calib.sizes[a] for a in new]), strict=True):
                drawn[a] = v.astype(np.int64)
    return np.column_stack([drawn[c] for c in columns]) if columns else np.empty((n, 0), int)
