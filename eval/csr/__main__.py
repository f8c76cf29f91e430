"""``python -m eval.csr run`` and ``python -m eval.csr score`` (were ``schemasift csr ...``): argument wiring over :mod:`eval.csr`."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from schema_search.cli.main import command_line
from schema_search.cli.output import examples, print_table
from schema_search.errors import InvalidInput
from schema_search.settings import Settings
from schema_search.workspace import Workspace

PIPELINES = ("single-shot", "agent")
CITES = ("ids", "urls")


def parser() -> argparse.ArgumentParser:
    csr = argparse.ArgumentParser(
        prog="python -m eval.csr",
        description="Citation survival: run agents through the MCP server, then score which citations survive.",
        **examples(
            "python -m eval.csr run eval/csr/fastapi.jsonl --corpus handbook --model local/smollm2 --out runs/h",
            "python -m eval.csr score runs/h --report runs/h/report.html",
        ),
    )
    sub = csr.add_subparsers(dest="csr_command", metavar="COMMAND", help="one of:")
    csr.set_defaults(print_help=csr.print_help)

    run = sub.add_parser(
        "run",
        help="answer each question single-shot and as an agent over MCP; write transcripts",
        description="Each question × pipeline × citation style × run becomes one JSONL transcript line, with every "
        "model call and every tool call's full result. A re-run into the same --out skips what is done.",
        **examples(
            "python -m eval.csr run questions.jsonl --corpus handbook --model local/smollm2 --out runs/h",
            "python -m eval.csr run questions.jsonl --corpus handbook --model gpt-4o-mini --pipeline agent --runs 3",
        ),
    )
    run.add_argument("questions", type=Path, metavar="QUESTIONS", help="JSONL of {id, question, gold_urls}")
    run.add_argument("--corpus", required=True, help="corpus to serve (schemasift mcp --corpus NAME)")
    run.add_argument(
        "--model",
        required=True,
        help="litellm model (gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ...); local/smollm2 runs offline",
    )
    run.add_argument(
        "--pipeline", default="single-shot,agent", help="comma-separated: single-shot,agent (default both)"
    )
    run.add_argument("--cite", default="ids,urls", help="comma-separated: ids,urls (default both)")
    run.add_argument("--runs", type=int, default=1, help="repeat every question this many times (default 1)")
    run.add_argument("--out", type=Path, help="transcript folder (default: csr-runs/CORPUS-MODEL)")
    run.add_argument("--limit", type=int, metavar="N", help="only the first N questions")
    run.add_argument("-k", type=int, default=5, help="passages for the single-shot search (default 5)")
    run.add_argument("--max-turns", type=int, default=8, help="agent model turns before giving up (default 8)")
    run.add_argument("--temperature", type=float, help="sampling temperature (default: the provider's)")
    run.add_argument("--api-base", help="URL of an OpenAI-compatible server, for --model openai/NAME")
    run.add_argument(
        "--mcp-url", help="a running streamable-HTTP server (schemasift mcp --transport http) instead of stdio"
    )
    run.set_defaults(run=_run)

    score = sub.add_parser(
        "score",
        help="score transcripts: citation forms, traceability, support, CSR with bootstrap intervals",
        **examples(
            "python -m eval.csr score runs/h --report runs/h/report.html",
            "python -m eval.csr score runs/h --judge nli --json runs/h/scores.json",
        ),
    )
    score.add_argument("directory", type=Path, metavar="DIR", help="the --out folder of csr run")
    score.add_argument(
        "--judge",
        default="none",
        help="who checks that a cited passage supports its claim: nli (a local NLI cross-encoder, "
        "$SCHEMA_SEARCH_NLI_MODEL), a litellm model (local/smollm2 offline, gpt-4o-mini, ...), or none (the default: "
        "claims stay unchecked, CSR is not computed, comparisons use 'gold cited')",
    )
    score.add_argument("--api-base", help="OpenAI-compatible server for a --judge openai/NAME")
    score.add_argument("--json", type=Path, metavar="OUT", help="write every figure and per-answer detail as JSON")
    score.add_argument("--report", type=Path, metavar="OUT.html", help="write the HTML report")
    score.set_defaults(run=_score)
    return csr


def _choices(value: str, allowed: tuple[str, ...], flag: str) -> list:
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    wrong = [v for v in chosen if v not in allowed]
    if wrong or not chosen:
        raise InvalidInput(
            f"{flag} {value!r} is not a list of {', '.join(allowed)}.", hint=f"e.g. {flag} {','.join(allowed)}"
        )
    return list(dict.fromkeys(chosen))


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from schema_search.agent.ask import litellm_complete

    from .questions import load_questions
    from .runner import RunConfig, run

    pipelines = _choices(args.pipeline, PIPELINES, "--pipeline")
    cites = _choices(args.cite, CITES, "--cite")
    if min(args.runs, args.k, args.max_turns, 1 if args.limit is None else args.limit) < 1:
        raise InvalidInput("--runs, --limit, -k and --max-turns must be at least 1.", hint="e.g. --runs 3")
    questions = load_questions(args.questions, args.limit)
    complete = litellm_complete(args.model, args.api_base)  # a missing key fails here, before any server starts
    if not args.mcp_url:
        Workspace(settings).corpora.info(args.corpus)  # an unknown corpus fails here, not in a child process
    out = args.out or Path("csr-runs") / f"{args.corpus}-{re.sub(r'[^A-Za-z0-9._-]+', '-', args.model)}"
    config = RunConfig(
        corpus=args.corpus,
        model=args.model,
        pipelines=pipelines,
        cites=cites,
        runs=args.runs,
        k=args.k,
        max_turns=args.max_turns,
        temperature=args.temperature,
        home=settings.home,
        mcp_url=args.mcp_url,
        extra={"questions": str(args.questions)},
    )
    total = len(questions) * len(pipelines) * len(cites) * args.runs
    print(f"{total} conversations ({len(questions)} questions) with {args.model} into {out}", file=sys.stderr)
    new = run(questions, config, out, complete, progress=lambda line: print(line, file=sys.stderr))
    failed = sum(1 for c in new if c.error)
    print(f"{len(new)} new conversations ({failed} failed) in {out}/transcripts.jsonl")
    print(f"next: python -m eval.csr score {out} --report {out}/report.html", file=sys.stderr)
    return 0


def _score(args: argparse.Namespace, settings: Settings) -> int:
    from . import transcript
    from .judge import make_judge
    from .report import write_report
    from .score import score

    conversations = transcript.read(args.directory)
    report = score(conversations, make_judge(args.judge, args.api_base))
    _print_summary(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        print(f"wrote {args.json}", file=sys.stderr)
    if args.report:
        write_report(report, args.report)
        print(f"wrote {args.report}", file=sys.stderr)
    return 0


def _print_summary(report) -> None:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.0f}%"

    def interval(estimate) -> str:
        return "n/a" if estimate is None else f"{estimate.mean:.2f} [{estimate.low:.2f}, {estimate.high:.2f}]"

    none = "  (no judge: claims unchecked, CSR not computed; --judge MODEL or --judge nli checks them)"
    print(f"judge: {report.judge}" + (none if report.judge == "none" else ""))
    rows = [
        (
            c.pipeline,
            c.cite,
            "all" if c.run is None else str(c.run),
            str(c.conversations),
            f"{c.errors}/{c.gave_up}",
            interval(c.csr),
            interval(c.gold_cited),
            pct(c.format_adherence),
            pct(c.presence),
            str(c.fabricated),
            str(c.retrieval_failures),
            pct(c.declined),
            f"{c.mean_searches:.1f}",
        )
        for c in report.configs
    ]
    header = (
        "pipeline",
        "cite",
        "run",
        "n",
        "err/gave up",
        "CSR [95% CI]",
        "gold cited",
        "format",
        "presence",
        "fabricated",
        "retr. fail",
        "declined",
        "searches",
    )
    print_table(header, rows)
    for c in report.comparisons:
        pooled = interval(c.pooled)
        runs = ", ".join(f"run {r}: {e.mean:+.2f}" for r, e in c.per_run.items())
        print(f"{c.a} minus {c.b} ({c.metric}): pooled {pooled}; {runs}; {'robust' if c.robust else 'not robust'}")


def main(argv: list[str] | None = None) -> int:
    return command_line(parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
