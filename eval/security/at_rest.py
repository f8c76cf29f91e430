"""What encryption at rest protects, measured: one corpus indexed in plain text and sealed, in one run.

    python -m eval.security.at_rest --out eval/results/at-rest.json
    python -m eval.security.at_rest --source sample_docs/handbook --questions none   # a quick look

Four figures, each next to the plain-text reference:

1. phrases: 200 distinctive 5-word runs of the documents (sampled with a fixed seed, each
   from one document only) looked for in the raw bytes of every file of the data directory,
   recursively, tantivy's included. Before the grep each home is used as a server would be:
   a search with a session keeps its turn (``turns.sqlite3``), and a review entry made from a
   document's page is recorded and approved (``review.sqlite3``, the corpus ``reviewed``).
   Target: 0 found in the sealed one; the plain one's turns and queue must hold some.
2. readable words: the share of a passage's distinct words that someone without the key
   reads back from the index files: (a) from the BM25 terms, as they are (plain: every word
   that is not a stop word, stemmed) and by frequency analysis of blind terms when the
   attacker knows the corpus's exact term statistics (the best case: a blind term whose
   document frequency no other term has is read); (b) from the vectors, which stay plain:
   the corpus's own vocabulary (again the attacker's best case) embedded with the public
   model, and a passage's words counted among the N words nearest its vector.
3. latency of a search at k=10 over the eval questions, p50/p99, sealed next to plain, with
   the chunks decrypted per search (those returned, those a pin had to read for a reference
   no verbatim key covers, and those a coverage second pass searched for).
4. top-10 agreement, sealed against plain (target: 100%).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from schema_search.core import index
from schema_search.docs.corpus import TEXTS_FILE, Chunk
from schema_search.docs.documents import chunk_document
from schema_search.review.models import NewEntry, PageSnapshot
from schema_search.review.reviews import Reviews
from schema_search.review.rewrite import deterministic
from schema_search.settings import Settings
from schema_search.workspace import Workspace
from schema_search.workspace.batches import TURNS_FILE

ROOT = Path(__file__).resolve().parents[2]
FASTAPI = ROOT.parent / "shared" / "docs_corpora" / "fastapi"
QUESTIONS = ROOT / "eval" / "docs_questions" / "fastapi.jsonl"
CORPUS = "docs"
PHRASES = 200
PHRASE_WORDS = 5
SEED = 32
NEAREST = (10, 50)
SAMPLED_PASSAGES = 300
_RUN = re.compile(rf"[A-Za-z][A-Za-z']+(?: [A-Za-z][A-Za-z']+){{{PHRASE_WORDS - 1}}}")
_WORD = re.compile(r"[A-Za-z]{3,}")


# -- 1. phrases -------------------------------------------------------------------


def phrases(texts: Mapping[str, str], n: int = PHRASES, seed: int = SEED) -> list[str]:
    """``n`` 5-word runs of letters and single spaces, each found in one document only, sampled with ``seed``.

    >>> phrases({"a": "alpha beta gamma delta epsilon zeta", "b": "alpha beta gamma delta epsilon"}, 5)
    ['beta gamma delta epsilon zeta']
    """
    runs: dict[str, set[str]] = {}
    for document, text in texts.items():
        words = text.split(" ")
        for at in range(len(words)):
            candidate = " ".join(words[at : at + PHRASE_WORDS])
            if _RUN.fullmatch(candidate):
                runs.setdefault(candidate, set()).add(document)
    # Distinctive: in one document only, and not a run that other documents hold in another case.
    lowered = Counter(run.lower() for run in runs)
    unique = sorted(run for run, documents in runs.items() if len(documents) == 1 and lowered[run.lower()] == 1)
    return random.Random(seed).sample(unique, min(n, len(unique)))


def files(where: Path) -> list[Path]:
    """Every file under ``where`` (recursively), or ``where`` itself when it is a file."""
    where = Path(where)
    return [where] if where.is_file() else [p for p in where.rglob("*") if p.is_file()]


def found_in(where: Path, wanted: Iterable[str]) -> list[str]:
    """The phrases whose bytes (UTF-8, as written, or lower-cased) appear in any file under ``where``."""
    blobs = [p.read_bytes() for p in files(where)]
    found = []
    for phrase in wanted:
        needles = {phrase.encode(), phrase.lower().encode()}
        if any(needle in blob for blob in blobs for needle in needles):
            found.append(phrase)
    return found


def use(workspace: Workspace, texts: Mapping[str, str], wanted: Sequence[str], corpus: str = CORPUS) -> None:
    """What a server stores besides the index, done to ``workspace``: a search in a conversation's
    turn (its kept batch is passage text) and an approved review entry built from a document."""
    workspace.corpora.search(corpus, wanted[0], 5, session="at-rest", turn="1")  # 10 more kept back
    # A document holding a sampled phrase: its sentences go into the entry, as a read page's would.
    document = next(d for d, text in texts.items() if wanted[1] in text)
    page = PageSnapshot(url="https://docs.example/page", title="A page read", text=texts[document])
    entry = NewEntry(
        question=wanted[1],
        answer=f"As the page says: {wanted[1]}.",
        read=[page.url],
        pages=[page],
        unsourced_numbers=[],
        rewrite=deterministic(wanted[1], [page]),
    )
    reviews = Reviews(workspace)
    reviews.approve(reviews.queue.record(entry))


def phrase_counts(work: Path, wanted: Sequence[str]) -> dict:
    """Phrases found in each whole home, and in the plain home's turns and queue (the check can find them there)."""
    plain = work / "plain"
    return {
        "sampled": len(wanted),
        "files_sealed": len(files(work / "sealed")),
        "found_sealed": len(found_in(work / "sealed", wanted)),
        "found_plain": len(found_in(plain, wanted)),
        "found_plain_turns": len(found_in(plain / TURNS_FILE, wanted)),
        "found_plain_review_queue": len(found_in(plain / "review.sqlite3", wanted)),
    }


