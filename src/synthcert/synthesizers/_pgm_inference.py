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


# an inner block (the contiguous cells after the reduced or broadcast axis) at least this
# wide makes numpy's own reduction or broadcast one fast pass
_WIDE = 64
# a trailing run of at most this many cells is folded column by column
_NARROW = 8
# a table of at most this many cells is reduced or built by plain numpy calls
_SMALL = 2048


def _fold(ufunc: np.ufunc, x: np.ndarray) -> np.ndarray:
    """``ufunc`` reduced over axis 1 of an (outer, run, inner) array, by the fastest numpy route.

    numpy's reduction is one fast pass when the inner block is wide, but slow (up to 30x) when
    it is narrow: then a short run is folded slice by slice (``run - 1`` passes over
    ``outer * inner`` cells), and a longer one summed by ``einsum``'s reduction loop. Every
    route adds (or compares) the same numbers in a fixed order, so equal inputs give equal
    outputs.
    """
    _, run, inner = x.shape
    if inner >= _WIDE or run == 1:
        return ufunc.reduce(x, axis=1)
    if ufunc is np.add and not (inner == 1 and run <= _NARROW):
        return np.einsum("ori->oi", x)
    out = x[:, 0, :].copy()
    for j in range(1, run):
        ufunc(out, x[:, j, :], out=out)
    return out


@dataclass(frozen=True)
class Reduction:
    """Summing (or maximising) a C-ordered table over some of its axes, planned once.

    The reduced axes are folded one at a time, left to right, each as axis 1 of an
    (outer, run, inner) view (:func:`_fold`): the first fold reads the whole table with the
    widest inner block, every later one a table already shrunk, and nothing is transposed.
    A table of at most ``_SMALL`` cells is reduced in one numpy call (``steps`` empty), where
    the calls' overhead would cost more than the narrow loops.
    """

    shape: tuple[int, ...]  # the table's shape
    axes: tuple[int, ...]  # the reduced axes
    steps: tuple[tuple[int, int, int], ...]  # (outer, run, inner) of each fold, in order
    kept: tuple[int, ...]  # the kept axes' sizes, in table order

    @classmethod
    def of(cls, shape: Sequence[int], axes: Iterable[int]) -> Reduction:
        """The reduction of a table of ``shape`` over ``axes``."""
        out = sorted(set(axes))
        current = list(shape)
        steps = []
        if math.prod(shape) > _SMALL:
            for removed, i in enumerate(out):
                pos = i - removed  # axis i's position once the earlier reduced axes are gone
                steps.append(
                    (math.prod(current[:pos]), current[pos], math.prod(current[pos + 1 :]))
                )
                del current[pos]
        kept = tuple(n for i, n in enumerate(shape) if i not in out)
        return cls(tuple(shape), tuple(out), tuple(steps), kept)

    def _apply(self, ufunc: np.ufunc, table: np.ndarray) -> np.ndarray:
        if not self.axes:
            return table.reshape(self.kept).copy()
        if not self.steps:
            return ufunc.reduce(table.reshape(self.shape), axis=self.axes)
        for step in self.steps:
            table = _fold(ufunc, table.reshape(step))
        return table.reshape(self.kept)

    def sum(self, table: np.ndarray) -> np.ndarray:
        """``table`` summed over the reduced axes (kept axes in table order; a new array)."""
        return self._apply(np.add, table)

    def max(self, table: np.ndarray) -> np.ndarray:
        """``table``'s maximum over the reduced axes (kept axes in table order)."""
        return self._apply(np.maximum, table)


