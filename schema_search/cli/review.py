"""``schemasift review``: the review queue of public answers: list, show, edit, approve, reject."""

from __future__ import annotations

import argparse
import json

from ..settings import Settings
from ..workspace import Workspace
from .output import examples


def add_commands(commands: argparse._SubParsersAction) -> None:
    review = commands.add_parser(
        "review",
        help="the review queue: answers that used a public source, rewritten as entries to approve or reject",
        **examples(
            "schemasift review list",
            "schemasift review show 3",
            "schemasift review approve 3 --title 'Passport renewal'",
        ),
    )
    review.set_defaults(print_help=review.print_help)
    steps = review.add_subparsers(dest="review_command", metavar="STEP", help="one of:")
    listed = steps.add_parser(
        "list",
        help="the entries, pending first unless --status says otherwise",
        **examples("schemasift review list", "schemasift review list --status rejected"),
    )
    listed.add_argument("--status", choices=("pending", "approved", "rejected"), help="only entries in this state")
    listed.add_argument("--json", action="store_true", help="print JSON")
    listed.set_defaults(run=_list)
    for name, what in (
        ("show", "an entry: the question, the answer given, the pages as read, unsourced numbers, the rewrite"),
        ("reject", "reject an entry: it is kept, and its pages are not offered again"),
    ):
        step = steps.add_parser(name, help=what, **examples(f"schemasift review {name} 3"))
        step.add_argument("id", type=int, help="the entry's number (see `review list`)")
        step.add_argument("--json", action="store_true", help="print JSON")
        step.set_defaults(run=_show if name == "show" else _reject)
    for name, what in (
        ("edit", "change the rewritten entry's title or body"),
        ("approve", "approve the entry (edited first with --title/--body) into the corpus `reviewed`"),
    ):
        step = steps.add_parser(name, help=what, **examples(f"schemasift review {name} 3 --title 'Passport renewal'"))
        step.add_argument("id", type=int, help="the entry's number (see `review list`)")
        step.add_argument("--title", help="the entry's new title")
        step.add_argument("--body", help="the entry's new body (Markdown)")
        step.add_argument("--json", action="store_true", help="print JSON")
        step.set_defaults(run=_edit if name == "edit" else _approve)


def _reviews(settings: Settings):
    from ..review.reviews import Reviews

    return Reviews(Workspace(settings))


def _list(args: argparse.Namespace, settings: Settings) -> int:
    entries = _reviews(settings).entries(args.status)
    if args.json:
        print(json.dumps([e.model_dump(mode="json") for e in entries], ensure_ascii=False, indent=2))
        return 0
    if not entries:
        print("The review queue is empty.")
    for e in entries:
        print(f"{e.id:>4}  {e.status:<8}  {e.title}  ({e.question})")
    return 0


def _print(entry, as_json: bool) -> int:
    if as_json:
        print(json.dumps(entry.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return 0
    print(f"Entry {entry.id} ({entry.status}, {entry.reason}, recorded {entry.created_at})")
    print(f"Question: {entry.question}")
    print(f"Pages read: {', '.join(entry.read) or 'none'}")
    if entry.seen:
        print(f"Results only seen: {', '.join(entry.seen)}")
    if entry.unsourced_numbers:
        print(f"Numbers in the answer that no source contains: {', '.join(entry.unsourced_numbers)}")
    print(f"\n-- Rewritten entry (by {entry.rewrite.by}): {entry.rewrite.title}\n{entry.rewrite.body}")
    print(f"\n-- The answer the visitor got (not what is approved):\n{entry.answer}")
    if getattr(entry, "path", None) and entry.status == "approved":
        print(f"\nApproved into the corpus {entry.corpus!r} as {entry.path}.")
    return 0


def _show(args: argparse.Namespace, settings: Settings) -> int:
    return _print(_reviews(settings).get(args.id), args.json)


def _edit(args: argparse.Namespace, settings: Settings) -> int:
    return _print(_reviews(settings).edit(args.id, args.title, args.body), args.json)


def _approve(args: argparse.Namespace, settings: Settings) -> int:
    return _print(_reviews(settings).approve(args.id, args.title, args.body), args.json)


def _reject(args: argparse.Namespace, settings: Settings) -> int:
    entry = _reviews(settings).reject(args.id)
    if args.json:
        return _print(entry, True)
    print(f"Rejected entry {entry.id}; its pages are not offered again: {', '.join(entry.read) or 'none'}.")
    return 0
