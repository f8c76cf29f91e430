"""Big corpora (issue 29), measured with the real command and model on a subset of the PEPs.

    python -m eval.speed.big_corpus [--files 80] [--edit 10] [--source ../shared/docs_corpora/peps]

Runs of ``schemasift docs index`` (stderr not a terminal), each next to the full build
of the same run on the same (shared, noisy) machine:

* (a) the full build: passages, seconds, and the estimate it printed against the time
  the embedding took;
* (c) the same build in a data directory of its own, stopped by SIGINT about halfway
  through its embedding (timed from its own estimate), then the same command again:
  what each run embedded, whether any passage was embedded twice (the target: none),
  and how far the resumed vectors are from (a)'s;
* (b) a re-index of (a) after ``--edit`` files got a new last paragraph: passages
  embedded (all of them must come from the edited files) and seconds.

The subset is the first ``--files`` files of the source, with the manifest lines that
name them, copied to a temporary folder. Keep it so a full build takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from schema_search.core.build import ESTIMATE_AFTER
from schema_search.core.checkpoint import Checkpoint, read_header
from schema_search.core.dense import DenseIndex
from schema_search.core.embedders import BATCH
from schema_search.core.store import CHECKPOINT_FILE

REPO = Path(__file__).resolve().parents[2]
ESTIMATE = re.compile(r"^embedding ([\d,]+) of ([\d,]+) \w+s.*: about (.+) at ([\d.]+)/s$")
INTERRUPTED = re.compile(r"^interrupted: ([\d,]+) of ([\d,]+) \w+s embedded and kept")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=REPO.parent / "shared" / "docs_corpora" / "peps")
    parser.add_argument("--files", type=int, default=80, help="how many files of the source (default 80)")
    parser.add_argument("--edit", type=int, default=10, help="files to edit before the re-index (default 10)")
    parser.add_argument("--stop-at", type=float, default=0.5, help="share of the embedding when SIGINT is sent")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="big-corpus-"))
    try:
        docs = subset(args.source, work / "docs", args.files)
        report = {"files": args.files, "cores": os.cpu_count(), "load_at_start": os.getloadavg()[0]}
        report["full"] = full = index(docs, work / "home")
        # The same files as the full build, in a data directory of their own: nothing to reuse.
        report["interrupted"] = stopped = index(docs, work / "stopped", stop_at=args.stop_at)
        report["resumed"] = resumed = index(docs, work / "stopped")
        resumed["max_vector_difference"] = difference(work / "home", work / "stopped")
        edited = edit(docs, args.edit)
        report["reindex"] = reindex = index(docs, work / "home")
        reindex["from_edited_files"] = from_files(work / "home", reindex["changed_ids"], edited)
        report["load_at_end"] = os.getloadavg()[0]
        print_report(report, full, reindex, stopped, resumed)
        if args.json:
            args.json.write_text(json.dumps(report, indent=2, default=list))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def subset(source: Path, target: Path, files: int) -> Path:
    """The first ``files`` pages of ``source``, and the manifest lines naming them."""
    (target / "pages").mkdir(parents=True)
    names = sorted(p.name for p in (source / "pages").iterdir())[:files]
    for name in names:
        shutil.copy2(source / "pages" / name, target / "pages" / name)
    kept = set(names)
    lines = (source / "manifest.jsonl").read_text().splitlines()
    (target / "manifest.jsonl").write_text("".join(f"{line}\n" for line in lines if json.loads(line)["path"] in kept))
    return target


def edit(docs: Path, count: int) -> list[str]:
    """Give ``count`` files, spread over the subset, a new last paragraph; returns their names."""
    pages = sorted((docs / "pages").iterdir())
    chosen = pages[:: max(len(pages) // count, 1)][:count]
    for page in chosen:
        page.write_text(page.read_text() + "\n\nEdited for the big-corpus benchmark: a new closing paragraph.\n")
    return [p.name for p in chosen]


def index(docs: Path, home: Path, stop_at: float | None = None) -> dict:
    """Run ``schemasift docs index``; with ``stop_at``, SIGINT once that share of its embedding is done."""
    command = [sys.executable, "-m", "schema_search.cli", "docs", "index", str(docs), "--corpus", "peps"]
    env = {**os.environ, "SCHEMA_SEARCH_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    before = live_keys(home)
    started = time.perf_counter()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    lines, estimate, signalled = [], None, None
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        found = ESTIMATE.match(lines[-1])
        if found:
            todo, rate = int(found[1].replace(",", "")), float(found[4])
            estimate = {"line": lines[-1], "at_s": time.perf_counter() - started, "todo": todo, "rate": rate}
            if stop_at is not None:
                # The estimate comes after the first batch and ESTIMATE_AFTER more texts.
                wait = max(todo * stop_at - BATCH - ESTIMATE_AFTER, 0) / rate
                time.sleep(wait)
                process.send_signal(signal.SIGINT)
                signalled = time.perf_counter() - started
    code = process.wait()
    result = {"seconds": round(time.perf_counter() - started, 1), "exit": code, "estimate": estimate}
    result["stderr_tail"] = lines[-3:]
    if signalled is not None:
        result["sigint_at_s"] = round(signalled, 1)
        kept = next(filter(None, map(INTERRUPTED.match, lines)), None)
        result["kept"] = int(kept[1].replace(",", "")) if kept else None
        folder = home / "corpora" / "peps"
        result["left_in_folder"] = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        header = read_header((folder / CHECKPOINT_FILE).read_bytes())
        saved = Checkpoint(folder / CHECKPOINT_FILE, header[0] if header else "")
        result["checkpoint_bytes"] = saved.path.stat().st_size
        result["checkpoint_vectors"] = len(saved.load())  # distinct texts the first run embedded and kept
        return result
    manifest = json.loads((live_path(home) / "manifest.json").read_text())
    result["chunks"] = manifest["chunks"]
    result["dense"] = manifest["dense"]
    after = live_keys(home)
    result["changed_ids"] = sorted(i for i, key in after.items() if before.get(i) != key)
    result["distinct_texts"] = len(set(after.values()))
    return result


def difference(home: Path, other: Path) -> float:
    """The largest difference of one coordinate between two builds' vectors of the same chunks."""
    first, second = DenseIndex.load(live_path(home)), DenseIndex.load(live_path(other))
    rows = {key: row for row, key in enumerate(second.keys)}
    return float(max(np.abs(first.vectors[i] - second.vectors[rows[k]]).max() for i, k in enumerate(first.keys)))