@dataclass(frozen=True)
class Projections:
    """The marginals of one table onto several subsets of its attributes, planned once.

    Each distinct subset is summed from the smallest table already computed that covers it
    (the table itself or an earlier, larger subset), largest subsets first: the children's
    separators and the cliques of a junction-tree node share their passes over the node.
    """

    plan: tuple[tuple[int, Reduction], ...]  # (source: 0 the table, k the k-th result; how)
    slots: tuple[int, ...]  # each requested subset's result (1-based, as sources)

    @classmethod
    def of(
        cls, attrs: Sequence[str], targets: Sequence[Sequence[str]], sizes: Mapping[str, int]
    ) -> Projections:
        """The plan for a table over ``attrs``; each target's axes come out in ``attrs`` order."""
        attrs = tuple(attrs)
        wanted = [tuple(a for a in attrs if a in set(t)) for t in targets]
        distinct = sorted(
            dict.fromkeys(wanted), key=lambda t: -math.prod(sizes[a] for a in t)
        )  # stable: equal sizes keep their first-requested order
        made: list[Attrs] = [attrs]
        plan = []
        for t in distinct:
            covers = [k for k, m in enumerate(made) if set(t) <= set(m)]
            src = min(covers, key=lambda k: (math.prod(sizes[a] for a in made[k]), k))
            shape = [sizes[a] for a in made[src]]
            plan.append(
                (src, Reduction.of(shape, [i for i, a in enumerate(made[src]) if a not in t]))
            )
            made.append(t)
        return cls(tuple(plan), tuple(1 + distinct.index(t) for t in wanted))

    def sum(self, table: np.ndarray) -> list[np.ndarray]:
        """Every target's marginal of ``table`` (new arrays; equal targets share one)."""
        made = [table]
        for src, reduction in self.plan:
            made.append(reduction.sum(made[src]))
        return [made[k] for k in self.slots]


@dataclass(frozen=True)
class Expansion:
    """The sum of several tables over subsets of a node's attributes, broadcast onto the node,
    planned once (the transpose of :class:`Projections`).

    numpy broadcasts a table that varies along a narrow trailing block slowly (an inner loop
    of a few cells, up to 8x slower than a wide one). So the node's axes are split into a
    prefix and the shortest suffix of at least ``_WIDE`` cells; the tables with the same
    attributes in the prefix are summed into one accumulator spanning the whole suffix,
    each accumulator is folded into the smallest one whose prefix attributes cover its own,
    and only those left over are added onto the node, each a pass with a wide inner block.
    """

    shapes: tuple[tuple[int, ...], ...]  # each accumulator's shape (node axes, 1 if absent)
    members: tuple[tuple[int, ...], ...]  # the inputs summed into each accumulator
    sinks: tuple[int, ...]  # the accumulator each one is folded into (-1: the node)

    @classmethod
    def of(
        cls, attrs: Sequence[str], inputs: Sequence[Sequence[str]], sizes: Mapping[str, int]
    ) -> Expansion:
        """The plan for the tables over ``inputs`` (subsets of ``attrs``), in that order."""
        attrs = tuple(attrs)
        shape = [sizes[a] for a in attrs]
        cut = len(attrs)
        while cut > 0 and math.prod(shape[cut:]) < _WIDE:
            cut -= 1
        if math.prod(shape) <= _SMALL:  # one accumulator: the node itself
            return cls((tuple(shape),), (tuple(range(len(inputs))),), (-1,))
        prefix = set(attrs[:cut])
        keys = [frozenset(set(t) & prefix) for t in inputs]
        groups = sorted(dict.fromkeys(keys), key=lambda q: math.prod(sizes[a] for a in q))
        sinks = []
        for i, q in enumerate(groups):
            wider = [j for j in range(i + 1, len(groups)) if q < groups[j]]
            sinks.append(
                min(wider, key=lambda j: (math.prod(sizes[a] for a in groups[j]), j))
                if wider
                else -1
            )
        return cls(
            tuple(
                tuple(
                    n if a in q or i >= cut else 1
                    for i, (a, n) in enumerate(zip(attrs, shape, strict=True))
                )
                for q in groups
            ),
            tuple(tuple(k for k, key in enumerate(keys) if key == q) for q in groups),
            tuple(sinks),
        )

    def add(self, out: np.ndarray, tables: Sequence[np.ndarray]) -> None:
        """Overwrite ``out`` with the sum of ``tables`` (each already placed on the node's axes
        by a :class:`Placement`), zeros if there are none."""
        if len(self.sinks) == 1:  # straight onto the node
            if not tables:
                out.fill(0.0)
                return
            np.copyto(out, tables[0])
            for t in tables[1:]:
                out += t
            return
        acc = [np.zeros(s) for s in self.shapes]
        first = True
        for g, (members, sink) in enumerate(zip(self.members, self.sinks, strict=True)):
            for k in members:
                acc[g] += tables[k]
            if sink >= 0:
                acc[sink] += acc[g]
            elif first:
                np.copyto(out, acc[g])
                first = False
            else:
                out += acc[g]
        if first:
            out.fill(0.0)


