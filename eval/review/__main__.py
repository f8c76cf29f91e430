"""``python -m eval.review``: the public-source fallback and the review queue, on questions the handbook cannot answer.

Indexes ``sample_docs/handbook`` into a scratch data directory and asks the 20 questions of
``eval/docs_questions/unanswerable_handbook.jsonl`` with the fallback off, then on, against
the fixed pages of ``eval/review/pages`` behind a local SearXNG-shaped search. Counts answers
with a traceable source (a cited passage or read page whose text holds the answer's key
terms), numbers in answers that no cited source holds, review-queue entries; then rejects
the entries and asks again, to check that no rejected page is offered twice.

``--model scripted`` (the default) is a rule-based stand-in for a model (:mod:`.scripted`),
reported as such; ``--model local/smollm2`` or a hosted model runs the real agent.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from schema_search.agent.answer import answer
from schema_search.review.numbers import unsourced_numbers
from schema_search.review.queue import ReviewQueue
from schema_search.review.reviews import Reviews
from schema_search.settings import Settings
from schema_search.tools.collections import CollectionTools
from schema_search.tools.docs import DocTools
from schema_search.workspace import Workspace
from schema_search.workspace.configs import vault

from .scripted import scripted
from .web import serving

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "eval" / "docs_questions" / "unanswerable_handbook.jsonl"
_LABELS = re.compile(r"\n\nPublic sources, not your material.*", re.S)
_BRACKETS = re.compile(r"\[[^\]]*\]")


def _sources_text(ws: Workspace, result) -> list[str]:
    return [ws.corpora.source("handbook", c.id).text for c in result.cited if c.id.startswith("S")]


def _run(ws: Workspace, questions: list[dict], complete, model: str, pages: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for q in questions:
        collections, docs = CollectionTools(ws, ["handbook"]), DocTools(ws, ["handbook"])
        try:
            result = answer(q["question"], collections=collections, docs=docs, model=model, complete=complete)
        except Exception as error:  # noqa: BLE001 - one failed question is a row, not the end of the run
            rows.append({"question": q["question"], "error": f"{type(error).__name__}: {error}"})
            continue
        said = _BRACKETS.sub(" ", _LABELS.sub("", result.text))
        texts = _sources_text(ws, result) + [
            pages.get(p.url.rsplit("/", 1)[1], "") for p in result.public_read if p.cited
        ]
        traced = any(t.lower() in said.lower() and any(t.lower() in s.lower() for s in texts) for t in q["key_terms"])
        rows.append(
            {
                "question": q["question"],
                "tools": result.tools,
                "answer": result.text,
                "traced": traced,
                "unsourced_numbers": unsourced_numbers(said, texts) if not result.withheld else [],
                "public_read": [p.url for p in result.public_read],
                "public_seen": [r.url for r in result.public_seen],
                "withheld": result.withheld,
                "review_entry": result.review_entry,
            }
        )
    return rows


def _summary(rows: list[dict]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "traced": sum(bool(r.get("traced")) for r in rows),
        "web_offered_and_used": sum(bool(r.get("public_read")) for r in rows),
        "withheld": sum(bool(r.get("withheld")) for r in rows),
        "unsourced_numbers": sum(len(r.get("unsourced_numbers", [])) for r in rows),
        "errors": sum("error" in r for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.review", description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="scripted", help="scripted (rules, no model), or a litellm model")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument(
        "--dense", action=argparse.BooleanOptionalAction, default=True, help="the relevance floor needs it"
    )
    parser.add_argument("--out", type=Path, default=REPO / "eval" / "results" / "review.json")
    args = parser.parse_args(argv)
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()][: args.limit]
    if args.model == "scripted":
        complete = scripted
    else:
        from schema_search.agent.ask import litellm_complete

        complete = litellm_complete(args.model)
    scratch = Path(tempfile.mkdtemp(prefix="eval-review-"))
    report: dict[str, Any] = {"model": args.model, "scripted": args.model == "scripted", "dense": args.dense}
    try:
        with serving() as web:
            pages = dict(web.text.items())
            pages = {path.strip("/"): text for path, text in pages.items()}
            for on in (False, True):
                settings = Settings(
                    home=scratch / ("on" if on else "off"),
                    dense=args.dense,
                    public_sources=on,
                    public_search_url=web.url,
                    public_allow_private=True,  # the fixed pages are on 127.0.0.1
                    phone_region="GB",
                )
                ws = Workspace(settings)
                shutil.copytree(REPO / "sample_docs" / "handbook", scratch / "handbook", dirs_exist_ok=True)
                ws.corpora.index(scratch / "handbook", corpus="handbook")
                rows = _run(ws, questions, complete, args.model, pages)
                report["on" if on else "off"] = {"summary": _summary(rows), "rows": rows}
            queue = ReviewQueue(settings.home, vault(settings))
            entries = [queue.get(e.id) for e in queue.entries()]
            report["queue"] = {
                "entries": len(entries),
                "with_unsourced_numbers": sum(bool(e.unsourced_numbers) for e in entries),
                "masked_pages": sum("[e-mail]" in p.text or "[phone]" in p.text for e in entries for p in e.pages),
                "rewrites": [
                    {"id": e.id, "title": e.rewrite.title, "by": e.rewrite.by, "read": e.read} for e in entries
                ],
            }
            # Reject every entry, ask again: no rejected page may be offered (seen or read).
            reviews = Reviews(ws)
            for e in entries:
                reviews.reject(e.id)
            rejected = queue.rejected_urls()
            again = _run(ws, questions, complete, args.model, pages)
            offered = [u for r in again for u in r.get("public_read", []) + r.get("public_seen", []) if u in rejected]
            report["after_reject"] = {"rejected_pages": len(rejected), "offered_again": len(offered), **_summary(again)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    off, on = report["off"]["summary"], report["on"]["summary"]
    print(f"model: {args.model}{' (rule-based stand-in, not a language model)' if report['scripted'] else ''}")
    print(f"{'':28}{'fallback off':>14}{'fallback on':>14}")
    for key in ("traced", "web_offered_and_used", "withheld", "unsourced_numbers", "errors"):
        print(f"{key:28}{off[key]:>14}{on[key]:>14}")
    print(f"review queue entries: {report['queue']['entries']} (pages masked: {report['queue']['masked_pages']})")
    after = report["after_reject"]
    print(f"after rejecting all: {after['rejected_pages']} pages rejected, offered again: {after['offered_again']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
