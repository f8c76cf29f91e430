"""Verdicts on preflight checklists: recorded, looked up, and bound to the values they approved.

Every checklist :mod:`.checklist` makes gets a verdict id (:func:`~.checklist.verdict_id`), a short hash of the catalog,
the regenerated SQL and its ``{slot key: value}`` pairs, and is written to an
append-only JSON-lines log, blocked ones (with their unknowns) as much as ready ones.
Execution then accepts only an id that the log holds with status ``ready`` and whose
pairs equal those of the checklist made again at execution time (:func:`approve`): a
changed literal, limit, probe result or conversation answer voids it, with a message
naming the slot.

The log is the one shared record, read back from the file (scanning from the end, a
bounded number of bytes), so an id handed out by one HTTP worker is honoured by
another. Lines hold the question, the SQL and the slot values, never a database URL,
and never the stored values a probe showed: an unknown is logged with its question
with those values taken out, and how many there were.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .checklist import Checklist

# How far back from the end of the log a verdict is looked for; older ones must be made again.
MAX_SCAN_BYTES = 8 * 2**20
# Above this size the log is moved aside (one old file is kept) before the next line is written.
MAX_LOG_BYTES = 64 * 2**20
_BLOCK = 64 * 1024


class VerdictLog:
    """The append-only log of checklists, executions and refusals at ``path`` (JSON lines)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def record(self, checklist: Checklist) -> str:
        """Write a checklist's verdict (whatever its status) and return its id."""
        self._write(
            {
                "event": "verdict",
                "verdict": checklist.verdict,
                "catalog": checklist.catalog,
                "question": checklist.question,
                "sql": checklist.sql,
                "status": checklist.status,
                "slots": [{"key": s.key, "value": s.value, "source": s.source} for s in checklist.slots],
                "unknowns": [
                    {"key": s.key, "question": without_stored(s.question, s.options), "options": len(s.options)}
                    for s in checklist.unknowns
                ],
                "errors": checklist.errors,
            }
        )
        return checklist.verdict

    def executed(self, verdict: str, *, rows: int, truncated: bool, seconds: float) -> None:
        """Note that an approved verdict ran, and what came back."""
        self._write({"event": "executed", "verdict": verdict, "rows": rows, "truncated": truncated, "seconds": seconds})

    def refused(self, verdict: str | None, reason: str, *, unknowns: list[str] | None = None) -> None:
        """Note a call that did not run: an approval that did not bind, or a query the database refused."""
        self._write({"event": "refused", "verdict": verdict, "reason": reason, "unknowns": unknowns or []})

    def find(self, verdict: str) -> dict[str, Any] | None:
        """The latest checklist recorded under ``verdict``, read from the file; ``None`` if
        it is not within the last :data:`MAX_SCAN_BYTES` of the log."""
        for entry in self._backwards():
            if entry.get("event") == "verdict" and entry.get("verdict") == verdict:
                return entry
        return None

    def entries(self, limit: int = 100) -> list[dict[str, Any]]:
        """The last ``limit`` entries, oldest first (for an operator, and for tests)."""
        found = []
        for entry in self._backwards():
            found.append(entry)
            if len(found) >= limit:
                break
        return found[::-1]

    # -- the file ------------------------------------------------------------------

    def _write(self, entry: dict[str, Any]) -> None:
        entry = {"time": datetime.now(UTC).isoformat(timespec="seconds"), **entry}
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Several server workers (and threads: each opens the lock file anew, and flock holds
        # per open file) append to one file: one whole line at a time, under a lock file of
        # its own, so that moving the log aside cannot strand a writer on the old one.
        with open(self.path.with_name(self.path.name + ".lock"), "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self.path.exists() and self.path.stat().st_size > MAX_LOG_BYTES:
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                with open(self.path, "ab") as handle:
                    handle.write(line)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _backwards(self):
        """Entries from the newest back, at most :data:`MAX_SCAN_BYTES` of them."""
        try:
            handle = open(self.path, "rb")
        except FileNotFoundError:
            return
        with handle:
            end = handle.seek(0, os.SEEK_END)
            floor = max(0, end - MAX_SCAN_BYTES)
            position, rest = end, b""
            while position > floor:
                size = min(_BLOCK, position - floor)
                position -= size
                handle.seek(position)
                block = handle.read(size) + rest
                lines = block.split(b"\n")
                rest = lines[0]  # may be the tail of a line that starts in an earlier block
                for raw in reversed(lines[1:]):
                    entry = _entry(raw)
                    if entry is not None:
                        yield entry
            if floor == 0:
                entry = _entry(rest)
                if entry is not None:
                    yield entry


def without_stored(question: str | None, stored: list[str]) -> str | None:
    """``question`` with the stored values it lists taken out, for the log: the values a
    probe read from the database are shown to the agent, not kept on disk.

    >>> without_stored("'Acme' matches 2 values of suppliers.company_name: Acme GmbH, Acme Ltd — which one?",
    ...                ["Acme GmbH", "Acme Ltd"])
    "'Acme' matches 2 values of suppliers.company_name: [2 stored values] — which one?"
    >>> without_stored("No stored value of orders.code is '01234'; the closest is '1234' — is that the one?", ["1234"])
    "No stored value of orders.code is '01234'; the closest is [a stored value] — is that the one?"
    """
    if question is None or not stored:
        return question
    for value in sorted(stored, key=len, reverse=True):  # one named alone, as 'Acme GmbH'
        question = question.replace(repr(value), "[a stored value]")
    if len(stored) > 1:  # a list, as preflight writes one
        question = question.replace(", ".join(stored), f"[{len(stored)} stored values]")
    return question


def _entry(raw: bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return None
    try:
        entry = json.loads(raw)
    except ValueError:  # a line cut by a crash, or by the scan's floor
        return None
    return entry if isinstance(entry, dict) else None


def approve(log: VerdictLog, verdict: str, checklist_now: Checklist) -> str | None:
    """Why ``verdict`` does not approve running ``checklist_now``; ``None`` when it does.

    The verdict must be in the log with status ``ready``, for the same catalog and SQL,
    with every ``{slot: value}`` pair equal to the checklist made again now.
    """
    recorded = log.find(verdict)
    if recorded is None:
        return (
            f"No checklist was recorded under verdict {verdict!r}. Call execute_sql without `approval` first, "
            "show the user its checklist, and pass the verdict id it returns once they agree."
        )
    if recorded.get("status") != "ready":
        open_questions = "; ".join(u.get("question") or u.get("key", "") for u in recorded.get("unknowns") or [])
        return f"Verdict {verdict} was {recorded.get('status')}, not ready: it cannot approve a run. " + (
            f"Ask the user first: {open_questions}" if open_questions else "Fix the SQL and check it again."
        )
    if recorded.get("catalog") != checklist_now.catalog:
        return f"Verdict {verdict} is for catalog {recorded.get('catalog')!r}, not {checklist_now.catalog!r}."
    then = {s["key"]: s.get("value") for s in recorded.get("slots") or []}
    now = checklist_now.pairs()
    changed = [key for key in [*then, *(k for k in now if k not in then)] if then.get(key) != now.get(key)]
    if changed:
        return (
            "The approval is void: "
            + "; ".join(_change(key, then, now) for key in changed[:5])
            + (". Show the user the new checklist and ask again." if checklist_now.status == "ready" else ".")
        )
    if recorded.get("sql") != checklist_now.sql:
        return f"The approval is void: the SQL changed since verdict {verdict} was given. Ask the user again."
    if checklist_now.status != "ready":
        return f"The approval is void: the checklist is {checklist_now.status} now: " + "; ".join(
            checklist_now.questions
        )
    return None


def _change(key: str, then: dict[str, Any], now: dict[str, Any]) -> str:
    if key not in now:
        return f"slot {key} (approved as {then[key]!r}) is no longer in the query"
    if key not in then:
        return f"slot {key} ({now[key]!r}) was not in the approved checklist"
    if now[key] is None:
        return f"slot {key} was approved as {then[key]!r} and is now unknown"
    return f"slot {key} was approved as {then[key]!r} and is now {now[key]!r}"
