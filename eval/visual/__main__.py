"""``python -m eval.visual``: what reading pixels (OCR of scans, figures) adds to document search.

Indexes ``sample_docs/visual`` twice into a scratch data directory, with ``docs_ocr`` and
``docs_figures`` off (before) and on (after), and reports in one run: page recall@1/@5 and
answers found per kind of question, OCR word accuracy of the scanned pages, figures read
and decorations skipped per document, seconds per page, and hostile files (a truncated PDF,
a 500-page scan, a decompression bomb) indexed in child processes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from schema_search.cli.docs import UNITS
from schema_search.cli.main import command_line
from schema_search.cli.output import cut, examples, print_table, progress
from schema_search.settings import Settings

from ..cli import one_embedding_thread
from .expected import DECORATED, FOLDER, QUESTIONS, REPO
from .measure import RUNS, K, copy_files, measure
from .questions import load_questions, quick_slice

RESULTS = REPO / "eval" / "results" / "visual.json"


def parser() -> argparse.ArgumentParser:
    run = argparse.ArgumentParser(
        prog="python -m eval.visual",
        description=(__doc__ or "").split("\n\n")[1].replace("\n", " "),
        **examples(
            "python -m eval.visual --out",
            "python -m eval.visual --quick",
            "python -m eval.visual --skip-robustness --out /tmp/visual.json",
        ),
    )
    run.add_argument("--folder", type=Path, default=FOLDER, help="the documents (default: sample_docs/visual)")
    run.add_argument("--questions", type=Path, default=QUESTIONS, help="the questions (.jsonl)")
    run.add_argument(
        "--quick",
        action="store_true",
        help="a small slice for a test gate: 4 questions, only their files and the device manual, no robustness",
    )
    run.add_argument("--skip-robustness", action="store_true", help="leave out the hostile files")
    run.add_argument(
        "--memory-gb", type=float, default=6.0, help="memory ceiling of each robustness child process (default 6)"
    )
    run.add_argument(
        "--out",
        type=Path,
        nargs="?",
        const=RESULTS,
        metavar="JSON",
        help=f"write the report (default path {RESULTS.relative_to(REPO)})",
    )
    run.set_defaults(run=_run)
    return run


def run_visual(
    settings: Settings,
    scratch: Path,
    *,
    folder: Path = FOLDER,
    questions_file: Path = QUESTIONS,
    quick: bool = False,
    robustness: bool = True,
    memory_gb: float = 6.0,
    show_progress: bool = False,
) -> dict[str, Any]:
    """The whole report, indexes kept under ``scratch``: what ``python -m eval.visual`` prints and writes."""
    questions = load_questions(questions_file)
    if quick:
        questions = quick_slice(questions)
        names = set().union(*(q.files for q in questions)) | {DECORATED}
        folder = copy_files(folder, names, scratch / "set")
    settings = one_embedding_thread(settings).model_copy(update={"home": scratch / "home"})
    report = {"quick": quick} | measure(folder, questions, settings, progress(UNITS) if show_progress else None)
    if robustness and not quick:
        from .robustness import run_cases

        seconds = settings.docs_visual_seconds + 300  # the reader's own limit, and time to start and store
        report["robustness"] = run_cases(scratch / "robustness", memory_gb, seconds)
    return report


def _run(args: argparse.Namespace, settings: Settings) -> int:
    with tempfile.TemporaryDirectory(prefix="schema-search-visual-") as scratch:
        report = run_visual(
            settings,
            Path(scratch),
            folder=args.folder,
            questions_file=args.questions,
            quick=args.quick,
            robustness=not args.skip_robustness,
            memory_gb=args.memory_gb,
            show_progress=True,
        )
    print_report(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def print_report(report: dict[str, Any]) -> None:
    runs = report["runs"]
    switches = ", ".join(
        f"{name}: OCR {_on(s['docs_ocr'])}, figures {_on(s['docs_figures'])}" for name, s in RUNS.items()
    )
    print(f"{report['folder']}{' (quick slice)' if report['quick'] else ''}; {switches}; "
          f"vision model: {report['vision_model'] or 'none (figures read by OCR)'}")  # fmt: skip
    for name, run in runs.items():
        print(
            f"  {name}: {run['documents']} documents, {run['chunks']} chunks ({run['chunks_read_from_pixels']} read "
            f"from pixels), indexed in {run['seconds']:.1f} s, {len(run['warnings'])} warnings"
        )
    _recall(report)
    _questions(report)
    _ocr(report["ocr"])
    _documents(report["documents"])
    print("\nseconds per page (whole index: reading, chunking and embedding; OCR and figures: the reader's own time)")
    print_table(
        ("what", "pages", "seconds", "s/page"),
        [(what, r["pages"], f"{r['seconds']:.2f}", _num(r["per_page"])) for what, r in report["speed"].items()],
    )
    if "robustness" in report:
        _robustness(report["robustness"])


def _recall(report: dict[str, Any]) -> None:
    print(f"\nrecall (R@k: every gold page among the first k passages; answer@{K}: a passage holds the answer string)")
    metrics = ("R@1", f"R@{K}", f"answer@{K}")
    header = ("questions", "n", *(f"{m} {name}" for m in metrics for name in RUNS))
    rows = [
        (group, r["questions"], *(_num(r[name][m]) for m in metrics for name in RUNS))
        for group, r in report["recall"].items()
    ]
    print_table(header, rows)


def _questions(report: dict[str, Any]) -> None:
    print(f"\neach question: the first passage before and after, and hit@{K} / answer@{K} before -> after")
    rows = []
    for q in report["questions"]:
        before, after = q["before"], q["after"]
        rows.append(
            (
                q["where"],
                cut(q["question"], 48),
                (before["top"] or ["-"])[0],
                (after["top"] or ["-"])[0],
                f"{_mark(before[f'hit@{K}'])} -> {_mark(after[f'hit@{K}'])}",
                f"{_mark(before[f'answer@{K}'])} -> {_mark(after[f'answer@{K}'])}",
            )
        )
    print_table(("where", "question", "first before", "first after", f"hit@{K}", f"answer@{K}"), rows)


def _ocr(rows: list[dict[str, Any]]) -> None:
    print(
        "\nOCR word accuracy of scanned pages (1 - word error rate, word-level Levenshtein; case and end punctuation ignored)"
    )
    print_table(
        ("document", "page", "lang", "words", "word accuracy", "confidence", "read by"),
        [
            (r["document"], r["page"], r["lang"], r["words"], f"{r['word_accuracy']:.3f}", _num(r["confidence"]),
             ", ".join(r["read_by"]) or "-")
            for r in rows
        ],
    )  # fmt: skip


def _documents(documents: dict[str, dict[str, Any]]) -> None:
    print(
        "\nper document, after (the reader's account from Document.visual; figure pages and decorations from the chunks)"
    )
    keys = ("pages_ocr", "figures_found", "figures_described", "decorations_skipped", "vision_calls", "seconds")
    rows = []
    for path, d in documents.items():
        visual = d["visual"] or {}
        rows.append(
            (
                path,
                _num(d["pages"]),
                d["chunks"],
                *(_num(visual.get(key)) for key in keys),
                _pages(d["figure_pages_expected"]),
                _pages(d["figure_pages_read"]),
                _pages(d["figures_missed"]),
                d["decorations_described"],
                len(visual.get("warnings", ())),
            )
        )
    header = ("document", "pages", "chunks", "OCR'd", "figures", "described", "decor. skipped", "vision calls",
              "reader s", "figure pages", "read", "missed", "decor. described", "warnings")  # fmt: skip
    print_table(header, rows)
    for path, d in documents.items():
        for warning in (d["visual"] or {}).get("warnings", ()):
            print(f"  {path}: {warning}")


def _robustness(cases: list[dict[str, Any]]) -> None:
    print("\nrobustness (each file indexed alone in a child process, OCR and figures on, no dense channel)")
    print_table(
        ("case", "bytes", "outcome", "seconds", "pages OCR'd", "chunks", "expected"),
        [
            (c["case"], f"{c['bytes']:,}", c["outcome"], f"{c['seconds']:.1f}", _num(c.get("pages_ocr")),
             _num(c.get("chunks")), c["expected"])
            for c in cases
        ],
    )  # fmt: skip
    for c in cases:
        for line in [*c.get("warnings", ()), *([c["error"]] if c.get("error") else [])]:
            print(f"  {line}" if line.startswith(c["file"]) else f"  {c['file']}: {line}")


def _on(value: bool) -> str:
    return "on" if value else "off"


def _mark(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _num(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _pages(pages: list) -> str:
    return ", ".join("docx" if p is None else str(p) for p in pages) or "-"


def main(argv: list[str] | None = None) -> int:
    return command_line(parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