# -- 2. readable words ----------------------------------------------------------------


def distinct_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def term_readable(passages: Sequence[Chunk]) -> dict[str, float]:
    """Mean share of a passage's distinct words read from the body terms: plain, and blind by frequency analysis."""
    documents = [set(index.terms(chunk_document(c)["body"])) for c in passages]
    frequency = Counter(term for terms in documents for term in terms)
    by_frequency = Counter(frequency.values())
    # A blind term is read when its document frequency is one no other term has: the best case,
    # an attacker who knows the corpus's exact statistics.
    unique = {term for term, df in frequency.items() if by_frequency[df] == 1}
    plain, blind = [], []
    for chunk in passages:
        words = distinct_words(chunk.text)
        if not words:
            continue
        terms = {word: index.terms(word) for word in words}
        plain.append(sum(bool(t) for t in terms.values()) / len(words))
        blind.append(sum(bool(t) and t[0] in unique for t in terms.values()) / len(words))
    return {"plain": round(statistics.mean(plain), 4), "blind_frequency_analysis": round(statistics.mean(blind), 4)}


def vector_readable(vectors: np.ndarray, passages: Sequence[Chunk], embedder, seed: int = SEED) -> dict:
    """Mean share of a passage's distinct words among the N vocabulary words nearest its (plain) vector."""
    vocabulary = sorted(set().union(*(distinct_words(c.text) for c in passages)))
    vocab_vectors = np.asarray(embedder.encode(vocabulary), dtype=np.float32)
    rows = random.Random(seed).sample(range(len(passages)), min(SAMPLED_PASSAGES, len(passages)))
    shares: dict[int, list[float]] = {n: [] for n in NEAREST}
    precision: dict[int, list[float]] = {n: [] for n in NEAREST}
    for row in rows:
        words = distinct_words(passages[row].text)
        if not words:
            continue
        order = np.argsort(-(vocab_vectors @ np.asarray(vectors[row], dtype=np.float32)))
        for n in NEAREST:
            nearest = {vocabulary[i] for i in order[:n]}
            hit = len(nearest & words)
            shares[n].append(hit / len(words))
            precision[n].append(hit / n)
    return {
        "vocabulary": len(vocabulary),
        "passages": len(rows),
        **{f"top{n}_share_of_words": round(statistics.mean(shares[n]), 4) for n in NEAREST},
        **{f"top{n}_precision": round(statistics.mean(precision[n]), 4) for n in NEAREST},
    }


# -- 3 and 4. latency, agreement ------------------------------------------------------------


def timed_searches(plain: Workspace, sealed: Workspace, questions: Sequence[str], k: int = 10, rounds: int = 3) -> dict:
    """p50/p99 ms of each, interleaved question by question; decryptions per sealed search; top-k agreement."""
    times: dict[str, list[float]] = {"plain": [], "sealed": []}
    decrypted: list[int] = []
    agree = 0
    for question in questions:  # warm: the first search of a question encodes it
        plain.corpora.search(CORPUS, question, k)
        sealed.corpora.search(CORPUS, question, k)
    searcher = sealed.corpora.searcher(CORPUS)
    for round_ in range(rounds):
        for question in questions:
            started = time.perf_counter()
            a = plain.corpora.search(CORPUS, question, k)
            times["plain"].append((time.perf_counter() - started) * 1000)
            before = searcher.decrypted
            started = time.perf_counter()
            b = sealed.corpora.search(CORPUS, question, k)
            times["sealed"].append((time.perf_counter() - started) * 1000)
            decrypted.append(searcher.decrypted - before)
            if round_ == 0:
                agree += [r.source_id for r in a.results] == [r.source_id for r in b.results]
    return {
        "k": k,
        "questions": len(questions),
        "searches_each": len(times["plain"]),
        **{
            name: {"p50_ms": round(_quantile(v, 0.5), 2), "p99_ms": round(_quantile(v, 0.99), 2)}
            for name, v in times.items()
        },
        "decrypted_per_search": round(statistics.mean(decrypted), 2) if decrypted else 0,
        "top10_agreement": round(agree / len(questions), 4) if questions else None,
    }


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(values), q)) if values else float("nan")


