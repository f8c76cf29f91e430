"""Join-graph stages over a fused ranking. Pure: ranked lists and an adjacency map in,
ranked lists out.

* :func:`graph_boost` lifts tables that join (by foreign key) to other strong
  candidates: a question that needs ``flights`` and ``airports`` rarely names both
  equally well, but the two are linked, and a lone look-alike elsewhere is not.
* :func:`complete_joins` adds the bridge table two candidates need to be joined,
  marked as added for joining.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Adjacency = Mapping[str, frozenset[str]]


def adjacency(edges: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Undirected neighbour sets from ``(table, referenced table)`` pairs; self-loops dropped.

    >>> sorted(adjacency([("a", "b"), ("c", "b"), ("a", "a")])["b"])
    ['a', 'c']
    """
    neighbours: dict[str, set[str]] = {}
    for a, b in edges:
        if a == b:
            continue
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    return {table: frozenset(others) for table, others in neighbours.items()}


def references(edges: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """Directed: each table -> the tables it references; self-references dropped.

    >>> {table: sorted(targets) for table, targets in references([("a", "b"), ("a", "c"), ("b", "b")]).items()}
    {'a': ['b', 'c']}
    """
    out: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            out.setdefault(a, set()).add(b)
    return {table: frozenset(targets) for table, targets in out.items()}


def graph_boost(
    scored: Sequence[tuple[str, float]], graph: Adjacency, weight: float, top: int = 10
) -> list[tuple[str, float]]:
    """Add ``weight`` x the scores of each table's neighbours among the ``top`` tables.

    Args:
        scored: ``(table, score)`` best first (e.g. from RRF).
        graph: foreign-key neighbours of each table.
        weight: how much a neighbour's score counts; 0 returns the input order.
        top: only the strongest ``top`` tables lend their score.

    >>> graph = adjacency([("flights", "airports")])
    >>> ranked = [("flight", 0.05), ("flights", 0.04), ("ship", 0.035), ("airports", 0.03)]
    >>> [t for t, _ in graph_boost(ranked, graph, weight=0.5)]
    ['flights', 'flight', 'airports', 'ship']
    """
    if weight <= 0:
        return list(scored)
    # From the few lenders out to their neighbours, not from every scored table in to
    # its neighbours: the same sums, without a pass over hundreds of neighbour sets.
    lent: dict[str, float] = {}
    for lender, score in scored[:top]:
        for neighbour in graph.get(lender, ()):
            lent[neighbour] = lent.get(neighbour, 0.0) + score
    boosted = [(table, score + weight * lent[table]) if table in lent else (table, score) for table, score in scored]
    return sorted(boosted, key=lambda pair: -pair[1])


def complete_joins(ranked: Sequence[str], graph: Adjacency, among: int = 5) -> list[tuple[str, bool]]:
    """Insert bridge tables that join pairs of the first ``among`` tables.

    Two candidates that are not linked directly but share a neighbour (``singer`` and
    ``concert`` through ``singer_in_concert``) need that neighbour in the SQL. It is
    inserted right after the lower-ranked of the two, unless already ranked there or
    above; a bridge already lower in the list moves up.

    Returns:
        ``(table, added_for_join)`` in the new order, each table once.

    >>> graph = adjacency([("sic", "singer"), ("sic", "concert")])
    >>> complete_joins(["singer", "concert", "stadium", "sic"], graph, among=3)
    [('singer', False), ('concert', False), ('sic', True), ('stadium', False)]
    """
    head = list(ranked[:among])
    bridges: dict[int, list[str]] = {}
    placed = set(head)
    for i, a in enumerate(head):
        for j in range(i + 1, len(head)):
            b = head[j]
            if b in graph.get(a, ()):
                continue
            for bridge in sorted(graph.get(a, frozenset()) & graph.get(b, frozenset())):
                if bridge not in placed:
                    placed.add(bridge)
                    bridges.setdefault(j, []).append(bridge)
    out: list[tuple[str, bool]] = []
    for position, table in enumerate(head):
        out.append((table, False))
        out.extend((bridge, True) for bridge in bridges.get(position, ()))
    out.extend((table, False) for table in ranked[among:] if table not in placed)
    return out


def complete_entities(
    ranked: Sequence[str],
    references: Adjacency,
    among: int = 4,
    window: int = 25,
    most: int = 2,
) -> list[tuple[str, bool]]:
    """Bring up the tables the leading candidates point at that the question also asks about.

    "Unpaid invoices by customer" finds the invoices, and the invoices point (through
    their billing account) at the customer: the accounts table. The question asks
    about it too, in its own words, but less than about invoices, so it ranks 14th,
    below tables that merely share words. A table that one of the ``among`` leading
    candidates references by foreign key *and* that has evidence of its own (it is in
    the ranking within ``window``: every channel's judgement of the question against
    that table, the relevance floor passed) is an entity the question names. It moves
    up to just after the leading candidates, marked as added; the leaders keep their
    places, so what the question matched best is never pushed down.

    Args:
        ranked: the order after the floor, best first.
        references: each table -> the tables it references by foreign key (directed).
        among: the leading candidates whose references count.
        window: how far down a referenced table may rank and still be "asked about".
        most: at most this many tables are brought up, the best ranked first.

    >>> refs = {"invoices": frozenset({"accounts", "currencies"})}
    >>> order = ["invoices", "lines", "taxes", "notes", "credits", "x", "accounts"]
    >>> complete_entities(order, refs, among=3, window=10)[:5]
    [('invoices', False), ('lines', False), ('taxes', False), ('accounts', True), ('notes', False)]
    """
    head = list(ranked[:among])
    position = {table: i for i, table in enumerate(ranked[:window])}
    referenced = {target for table in head for target in references.get(table, ())}
    picked = sorted((t for t in referenced if position.get(t, -1) >= among), key=position.__getitem__)[:most]
    placed = set(picked)
    return [
        *((table, False) for table in head),
        *((table, True) for table in picked),
        *((table, False) for table in ranked[among:] if table not in placed),
    ]
