"""Exact inference and sampling on a Private-PGM model's junction tree, in numpy.

McKenna et al. (2019) represent the estimated distribution as a graphical model; its calibrated
junction-tree marginals determine every other marginal, since p(x) = prod_C p(C) / prod_S p(S)
(Koller & Friedman 2009, section 10.2). Computing the candidates' marginals here (instead of
with mbi's jitted variable elimination, which compiles once per query clique) keeps each AIM
round cheap, and sampling with our own ``numpy.random.Generator`` makes the output depend on
the seed only (mbi's own sampler draws from numpy's global state).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from scipy.special import logsumexp

from synthcert.synthesizers._pgm_backend import load_mbi

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
            parts = [f]
            if node != root:
                sep = self.separator(node, parent[node])
                p_sep = f.sum_to(sep)
                inv = np.divide(
                    1.0, p_sep.values, out=np.zeros_like(p_sep.values), where=p_sep.values > 0
                )
                parts.append(Factor(p_sep.attrs, inv))
            parts.extend(upward(c) for c in children[node])
            prod = _product(parts)
            keep = qset | (set(self.separator(node, parent[node])) if node != root else set())
            return prod.sum_to(keep)

        return upward(root).transpose(query)


def calibrate(
    log_potentials: dict[Attrs, np.ndarray], sizes: dict[str, int], total: float
) -> CalibratedTree:
    """Sum-product (Shafer-Shenoy, log space) on the junction tree of the potentials' cliques.

    Koller & Friedman (2009) Algorithm 10.2; marginals are scaled to sum to ``total``.
    """
    mbi = load_mbi()
    junction_tree = mbi.junction_tree
    attrs = list(sizes)
    domain = mbi.Domain(attrs, [sizes[a] for a in attrs])
    tree, _ = junction_tree.make_junction_tree(domain, list(log_potentials))
    nodes: list[Attrs] = [tuple(n) for n in tree.nodes]
    psi = {n: np.zeros([sizes[a] for a in n]) for n in nodes}
    for clique, table in log_potentials.items():
        home = next(n for n in nodes if set(clique) <= set(n))
        psi[home] = psi[home] + Factor(tuple(clique), table).aligned(home)

    messages: dict[tuple[Attrs, Attrs], Factor] = {}

    def send(src: Attrs, dst: Attrs) -> None:
        belief = psi[src]
        for nb in tree.neighbors(src):
            if nb != dst:
                belief = belief + messages[(nb, src)].aligned(src)
        sep = tuple(a for a in src if a in dst)
        axes = tuple(i for i, a in enumerate(src) if a not in dst)
        messages[(src, dst)] = Factor(sep, logsumexp(belief, axis=axes) if axes else belief)

    for component in sorted(nx.connected_components(tree), key=min):
        root = min(component)  # not set order, which follows str hashing (varies by process)
        order = list(nx.dfs_postorder_nodes(tree, root))
        parent = dict(nx.bfs_predecessors(tree, root))
        for node in order:  # collect
            if node != root:
                send(node, parent[node])
        for node in reversed(order):  # distribute
            for nb in tree.neighbors(node):
                if parent.get(nb) == node:
                    send(node, nb)

    marginals = {}
    for n in nodes:
        belief = psi[n]
        for nb in tree.neighbors(n):
            belief = belief + messages[(nb, n)].aligned(n)
        p = np.exp(belief - logsumexp(belief))
        marginals[n] = Factor(n, p * total)
    return CalibratedTree(tree, marginals, dict(sizes), float(total))


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
