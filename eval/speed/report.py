"""The speed benchmark's printout: one column per size, the targets at 10,000 tables, growth and a plot."""

from __future__ import annotations

import math

TARGET_SCALE = "10000"
BAR = 40


def print_scales(report: dict) -> None:
    scales = report["scales"]
    print(machine_line(report))
    rows = _rows(report)
    width = max(len(label) for label, _ in rows)
    for label, cell in rows:
        print(f"{label:<{width}}  " + "  ".join(f"{str(cell(scales[n])):>14}" for n in scales))


def markdown(report: dict) -> str:
    """The same table as Markdown, for the README to quote."""
    scales = report["scales"]
    lines = [machine_line(report), "", "| | " + " | ".join(f"{int(n):,} tables" for n in scales) + " |"]
    lines.append("|---|" + "---:|" * len(scales))
    for label, cell in _rows(report)[1:]:
        lines.append(f"| {label.strip()} | " + " | ".join(str(cell(scales[n])) for n in scales) + " |")
    return "\n".join(lines) + "\n"


def machine_line(report: dict) -> str:
    start, end = report["machine_at_start"], report["machine_at_end"]
    backend = next(iter(report["scales"].values()))["backend"] if report["scales"] else "?"
    return (
        f"machine: {start['cores']} cores, load average {' '.join(map(str, start['load_average']))} at the start, "
        f"{' '.join(map(str, end['load_average']))} at the end; embedding backend {backend}"
    )


def _rows(report: dict) -> list:
    return [
        ("tables", lambda s: f"{s['tables']:,}"),
        ("build, dense included (s)", lambda s: s["build_s"]),
        ("  reference: BM25 only (s)", lambda s: s["build_bm25_s"]),
        ("re-index, 1% changed (s)", lambda s: s["reindex_s"]),
        ("search in process p50 (ms)", lambda s: s["search"]["p50_ms"]),
        ("search in process p99 (ms)", lambda s: s["search"]["p99_ms"]),
        ("  reference: bare encode p50 (ms)", lambda s: s["search"]["bare_encode_p50_ms"]),
        ("  reference: bare tantivy p50 (ms)", lambda s: s["search"]["bare_tantivy_p50_ms"]),
        ("HTTP search (req/s)", lambda s: _http(s, "search", "rps")),
        ("HTTP search p50 / p99 (ms)", lambda s: f"{_http(s, 'search', 'p50_ms')} / {_http(s, 'search', 'p99_ms')}"),
        ("HTTP errors / requests", lambda s: f"{_http(s, 'search', 'errors')} / {_http(s, 'search', 'requests')}"),
        *(
            (f"  at {c} connections: req/s, p99 (ms)", lambda s, i=i: _other(s, i))
            for i, c in enumerate(report.get("connections", [])[1:])
        ),
        ("  reference: GET /healthz (req/s)", lambda s: _http(s, "healthz", "rps")),
        ("serve memory RSS / PSS (MB)", lambda s: _memory(s.get("http", {}).get("memory_after_load_mb"))),
        ("  reference: empty server (MB)", lambda s: _memory(report.get("empty_server", {}).get("memory_mb"))),
        (
            "serve workers, ready after (s)",
            lambda s: f"{s.get('http', {}).get('workers', '-')}, {s.get('http', {}).get('ready_s', '-')}",
        ),
        ("load average after this size", lambda s: " ".join(map(str, s["machine"]["load_average"]))),
    ]