@dataclass(frozen=True)
class _Edge:
    """A node and its parent in the schedule, with the separator planned both ways."""

    node: int
    parent: int
    reduce: Reduction  # the node's table onto the separator (separator in node order)
    keep: tuple[int, ...]  # the separator (node order) broadcast on the node's axes
    up: Placement  # the separator (in node order) onto the parent's axes
    down: Placement  # the separator (in parent order) onto the node's axes
    slot: int  # the separator's place among the parent's projections


class JunctionTree:
    """The junction tree of a set of cliques, with its message schedule planned once.

    mbi builds the tree (``make_junction_tree``: a greedy elimination order, then a maximum
    spanning tree of the triangulated graph's cliques); the schedule (collect towards each
    component's smallest node, then distribute), every reduction and placement, how each node
    sums its potentials and messages (:class:`Expansion`) and how it projects onto its
    children's separators and its cliques (:class:`Projections`) are planned here once, so
    :meth:`marginals` is plain numpy calls on reused buffers: cheap enough for every iteration
    of mirror descent, with nothing to compile. The buffers make a tree unsafe to share
    between threads.

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
        self.shapes = [tuple(sizes[a] for a in n) for n in self.nodes]
        index = {n: i for i, n in enumerate(self.nodes)}
        self.cliques = cliques
        self.placed = self.placements(cliques)
        self.roots: list[int] = []
        self.order: list[int] = []  # every node, children before parents
        links: list[tuple[Attrs, Attrs]] = []  # (node, parent) in that order
        for component in sorted(nx.connected_components(tree), key=min):
            root = min(component)  # not set order, which follows str hashing (varies by process)
            self.roots.append(index[root])
            parent = dict(nx.bfs_predecessors(tree, root))
            for node in nx.dfs_postorder_nodes(tree, root):
                self.order.append(index[node])
                if node != root:
                    links.append((node, parent[node]))
        # each node's inputs (its cliques' potentials, then its children's messages) and
        # projections (its children's separators, then its cliques)
        self.homed: list[list[int]] = [[] for _ in self.nodes]
        for c, (home, _) in enumerate(self.placed):
            self.homed[home].append(c)
        self.incoming: list[list[int]] = [[] for _ in self.nodes]
        inputs: list[list[Sequence[str]]] = [[cliques[c] for c in h] for h in self.homed]
        targets: list[list[Attrs]] = [[] for _ in self.nodes]
        self.edges: list[_Edge] = []
        for k, (node, up) in enumerate(links):
            n, p = index[node], index[up]
            sep = [a for a in node if a in up]
            self.incoming[p].append(k)
            inputs[p].append(sep)
            self.edges.append(
                _Edge(
                    n,
                    p,
                    Reduction.of(self.shapes[n], [i for i, a in enumerate(node) if a not in up]),
                    tuple(sizes[a] if a in up else 1 for a in node),
                    Placement.of(sep, up, sizes),
                    Placement.of([a for a in up if a in node], node, sizes),
                    len(targets[p]),
                )
            )
            targets[p].append(tuple(a for a in up if a in node))
        self.clique_slots = []
        for clique, (home, _) in zip(cliques, self.placed, strict=True):
            self.clique_slots.append(len(targets[home]))
            targets[home].append(clique)
        self.expansions = [
            Expansion.of(n, i, sizes) for n, i in zip(self.nodes, inputs, strict=True)
        ]
        self.projections = [
            Projections.of(n, t, sizes) for n, t in zip(self.nodes, targets, strict=True)
        ]
        # each clique's marginal (summed in node order) put in the clique's own order
        self.clique_order = [
            Placement.of([a for a in self.nodes[h] if a in c], c, sizes)
            for c, (h, _) in zip(cliques, self.placed, strict=True)
        ]
        self._edge_of = {e.node: k for k, e in enumerate(self.edges)}
        self._belief: list[np.ndarray] = []  # each node's working table, allocated once

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

    def marginals(self, tables: Sequence[np.ndarray], total: float) -> list[np.ndarray]:
        """Every node's marginal (counts summing to ``total``; new arrays) for the
        log-potentials ``tables`` on the tree's cliques (:meth:`_sum_product`)."""
        return [m.copy() for m in self._sum_product(tables, total)[0]]

    def clique_marginals(self, tables: Sequence[np.ndarray], total: float) -> list[np.ndarray]:
        """The marginal (counts, axes in clique order) of each of the tree's cliques for the
        log-potentials ``tables`` on them (:meth:`_sum_product`)."""
        projected = self._sum_product(tables, total)[1]
        return [
            order.apply(projected[home][slot])
            for (home, _), slot, order in zip(
                self.placed, self.clique_slots, self.clique_order, strict=True
            )
        ]

    def _sum_product(
        self, tables: Sequence[np.ndarray], total: float
    ) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
        """Every node's marginal and projections for the log-potentials ``tables``.

        Sum-product on the tree (Koller & Friedman 2009, section 10.2), collect then
        distribute. Collect, children first: a node's belief A_c is the sum of its cliques'
        potentials and its children's messages; it sends its parent
        m_c = log sum_{c \\ s} exp A_c (each slice shifted by its maximum t_s, so nothing
        overflows or underflows to an empty slice) and keeps e_c = exp(A_c - t_s) and the
        slice masses z_s = sum_{c \\ s} e_c >= 1, whose ratio is p(c \\ s | s). Distribute,
        parents first: a root's marginal is its normalised belief, and a child's is
        p(c) = e_c p(s) / z_s, p(s) the parent's marginal on the separator. One exponential
        per cell, no division by a marginal (so no 0/0 where a separator has no mass). The
        node marginals returned are views of the tree's buffers, valid until the next call.
        """
        if not self._belief:
            self._belief = [np.empty(s) for s in self.shapes]
        belief = self._belief
        placed = [place.apply(t) for t, (_, place) in zip(tables, self.placed, strict=True)]
        messages: list[np.ndarray] = [np.empty(0)] * len(self.edges)
        mass: list[np.ndarray] = [np.empty(0)] * len(belief)
        edge_of = self._edge_of
        projected: list[list[np.ndarray]] = [[] for _ in belief]
        for n in self.order:
            a = belief[n]
            inputs = [placed[c] for c in self.homed[n]] + [messages[k] for k in self.incoming[n]]
            self.expansions[n].add(a, inputs)
            if n not in edge_of:  # a root
                np.subtract(a, a.max(), out=a)
                np.exp(a, out=a)
                a *= total / a.sum()
                projected[n] = self.projections[n].sum(a)
                continue
            k = edge_of[n]
            e = self.edges[k]
            top = e.reduce.max(a)
            np.subtract(a, top.reshape(e.keep), out=a)
            np.exp(a, out=a)
            mass[n] = e.reduce.sum(a)
            messages[k] = e.up.apply(np.log(mass[n]) + top)
        for e in reversed(self.edges):
            separator = e.down.apply(projected[e.parent][e.slot])
            a = belief[e.node]
            a *= separator / mass[e.node].reshape(e.keep)
            projected[e.node] = self.projections[e.node].sum(a)
        return belief, projected

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
    jt = JunctionTree(sizes, list(log_potentials))
    return jt.calibrated(jt.marginals(list(log_potentials.values()), total), total)


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
