"""Shards served by Ray Serve: one application per shard, asked by every router at once.

Each shard of a generation is a Serve application of its own whose one deployment is a
:class:`~schema_search.core.shards.Shard` (the replica opens the shard's folder, which every
node must see at the same path), with ``shard_replicas`` to ``shard_max_replicas`` replicas
under Serve's autoscaling. Its name says whose it is,
``<corpora|catalogs>-<name>-<data directory's hash>-<generation>-<shard>``, so:

- a second router (another ``serve --ray`` process) that opens the same generation finds
  the applications running and uses them: deploying again would restart every replica
  (Serve versions each deployment afresh), so what runs is left alone;
- a router that opens a newer generation deletes the older generations' applications of
  the same collection. A router still on the older one moves to the newer one at its next
  search (``Sources.searcher``); a search already under way then may fail once.

No HTTP proxy is started: this package's own FastAPI app is the front, and it reaches
the replicas through Serve's handles (:class:`RayShards`).
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..core.shards import Reach, Scatter, Shard
from ..errors import ShardsUnavailable, first_line
from ..settings import Settings
from .connect import connect

DEPLOYMENT = "shard"
# A replica reserves no CPU. It answers in milliseconds and is idle between questions,
# so reserving a core would cost the cluster one core per replica for nothing; and a
# build on the same cluster keeps every CPU busy with embedding actors, which would
# keep a shard from starting (or restarting after a lost node) until the build ended.
# Serve still spreads replicas over the nodes, and the operating system shares the cores.
REPLICA_CPUS = 0
# A replica whose folder cannot be opened fails the same way each time: give up soon.
CONSTRUCTOR_RETRIES = 3
# A shard asked again after a replica died mid-request (Serve does not retry a request a
# replica accepted). The dead replica is dropped from the handle at once, so the next try
# goes to another one, or waits in Serve's queue for the replica Serve starts instead.
ATTEMPTS = 4
BACKOFF_S = 0.1  # before the second try; doubled before each next one
ANSWER_S = 15.0  # one try's longest wait: a replica on a node that stopped answering (Ray sees it dead later)
# Searches asking the shards at once, per generation: each is one thread that sends to
# every shard and then waits for the answers.
ASKING = 8
QUIET = {"log_level": "WARNING"}
SERVING = QUIET | {"enable_access_log": False}  # a replica logs one line per question otherwise


def ray_reach(settings: Settings) -> Reach:
    """Join the cluster at ``settings.ray_address``, start Serve on it (no HTTP proxy) and return how to reach shards.

    Raises:
        ClusterUnavailable: Ray is not installed, or no cluster answers at the address.
    """
    connect(settings.ray_address or "local")
    from ray import serve

    # Serve logs each replica it starts or stops, here and in its controller, and
    # "Connecting to existing Serve app" at every open: what a server does is in its own log.
    logging.getLogger("ray.serve").setLevel(logging.WARNING)
    serve.start(proxy_location="Disabled", logging_config=QUIET)

    def reach(generation: Path, folders: Sequence[Path]) -> Scatter:
        names = deploy(generation, folders, settings.shard_replicas, settings.shard_max_replicas)
        return RayShards([serve.get_app_handle(name) for name in names], names)

    return reach


def collection_prefix(generation: Path) -> str:
    """The start of the names of every shard application of the collection that ``generation`` belongs to.

    The data directory's folder is hashed in: two data directories on one cluster may hold
    collections of the same name.

    >>> collection_prefix(Path("/srv/home/corpora/fastapi/gen-1"))
    'corpora-fastapi-73a5bb5a-'
    """
    collection = generation.parent
    return f"{collection.parent.name}-{collection.name}-{zlib.crc32(str(collection).encode()):08x}-"


def shard_application(generation: Path, number: int) -> str:
    """The name of the Serve application of shard ``number`` of ``generation``.

    >>> shard_application(Path("/srv/home/corpora/fastapi/gen-1"), 2)
    'corpora-fastapi-73a5bb5a-gen-1-2'
    """
    return f"{collection_prefix(generation)}{generation.name}-{number}"


def deploy(generation: Path, folders: Sequence[Path], replicas: int, max_replicas: int) -> list[str]:
    """Make sure every shard of ``generation`` runs as a Serve application; returns their names, in shard order.

    Applications already there are left as they are (another router started them); the
    collection's applications of other generations are deleted.

    Raises:
        ShardsUnavailable: a shard could not start (its folder unreadable from a node, say).
    """
    from ray import serve

    generation = generation.resolve()
    names = [shard_application(generation, number) for number in range(len(folders))]
    running = serve.status().applications
    gone = {"DEPLOY_FAILED", "DELETING"}
    targets = [
        serve.RunTarget(
            _deployment(replicas, max_replicas).bind(str(Path(folder).resolve())), name=name, route_prefix=None
        )
        for name, folder in zip(names, folders)
        if name not in running or running[name].status in gone
    ]
    if targets:
        try:
            serve.run_many(targets)
        except RuntimeError as error:  # Serve's word for an application that failed to start
            raise ShardsUnavailable(
                f"The shards of {generation.parent.name!r} could not start on the Ray cluster: {first_line(error)}",
                hint="Every node must read the data directory at the same path (a shared file system); "
                "the replicas' logs are in the cluster's session folder (`ray logs`).",
            ) from None
    prefix = collection_prefix(generation)
    for stale in running:
        if stale.startswith(prefix) and stale not in names:
            serve.delete(stale, _blocking=False)
    return names


def _deployment(replicas: int, max_replicas: int):
    """The deployment of one shard: a :class:`Shard` per replica, as many replicas as load asks for."""
    import ray
    from ray import serve

    # Replicas of a shard on different nodes, so that losing a node leaves each shard one,
    # when the cluster has a node for each; else they share (a laptop's one node).
    nodes = sum(1 for node in ray.nodes() if node["Alive"])
    most = max(replicas, max_replicas)
    return serve.deployment(
        Shard,
        name=DEPLOYMENT,
        ray_actor_options={"num_cpus": REPLICA_CPUS},
        autoscaling_config={"min_replicas": replicas, "initial_replicas": replicas, "max_replicas": most},
        max_replicas_per_node=1 if nodes >= most else None,
        max_constructor_retry_count=CONSTRUCTOR_RETRIES,
        logging_config=SERVING,
    )


def retried() -> tuple[type[BaseException], ...]:
    """What a try at a shard may end in when a replica, or its node, went away: worth asking again."""
    from ray import exceptions
    from ray.serve import exceptions as serve_exceptions

    return (
        exceptions.RayActorError,  # ActorDiedError (its node died), ActorUnavailableError (not answering now)
        exceptions.NodeDiedError,
        exceptions.WorkerCrashedError,
        exceptions.LocalRayletDiedError,
        exceptions.ObjectLostError,
        serve_exceptions.ReplicaUnavailableError,
        serve_exceptions.DeploymentUnavailableError,
        TimeoutError,  # Ray's GetTimeoutError included: ANSWER_S passed
    )


class RayShards:
    """The shards of one generation on Ray Serve: a :class:`~schema_search.core.shards.Scatter`.

    Every shard is sent the question at once and the answers are gathered in shard order.
    A shard whose replica died is asked again (:data:`ATTEMPTS` tries in all); one that
    never answers is a :class:`ShardsUnavailable`.

    The sending and waiting happen in threads of its own: Serve's blocking ``result()``
    refuses to run on an asyncio event loop, and the HTTP API searches on one.
    """

    def __init__(
        self,
        handles: Sequence,
        names: Sequence[str],
        attempts: int = ATTEMPTS,
        backoff_s: float = BACKOFF_S,
        answer_s: float = ANSWER_S,
    ) -> None:
        self.handles = list(handles)
        self.names = list(names)
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.answer_s = answer_s
        self.retries = 0  # shards asked again since this generation was opened
        self._retried = retried()
        self._pool = ThreadPoolExecutor(max_workers=ASKING, thread_name_prefix="shards")

    def __call__(self, method: str, *args) -> list:
        return self._pool.submit(self._gather, method, args).result()

    def _send(self, number: int, method: str, args: tuple):
        return self.handles[number].options(method_name=method).remote(*args)

    def _gather(self, method: str, args: tuple) -> list:
        sent = [self._send(number, method, args) for number in range(len(self.handles))]
        return [self._answer(number, response, method, args) for number, response in enumerate(sent)]

    def _answer(self, number: int, response, method: str, args: tuple):
        for attempt in range(1, self.attempts):
            try:
                return response.result(timeout_s=self.answer_s)
            except self._retried:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
                self.retries += 1
                response = self._send(number, method, args)
        try:
            return response.result(timeout_s=self.answer_s)
        except self._retried as error:
            raise ShardsUnavailable(
                f"Shard {number} ({self.names[number]}) did not answer in {self.attempts} tries: {first_line(error)}",
                hint="Ray Serve starts its replicas again on the nodes left; ask again in a moment, "
                "and check the cluster (`ray status`) if it goes on.",
            ) from error