def print_targets(report: dict) -> None:
    s = report["scales"].get(TARGET_SCALE)
    if s is None:
        return
    http = s.get("http")
    checks = [
        ("index, dense included", "<= 30 s", s["build_s"], s["build_s"] <= 30, f"BM25 only {s['build_bm25_s']} s"),
        ("re-index after 1% changed", "<= 3 s", s["reindex_s"], s["reindex_s"] <= 3, f"full build {s['build_s']} s"),
        (
            "search p50 / p99",
            "<= 10 / 30 ms",
            f"{s['search']['p50_ms']} / {s['search']['p99_ms']}",
            s["search"]["p50_ms"] <= 10 and s["search"]["p99_ms"] <= 30,
            f"encode {s['search']['bare_encode_p50_ms']} ms, tantivy {s['search']['bare_tantivy_p50_ms']} ms",
        ),
    ]
    if http:
        h = http["search"]
        ok = h["rps"] >= 300 and h["p99_ms"] <= 50 and h["errors"] == 0
        checks.append(
            (
                "HTTP search",
                ">= 300 req/s, p99 <= 50 ms, 0 errors",
                f"{h['rps']} req/s, p99 {h['p99_ms']} ms, {h['errors']} errors",
                ok,
                f"/healthz {http['healthz']['rps']} req/s",
            )
        )
        memory = http["memory_after_load_mb"]
        empty = report.get("empty_server", {}).get("memory_mb", {})
        checks.append(
            (
                "serve memory (PSS)",
                "<= 1024 MB",
                f"{memory['pss']} MB (RSS {memory['rss']})",
                memory["pss"] <= 1024,
                f"empty server {empty.get('pss', '-')} MB",
            )
        )
    print(f"\ntargets at {int(TARGET_SCALE):,} tables")
    width = max(len(c[0]) for c in checks)
    for what, target, measured, met, reference in checks:
        print(f"  {what:<{width}}  {target:<36} {str(measured):<32} {'met' if met else 'MISSED':<7} ({reference})")


def print_growth(report: dict) -> None:
    scales = report["scales"]
    names = sorted(scales, key=int)
    if len(names) < 2:
        return
    print("\ngrowth between sizes (exponent e in cost ~ tables^e: 1 linear, below 1 sub-linear)")
    for a, b in zip(names, names[1:]):
        factor = int(b) / int(a)
        sa, sb = scales[a], scales[b]
        print(
            f"  {int(a):,} -> {int(b):,}: build e={growth(sa['build_s'], sb['build_s'], factor):.2f}, "
            f"search p50 e={growth(sa['search']['p50_ms'], sb['search']['p50_ms'], factor):.2f}, "
            f"p99 e={growth(sa['search']['p99_ms'], sb['search']['p99_ms'], factor):.2f}"
        )
    for title, value in (
        ("build, dense included (s)", lambda s: s["build_s"]),
        ("search in process p50 (ms)", lambda s: s["search"]["p50_ms"]),
    ):
        print(f"\n{title}, log scale")
        plot([(f"{int(n):,}", value(scales[n])) for n in names])


def plot(points: list[tuple[str, float]]) -> None:
    """Horizontal bars on a log scale, one per size.

    >>> plot([("a", 1.0), ("b", 100.0)])
          a | 1.0
          b | ######################################## 100.0
    """
    values = [v for _, v in points if v > 0]
    low, high = math.log10(min(values)), math.log10(max(values))
    span = (high - low) or 1.0
    for label, value in points:
        length = round(BAR * (math.log10(value) - low) / span) if value > 0 else 0
        print(f"{label:>7} | {'#' * length}{' ' if length else ''}{value}")


def growth(small: float, large: float, factor: float) -> float:
    """The exponent ``e`` with ``large = small * factor ** e``: 1 is linear, below 1 sub-linear.

    >>> round(growth(1.0, 10.0, 10), 2), round(growth(2.0, 4.0, 10), 2)
    (1.0, 0.3)
    """
    return math.log(large / small) / math.log(factor) if small > 0 and large > 0 else float("nan")


def _other(scale: dict, i: int) -> str:
    others = scale.get("http", {}).get("other_connections", [])
    return f"{others[i]['rps']}, {others[i]['p99_ms']}" if i < len(others) else "-"


def _http(scale: dict, what: str, field: str):
    return scale.get("http", {}).get(what, {}).get(field, "-")


def _memory(memory: dict | None) -> str:
    return f"{memory['rss']} / {memory['pss']}" if memory else "-"


if __name__ == "__main__":  # python -m eval.speed.report eval/results/speed.json: the Markdown table again
    import json
    import sys

    print(markdown(json.loads(open(sys.argv[1]).read())), end="")
