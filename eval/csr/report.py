"""The citation-survival report as one self-contained HTML page: figures side by side, then every answer.

Reading outputs finds what metrics hide, so each answer is shown with its citations
marked by what became of them (supported, unsupported, unchecked, fabricated, other
form), its claims, the gold pages and the tool calls behind it. No scripts and
nothing from elsewhere: the file reads the same offline.
"""

from __future__ import annotations

import time
from html import escape
from pathlib import Path

from .score import ConfigSummary, ConversationScore, Estimate, MentionScore, ScoreReport

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccd;padding:.25rem .5rem;text-align:right}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}th{background:#f3f3f8}
.answer{white-space:pre-wrap;background:#fafafa;border:1px solid #dde;padding:.5rem;border-radius:4px}
mark{padding:0 .15rem;border-radius:3px}mark.supported{background:#c8f0c8}mark.unsupported{background:#ffd9a8}
mark.unchecked{background:#dde4ff}mark.fabricated{background:#ffb3b3;text-decoration:line-through}
mark.other{outline:2px dashed #888}.legend mark{margin-right:.6rem}details{margin:.3rem 0}
pre{white-space:pre-wrap;font-size:12px;background:#f6f6f6;padding:.4rem;max-height:24rem;overflow:auto}
.conv{border-top:1px solid #ccd;padding:.6rem 0}.meta{color:#555;font-size:13px}
"""


def write_report(report: ScoreReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report), encoding="utf-8")


def render(report: ScoreReport, generated_at: str | None = None) -> str:
    generated_at = generated_at or time.strftime("%Y-%m-%d %H:%M")
    pooled = [c for c in report.configs if c.run is None]
    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width,initial-scale=1'>",
        f"<title>Citation survival</title><style>{STYLE}</style>",
        "<h1>Citation survival</h1>",
        f"<p class=meta>Judge: <b>{escape(report.judge)}</b>"
        + (" (no judge: every claim is unchecked and CSR is not computed)" if report.judge == "none" else "")
        + f". Generated {escape(generated_at)}. {len(report.conversations)} conversations.</p>",
        "<p>CSR: share of a question's gold pages that were retrieved in the conversation and cited on a claim the "
        "judge found supported, with a bootstrap 95% interval over questions. Questions whose gold page no tool "
        "returned are retrieval failures, left out of CSR. <i>Format</i>: in-docs answers citing at least once in "
        "the requested form; <i>presence</i>: citing in any form.</p>",
        "<h2>Pooled over runs</h2>",
        _config_table(pooled),
        *_comparisons(report),
        "<h2>Per run</h2>",
        _config_table([c for c in report.configs if c.run is not None]),
        "<h2>Answers</h2>",
        "<p class=legend>Citations: <mark class=supported>supported</mark><mark class=unsupported>unsupported</mark>"
        "<mark class=unchecked>unchecked</mark><mark class=fabricated>fabricated</mark>"
        "<mark class='unchecked other'>not in the requested form</mark></p>",
        *(_conversation(c) for c in report.conversations),
        "</html>",
    ]
    return "\n".join(parts)


def _config_table(configs: list[ConfigSummary]) -> str:
    header = (
        "pipeline",
        "cite",
        "run",
        "conversations",
        "errors",
        "gave up",
        "CSR [95% CI]",
        "gold cited",
        "format",
        "presence",
        "other form only",
        "fabricated",
        "retrieval failures",
        "declined (out of docs)",
        "searches / answer",
    )
    rows = [
        (
            c.pipeline,
            c.cite,
            "all" if c.run is None else str(c.run),
            str(c.conversations),
            str(c.errors),
            str(c.gave_up),
            _interval(c.csr),
            _interval(c.gold_cited),
            _pct(c.format_adherence),
            _pct(c.presence),
            _pct(c.other_format_only),
            f"{c.fabricated} ({c.fabricated_per_answer:.2f}/answer)",
            f"{c.retrieval_failures} of {c.in_docs}",
            _pct(c.declined),
            f"{c.mean_searches:.2f}",
        )
        for c in configs
    ]
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _comparisons(report: ScoreReport) -> list[str]:
    if not report.comparisons:
        return []
    rows = []
    for c in report.comparisons:
        runs = ", ".join(f"{r}: {e.mean:+.2f}" for r, e in c.per_run.items())
        rows.append(
            f"<tr><td>{escape(c.a)} − {escape(c.b)}</td><td>{escape(c.metric)}</td><td>{escape(_interval(c.pooled, True))}</td>"
            f"<td>{escape(runs)}</td><td>{'robust' if c.robust else 'not robust'}</td></tr>"
        )
    return [
        "<h2>Comparisons (per-question difference)</h2>",
        "<p>Robust: the same sign in every run and a pooled interval that excludes 0.</p>",
        "<table><tr><th>difference</th><th>metric</th><th>pooled [95% CI]</th><th>per run</th><th>rule</th></tr>"
        + "".join(rows)
        + "</table>",
    ]


def _conversation(c: ConversationScore) -> str:
    gold = (
        ", ".join(
            f"<a href='{escape(g.url)}'>{escape(g.url)}</a> ({'retrieved' if g.retrieved else 'never retrieved'}"
            f"{', cited' if g.cited else ''}{', supported' if g.supported else ''})"
            for g in c.gold
        )
        or "none: the documents do not answer it"
    )
    verdict = (
        f"declined: {'yes' if c.declined else 'no'}"
        if not c.in_docs
        else "retrieval failure"
        if c.retrieval_failure
        else f"CSR {c.csr:.2f}"
        if c.csr is not None
        else f"gold cited {c.gold_cited or 0:.2f}"
    )
    claims = "".join(f"<li>{escape(text)}</li>" for text in c.claims)
    tools = "".join(
        f"<details><summary>{escape(t.name)}({escape(t.arguments)})</summary><pre>{escape(t.text)}</pre></details>"
        for t in c.tool_calls
    )
    error = f"<p><b>error:</b> {escape(c.error)}</p>" if c.error else ""
    error += "<p><b>gave up:</b> every turn used, no answer</p>" if c.gave_up else ""
    return (
        f"<div class=conv id='{escape(c.question_id)}-{escape(c.pipeline)}-{escape(c.cite)}-{c.run}'>"
        f"<h3>{escape(c.question_id)}: {escape(c.question)}</h3>"
        f"<p class=meta>{escape(c.pipeline)} / {escape(c.cite)} / run {c.run} · {c.searches} searches · "
        f"{escape(verdict)} · fabricated: {escape(', '.join(c.fabricated) or 'none')}</p>"
        f"<p class=meta>Gold: {gold}</p>{error}"
        f"<div class=answer>{_highlighted(c)}</div>"
        f"<details><summary>{len(c.claims)} claims</summary><ol>{claims}</ol></details>"
        f"<details><summary>{len(c.tool_calls)} tool calls</summary>{tools}</details></div>"
    )


def _highlighted(c: ConversationScore) -> str:
    """The answer with each citation wrapped in a mark saying what became of it.

    A bracket citing several sources is one mark showing the worst of them (a made-up
    second ID is not hidden behind a supported first one); its title lists each.
    """
    spans: dict[tuple[int, int], list[MentionScore]] = {}
    for m in c.mentions:
        spans.setdefault((m.start, m.end), []).append(m)
    out, position = [], 0
    for (start, end), group in sorted(spans.items()):
        if start < position:
            continue
        statuses = [_status(m) for m in group]
        worst = max(statuses, key=_WORST.index)
        classes = worst + ("" if all(m.requested_form for m in group) else " other")
        title = "; ".join(
            f"{m.form}: {m.target}" + (f" → {m.url}" if m.url and m.url != m.target else "") + f" ({status})"
            for m, status in zip(group, statuses)
        )
        out += [
            escape(c.answer[position:start]),
            f"<mark class='{classes}' title='{escape(title)}'>",
            escape(c.answer[start:end]),
            "</mark>",
        ]
        position = end
    out.append(escape(c.answer[position:]))
    return "".join(out) or "<i>(no answer)</i>"


_WORST = ["supported", "unchecked", "unsupported", "fabricated"]


def _status(m: MentionScore) -> str:
    return "fabricated" if not m.traced else (m.verdict or "unchecked")


def _interval(estimate: Estimate | None, signed: bool = False) -> str:
    if estimate is None:
        return "n/a"
    f = "+.2f" if signed else ".2f"
    return f"{estimate.mean:{f}} [{estimate.low:{f}}, {estimate.high:{f}}] (n={estimate.n})"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"
