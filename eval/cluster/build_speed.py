"""``python -m eval.cluster.build_speed``: build throughput on a local Ray cluster with 1, 2 and 4 embedding workers, next to today's build.

Two workloads, each built first as today (one process, the reference, timed in the same
run) and then once per ``--workers`` count with its embedding on a Ray cluster this script
starts and shuts down around that one build:

* the PEP corpus (``../shared/docs_corpora/peps``, 703 files, ~29,000 passages;
  ``--pep-files N`` takes the first N files, ``0`` skips it);
* a synthetic table catalog (``eval.speed.synthetic``, the speed benchmark's generator;
  ``--tables N``, default 100,000, ``0`` skips it).

For each build: the wall seconds of the whole build (reading, chunking, the tantivy
index, the embedding, writing the generation), the embedding's seconds, texts encoded and
rate from the manifest's ``dense`` entry, the seconds Ray took to start (apart: a cluster
is started once and builds many times), the rate per worker, and whether the vectors are
the reference's (``np.array_equal`` row by row, matched by id; else the largest difference).

Fair to both sides:

* Every build gets a fresh data directory: no vector is reused from an earlier build.
* One embedding thread everywhere (``embedding_threads=1``): the reference's model and
  each actor's (one CPU each, ``cluster.embedding.pool``), so a worker is one core's work.
* The driver's model is loaded (and run once) before any build is timed: this process
  keeps it (``shared_embedder``), so otherwise only the first build would pay for it.
  The actors' model loads are not taken out: they fall inside the Ray builds' embedding
  seconds, as they do in a real build.

The cluster: by default one Ray node per worker, one CPU each, and a head node with no
CPU (``ray.cluster_utils.Cluster``, as the tests start one). That is the shape of a real
cluster of one-core machines: the actors land one per node, and every batch's vectors
cross from a worker node's object store to the driver's, as they would over a network;
each node also pays its own raylet and agents. ``--one-node`` starts a single node with
as many CPUs as workers (``ray.init(num_cpus=W)``) instead: nothing crosses object stores
and one set of daemons runs, the least Ray can add. Either way the nodes here are
processes on one machine, sharing its cores: with more workers than cores the workers
take turns, the total rate stops growing and the rate per worker falls. That is what 4
workers on a 2-core machine show; the per-worker rate at 1 and 2 workers is what a
cluster multiplies.

    python -m eval.cluster.build_speed --pep-files 40 --tables 2000 --workers 1 2
    python -m eval.cluster.build_speed --out eval/results/cluster-build-speed.json

Time: one thread embeds roughly 20 to 35 PEP passages, or 50 to 60 synthetic tables, a
second on this 2-core machine (18 and 53 measured while other jobs loaded it). So on 2
cores a PEP build (~29,000 passages) takes ~15 to 25 minutes with one worker and about
half that with two; a 100,000-table build ~40 minutes with one worker, ~20 with two; 4
workers take as long as 2. The defaults (a reference and 1, 2, 4 workers, both workloads)
take about 3 to 4 hours. Run them on a quiet machine: every figure is a wall-clock time.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schema_search.cli.docs import UNITS
from schema_search.cli.main import command_line
from schema_search.cli.output import progress
from schema_search.cli.tables import INDEX_UNITS
from schema_search.core.dense import DenseIndex
from schema_search.core.store import Generation
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..cli import write_json
from ..speed.big_corpus import subset
from ..speed.synthetic import synthetic_catalog

PEPS = Path(__file__).resolve().parents[3] / "shared" / "docs_corpora" / "peps"
WORKERS = (1, 2, 4)
MB = 1024 * 1024
# Each worker node's object store: batches stream through it (64 vectors, 96 KB) and are
# read as they finish, so a little is plenty. The driver's node holds every text to
# embed (from_items: ~100 MB at 100,000 tables) and the vectors coming back.
STORE = 200 * MB
HEAD_STORE = 1024 * MB


@dataclass(frozen=True)
class Workload:
    """What is built: a name for the table, and the build itself (a workspace, shards -> the live generation)."""

    name: str
    build: Callable[[Workspace, int], Generation]


@dataclass(frozen=True)
class Vectors:
    """A build's vectors, read into memory before its data directory goes."""

    ids: list[str]
    matrix: np.ndarray


