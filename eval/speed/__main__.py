"""Speed benchmark (a script, not a test): build, re-index, search and serve synthetic catalogs at several sizes.

    python -m eval.speed [--scales 1000 10000 100000] [--queries 1000] [--requests 20000] [--connections 16]

At each size, in one run, so every figure has its reference timed beside it on the
same (noisy, shared) machine:

* ``index`` with the dense channel, next to a BM25-only (tantivy) build;
* re-index after 1% of the tables changed, next to the full build;
* search in process (all stages, the question's embedding included), next to one
  bare question encoding and one bare one-field tantivy query;
* ``schemasift serve`` with its default workers: ``POST /v1/catalogs/bench/search``
  under a bounded load, next to ``GET /healthz`` under the same load, and the
  server's memory with the catalog loaded, next to an empty server's.

Prints a table, the targets of issue 12 at 10,000 tables, how each cost grows with
size (and a plot), and writes it all as JSON (``--json``).
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

from .http_load import load, start_server
from .machine import machine, percentiles
from .report import markdown, print_growth, print_scales, print_targets
from .synthetic import changed, questions, synthetic_catalog

RESULTS = Path(__file__).resolve().parents[1] / "results" / "speed.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=1_000, help="in-process searches per size")
    parser.add_argument("--requests", type=int, default=20_000, help="HTTP searches per size (at most --http-seconds)")
    parser.add_argument("--http-seconds", type=float, default=90.0, help="longest an HTTP load runs")
    parser.add_argument(
        "--connections", type=int, nargs="+", default=[16, 4], help="concurrent connections; the first is the target's"
    )
    parser.add_argument("--workers", type=int, default=None, help="serve workers (default: serve's own)")
    parser.add_argument("--backend", default=None, help="embedding backend (default: the shipped setting)")
    parser.add_argument("--no-http", action="store_true", help="skip the server figures")
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table as Markdown")
    parser.add_argument("-k", type=int, default=10)
    args = parser.parse_args()

    report: dict = {
        "machine_at_start": machine(),
        "connections": args.connections,
        "scales": {},
        "args": {k: str(v) for k, v in vars(args).items()},
    }
    with tempfile.TemporaryDirectory(prefix="schema-search-speed-") as work:
        work = Path(work)
        if not args.no_http:
            report["empty_server"] = _empty_server(work, args)
        for n in args.scales:
            print(f"\n== {n:,} tables ==", flush=True)
            report["scales"][str(n)] = _scale(n, work, args)
            report["scales"][str(n)]["machine"] = machine()
    report["machine_at_end"] = machine()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print()
    print_scales(report)
    print_targets(report)
    print_growth(report)
    print(f"\nwrote {args.json}")
    if args.markdown:
        args.markdown.write_text(markdown(report))
        print(f"wrote {args.markdown}")


def _settings(home: Path, args: argparse.Namespace, **extra) -> Settings:
    backend = {"embedding_backend": args.backend} if args.backend else {}
    return Settings(home=home, **backend, **extra)


def _scale(n: int, work: Path, args: argparse.Namespace) -> dict:
    out: dict = {}
    started = time.perf_counter()
    catalog = synthetic_catalog(n)
    out["tables"], out["columns"] = n, sum(len(t.columns) for t in catalog.tables)
    out["generate_s"] = _since(started)

    bm25 = Workspace(_settings(work / f"bm25-{n}", args, dense=False))
    shipped = Workspace(_settings(work / f"shipped-{n}", args))
    out["backend"] = shipped.settings.embedding_backend
    shipped.embedder()  # loaded (exported on a new machine) before any clock starts
    out["build_bm25_s"] = _timed(lambda: bm25.catalogs.index_catalog(catalog))
    out["build_s"] = _timed(lambda: shipped.catalogs.index_catalog(catalog))
    after, out["reindex_changed"] = changed(catalog, 0.01)
    out["reindex_s"] = _timed(lambda: shipped.catalogs.index_catalog(after))
    print(f"build {out['build_s']} s (BM25 only {out['build_bm25_s']} s), re-index 1% {out['reindex_s']} s", flush=True)

    out["search"] = _search(shipped, questions(args.queries), args.k)
    s = out["search"]
    print(
        f"search p50 {s['p50_ms']} ms p99 {s['p99_ms']} ms (bare encode p50 {s['bare_encode_p50_ms']} ms, "
        f"bare tantivy p50 {s['bare_tantivy_p50_ms']} ms)",
        flush=True,
    )
    if not args.no_http:
        out["http"] = _http(shipped.settings.home, args, work / f"serve-{n}.log")
    return out


def _search(workspace: Workspace, asked: list[str], k: int) -> dict:
    """Per question, interleaved so machine noise hits all three alike: the full search
    (each question new to the model's cache), one bare encoding of another new text,
    one bare tantivy query over one field fetching the ids."""
    embedder = workspace.embedder()
    index = open_index(workspace.catalogs.store.current("bench").index_path)
    searcher = index.searcher()
    for question in questions(50, seed=3):  # warm-up, other questions
        workspace.catalogs.search("bench", question, k)
    full, encode, bare = [], [], []
    for i, question in enumerate(asked):
        t0 = time.perf_counter()
        workspace.catalogs.search("bench", question, k)
        t1 = time.perf_counter()
        embedder.encode([f"{question} ({i})"])
        t2 = time.perf_counter()
        hits = searcher.search(index.parse_query(" ".join(words(question)), ["body"]), k).hits
        [searcher.doc(address)["id"][0] for _, address in hits]
        t3 = time.perf_counter()
        full.append((t1 - t0) * 1000)
        encode.append((t2 - t1) * 1000)
        bare.append((t3 - t2) * 1000)
    (p50, p99), (e50, e99), (b50, b99) = percentiles(full), percentiles(encode), percentiles(bare)
    return {
        "questions": len(asked),
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "bare_encode_p50_ms": round(e50, 2),
        "bare_encode_p99_ms": round(e99, 2),
        "bare_tantivy_p50_ms": round(b50, 3),
        "bare_tantivy_p99_ms": round(b99, 3),
    }


def _http(home: Path, args: argparse.Namespace, log: Path) -> dict:
    server = start_server(home, args.workers, log, args.backend)
    try:
        out: dict = {"workers": server.workers, "ready_s": server.ready_s, "memory_mb": server.memory_mb()}
        bodies = [json.dumps({"question": q, "k": args.k}).encode() for q in questions(2_000, seed=17)]
        # Warm every worker's caches a little, as a running server's would be.
        first, *others = args.connections
        load(server.port, [("POST", "/v1/catalogs/bench/search", b) for b in bodies[:100]], first)
        budget = _requests_within(server.port, bodies, args)
        requests = [("POST", "/v1/catalogs/bench/search", bodies[i % len(bodies)]) for i in range(budget)]
        out["search"] = load(server.port, requests, first)
        out["healthz"] = load(server.port, [("GET", "/healthz", None)] * budget, first)
        out["memory_after_load_mb"] = server.memory_mb()
        # Fewer connections: what one client waits when the server is not saturated.
        out["other_connections"] = [load(server.port, requests[: budget // 4], c) for c in others]
        s, h = out["search"], out["healthz"]
        print(
            f"HTTP search {s['rps']} req/s, p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms, {s['errors']} errors "
            f"({s['requests']} requests, {s['connections']} connections); /healthz {h['rps']} req/s; "
            f"memory {out['memory_after_load_mb']} MB",
            flush=True,
        )
        for o in out["other_connections"]:
            print(
                f"  with {o['connections']} connections: {o['rps']} req/s, p50 {o['p50_ms']} ms, p99 {o['p99_ms']} ms, "
                f"{o['errors']} errors",
                flush=True,
            )
        return out
    finally:
        server.stop()


def _requests_within(port: int, bodies: list[bytes], args: argparse.Namespace) -> int:
    """``--requests``, or fewer where the server's pace would run past ``--http-seconds``."""
    probe = load(port, [("POST", "/v1/catalogs/bench/search", b) for b in bodies[100:400]], args.connections[0])
    return max(300, min(args.requests, int(probe["rps"] * args.http_seconds)))


def _empty_server(work: Path, args: argparse.Namespace) -> dict:
    home = work / "empty"
    home.mkdir()
    server = start_server(home, args.workers, work / "serve-empty.log", args.backend)
    try:
        return {"workers": server.workers, "ready_s": server.ready_s, "memory_mb": server.memory_mb()}
    finally:
        server.stop()


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return _since(started)


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 2)


if __name__ == "__main__":
    main()
