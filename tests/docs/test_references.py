"""Verbatim references: which words of a question pin chunks, and how they match."""

from __future__ import annotations

from schema_search.docs.references import references


def texts(question: str, labels=()) -> list[str]:
    return [r.text for r in references(question, labels)]


def test_labelled_numbers_versions_and_identifiers():
    assert texts("What does PEP 572 change for 3.8, and how does HTTPException relate?") == [
        "PEP 572",
        "3.8",
        "HTTPException",
    ]
    assert texts("What is Article 18 about?") == ["Article 18"]
    assert texts("explain `__init_subclass__` and typing.Protocol") == ["__init_subclass__", "typing.Protocol"]


def test_speech_acronyms_and_paths_are_not_references():
    assert texts("Return 201 when created, else 200") == []
    assert texts("How does JSON and CORS work with the API under /api/v1?") == []
    assert texts("the top 5 errors in 2018") == []


def test_a_lower_case_label_counts_when_the_corpus_knows_it():
    assert texts("what does pep 484 say about stubs") == []
    assert texts("what does pep 484 say about stubs", {"pep"}) == ["pep 484"]


def test_labelled_numbers_match_in_any_case_and_spacing_versions_and_identifiers_exactly():
    pep, version, name = references("PEP 8 in 3.12 with HTTPException")
    assert all(pep.pattern.search(t) for t in ("see PEP 8.", "pep-8", "PEP8")) and not pep.pattern.search("PEP 84")
    assert (
        version.pattern.search("Python 3.12 adds")
        and not version.pattern.search("3.120")
        and not version.pattern.search("13.12.1")
    )
    assert name.pattern.search("raise HTTPException(") and not name.pattern.search("httpexception")
    assert name.header_only and not pep.header_only