def parser() -> argparse.ArgumentParser:
    run = argparse.ArgumentParser(prog="python -m eval.cluster.build_speed", description=__doc__.split("\n\n")[0])
    run.add_argument("--source", type=Path, default=PEPS, help="the PEP corpus folder (default: %(default)s)")
    run.add_argument(
        "--pep-files", type=int, metavar="N", help="the first N files of the corpus (default: all 703; 0: skip it)"
    )
    run.add_argument(
        "--tables",
        type=int,
        default=100_000,
        metavar="N",
        help="tables of the synthetic catalog (default: %(default)s, ~40 min a build on 2 cores; 0: skip it)",
    )
    run.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=list(WORKERS),
        metavar="W",
        help="embedding workers of the Ray builds (default: 1 2 4)",
    )
    run.add_argument(
        "--one-node",
        action="store_true",
        help="one Ray node of W CPUs (ray.init(num_cpus=W)), not W one-CPU nodes and a head with none",
    )
    run.add_argument("--shards", type=int, default=1, help="shards the Ray builds write (the reference: one index)")
    run.add_argument("--batches-per-task", type=int, help="model batches per Ray task (default: the setting's)")
    run.add_argument("--out", type=Path, help="write the figures as JSON")
    run.set_defaults(run=_build_speed)
    return run


def _build_speed(args: argparse.Namespace, settings: Settings) -> int:
    # One thread for the reference and for every actor (each actor's model takes the CPUs
    # it holds: one). Ray only where a run asks for it.
    settings = settings.model_copy(update={"embedding_threads": 1, "dense": True, "ray_address": None})
    if args.batches_per_task:
        settings = settings.model_copy(update={"ray_batches_per_task": args.batches_per_task})
    cores = os.cpu_count() or 1
    report: dict = {
        "cores": cores,
        "load_average_at_start": _load(),
        "cluster": "one node of W CPUs" if args.one_node else "W nodes of 1 CPU, and a head with none",
        "workers": args.workers,
        "shards": args.shards,
        "batches_per_task": settings.ray_batches_per_task,
        "embedding_threads": 1,
        "backend": settings.embedding_backend,
        "note": scaling_note(cores, args.workers),
        "workloads": {},
    }
    with tempfile.TemporaryDirectory(prefix="schemasift-build-speed-") as scratch:
        scratch = Path(scratch)
        report["driver_model_load_s"] = _warm(settings)
        for workload in _workloads(args, scratch):
            report["workloads"][workload.name] = _measure(workload, settings, scratch, args)
    report["load_average_at_end"] = _load()
    print(markdown(report))
    write_json(args.out, report)
    return 0