def live_path(home: Path) -> Path:
    folder = home / "corpora" / "peps"
    return folder / (folder / "CURRENT").read_text().strip()


def live_keys(home: Path) -> dict[str, str]:
    """Chunk id -> content key of the live generation's vectors (empty before the first build)."""
    if not (home / "corpora" / "peps" / "CURRENT").exists():
        return {}
    meta = json.loads((live_path(home) / "embeddings.json").read_text())
    return dict(zip(meta["ids"], meta["keys"]))


def from_files(home: Path, ids: list[str], names: list[str]) -> dict:
    """How many of the chunks ``ids`` belong to the files ``names`` (by their URL), and how many do not."""
    pages = {f"/{Path(name).stem}/" for name in names}
    urls = {}
    with open(live_path(home) / "chunks.jsonl") as chunks:
        for line in chunks:
            chunk = json.loads(line)
            urls[chunk["id"]] = chunk["url"]
    inside = sum(any(page in urls[i] for page in pages) for i in ids)
    return {"edited_files": names, "inside": inside, "outside": len(ids) - inside}


def print_report(report: dict, full: dict, reindex: dict, stopped: dict, resumed: dict) -> None:
    passages, encoded = full["chunks"], full["dense"]["encoded"]
    print(
        f"PEP subset: {report['files']} files, {passages:,} passages ({encoded:,} distinct texts), "
        f"{report['cores']} cores, load {report['load_at_start']:.1f} -> {report['load_at_end']:.1f}"
    )
    print(f"{'run':<36}{'seconds':>8}{'embedded':>10}{'per s':>7}  note")
    estimate = full["estimate"] or {}
    print(
        f"{'(a) full build (the reference)':<36}{full['seconds']:>8.1f}{encoded:>10,}{full['dense']['rate']:>7}  "
        f"embedding took {full['dense']['seconds']:.0f} s; the estimate, printed {estimate.get('at_s', 0):.0f} s "
        f"after the start: {estimate.get('line')!r}"
    )
    print(
        f"{'(c1) same build, SIGINT at ' + str(stopped.get('sigint_at_s')) + ' s':<36}{stopped['seconds']:>8.1f}"
        f"{stopped['checkpoint_vectors']:>10,}{'':>7}  exit {stopped['exit']}; left in the folder: "
        f"{stopped['left_in_folder']}; last line: {stopped['stderr_tail'][-1]!r}"
    )
    print(
        f"{'(c2) same command again':<36}{resumed['seconds']:>8.1f}{resumed['dense']['encoded']:>10,}"
        f"{resumed['dense']['rate'] or '':>7}  resumed {resumed['dense']['resumed']:,} passages"
    )
    first, second, target = stopped["checkpoint_vectors"], resumed["dense"]["encoded"], resumed["distinct_texts"]
    print(
        f"{'(c) both runs':<36}{stopped['seconds'] + resumed['seconds']:>8.1f}{first + second:>10,}{'':>7}  "
        f"of {target:,} distinct texts: embedded twice (as kept vectors) {first + second - target}; "
        f"vectors differ from (a)'s by at most {resumed['max_vector_difference']:.1e}"
    )
    where = reindex["from_edited_files"]
    print(
        f"{'(b) re-index, ' + str(len(where['edited_files'])) + ' files edited':<36}{reindex['seconds']:>8.1f}"
        f"{reindex['dense']['encoded']:>10,}{'':>7}  reused {reindex['dense']['reused']:,} of {reindex['chunks']:,}; "
        f"changed passages in the edited files {where['inside']}, elsewhere {where['outside']}"
    )


if __name__ == "__main__":
    main()
