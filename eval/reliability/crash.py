"""Crash safety: SIGKILL a real ``schemasift index`` at random moments, then check what it left.

    python -m eval.reliability.crash [--kills 200] [--kinds tables corpora]

Each kill lands at a moment drawn uniformly over an unkilled run of the same index,
so imports, parsing, the tantivy write, embedding and the swap are each hit in
proportion to how long they take. A share of the kills run with the dense channel
on, since embedding is the longest phase of a real index. After each kill:

* the collection opens and answers a search, and its item count is that of the
  generation before the kill or of the one being built: the two versions of the
  source alternate and differ in size, so the count tells them apart. A killed
  *first* build must leave nothing listed, or a complete collection;
* its writer lock is free: a killed holder must not block the next index;
* after the next successful build, no byte under the collection belongs to anything
  but the live generation, the previous one kept for readers, ``CURRENT`` and the lock.

Half of the kills are followed by that build; the others by another kill, so debris
of several crashes piles up before a build has to clear it.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from schema_search.errors import Busy
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .report import Part, show

KINDS = ("tables", "corpora")
REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
WORDS = (
    "customer invoice order payment refund shipment warehouse product supplier contract ledger account "
    "employee payroll campaign lead ticket subscription coupon region currency tax audit session device "
    "policy claim vendor budget forecast asset license release incident"
).split()
FIRST_BUILD_EVERY = 8  # every 8th kill hits a collection's first-ever build (no CURRENT yet)
# Items in the larger version of each source: an unkilled run takes 1-4 s on two cores.
# Parsing is most of a BM25 tables run; embedding most of a dense one.
SIZES = {("tables", False): 1200, ("corpora", False): 600, ("tables", True): 300, ("corpora", True): 60}
TARGETS = ("unopenable", "wrong count", "blocked by stale lock", "stray bytes after next build", "index errors")


@dataclass(frozen=True)
class Setup:
    """One configuration that is killed: an item kind, with or without the dense channel.

    Attributes:
        kind: ``tables`` (a DDL file) or ``corpora`` (a folder of Markdown files).
        dense: whether the index embeds (``SCHEMA_SEARCH_DENSE``).
        sizes: the items in the two versions of the source; they alternate.
    """

    kind: str
    dense: bool
    sizes: tuple[int, int]

    @property
    def label(self) -> str:
        return f"{self.kind}{' dense' if self.dense else ''}"


@dataclass
class Tally:
    counts: dict[str, int | float] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)

    def add(self, key: str, amount: int | float = 1, detail: str | None = None) -> None:
        self.counts[key] = self.counts.get(key, 0) + amount
        if detail and len(self.details) < 20:
            self.details.append(detail)


def run(
    kills: int = 200,
    kinds: tuple[str, ...] = KINDS,
    *,
    dense_share: float = 0.25,
    scale: float = 1.0,
    seed: int = 13,
) -> Part:
    """Kill ``kills`` index runs, shared between ``kinds``, and check each as the module says.

    Args:
        dense_share: the share of each kind's kills made with the dense channel on.
        scale: multiplies the source sizes (:data:`SIZES`); a test uses a small one.
        seed: picks the kill moments.
    """
    rng = random.Random(seed)
    tally = Tally({"kills": 0, **{key: 0 for key in TARGETS}})
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="schema-search-crash-") as scratch:
        for number, kind in enumerate(kinds):
            share = kills // len(kinds) + (number < kills % len(kinds))
            dense = min(share, round(share * dense_share))
            for on, count in ((False, share - dense), (True, dense)):
                size = max(8, round(SIZES[kind, on] * scale))
                setup = Setup(kind, on, (size, size - size // 8))
                if count:
                    _kill_many(setup, count, Path(scratch) / setup.label.replace(" ", "-"), rng, tally)
    tally.counts["seconds"] = round(time.perf_counter() - started, 1)
    at_target = all(tally.counts[key] == 0 for key in TARGETS) and tally.counts["kills"] == kills
    target = "0 unopenable, 0 wrong count, 0 blocked, 0 stray bytes after the next build"
    return Part("crash safety", tally.counts, target, at_target, tally.details)


def _kill_many(setup: Setup, kills: int, work: Path, rng: random.Random, tally: Tally) -> None:
    home = work / "home"
    env = os.environ | OFFLINE | {"SCHEMA_SEARCH_HOME": str(home), "SCHEMA_SEARCH_DENSE": str(setup.dense).lower()}
    name = "crash"
    # Two unkilled runs: they build the collection, and their mean length is the span kills are drawn over.
    spans = []
    for size in setup.sizes:
        source = _source(setup.kind, work / "source", size)
        began = time.perf_counter()
        done = subprocess.run(_command(setup.kind, source, name), env=env, cwd=REPO, capture_output=True, text=True)
        spans.append(time.perf_counter() - began)
        if done.returncode:
            tally.add("index errors", detail=f"{setup.label}: unkilled index failed: {done.stderr.strip()[-300:]}")
            return
    span = sum(spans) / len(spans)
    tally.add(f"{setup.label} run s", round(span, 2))
    settings = Settings(home=home, dense=setup.dense)
    delivered = attempts = 0
    while delivered < kills and attempts < 3 * kills:
        attempts += 1
        first = delivered % FIRST_BUILD_EVERY == FIRST_BUILD_EVERY - 1
        target = f"first-{delivered}" if first else name
        folder = home / _shelf(setup.kind) / target
        old = _count(settings, setup.kind, target)
        size = setup.sizes[1] if old == setup.sizes[0] else setup.sizes[0]
        source = _source(setup.kind, work / "source", size)
        before = _disk(folder)
        moment = rng.uniform(0, span)
        killed, returncode, stderr = _kill_at(_command(setup.kind, source, target), env, moment)
        where = f"{setup.label} kill {delivered + 1} at {moment:.2f}/{span:.2f} s"
        if not killed:  # it finished before the moment came: not a kill; draw again
            tally.add("finished first")
            if returncode:
                key = "blocked by stale lock" if b"being indexed" in stderr else "index errors"
                tally.add(key, detail=f"{where}: exit {returncode}: {stderr.decode()[-300:]}")
            if first and returncode == 0:
                _forget(settings, setup.kind, target)  # the next draw must meet a first build again
            continue
        delivered += 1
        tally.add("kills")
        tally.add("dense kills" if setup.dense else "bm25 kills")
        tally.add(_phase(before, _disk(folder)))
        _check_after_kill(settings, setup, target, (old, size), where, tally)
        if first or delivered == kills or rng.random() < 0.5:
            _build_and_measure(settings, setup, target, work, where, tally)
        if first:
            _forget(settings, setup.kind, target)


def _kill_at(command: list[str], env: dict[str, str], moment: float) -> tuple[bool, int, bytes]:
    """Start ``command``; SIGKILL it ``moment`` seconds after the start. Returns (killed, exit code, stderr)."""
    began = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(max(0.0, began + moment - time.perf_counter()))
    killed = process.poll() is None
    if killed:
        os.kill(process.pid, signal.SIGKILL)
    _, stderr = process.communicate()
    return killed, process.returncode, stderr


def _check_after_kill(settings: Settings, setup: Setup, name: str, allowed: tuple, where: str, tally: Tally) -> None:
    """The collection opens, searches and has the old or the new count; its lock is free."""
    try:
        found = _count(settings, setup.kind, name, search=True)
    except Exception as error:  # SchemaSearchError is the clear kind; anything else is worse
        tally.add("unopenable", detail=f"{where}: {type(error).__name__}: {error}")
        found = None
    else:
        if found not in allowed:
            tally.add("wrong count", detail=f"{where}: {found} items, expected one of {allowed}")
    lock = Path(settings.home) / _shelf(setup.kind) / name / ".lock"
    if lock.exists() and not _lock_is_free(lock):
        tally.add("blocked by stale lock", detail=f"{where}: the lock is still held after the kill")


def _build_and_measure(settings: Settings, setup: Setup, name: str, work: Path, where: str, tally: Tally) -> None:
    """The next index succeeds, and leaves nothing but the live and the kept generation."""
    folder = Path(settings.home) / _shelf(setup.kind) / name
    previous = _live(folder)  # what the build will replace: the one generation readers may still hold
    old = _count(settings, setup.kind, name)
    size = setup.sizes[1] if old == setup.sizes[0] else setup.sizes[0]
    source = _source(setup.kind, work / "source", size)
    workspace = Workspace(settings)
    try:
        if setup.kind == "tables":
            workspace.catalogs.index(str(source), catalog=name)
        else:
            workspace.corpora.index(source, corpus=name)
    except Busy as error:
        tally.add("blocked by stale lock", detail=f"{where}: next index refused: {error}")
        return
    keep = {"CURRENT", ".lock", _live(folder), previous}
    stray = sum(_size(path) for path in folder.iterdir() if path.name not in keep)
    root = folder.parent
    stray += sum(_size(path) for path in root.iterdir() if path.name.startswith("."))  # interrupted deletes
    if stray:
        left = sorted(p.name for p in folder.iterdir() if p.name not in keep)
        tally.add("stray bytes after next build", stray, detail=f"{where}: {stray} bytes left: {left}")
    tally.add("builds after a kill")


def _count(settings: Settings, kind: str, name: str, search: bool = False) -> int | None:
    """Items in the live generation, as a fresh process sees them; None when the collection is not listed."""
    workspace = Workspace(settings)
    if kind == "tables":
        listed = {info.name: info.tables for info in workspace.catalogs.infos()}  # listing must not trip on a crash
        if search and name in listed:
            workspace.catalogs.search(name, "customer invoice payments")
    else:
        listed = {info.name: info.documents for info in workspace.corpora.infos()}
        if search and name in listed:
            workspace.corpora.search(name, "how are refunds paid to a customer")
    return listed.get(name)


def _forget(settings: Settings, kind: str, name: str) -> None:
    workspace = Workspace(settings)
    (workspace.catalogs.delete if kind == "tables" else workspace.corpora.delete)(name)


def _source(kind: str, folder: Path, size: int) -> Path:
    """A fresh source of ``size`` items; a new stamp in every item makes each run re-embed all of them."""
    stamp = f"v{time.time_ns()}"
    rng = random.Random(size)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():  # the previous version: a killed run is no longer reading it
        for file in [*old.iterdir(), old] if old.is_dir() else [old]:
            file.rmdir() if file.is_dir() else file.unlink()
    if kind == "tables":
        path = folder / "schema.postgres.sql"
        path.write_text("\n".join(_table(i, rng, stamp) for i in range(size)), encoding="utf-8")
        return path
    docs = folder / "docs"
    docs.mkdir(exist_ok=True)
    for i in range(size):
        (docs / f"page-{i:04d}.md").write_text(_document(i, rng, stamp), encoding="utf-8")
    return docs


def _table(i: int, rng: random.Random, stamp: str) -> str:
    a, b = rng.sample(WORDS, 2)
    columns = ["  id INTEGER PRIMARY KEY"] + [f"  {w}_{n} TEXT" for n, w in enumerate(rng.sample(WORDS, 6))]
    if i:
        columns.append(f"  parent_id INTEGER REFERENCES t{rng.randrange(i):04d} (id)")
    body = ",\n".join(columns)
    return (
        f"CREATE TABLE t{i:04d} (\n{body}\n);\n"
        f"COMMENT ON TABLE t{i:04d} IS 'The {a} of each {b}, kept for reporting ({stamp}).';\n"
    )


def _document(i: int, rng: random.Random, stamp: str) -> str:
    sections = []
    for n in range(3):
        words = " ".join(rng.choice(WORDS) for _ in range(120))
        sections.append(f"## {rng.choice(WORDS).title()} {n}\n\n{words.capitalize()}.\n")
    return f"# Page {i}: {' and '.join(rng.sample(WORDS, 2))}\n\nRevision {stamp}.\n\n" + "\n".join(sections)


def _command(kind: str, source: Path, name: str) -> list[str]:
    cli = [sys.executable, "-m", "schema_search.cli"]
    if kind == "tables":
        return cli + ["index", str(source), "--catalog", name]
    return cli + ["docs", "index", str(source), "--corpus", name]


def _shelf(kind: str) -> str:
    return "catalogs" if kind == "tables" else "corpora"


def _disk(folder: Path) -> tuple[str | None, frozenset[tuple[str, bool]]]:
    """What a kill can have changed: ``CURRENT``, and each generation with whether it has a manifest."""
    gens = (
        frozenset((p.name, (p / "manifest.json").exists()) for p in folder.glob("gen-*"))
        if folder.is_dir()
        else frozenset()
    )
    return _live(folder), gens


def _phase(before: tuple, after: tuple) -> str:
    """Where the kill landed, from what it left on disk."""
    if after[0] != before[0]:
        return "killed after the swap"
    new = after[1] - before[1]
    if any(complete for _, complete in new):
        return "killed before the swap"
    if new:
        return "killed mid-build"
    return "killed before writing"


def _live(folder: Path) -> str | None:
    try:
        return (folder / "CURRENT").read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _lock_is_free(lock: Path) -> bool:
    with open(lock, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--dense-share", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    part = run(args.kills, tuple(args.kinds), dense_share=args.dense_share, seed=args.seed)
    return show([part])


if __name__ == "__main__":
    raise SystemExit(main())
