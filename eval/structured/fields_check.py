"""Field extraction on the PEPs next to a plain header parser (Python's ``email.parser``), in one run.

    .venv/bin/python -m eval.structured.fields_check --json eval/results/structured-fields.json

For every header key: how many documents each parser finds it in; for every kept
column: its type, coverage, and in how many documents its value equals what
``email.parser`` reads (whitespace of continuation lines folded; typed columns
compared after parsing the parser's text the same documented way; runs of
whitespace folded on both sides, since the two unfold continuation lines differently).
"""

from __future__ import annotations

import argparse
import datetime
import email.parser
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from schema_search.docs.chunker import Chunking
from schema_search.docs.sources import read_corpus
from schema_search.structured.sources import corpus_collection

REPO = Path(__file__).resolve().parents[2]
PEPS = REPO.parent / "shared" / "docs_corpora" / "peps"


def _plain(value: str | None) -> str | None:
    # An empty header ("Post-History:" and nothing) is no value: NULL in our table.
    return " ".join(value.split()) or None if value is not None else None


def _ours(value):
    # Both sides with runs of whitespace folded: email.parser unfolds continuation lines its own way.
    return _plain(value) if isinstance(value, str) else value


def _expected(value: str | None, kind: str):
    if value is None:
        return None
    if kind == "integer":
        return int(value)
    if kind == "date":
        return datetime.datetime.strptime(value, "%d-%b-%Y").date()
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peps", type=Path, default=PEPS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    corpus = read_corpus(args.peps, "peps", Chunking())
    collection = corpus_collection(corpus)
    table = collection.table("documents")
    names = [c.name for c in table.columns]
    rows = {row[names.index("path")]: row for row in zip(*table.values)}

    reference: dict[str, email.message.Message] = {}
    keys: Counter[str] = Counter()
    for document in corpus.documents:
        header = (args.peps / document.path).read_text(encoding="utf-8").split("\n\n", 1)[0]
        reference[document.path] = message = email.parser.HeaderParser().parsestr(header)
        keys.update({key for key, value in message.items() if value.strip()})  # an empty header is no value

    report = collection.report
    columns = []
    for field in report.fields:
        key = field.keys[0]
        agree = sum(
            _ours(rows[path][names.index(field.name)]) == _expected(_plain(message.get(key)), field.type)
            for path, message in reference.items()
        )
        columns.append(
            {
                "column": field.name,
                "key": key,
                "type": field.type,
                "list": field.list,
                "exact": field.exact,
                "coverage": field.coverage,
                "documents": field.documents,
                "email_parser_documents": keys[key],
                "values_agree": agree,
                "of": len(reference),
                "unparsed": field.unparsed,
            }
        )
    dropped = [
        {
            "column": d.name,
            "key": d.keys[0],
            "coverage": d.coverage,
            "documents": d.documents,
            "email_parser_documents": keys[d.keys[0]],
            "reason": d.reason,
        }
        for d in report.dropped
    ]

    print(f"{report.documents} documents, {report.with_header} with a header; fields proposed from {report.sampled}")
    print(
        f"{'column':<15} {'type':<8} {'exact':<5} {'coverage':>8} {'ours':>5} {'email.parser':>12} {'values agree':>13}"
    )
    for c in columns:
        print(
            f"{c['column']:<15} {c['type']:<8} {'yes' if c['exact'] else '':<5} {c['coverage']:>8.1%} "
            f"{c['documents']:>5} {c['email_parser_documents']:>12} {c['values_agree']:>7}/{c['of']}"
        )
    print("dropped:")
    for d in dropped:
        print(
            f"  {d['column']:<15} {d['coverage']:>6.1%} ({d['documents']}; email.parser {d['email_parser_documents']}): {d['reason']}"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"documents": report.documents, "columns": columns, "dropped": dropped}, indent=1) + "\n"
        )
    return 0 if all(c["values_agree"] == c["of"] for c in columns) else 1


if __name__ == "__main__":
    sys.exit(main())
