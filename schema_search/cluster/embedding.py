"""A build's embedding on a Ray cluster: the model's batches encoded by a pool of actors, one model each.

:class:`RayEmbedder` is an embedder (``core.embedders.Embedder``) whose ``encode_batches``
(``core.dense.BatchEncoder``) runs a Ray Data pipeline: one row per model batch ->
``map_batches`` over an actor pool, each actor loading the same model the driver has
(backend, model cache, threads) -> vectors streamed back as each batch is done. The
batches are the ones a build on this machine encodes (``core.dense.encode_missing``),
so the vectors are the same, and each is checkpointed as it comes back. Ray Data
restarts an actor whose node died and retries its tasks: a lost node costs the
batches it held, never the build.

Everything else a build asks of the model (a question, the floor's calibration
sentences, counting tokens) is small and stays with the model in this process.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.dense import closed_after
from ..core.embedders import Embedder, load_embedder
from ..settings import Settings
from .connect import connect


@dataclass(frozen=True)
class Pool:
    """How many embedding actors, and what each one holds of a node."""

    actors: int
    cpus: float
    gpus: float


def pool(resources: Mapping[str, float], backend: str, threads: int | None, workers: int = 0) -> Pool:
    """The actor pool for a cluster with ``resources`` (``ray.cluster_resources()``).

    One actor per GPU when there are GPUs and the backend can use one (torch: the ONNX
    backends run on the CPU only); else one per ``threads`` CPUs, each holding that many,
    so actors never share a core. ``workers`` (> 0) sets the number instead.

    >>> pool({"CPU": 8.0}, "onnx", None)
    Pool(actors=8, cpus=1, gpus=0)
    >>> pool({"CPU": 8.0}, "onnx", 4), pool({"CPU": 3.0}, "onnx", 4).actors
    (Pool(actors=2, cpus=4, gpus=0), 1)
    >>> pool({"CPU": 16.0, "GPU": 2.0}, "torch", None), pool({"CPU": 16.0, "GPU": 2.0}, "onnx", None).gpus
    (Pool(actors=2, cpus=1, gpus=1), 0)
    """
    gpus = int(resources.get("GPU", 0))
    if gpus and backend == "torch":
        return Pool(workers or gpus, 1, 1)
    each = threads or 1
    return Pool(workers or max(1, int(resources.get("CPU", 1)) // each), each, 0)


class RayEmbedder:
    """The model of this process, with its batch encoding run by an actor pool on a Ray cluster.

    ``concurrency``: batches encoded at once (the actors), for the build's estimate.
    ``encode``, ``count_tokens``, ``max_tokens``, ``unknown_share``: the local model's.
    """

    def __init__(
        self,
        local: Embedder,
        address: str,
        backend: str,
        cache: Path,
        threads: int | None = None,
        workers: int = 0,
        batches_per_task: int = 1,
    ) -> None:
        self._local = local
        self.name = local.name
        self._ray = connect(address, data=True)
        self._pool = pool(self._ray.cluster_resources(), backend, threads, workers)
        # An actor's model takes the CPUs the actor holds, never every core of its node.
        self._model = (backend, str(cache), int(self._pool.cpus))
        self._batches_per_task = batches_per_task
        self.concurrency = self._pool.actors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._local.encode(texts)

    def encode_batches(self, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
        """``(n, vectors of batches[n])`` as the actors finish them, in no set order."""
        if not batches:
            return
        data = self._ray.data
        rows = [{"n": n, "texts": list(texts)} for n, texts in enumerate(batches)]
        per_task = self._batches_per_task
        encoded = data.from_items(rows, override_num_blocks=-(-len(rows) // per_task)).map_batches(
            Encoder,
            fn_constructor_args=self._model,
            batch_size=per_task,
            batch_format="numpy",
            # initial_size: every actor from the start (a build is all load); min_size 1: a
            # node lost mid-build leaves a smaller pool that goes on, not one that waits.
            compute=data.ActorPoolStrategy(min_size=1, max_size=self._pool.actors, initial_size=self._pool.actors),
            num_cpus=self._pool.cpus,
            num_gpus=self._pool.gpus,
        )
        with closed_after(iter(encoded.iter_rows())) as rows:  # closed: the pool stops at once
            for row in rows:
                yield int(row["n"]), unpacked(row)

    def __getattr__(self, name: str):  # max_tokens, count_tokens, unknown_share: as the local model says
        return getattr(self._local, name)


class Encoder:
    """One actor of the pool: the model loaded once, then every batch it is given encoded as one model batch."""

    def __init__(self, backend: str, cache: str, threads: int | None) -> None:
        import ray

        self._model = load_embedder(backend, Path(cache), threads)
        if ray.get_gpu_ids():
            # The torch backend's sentence-transformers model, moved to the GPU Ray gave
            # this actor (pool() asks for one only with that backend).
            self._model._model.to("cuda")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        # Float32 bytes and a shape: a ragged last batch and Arrow's list columns never meet.
        vectors = [self._model.encode([str(text) for text in texts]) for texts in batch["texts"]]
        return {
            "n": batch["n"],
            "vectors": np.array([v.astype(np.float32).tobytes() for v in vectors], dtype=object),
            "rows": np.array([v.shape[0] for v in vectors], np.int64),
            "dim": np.array([v.shape[1] for v in vectors], np.int64),
        }


def unpacked(row: Mapping) -> np.ndarray:
    """The vectors of one encoded row.

    >>> unpacked({"vectors": np.ones((2, 3), np.float32).tobytes(), "rows": 2, "dim": 3}).shape
    (2, 3)
    """
    return np.frombuffer(row["vectors"], np.float32).reshape(int(row["rows"]), int(row["dim"]))


def ray_embedder(local: Embedder, settings: Settings) -> RayEmbedder:
    """``local`` with its batches encoded on the cluster at ``settings.ray_address`` (joined now)."""
    assert settings.ray_address is not None
    return RayEmbedder(
        local,
        settings.ray_address,
        settings.embedding_backend,
        settings.model_cache,
        settings.embedding_threads,
        settings.ray_workers,
        settings.ray_batches_per_task,
    )
