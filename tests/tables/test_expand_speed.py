"""graph_boost's lender-first sums against the definition: each table plus weight x its neighbours' top scores."""

import random

import pytest

from schema_search.tables.expand import adjacency, graph_boost


def reference(scored, graph, weight, top=10):
    lenders = dict(scored[:top])
    boosted = [(t, s + weight * sum(lenders.get(n, 0.0) for n in graph.get(t, ()))) for t, s in scored]
    return sorted(boosted, key=lambda pair: -pair[1])


@pytest.mark.parametrize("seed", range(20))
def test_graph_boost_gives_the_sums_of_its_definition(seed):
    rng = random.Random(seed)
    tables = [f"t{i}" for i in range(120)]
    graph = adjacency((rng.choice(tables), rng.choice(tables)) for _ in range(300))
    scored = sorted(((t, rng.random()) for t in rng.sample(tables, 80)), key=lambda p: -p[1])
    got, want = graph_boost(scored, graph, 0.2), reference(scored, graph, 0.2)
    assert [t for t, _ in got] == [t for t, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
