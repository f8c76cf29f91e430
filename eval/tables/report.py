"""An eval run as one self-contained HTML page: recall@k plot (inline SVG), figures, per database.

No scripts, no fonts or styles from elsewhere: the file reads the same offline.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from html import escape

from .benchmarks import POOLED
from .runner import EvalRun

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")
DASHED = ("peer-",)  # peer baselines are drawn dashed

CONFIG_NOTES = {
    "default": "what <code>Workspace.search</code> ships: the settings' channel weights, coverage scaling, "
    "foreign-key boost, identifier pinning, relevance floor and join completion",
    "names": "BM25 over schema, table and column identifiers split into words",
    "text": "BM25 over comments and descriptions only",
    "body": "BM25 over names and text in one field",
    "dense": "our all-MiniLM-L6-v2 embedding channel (tables above the calibrated floor)",
    "merged": "descriptions folded into one field, the way most tools index: our body field from its own "
    "index (ranks as <code>body</code> today)",
    "rrf-equal": "plain RRF (k=60) of names + text + body, equal weights, no coverage scaling, no later stages",
    "rrf-body+dense": "plain RRF (k=60) of body + dense",
    "peer-bm25": "rank_bm25 BM25Okapi over one field of every name and description in the schema file, "
    "plain <code>\\w+</code> tokens: no stemming, no stop words, identifiers not split, no database name",
    "peer-dense": "all-MiniLM-L6-v2 alone, cosine over LlamaIndex-style text "
    "(<code>Table 'x' has columns: a (TYPE): description, ...</code>)",
}


def render(run: EvalRun, generated_at: str | None = None) -> str:
    """The whole page for ``run``."""
    generated_at = generated_at or time.strftime("%Y-%m-%d %H:%M")
    title = f"Schema retrieval recall: {run.benchmark}, {run.condition}"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{escape(title)}</title>",
            f"<style>{_CSS}</style></head><body>",
            f"<h1>{escape(title)}</h1>",
            _summary(run, generated_at),
            "<h2>All-gold recall@k</h2>",
            "<p>A question counts only when <em>every</em> gold table is in the top k.</p>",
            plot(run),
            "<h2>Figures</h2>",
            _figures(run),
            f"<h2>Per database (all-gold recall@{run.headline_k})</h2>",
            _per_db(run),
            "<h2>Configurations</h2>",
            _configs(run),
            "</body></html>",
        ]
    )


def plot(run: EvalRun, width: int = 640, height: int = 360) -> str:
    """An inline SVG line chart: x = k, y = all-gold recall, one line per configuration."""
    left, right, top, bottom = 48, 170, 12, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    k_max = max(run.ks)

    def x(k: int) -> float:
        return left + (k / k_max) * plot_w

    def y(v: float) -> float:
        return top + (1 - v) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="all-gold recall at k per configuration">'
    ]
    for tick in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
    for k in run.ks:
        parts.append(f'<text x="{x(k):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{k}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle">k</text>')
    parts.append(
        f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">all-gold recall</text>'
    )
    for i, result in enumerate(run.results):
        color = COLORS[i % len(COLORS)]
        dash = ' stroke-dasharray="6 4"' if result.config.startswith(DASHED) else ""
        points = " ".join(f"{x(k):.1f},{y(result.recall[k]):.1f}" for k in run.ks)
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"{dash}>'
            f"<title>{escape(result.config)}</title></polyline>"
        )
        for k in run.ks:
            parts.append(
                f'<circle cx="{x(k):.1f}" cy="{y(result.recall[k]):.1f}" r="3" fill="{color}">'
                f"<title>{escape(result.config)} recall@{k} = {result.recall[k]:.3f}</title></circle>"
            )
        ly = top + 14 + i * 18
        parts.append(
            f'<line x1="{width - right + 12}" x2="{width - right + 36}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{color}" stroke-width="2"{dash}/>'
        )
        parts.append(f'<text x="{width - right + 42}" y="{ly}">{escape(result.config)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _summary(run: EvalRun, generated_at: str) -> str:
    if run.condition == POOLED:
        pool = " + ".join([run.benchmark, *run.distractors])
        condition = (
            f"<b>pooled</b>: every database of {escape(pool)} in one catalog of {run.tables} tables; "
            "the question does not say which database it is about."
        )
    else:
        condition = (
            f"<b>per-db</b>: each question searches only its own database "
            f"({len(run.databases)} databases, {run.tables} tables in all)."
        )
    evidence = (
        " BIRD's <code>evidence</code> text is appended to each question, as BIRD's own evaluation does."
        if run.evidence
        else ""
    )
    return (
        f"<p>{condition} {run.questions} questions.{evidence}</p>"
        f'<p class="meta">schemasift {escape(run.version)} · generated {escape(generated_at)}</p>'
    )


def _figures(run: EvalRun) -> str:
    k = run.headline_k
    header = [
        "config",
        *[f"recall@{n}" for n in run.ks],
        *[f"table recall@{n}" for n in run.ks],
        "MRR",
        f"mean candidates (k={k})",
        "p50 ms",
        "p99 ms",
    ]
    best = {n: max(r.recall[n] for r in run.results) for n in run.ks}
    rows = []
    for r in run.results:
        cells = [f"<th>{escape(r.config)}</th>"]
        cells += [_cell(r.recall[n], r.recall[n] == best[n]) for n in run.ks]
        cells += [_cell(r.table_recall[n]) for n in run.ks]
        cells += [
            _cell(r.mrr),
            f"<td>{r.mean_candidates:.2f}</td>",
            f"<td>{r.p50_ms:.2f}</td>",
            f"<td>{r.p99_ms:.2f}</td>",
        ]
        rows.append(cells)
    return _table(header, rows)


def _per_db(run: EvalRun) -> str:
    k = run.headline_k
    header = ["database", "tables", "questions", *[r.config for r in run.results]]
    rows = []
    for db, (tables, asked) in run.databases.items():
        if not asked:
            continue
        values = [r.per_db.get(db, {}).get(k, 0.0) for r in run.results]
        top = max(values)
        rows.append(
            [f"<th>{escape(db)}</th>", f"<td>{tables}</td>", f"<td>{asked}</td>", *[_cell(v, v == top) for v in values]]
        )
    return _table(header, rows)


def _configs(run: EvalRun) -> str:
    items = "".join(f"<li><b>{escape(r.config)}</b>: {CONFIG_NOTES.get(r.config, '')}</li>" for r in run.results)
    return (
        f"<ul>{items}</ul><p>Table recall: share of gold tables in the top k. MRR: 1 / rank of the first "
        f"gold table within the top {max(run.ks)}. Mean candidates: tables returned for k={run.headline_k} "
        "(join completion may add bridge tables beyond k; only the first k count for recall). "
        "Latency: one question, the call that answers it first, in this process.</p>"
    )


def _cell(value: float, best: bool = False) -> str:
    return f'<td class="best">{value:.3f}</td>' if best else f"<td>{value:.3f}</td>"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(f"<tr>{''.join(cells)}</tr>" for cells in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; padding: 0 1em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
thead th { background: #f2f2f2; }
tbody th { text-align: left; font-weight: normal; }
td.best { font-weight: bold; background: #eef6ee; }
.meta { color: #666; font-size: 0.85em; }
svg text { font-size: 12px; fill: #333; }
svg .grid { stroke: #e3e3e3; }
code { font-size: 0.95em; }
"""
