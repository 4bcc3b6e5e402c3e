"""The graph-type label (Fig. 4, Table 4) that a record's recorded causal edges imply.

A record may carry ``Causal graph``: ``{"edges": ["rain -> drive", ...], "latent": [...], "intervened": "drive"}``.
Nodes are short names for the story's variables; an edge ``a -> b`` says the story makes ``a`` a cause of ``b``;
``latent`` lists common causes the story invokes only to explain an association between other variables (the
dashed arrow of Fig. 4's *correlated* sketch); ``intervened`` is the variable the query sets.

Our reading of Fig. 4 on a connected, acyclic graph (background conditions that only enable an effect are not
drawn as nodes):

- **correlated**: a latent node with two or more children (checked first);
- **chain**: every node has at most one parent and at most one child;
- **fork**: no node has two parents, and one node has two or more children;
- **collider**: no node has two children, and one node has two or more parents;
- **diamond**: exactly one node ``s`` with two children and one node ``t`` with two parents, no other branching,
  the graph has exactly one undirected cycle, and both of ``s``'s branches reach ``t`` through at least one
  intermediate node each (``s -> a -> t`` and ``s -> b -> t``; a direct shortcut ``s -> t`` is a hybrid);
- **hybrid**: any other connected graph (fork and collider parts together, a triangle, several cycles).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

GRAPH_TYPES = ("chain", "collider", "fork", "diamond", "correlated", "hybrid")
_EDGE = re.compile(r"^\s*(?P<a>[^\s>-][^>]*?)\s*->\s*(?P<b>[^\s>-][^>]*?)\s*$")


def parse_edge(text: str) -> tuple[str, str] | None:
    """``"a -> b"`` as ``("a", "b")``; None when the text is not one edge between two distinct names."""
    match = _EDGE.match(text) if isinstance(text, str) else None
    if match is None or match.group("a") == match.group("b"):
        return None
    return match.group("a"), match.group("b")


def _reaches(children: dict[str, set[str]], start: str, goal: str, avoid: str) -> bool:
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in children[node] - seen - {avoid}:
            seen.add(nxt)
            stack.append(nxt)
    return False


def graph_problem(edges: Sequence[tuple[str, str]]) -> str | None:
    """Why the edges are not one connected acyclic graph (None when they are)."""
    if not edges:
        return "has no edges"
    nodes = {n for e in edges for n in e}
    if len(set(edges)) != len(edges):
        return "repeats an edge"
    neighbours: dict[str, set[str]] = defaultdict(set)
    children: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        neighbours[a].add(b)
        neighbours[b].add(a)
        children[a].add(b)
    start = edges[0][0]
    seen, stack = {start}, [start]
    while stack:
        for nxt in neighbours[stack.pop()] - seen:
            seen.add(nxt)
            stack.append(nxt)
    if seen != nodes:
        return f"is not connected ({', '.join(sorted(nodes - seen))} apart from the rest)"
    state: dict[str, int] = {}

    def cyclic(node: str) -> bool:
        state[node] = 1
        for nxt in children[node]:
            if state.get(nxt) == 1 or (nxt not in state and cyclic(nxt)):
                return True
        state[node] = 2
        return False

    if any(node not in state and cyclic(node) for node in sorted(nodes)):
        return "has a directed cycle"
    return None


def classify(edges: Sequence[tuple[str, str]], latent: Iterable[str] = ()) -> str:
    """The Fig. 4 graph type of a connected acyclic graph (see the module docstring for the rules)."""
    nodes = {n for e in edges for n in e}
    children: dict[str, set[str]] = defaultdict(set)
    parents: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        children[a].add(b)
        parents[b].add(a)
    if any(len(children[n]) >= 2 for n in latent):
        return "correlated"
    splits = [n for n in nodes if len(children[n]) >= 2]
    joins = [n for n in nodes if len(parents[n]) >= 2]
    if not splits and not joins:
        return "chain"
    if not joins:
        return "fork"
    if not splits:
        return "collider"
    one_cycle = len(set(edges)) == len(nodes)
    if one_cycle and len(splits) == 1 and len(joins) == 1:
        s, t = splits[0], joins[0]
        branches = children[s]
        if len(branches) == 2 and len(parents[t]) == 2 and t not in branches:
            if all(_reaches(children, b, t, avoid=s) for b in branches):
                return "diamond"
    return "hybrid"
