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


class _Fields:
    """A field ranker over fixed chunks: every chunk holds every word asked for."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids

    def containing_all(self, field, terms, limit):
        return self.ids[:limit]


def _crowded(distances: dict[str, float] | None):
    """A corpus of 40 documents, 12 of which cite PEP 8 (more than 5% of them, past the share; fewer than half)."""
    from schema_search.docs.corpus import Chunk
    from schema_search.docs.references import pinned_chunks

    chunks = {f"c{n}": Chunk(f"c{n}", f"d{n}", 0, f"Doc {n}", (), "u", "As PEP 8 says, indent.") for n in range(12)}
    return pinned_chunks(
        "what does PEP 8 say about line length?",
        _Fields(list(chunks)),
        chunks.get,
        documents=40,
        share=0.05,
        distances=None if distances is None else (lambda ids: {i: distances[i] for i in ids}),
        most=5,
    )


def test_a_reference_in_many_documents_pins_the_passages_before_the_gap():
    # Measured shape: the answers at 0.27 and 0.31, the noise from 0.51 on.
    distances = {f"c{n}": 0.51 + n * 0.002 for n in range(12)} | {"c7": 0.27, "c11": 0.31}
    pins, kept = _crowded(distances)
    assert pins == [] and sorted(kept) == ["c11", "c7"]  # kept above the floor, in the fused order


def test_an_even_slope_pins_nothing_and_so_does_no_dense_channel():
    assert _crowded({f"c{n}": 0.30 + n * 0.01 for n in range(12)}) == ([], [])
    assert _crowded(None) == ([], [])
