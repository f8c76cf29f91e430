"""Twenty answers that pair PEP titles with their links, through the reference agent, with and without placeholders.

    .venv/bin/python -m eval.structured.placeholders --json eval/results/structured-placeholders.json

The model is scripted (no key is needed): it sends the request's SQL to
``query_collection``, then writes one line per row, ``title: link [cite]``, copying
the link it was shown. Shown placeholders, it copies ``{{link:N}}``, and the
server fills in the stored URL. Shown raw URLs, it copies them with the slips
models make when retyping long strings, one link in :data:`SLIP_EVERY`, chosen
by a hash: zero padding dropped (``pep-0008`` -> ``pep-8``), two digits swapped,
the trailing slash lost, the host rewritten (``www.python.org/dev/peps/``). The
slip rate is the script's, not a measured model's; what the run measures is that
the same copier cannot slip on a link it never sees. Every pairing is checked
against the manifest's URL for that title (read without our code).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schema_search.agent.answer import answer
from schema_search.settings import Settings
from schema_search.tools.collections import CollectionTools
from schema_search.workspace import Workspace

from .gold import read_peps

REPO = Path(__file__).resolve().parents[2]
PEPS = REPO.parent / "shared" / "docs_corpora" / "peps"
SLIP_EVERY = 6

SELECT = "SELECT pep, title, url FROM documents WHERE "
REQUESTS: list[tuple[str, str]] = [
    (f"Give the title and link of PEP {n}.", f"{SELECT}pep = {n}")
    for n in (8, 20, 257, 343, 393, 484, 572, 634, 695, 703)
] + [
    (
        "Titles and links of the Final typing PEPs created in 2021.",
        f"{SELECT}topic LIKE '%Typing%' AND status = 'Final' AND year(created) = 2021 ORDER BY pep",
    ),
    (
        "Titles and links of the Active governance PEPs.",
        f"{SELECT}topic LIKE '%Governance%' AND status = 'Active' ORDER BY pep",
    ),
    (
        "Titles and links of the PEPs that target Python 3.12 and are Final.",
        f"{SELECT}python_version = '3.12' AND status = 'Final' ORDER BY pep",
    ),
    (
        "Titles and links of the Process PEPs created before 2001.",
        f"{SELECT}type = 'Process' AND created < DATE '2001-01-01' ORDER BY pep",
    ),
    (
        "Titles and links of the five newest PEPs.",
        "SELECT pep, title, url FROM documents ORDER BY created DESC, pep DESC LIMIT 5",
    ),
    (
        "Titles and links of the Deferred Standards Track PEPs for Python 3.x, first five.",
        f"{SELECT}status = 'Deferred' AND type = 'Standards Track' AND python_version LIKE '3.%' ORDER BY pep LIMIT 5",
    ),
    (
        "Titles and links of the Release PEPs for Python 3.13 and 3.14.",
        f"{SELECT}topic LIKE '%Release%' AND python_version IN ('3.13', '3.14') ORDER BY pep",
    ),
    (
        "Titles and links of Guido van Rossum's Final PEPs from 2016 on.",
        f"{SELECT}author LIKE '%Guido van Rossum%' AND status = 'Final' AND year(created) >= 2016 ORDER BY pep",
    ),
    (
        "Titles and links of the Withdrawn packaging PEPs.",
        f"{SELECT}topic LIKE '%Packaging%' AND status = 'Withdrawn' ORDER BY pep",
    ),
    (
        "Titles and links of the Informational PEPs created in 2004.",
        f"{SELECT}type = 'Informational' AND year(created) = 2004 ORDER BY pep",
    ),
]

_PAIR = re.compile(r"^(.*): (\S+) \[")
_ROW = re.compile(r"^(\[S[0-9a-f]+\]) \| (\d+) \| (.+) \| (\S+)$")


def slip(url: str, seed: str) -> str:
    """One of the copy slips, or the URL untouched, decided by a hash of ``seed``."""
    digest = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    if digest % SLIP_EVERY:
        return url
    number = re.search(r"pep-(\d+)", url)
    kind = (digest // SLIP_EVERY) % 4
    if kind == 0 and number:
        return url.replace(number.group(0), f"pep-{int(number.group(1))}")
    if kind == 1 and number and len(number.group(1)) == 4:
        digits = number.group(1)
        return url.replace(digits, digits[:2] + digits[3] + digits[2])
    if kind == 2:
        return url.rstrip("/")
    return url.replace("https://peps.python.org/", "https://www.python.org/dev/peps/")


def scripted(sql: str, request_id: str):
    """A model that queries once, then pairs each row's title with the link it was shown."""

    def complete(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        last = messages[-1]
        if last["role"] == "user":
            return _call("query_collection", {"sql": sql})
        lines = []
        for line in last["content"].splitlines():
            row = _ROW.match(line)
            if row:
                cite, pep, title, link = row.groups()
                copied = link if link.startswith("{{") else slip(link, f"{request_id}:{pep}")
                lines.append(f"{title}: {copied} {cite}")
        return _call("answer", {"text": "\n".join(lines)})

    return complete


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"id": name, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"choices": [{"message": {"content": "", "tool_calls": [call]}}]}


def pairings(text: str) -> list[tuple[str, str]]:
    """(title, link) per answer line: the link right after the title, before its resolved citation."""
    return [m.groups() for m in map(_PAIR.match, text.splitlines()) if m]


def run(workspace: Workspace, placeholders: bool, gold: dict[str, str]) -> dict[str, Any]:
    tools = CollectionTools(workspace, ["peps"], placeholders=placeholders)
    answers = []
    for number, (question, sql) in enumerate(REQUESTS, 1):
        result = answer(question, collections=tools, docs=None, model="scripted", complete=scripted(sql, str(number)))
        pairs = pairings(result.text)
        wrong = [(t, link) for t, link in pairs if gold.get(t) != link]
        answers.append({"question": question, "pairs": len(pairs), "wrong": wrong, "ok": result.ok})
    pairs = sum(a["pairs"] for a in answers)
    wrong = sum(len(a["wrong"]) for a in answers)
    return {
        "answers": len(answers),
        "pairs": pairs,
        "wrong_pairs": wrong,
        "answers_with_a_wrong_pair": sum(bool(a["wrong"]) for a in answers),
        "details": answers,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peps", type=Path, default=PEPS)
    parser.add_argument(
        "--home", type=Path, help="data directory holding a 'peps' corpus (default: index one, BM25 only)"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="placeholders-"))
    workspace = Workspace(Settings(home=home, dense=args.home is not None))
    if "peps" not in workspace.corpora.store.names():
        workspace.corpora.index(args.peps, corpus="peps")
    gold = {p.title: p.url for p in read_peps(args.peps)}
    with_placeholders = run(workspace, True, gold)
    raw = run(workspace, False, gold)
    for name, found in (("placeholders", with_placeholders), ("raw links", raw)):
        print(
            f"{name:<13} {found['answers']} answers, {found['pairs']} title-link pairs: "
            f"{found['wrong_pairs']} wrong, in {found['answers_with_a_wrong_pair']} answers"
        )
    for a in raw["details"]:
        for title, link in a["wrong"]:
            print(f"  raw: {title!r} -> {link}")
    if args.json:
        payload = {"slip_every": SLIP_EVERY, "placeholders": with_placeholders, "raw_links": raw}
        args.json.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return 0 if with_placeholders["wrong_pairs"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