def _workloads(args: argparse.Namespace, scratch: Path) -> Iterator[Workload]:
    if args.pep_files != 0:
        folder = args.source if args.pep_files is None else subset(args.source, scratch / "peps", args.pep_files)
        files = len(list((folder / "pages").iterdir())) if (folder / "pages").is_dir() else None
        label = f"PEP corpus ({files} files)" if files is not None else f"corpus {folder}"

        def peps(workspace: Workspace, shards: int) -> Generation:
            workspace.corpora.index(folder, corpus="peps", shards=shards, progress=progress(UNITS))
            return workspace.corpora.store.current("peps")

        yield Workload(label, peps)
    if args.tables:
        started = time.perf_counter()
        catalog = synthetic_catalog(args.tables)
        print(
            f"made the synthetic catalog of {args.tables:,} tables in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )

        def tables(workspace: Workspace, shards: int) -> Generation:
            workspace.catalogs.index_catalog(catalog, progress(INDEX_UNITS), shards=shards)
            return workspace.catalogs.store.current(catalog.name)

        yield Workload(f"synthetic catalog ({args.tables:,} tables)", tables)


def _warm(settings: Settings) -> float:
    """Load the driver's model (kept by this process for every build) and run it once; the seconds it took."""
    started = time.perf_counter()
    Workspace(settings).embedder().encode(["a first encoding sets ONNX Runtime up"])
    return round(time.perf_counter() - started, 2)


def _measure(workload: Workload, settings: Settings, scratch: Path, args: argparse.Namespace) -> dict:
    """The reference build, then one Ray build per worker count: figures, and the vectors checked against the reference's."""
    print(f"\n== {workload.name}: the reference (one process) ==", file=sys.stderr)
    figures, reference = _build(workload, settings, scratch / "reference", 1)
    runs = [{"build": "single process", "workers": None, "ray_startup_s": None, **figures}]
    for workers in args.workers:
        print(f"\n== {workload.name}: Ray, {workers} worker(s) ==", file=sys.stderr)
        with local_cluster(workers, args.one_node) as (address, startup_s):
            ray_settings = settings.model_copy(update={"ray_address": address, "ray_workers": workers})
            figures, vectors = _build(workload, ray_settings, scratch / f"ray-{workers}", args.shards)
        same, difference, missing = compare(reference, vectors)
        rate = figures["rate"]
        runs.append(
            {
                "build": "Ray",
                "workers": workers,
                "ray_startup_s": round(startup_s, 2),
                **figures,
                "rate_per_worker": round(rate / workers, 1) if rate else None,
                "vectors_equal": same,
                "max_abs_difference": difference,
                "ids_missing": missing,
            }
        )
        print(f"   {_summary(runs[-1])}", file=sys.stderr)
    return {"items": len(reference.ids), "runs": runs}


def _build(workload: Workload, settings: Settings, home: Path, shards: int) -> tuple[dict, Vectors]:
    """One build into a fresh data directory ``home`` (removed after): its figures and its vectors."""
    load = _load()
    workspace = Workspace(settings.model_copy(update={"home": home}))
    started = time.perf_counter()
    generation = workload.build(workspace, shards)
    wall = time.perf_counter() - started
    dense = generation.manifest()["dense"]
    stored = DenseIndex.load(generation.path)
    assert stored is not None, f"no vectors in {generation.path}"
    vectors = Vectors(list(stored.ids), np.array(stored.vectors))
    del stored  # memory-mapped: let go of the file before its folder is removed
    shutil.rmtree(home, ignore_errors=True)
    figures = {
        "wall_s": round(wall, 2),
        "embedding_s": dense["seconds"],
        "encoded": dense["encoded"],
        "rate": dense["rate"],
        "reused": dense["reused"],
        "load_average_before": load,
    }
    return figures, vectors


@contextmanager
def local_cluster(workers: int, one_node: bool) -> Iterator[tuple[str, float]]:
    """A Ray cluster on this machine for ``workers`` one-CPU actors, this process its driver:
    ``(address, seconds it took to start)``; shut down on the way out."""
    from schema_search.cluster.connect import require_ray

    ray = require_ray()
    cluster = None
    # Cluster() points `ray.init("auto")` on this machine at itself: what was there
    # (another user's cluster) is put back once ours is gone.
    address_file = None if one_node else _ray_address_file()
    before = address_file.read_text() if address_file is not None and address_file.is_file() else None
    started = time.perf_counter()
    try:
        if one_node:
            ray.init(
                num_cpus=workers, object_store_memory=HEAD_STORE, include_dashboard=False, logging_level=logging.WARNING
            )
            address = "local"
        else:
            from ray.cluster_utils import Cluster

            # The head holds no CPU: the actors go one to a worker node, as on a real cluster.
            cluster = Cluster(
                initialize_head=True,
                head_node_args={"num_cpus": 0, "object_store_memory": HEAD_STORE, "include_dashboard": False},
            )
            for _ in range(workers):
                cluster.add_node(num_cpus=1, object_store_memory=STORE)
            cluster.wait_for_nodes()
            address = cluster.address
            ray.init(address=address, logging_level=logging.WARNING)
        yield address, time.perf_counter() - started
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
        if cluster is not None and address_file is not None:
            _restore(address_file, cluster.address, before)


def _ray_address_file() -> Path:
    """Where Ray notes the address of "the" cluster of this machine (``ray start``, ``Cluster``)."""
    from ray._common.utils import get_ray_address_file  # no public name for it

    return Path(get_ray_address_file(None))


def _restore(address_file: Path, ours: str, before: str | None) -> None:
    """The address file as it was before our cluster (whose shutdown deletes it), unless someone else wrote it since."""
    now = address_file.read_text().strip() if address_file.is_file() else None
    if now not in (None, ours):
        return
    if before is None:
        address_file.unlink(missing_ok=True)
    else:
        address_file.write_text(before)


def compare(reference: Vectors, other: Vectors) -> tuple[bool, float, int]:
    """Whether ``other`` holds exactly ``reference``'s vectors, row by row matched by id:
    ``(equal, largest absolute difference, reference ids missing from other)``.

    >>> a = Vectors(["x", "y"], np.array([[1.0, 0.0], [0.0, 1.0]], np.float32))
    >>> compare(a, Vectors(["y", "x"], np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)))
    (True, 0.0, 0)
    >>> compare(a, Vectors(["x"], np.array([[1.0, 0.25]], np.float32)))
    (False, 0.25, 1)
    """
    rows = {item: row for row, item in enumerate(other.ids)}
    shared = [i for i in reference.ids if i in rows]
    mine = reference.matrix[[n for n, i in enumerate(reference.ids) if i in rows]]
    theirs = other.matrix[[rows[i] for i in shared]]
    missing = len(reference.ids) - len(shared)
    difference = float(np.abs(mine - theirs).max()) if shared else 0.0
    return bool(missing == 0 and np.array_equal(mine, theirs)), difference, missing


def scaling_note(cores: int, workers: Sequence[int]) -> str:
    """What a reader should know before comparing the worker counts on this machine.

    >>> print(scaling_note(2, [1, 2, 4]))
    This machine has 2 cores: more than 2 workers cannot scale here (they take turns on the cores); at 4 read the per-worker rate, not the total.
    >>> print(scaling_note(2, [1, 2]))
    This machine has 2 cores: more than 2 workers cannot scale here (they take turns on the cores); the driver and Ray's own processes share them too.
    """
    said = f"This machine has {cores} cores: more than {cores} workers cannot scale here (they take turns on the cores)"
    over = [w for w in workers if w > cores]
    if over:
        return f"{said}; at {', '.join(map(str, over))} read the per-worker rate, not the total."
    return f"{said}; the driver and Ray's own processes share them too."


def markdown(report: dict) -> str:
    """The figures as one Markdown table per workload, under the machine and the note on scaling."""
    lines = [
        f"{report['cores']} cores (os.cpu_count()), load average {report['load_average_at_start']} at the start, "
        f"{report['load_average_at_end']} at the end; backend {report['backend']}, {report['embedding_threads']} "
        f"embedding thread per worker; Ray cluster: {report['cluster']}; driver model load "
        f"{report['driver_model_load_s']} s (before any timing); the Ray builds write {report['shards']} shard(s), "
        f"{report['batches_per_task']} model batch(es) per task, and their embedding seconds include the actors' "
        "model loads.",
        "",
        f"**{report['note']}**",
    ]
    for name, workload in report["workloads"].items():
        lines += ["", f"{name}: {workload['items']:,} items", ""]
        lines += table_rows(workload["runs"])
    return "\n".join(lines)


def table_rows(runs: Sequence[dict]) -> list[str]:
    """Markdown rows for a workload's runs, the first being the reference.

    >>> runs = [{"build": "single process", "workers": None, "ray_startup_s": None, "wall_s": 10.0,
    ...          "embedding_s": 8.0, "encoded": 400, "rate": 50.0},
    ...         {"build": "Ray", "workers": 2, "ray_startup_s": 3.0, "wall_s": 7.0, "embedding_s": 5.0,
    ...          "encoded": 400, "rate": 80.0, "rate_per_worker": 40.0, "vectors_equal": True, "max_abs_difference": 0.0}]
    >>> print("\\n".join(table_rows(runs)))
    | build | workers | Ray startup s | wall s | embedding s | texts | texts/s | per worker /s | embedding vs reference | vectors |
    |---|---:|---:|---:|---:|---:|---:|---:|---:|---|
    | single process | - | - | 10.0 | 8.0 | 400 | 50.0 | 50.0 | 1.00x | reference |
    | Ray | 2 | 3.0 | 7.0 | 5.0 | 400 | 80.0 | 40.0 | 1.60x | equal |
    """
    header = (
        "build",
        "workers",
        "Ray startup s",
        "wall s",
        "embedding s",
        "texts",
        "texts/s",
        "per worker /s",
        "embedding vs reference",
        "vectors",
    )
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 2) + "---|"]
    base = runs[0]["embedding_s"]
    for run in runs:
        reference = run["workers"] is None
        vectors = (
            "reference"
            if reference
            else "equal"
            if run["vectors_equal"]
            else f"differ (max {run['max_abs_difference']:.1e}, {run.get('ids_missing', 0)} missing)"
        )
        per_worker = run["rate"] if reference else run["rate_per_worker"]
        cells = (
            run["build"],
            "-" if reference else run["workers"],
            "-" if run["ray_startup_s"] is None else f"{run['ray_startup_s']:.1f}",
            f"{run['wall_s']:.1f}",
            f"{run['embedding_s']:.1f}",
            f"{run['encoded']:,}",
            run["rate"] if run["rate"] is not None else "-",
            per_worker if per_worker is not None else "-",
            f"{base / run['embedding_s']:.2f}x" if run["embedding_s"] else "-",
            vectors,
        )
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return lines


def _summary(run: dict) -> str:
    return (
        f"wall {run['wall_s']:.1f} s, Ray startup {run['ray_startup_s']} s, embedding {run['embedding_s']} s "
        f"({run['encoded']:,} texts, {run['rate']}/s, {run['rate_per_worker']}/s per worker), "
        f"vectors {'equal' if run['vectors_equal'] else 'differ by up to ' + str(run['max_abs_difference'])}"
    )


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


if __name__ == "__main__":
    sys.exit(command_line(parser(), sys.argv[1:]))
