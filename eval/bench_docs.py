"""Documents benchmark (a script, not a test): index real corpora, then time searches.

    python -m eval.bench_docs [--corpora ../shared/docs_corpora/fastapi ../shared/docs_corpora/peps] [--queries 500]

Indexes each folder as a corpus twice in the same run: BM25 only (the tantivy-only
reference) and as shipped (dense channel included), printing documents, chunks and
seconds. Then asks the committed question sets (repeated to ``--queries``, each
question made new to the model's cache) and prints search p50/p99 end to end next
to one bare tantivy query over one field and one bare MiniLM question encoding,
timed in the same loop, so the ratios hold on a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from schema_search.core.analyzer import words
from schema_search.core.index import open_index
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .speed.machine import percentiles

SHARED = Path(__file__).resolve().parents[2] / "shared" / "docs_corpora"
QUESTIONS = Path(__file__).resolve().parent / "docs_questions"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, nargs="+", default=[SHARED / "fastapi", SHARED / "peps"])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=None, help="embedding threads (default: torch's)")
    args = parser.parse_args()
    asked = [json.loads(line)["question"] for path in sorted(QUESTIONS.glob("*.jsonl")) for line in path.open()]
    with tempfile.TemporaryDirectory() as home:
        shipped = Workspace(Settings(home=Path(home) / "dense", embedding_threads=args.threads))
        bm25 = Workspace(Settings(home=Path(home) / "bm25", dense=False))
        names = []
        for folder in args.corpora:
            name = folder.name.lower().replace("_", "-")
            names.append(name)
            for label, workspace in (("BM25 only (tantivy reference)", bm25), ("as shipped, dense included", shipped)):
                started = time.perf_counter()
                result = workspace.corpora.index(folder, corpus=name)
                info = result.corpus
                print(
                    f"index {name}, {label}: {info.documents} documents, {info.chunks} chunks, "
                    f"{time.perf_counter() - started:.1f} s"
                )
        chunks = sum(shipped.corpora.info(n).chunks for n in names)
        print(f"\n{len(names)} corpora, {chunks} chunks; {args.queries} questions per corpus")
        rows = {
            "search_docs end to end": [],
            "bare tantivy: one field, top-k ids": [],
            "bare MiniLM: encode one question": [],
        }
        embedder = shipped.embedder()
        for name in names:
            index = open_index(shipped.corpora.store.current(name).index_path)
            searcher = index.searcher()
            for question in asked[:5]:  # warm-up
                shipped.corpora.search(name, question, args.k)
            for i in range(args.queries):
                question = f"{asked[i % len(asked)]} ({i})"  # new to the model's cache every time
                t0 = time.perf_counter()
                shipped.corpora.search(name, question, args.k)
                t1 = time.perf_counter()
                hits = searcher.search(index.parse_query(" ".join(words(question)) or "x", ["body"]), args.k).hits
                [searcher.doc(address)["id"][0] for _, address in hits]
                t2 = time.perf_counter()
                embedder.encode([question + " again"])
                t3 = time.perf_counter()
                rows["search_docs end to end"].append((t1 - t0) * 1000)
                rows["bare tantivy: one field, top-k ids"].append((t2 - t1) * 1000)
                rows["bare MiniLM: encode one question"].append((t3 - t2) * 1000)
    bare50, _ = percentiles(rows["bare tantivy: one field, top-k ids"])
    print(f"{'path':<40} {'p50 ms':>8} {'p99 ms':>8} {'p50 x bare tantivy':>19}")
    for label, samples in rows.items():
        p50, p99 = percentiles(samples)
        print(f"{label:<40} {p50:8.3f} {p99:8.3f} {p50 / bare50:19.1f}")


if __name__ == "__main__":
    main()
