from pytest import approx

from schema_search.core.fusion import ranks_of, rrf


def test_rrf_sums_reciprocal_ranks_with_weights():
    fused = dict(rrf({"a": ["x", "y", "z"], "b": ["z", "x"]}, {"a": 1.0, "b": 0.5}, k=60))
    assert fused["x"] == approx(1 / (60 + 1) + 0.5 / (60 + 2))
    assert fused["y"] == approx(1 / (60 + 2))
    assert fused["z"] == approx(1 / (60 + 3) + 0.5 / (60 + 1))


def test_rrf_orders_best_first_and_ties_keep_first_seen_order():
    assert [i for i, _ in rrf({"a": ["x", "y"], "b": ["y", "x"]})] == ["x", "y"]


def test_zero_weight_and_unlisted_channels_contribute_nothing():
    assert rrf({"a": ["x"], "b": ["y"]}, {"a": 1.0}) == [("x", approx(1 / 61))]
    assert rrf({"a": ["x"], "b": ["y"]}, {"a": 1.0, "b": 0.0}) == [("x", approx(1 / 61))]


def test_empty_channel_contributes_nothing():
    assert rrf({"a": [], "b": ["y"]}) == [("y", approx(1 / 61))]


def test_ranks_of_reports_none_where_unmatched():
    assert ranks_of({"a": ["x"], "b": ["y", "x"]}, ["x", "y"]) == {"x": {"a": 1, "b": 2}, "y": {"a": None, "b": 1}}
