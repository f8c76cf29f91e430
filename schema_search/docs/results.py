"""Ranked chunks -> the wire models: results with distances, and a chunk or document by source ID."""

from __future__ import annotations

from ..core.closeness import distance
from ..core.explain import context
from ..core.highlight import matching_words, words_by_term
from ..core.question import question_terms
from ..errors import DocumentNotFound
from .models import ChunkResult, Derived, DocsSearchResponse, SourceDetail
from .search import ChunkHits, CorpusSearcher


def response(searcher: CorpusSearcher, question: str, hits: ChunkHits) -> DocsSearchResponse:
    closeness = hits.closeness
    unrelated = distance(closeness.unrelated) if closeness else None
    terms = question_terms(question)
    results = []
    for ranked in hits.ranking.ranked:
        chunk = searcher.chunk(ranked.id)
        assert chunk is not None  # ranked ids come from this generation's index
        document = searcher.document(chunk.document)
        results.append(
            ChunkResult(
                source_id=chunk.id,
                url=chunk.url,
                title=chunk.title,
                heading_path=list(chunk.headings),
                text=chunk.text,
                score=round(ranked.score, 6),
                distance=closeness.distance(chunk.id) if closeness else None,
                unrelated_distance=unrelated,
                channels=ranked.channels,
                pinned=ranked.pinned,
                added=ranked.added,
                document_id=chunk.document,
                highlight=matching_words(words_by_term(chunk.text), terms),
                fetched=document.fetched if document else None,
                derived=Derived.of(chunk.derived),
            )
        )
    return DocsSearchResponse(
        corpus=searcher.corpus.name,
        question=question,
        off_topic=hits.ranking.off_topic,
        results=results,
        **context(hits.ranking, closeness),
    )


def detail(searcher: CorpusSearcher, source_id: str) -> SourceDetail:
    """A chunk, or a whole document, by its source ID."""
    name = searcher.corpus.name
    chunk = searcher.chunk(source_id)
    if chunk is not None:
        document = searcher.document(chunk.document)
        assert document is not None
        return SourceDetail(
            source_id=chunk.id,
            kind="chunk",
            corpus=name,
            url=chunk.url,
            title=chunk.title,
            heading_path=list(chunk.headings),
            text=chunk.text,
            document_id=document.id,
            format=document.format,
            fetched=document.fetched,
            derived=Derived.of(chunk.derived),
        )
    document = searcher.document(source_id)
    if document is None:
        raise DocumentNotFound(
            f"No chunk or document {source_id.strip()!r} in corpus {name!r}.",
            hint="Give a source ID from a search result, like S3fa21c (with or without brackets).",
        )
    return SourceDetail(
        source_id=document.id,
        kind="document",
        corpus=name,
        url=document.url,
        title=document.title,
        text=searcher.text(document),
        document_id=document.id,
        format=document.format,
        chunks=[c.id for c in searcher.corpus.chunks if c.document == document.id],
        fields=document.fields,
        fetched=document.fetched,
        visual=document.visual,
    )
