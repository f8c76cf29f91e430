"""What the figures need beside them: percentiles, the machine's cores and load, a process tree's memory."""

from __future__ import annotations

import os
import statistics
from pathlib import Path


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``samples_ms``.

    >>> percentiles([float(i) for i in range(1, 101)])
    (50.5, 100.0)
    """
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def machine() -> dict:
    """Cores and load average now: a reader judges the figures by them."""
    one, five, fifteen = os.getloadavg()
    return {"cores": os.cpu_count(), "load_average": [round(one, 2), round(five, 2), round(fifteen, 2)]}


def tree_memory_mb(pid: int) -> dict[str, float]:
    """Resident memory of ``pid`` and all its descendants, in MB.

    ``rss`` counts a page once per process that maps it (the memory-mapped index
    files server workers share count once per worker); ``pss`` splits shared pages
    between the processes that share them, so it adds up to what the tree costs.
    """
    rss = pss = 0.0
    for process in _tree(pid):
        fields = _kb_fields(Path(f"/proc/{process}/smaps_rollup"))
        rss += fields.get("Rss", 0) / 1024
        pss += fields.get("Pss", 0) / 1024
    return {"rss": round(rss, 1), "pss": round(pss, 1)}


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def _kb_fields(path: Path) -> dict[str, int]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    fields = {}
    for line in lines:
        name, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB":
            fields[name] = int(parts[0])
    return fields
