"""``python -m eval.reliability``: every reliability and security part, one table.

Parts (each also runs alone as ``python -m eval.reliability.<part>``):

* ``hostile``: 300+ hostile SQL strings through validation and read-only execution on
  SQLite, DuckDB and PostgreSQL, and against collection queries; effects detected by
  hashing files, checksumming PostgreSQL and watching for new files; runaway queries timed.
* ``crash``: SIGKILL ``schemasift index`` at random moments; the catalog or corpus
  must open with the old or new count, no stale lock, no stray bytes after the next build.
* ``fuzz``: schemathesis over the app's own OpenAPI, valid and invalid requests.
* ``injection``: prompt-injection payloads in names, comments, descriptions and
  documents, through every MCP tool: all inside the fence.
* ``secrets``: a distinctive password through every path; grep every artifact.
* ``load``: searches while generations swap and another client sends hostile and
  oversized requests beyond the concurrency limit.

``--quick`` runs each part at the size of its CI slice. Exit status 0 only when every
part is at target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from .report import Part, show

PARTS = ("hostile", "crash", "fuzz", "injection", "secrets", "load")


def _runners(quick: bool, kills: int | None, examples: int | None) -> dict[str, Callable[[], list[Part]]]:
    from . import crash, fuzz, hostile_sql, injection, load, secrets

    return {
        "hostile": lambda: hostile_sql.run(subset=hostile_sql.ci_slice if quick else None),
        "crash": lambda: [crash.run(kills=kills or (6 if quick else 200), scale=0.3 if quick else 1.0)],
        "fuzz": lambda: [fuzz.run(examples_per_operation=examples or (10 if quick else 100))],
        "injection": lambda: [injection.run()],
        "secrets": lambda: [secrets.run()],
        "load": lambda: [load.run(seconds=6.0 if quick else 20.0)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.reliability", description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of: {', '.join(PARTS)}")
    parser.add_argument("--quick", action="store_true", help="each part at its CI slice's size")
    parser.add_argument("--kills", type=int, help="SIGKILLs for the crash part (default 200; quick 6)")
    parser.add_argument("--examples", type=int, help="examples per operation for the fuzz part (default 100)")
    parser.add_argument("--json", type=Path, help="also write the parts, with timings, to this file")
    args = parser.parse_args(argv)
    chosen = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(chosen) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    runners = _runners(args.quick, args.kills, args.examples)
    parts: list[Part] = []
    seconds: dict[str, float] = {}
    for name in chosen:
        print(f"[reliability] {name} ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        parts += runners[name]()
        seconds[name] = round(time.perf_counter() - started, 1)
        print(f"[reliability] {name}: {seconds[name]} s", file=sys.stderr, flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"parts": [asdict(p) for p in parts], "seconds": seconds}, indent=2) + "\n")
    return show(parts, most=20)


if __name__ == "__main__":
    sys.exit(main())
