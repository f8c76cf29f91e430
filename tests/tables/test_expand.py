from pytest import approx

from schema_search.tables.expand import adjacency, complete_entities, complete_joins, graph_boost

GRAPH = adjacency([("flights", "airports"), ("sic", "singer"), ("sic", "concert")])


def test_graph_boost_adds_weighted_scores_of_top_neighbours():
    boosted = dict(graph_boost([("flights", 0.04), ("airports", 0.03), ("ship", 0.035)], GRAPH, weight=0.5))
    assert boosted["flights"] == approx(0.04 + 0.5 * 0.03)
    assert boosted["airports"] == approx(0.03 + 0.5 * 0.04)
    assert boosted["ship"] == approx(0.035)


def test_graph_boost_only_lends_from_the_top():
    boosted = dict(graph_boost([("ship", 0.05), ("flights", 0.04), ("airports", 0.03)], GRAPH, weight=1.0, top=2))
    assert boosted["airports"] == approx(0.03 + 0.04)
    assert boosted["flights"] == approx(0.04)  # airports is outside the top 2


def test_zero_weight_keeps_the_order():
    ranked = [("b", 0.2), ("a", 0.1)]
    assert graph_boost(ranked, GRAPH, 0.0) == ranked


def test_complete_joins_inserts_bridge_after_the_pair_and_marks_it():
    out = complete_joins(["singer", "stadium", "concert"], GRAPH)
    assert out == [("singer", False), ("stadium", False), ("concert", False), ("sic", True)]


def test_complete_joins_leaves_directly_joined_pairs_alone():
    assert complete_joins(["flights", "airports"], GRAPH) == [("flights", False), ("airports", False)]


def test_a_bridge_already_in_the_head_is_not_duplicated():
    out = complete_joins(["singer", "sic", "concert"], GRAPH)
    assert [t for t, _ in out] == ["singer", "sic", "concert"] and not any(added for _, added in out)


REFERENCES = {"invoices": frozenset({"accounts", "currencies"}), "notes": frozenset({"users"})}


def test_entity_completion_brings_up_a_referenced_table_after_the_leaders():
    order = ["invoices", "lines", "taxes", "notes", "credits", "x", "y", "accounts"]
    out = complete_entities(order, REFERENCES, among=4, window=10)
    assert out[:6] == [
        ("invoices", False),
        ("lines", False),
        ("taxes", False),
        ("notes", False),
        ("accounts", True),
        ("credits", False),
    ]
    assert [t for t, _ in out].count("accounts") == 1 and len(out) == len(order)


def test_entity_completion_needs_evidence_of_its_own_within_the_window():
    # "currencies" is referenced but the question did not rank it at all; "accounts" ranks too low.
    order = ["invoices", "a", "b", "c", "d", "e", "accounts"]
    assert complete_entities(order, REFERENCES, among=2, window=6) == [(t, False) for t in order]


def test_entity_completion_follows_references_one_way_and_keeps_at_most():
    # A table that *references* a leader is not an entity of it: "invoices" stays where it is.
    order = ["accounts", "a", "b", "invoices"]
    assert complete_entities(order, REFERENCES, among=1, window=10) == [(t, False) for t in order]
    many = {"hub": frozenset({"p", "q", "r"})}
    out = complete_entities(["hub", "x", "r", "q", "p"], many, among=1, window=10, most=2)
    assert [t for t, added in out if added] == ["r", "q"]
