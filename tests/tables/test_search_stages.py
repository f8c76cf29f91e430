"""rank_tables, the pure ranking pipeline, on tiny inline rankings."""

from pytest import approx

from schema_search.core.floor import Relevance
from schema_search.tables.expand import adjacency
from schema_search.tables.search import SearchConfig, rank_tables

BM25 = SearchConfig({"names": 1.0, "body": 1.0}, rrf_k=60, graph_boost=0.0)


def test_fused_scores_are_rrf_and_channel_ranks_are_reported():
    result = rank_tables({"names": ["a", "b"], "body": ["b"]}, BM25, k=5)
    assert [r.id for r in result.ranked] == ["b", "a"]
    assert result.ranked[0].score == approx(1 / 62 + 1 / 61)
    assert result.ranked[0].channels == {"names": 2, "body": 1}


def test_pinned_table_stays_first_whatever_fusion_says():
    result = rank_tables({"names": ["a", "b"], "body": ["a"]}, BM25, k=2, pins=["c"])
    assert [r.id for r in result.ranked] == ["c", "a"] and result.ranked[0].pinned


def test_relevance_floor_drops_unrelated_text_only_matches_and_flags_off_topic():
    rankings = {"text": ["noise", "real"], "body": ["real"]}
    config = SearchConfig({"text": 1.0, "body": 1.0}, graph_boost=0.0)
    related = Relevance({"noise": 0.1, "real": 0.15, "elsewhere": 0.5}, floor=0.2)
    result = rank_tables(rankings, config, k=5, relevance=related)
    assert [r.id for r in result.ranked] == ["real"] and result.dropped == 1
    unrelated = Relevance({"noise": 0.1, "real": 0.15}, floor=0.2)
    off = rank_tables(rankings, config, k=5, relevance=unrelated)
    assert off.off_topic and off.ranked == []


def test_pins_survive_an_off_topic_verdict():
    result = rank_tables({}, BM25, k=5, pins=["t"], relevance=Relevance({"t": 0.0}, floor=0.2))
    assert [r.id for r in result.ranked] == ["t"] and not result.off_topic


def test_graph_boost_and_bridges():
    graph = adjacency([("flights", "airports"), ("sic", "singer"), ("sic", "concert")])
    config = SearchConfig({"body": 1.0}, rrf_k=60, graph_boost=0.5)
    result = rank_tables({"body": ["flight", "flights", "ship", "airports"]}, config, k=3, graph=graph)
    # RRF scores of neighbouring ranks are close: the linked pair overtakes "flight".
    assert [r.id for r in result.ranked][:2] == ["flights", "airports"]
    bridged = rank_tables({"body": ["singer", "concert"]}, SearchConfig({"body": 1.0}), k=5, graph=graph)
    assert [(r.id, r.added) for r in bridged.ranked] == [
        ("singer", False),
        ("concert", False),
        ("sic", True),
    ]
    assert bridged.ranked[2].channels == {"body": None}


def test_entity_completion_marks_the_referenced_table_added():
    references = {"invoices": frozenset({"accounts"})}
    rankings = {"body": ["invoices", "lines", "taxes", "notes", "credits", "accounts"]}
    result = rank_tables(rankings, SearchConfig({"body": 1.0}, graph_boost=0.0), k=5, references=references)
    assert [(r.id, r.added) for r in result.ranked] == [
        ("invoices", False),
        ("lines", False),
        ("taxes", False),
        ("notes", False),
        ("accounts", True),
    ]
    off = rank_tables(
        rankings, SearchConfig({"body": 1.0}, graph_boost=0.0, complete_entities=False), k=5, references=references
    )
    assert "accounts" not in [r.id for r in off.ranked]


def test_a_per_question_scale_can_silence_a_channel():
    rankings = {"names": ["a", "b"], "descriptions": ["b", "a"]}
    config = SearchConfig({"names": 1.0, "descriptions": 1.0}, rrf_k=60, graph_boost=0.0)
    assert rank_tables(rankings, config, k=2).ranked[0].score == approx(1 / 61 + 1 / 62)
    silenced = rank_tables(rankings, config, k=2, scales={"descriptions": 0.0})
    assert [r.id for r in silenced.ranked] == ["a", "b"] and silenced.ranked[0].score == approx(1 / 61)
