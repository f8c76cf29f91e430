"""Question words: how a question asks never counts as what it is about, in any keyword channel."""

from schema_search.core import index
from schema_search.core.channels import bm25_rankers
from schema_search.core.question import content_words


def test_interrogatives_pronouns_and_request_verbs_go():
    assert content_words("What is the capital of Mongolia?") == ["is", "the", "capital", "of", "mongolia"]
    assert content_words("Show me all invoices") == ["all", "invoices"]
    assert content_words("give me the list of customers") == ["the", "list", "of", "customers"]
    assert content_words("Please list every contact list") == ["every", "contact", "list"]
    assert content_words("Can you tell me how many tickets are open?") == ["tickets", "are", "open"]


def test_request_verbs_stay_where_they_are_data():
    assert content_words("tv shows that aired in 2019") == ["tv", "shows", "that", "aired", "in", "2019"]
    assert content_words("contacts on the Beta list") == ["contacts", "on", "the", "beta", "list"]


def test_cjk_questions_are_untouched():
    assert content_words("后台任务怎么用") == ["后台", "台任", "任务", "务怎", "怎么", "么用"]


def test_question_words_neither_match_nor_rank_in_bm25_channels():
    documents = [
        {"id": "guide", "names": "guide", "text": "how we do things and what to show"},
        {"id": "bread", "names": "recipes", "text": "sourdough bread"},
    ]
    rankers = bm25_rankers(index.FieldRanker(index.build(documents, ["names", "text"])), ["names", "text"])
    assert rankers["text"]("Show me how we do what we do?", 10) == []
    assert rankers["text"]("how do I bake sourdough bread", 10) == ["bread"]
