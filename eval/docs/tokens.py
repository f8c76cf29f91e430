"""Real token counts of the chunks, per language: does every chunk fit the embedding model?

    .venv/bin/python -m eval.docs.tokens ../shared/docs_corpora/fastapi ../shared/docs_corpora/fastapi_cjk

Reads and chunks each folder exactly as ``docs index`` does (the shipped settings,
the model's own tokenizer), then counts the word pieces of every chunk's embedding
input (context header + text, special tokens included) with that tokenizer. A
chunk's language: Japanese if it has kana, Chinese if it has Han characters, else
English.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from schema_search.docs.corpus import embedding_input
from schema_search.docs.sources import read_corpus
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..metrics import percentile

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def language(text: str) -> str:
    """Japanese if the text has kana, Chinese if it has Han characters, else English.

    >>> language("レスポンス"), language("后台任务"), language("tasks")
    ('ja', 'zh', 'en')
    """
    return "ja" if _KANA.search(text) else "zh" if _HAN.search(text) else "en"


def distribution(folders: list[Path], workspace: Workspace) -> dict[str, dict]:
    chunking = workspace.corpora.chunking()
    counts: dict[str, list[int]] = {}
    for folder in folders:
        corpus = read_corpus(folder, "tokens", chunking)
        for chunk in corpus.chunks:
            tokens = chunking.counter.count_tokens(embedding_input(chunk.context, chunk.text))
            counts.setdefault(language(chunk.text), []).append(tokens)
    return {
        lang: {
            "chunks": len(values),
            "min": min(values),
            "p50": percentile(values, 50),
            "p90": percentile(values, 90),
            "p99": percentile(values, 99),
            "max": max(values),
            "over_cap": sum(v > chunking.max_tokens for v in values),
            "cap": chunking.max_tokens,
            "target": chunking.target_tokens,
        }
        for lang, values in sorted(counts.items())
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.docs.tokens", description=__doc__.split("\n")[0])
    parser.add_argument("folders", type=Path, nargs="+")
    parser.add_argument("--json", type=Path, help="write the distribution as JSON")
    args = parser.parse_args(argv)
    workspace = Workspace(Settings(embedding_threads=1))
    table = distribution(args.folders, workspace)
    print("| language | chunks | min | p50 | p90 | p99 | max | over the cap |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for lang, row in table.items():
        print(
            f"| {lang} | {row['chunks']} | {row['min']} | {row['p50']:.0f} | {row['p90']:.0f} | {row['p99']:.0f} | {row['max']} | {row['over_cap']} of cap {row['cap']} |"
        )
    if args.json:
        args.json.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