# -- the run ------------------------------------------------------------------------------


class Reusing:
    """The model, remembering vectors while ``remember`` is on: the second build embeds nothing again."""

    def __init__(self, embedder) -> None:
        self._embedder, self._seen, self.remember = embedder, {}, True
        self.name = embedder.name

    def encode(self, texts):
        texts = list(texts)
        if not self.remember:
            return self._embedder.encode(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if missing:
            self._seen.update(zip(missing, self._embedder.encode(missing)))
        return np.stack([self._seen[t] for t in texts])

    def __getattr__(self, name):
        return getattr(self._embedder, name)


def run(source: Path, questions: Sequence[str], dense: bool = True) -> dict:
    work = Path(tempfile.mkdtemp(prefix="at-rest-"))
    try:
        return _measure(work, source, questions, dense)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(work: Path, source: Path, questions: Sequence[str], dense: bool) -> dict:
    kek = work / "kek.bin"
    kek.write_bytes(os.urandom(32))
    plain = Workspace(Settings(home=work / "plain", dense=dense, embedding_threads=1))
    sealed = Workspace(Settings(home=work / "sealed", dense=dense, embedding_threads=1, kek_file=kek))
    model = Reusing(plain.embedder()) if dense else None
    if model is not None:
        for workspace in (plain, sealed):
            workspace.embedder = lambda model=model: model  # one encoding of each passage for both builds
    started = time.perf_counter()
    plain.corpora.index(source, corpus=CORPUS)
    sealed.corpora.index(source, corpus=CORPUS)
    built = time.perf_counter() - started
    if model is not None:
        model.remember = False  # searches encode their questions, in both alike
    plain_gen = plain.corpora.store.current(CORPUS).path
    texts = {
        r["id"]: r["text"] for r in map(json.loads, (plain_gen / TEXTS_FILE).read_text(encoding="utf-8").splitlines())
    }
    wanted = phrases(texts)
    passages = list(plain.corpora.searcher(CORPUS).corpus.chunks)
    for workspace in (plain, sealed):
        use(workspace, texts, wanted)
    result: dict = {
        "source": str(source),
        "documents": len(texts),
        "passages": len(passages),
        "build_seconds_both": round(built, 1),
        "phrases": phrase_counts(work, wanted),
        "readable_words": {"bm25_terms": term_readable(passages)},
    }
    if dense:
        vectors = np.load(plain_gen / "embeddings.npy")
        result["readable_words"]["vectors"] = vector_readable(vectors, passages, model)
    if questions:
        result["search"] = timed_searches(plain, sealed, questions)
    return result


def table(result: dict) -> str:
    p, words = result["phrases"], result["readable_words"]
    lines = [
        f"{result['documents']} documents, {result['passages']} passages ({result['source']})",
        f"phrases found in the files   sealed {p['found_sealed']}/{p['sampled']} ({p['files_sealed']} files)   "
        f"plain {p['found_plain']}/{p['sampled']} (turns {p['found_plain_turns']}, "
        f"review queue {p['found_plain_review_queue']})",
        f"words read from BM25 terms   sealed {words['bm25_terms']['blind_frequency_analysis']:.1%} "
        f"(frequency analysis, best case)   plain {words['bm25_terms']['plain']:.1%}",
    ]
    if "vectors" in words:
        v = words["vectors"]
        lines += [
            f"words read from vectors      top-{n}: {v[f'top{n}_share_of_words']:.1%} of a passage's words "
            f"(precision {v[f'top{n}_precision']:.1%}), same in both"
            for n in NEAREST
        ]
    if "search" in result:
        s = result["search"]
        lines += [
            f"search k=10, {s['searches_each']} each  plain p50 {s['plain']['p50_ms']} ms p99 {s['plain']['p99_ms']} ms   "
            f"sealed p50 {s['sealed']['p50_ms']} ms p99 {s['sealed']['p99_ms']} ms",
            f"chunks decrypted per search {s['decrypted_per_search']} (of {result['passages']} searched)   "
            f"top-10 agreement {s['top10_agreement']:.0%}",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, default=FASTAPI, help="folder of documents (default: FastAPI's docs)")
    parser.add_argument("--questions", default=str(QUESTIONS), help="JSONL of questions, or 'none'")
    parser.add_argument("--no-dense", action="store_true", help="without the embedding model (no vector figures)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    questions = (
        []
        if args.questions == "none"
        else [json.loads(line)["question"] for line in Path(args.questions).read_text().splitlines() if line.strip()]
    )
    result = run(args.source, questions, dense=not args.no_dense)
    print(table(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
