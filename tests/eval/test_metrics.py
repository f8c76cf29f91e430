"""Metrics, with expected values written as the formula."""

import pytest

from eval.metrics import all_gold_recall, mean, percentile, reciprocal_rank, table_recall

RANKED = ["a.x", "a.y", "b.z", "a.w"]


@pytest.mark.parametrize(
    ("gold", "k", "expected"),
    [
        (["a.x"], 1, 1.0),
        (["a.y"], 1, 0.0),
        (["a.x", "b.z"], 2, 0.0),  # one of two gold tables missing: the question does not count
        (["a.x", "b.z"], 3, 1.0),
        (["a.x", "c.q"], 20, 0.0),  # a gold table never returned
    ],
)
def test_all_gold_recall(gold, k, expected):
    assert all_gold_recall(RANKED, gold, k) == expected


def test_table_recall_is_the_share_of_gold_found():
    assert table_recall(RANKED, ["a.x", "b.z", "c.q"], 2) == pytest.approx(1 / 3)
    assert table_recall(RANKED, ["a.x", "b.z", "c.q"], 3) == pytest.approx(2 / 3)
    assert table_recall([], ["a.x"], 10) == 0.0


def test_reciprocal_rank_counts_the_first_gold_table():
    assert reciprocal_rank(RANKED, ["b.z", "a.w"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(RANKED, ["c.q"]) == 0.0


def test_mean_over_questions():
    per_question = [reciprocal_rank(RANKED, g) for g in (["a.x"], ["a.y"], ["c.q"])]
    assert mean(per_question) == pytest.approx((1 / 1 + 1 / 2 + 0) / 3)


def test_percentile_is_nearest_rank():
    samples = [float(i) for i in range(1, 201)]  # 1 .. 200
    assert percentile(samples, 50) == 100.0  # ceil(200 * 0.50) = 100th value
    assert percentile(samples, 99) == 198.0  # ceil(200 * 0.99) = 198th value
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) == 0.0
