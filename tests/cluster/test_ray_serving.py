"""A corpus in three shards served by Ray Serve on a real three-node cluster answers as the same shards in this
process and as one index, through the workspace, HTTP and MCP; and a node lost while questions run costs none."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from schema_search.core.shards import Shard, shard_folders
from schema_search.errors import ShardsUnavailable
from schema_search.http import create_app
from schema_search.mcp.server import create_server
from schema_search.settings import Settings
from schema_search.workspace import Workspace

from .conftest import STORE

ray = pytest.importorskip("ray")

from schema_search.cluster.serving import RayShards, shard_application  # noqa: E402  (needs ray)

PAGES = {
    "billing": {
        "Refunds": "A refund goes back to the card that paid the invoice, within five working days.",
        "Invoices": "Every invoice lists the plan, the tax rate and the currency it was charged in.",
        "Discounts": "A yearly subscription costs ten months of the monthly plan.",
    },
    "accounts": {
        "Passwords": "A password reset link expires after one hour; ask for another on the login page.",
        "Sessions": "A session token is revoked everywhere when the password changes.",
        "Teams": "An owner invites people to a team by e-mail and gives each a role.",
    },
    "storage": {
        "Retention": "Snapshots in an archive bucket are kept for ninety days, then deleted.",
        "Quotas": "A bucket over its quota refuses uploads until objects are removed.",
        "Regions": "Each object is copied to a replica in a second region.",
    },
    "deploys": {
        "Rollbacks": "A canary release is rolled back when its error rate doubles.",
        "Pipelines": "Every build runs the tests before its container image is pushed.",
        "Health": "A node that fails three health checks is drained and replaced.",
    },
    "alerts": {
        "Paging": "The on-call engineer is paged when the error budget burns ten times too fast.",
        "Silences": "A silence mutes an alert for at most a day.",
        "Dashboards": "Latency dashboards show the 50th and 99th percentiles per region.",
    },
    "search": {
        "Synonyms": "Synonyms let a query for car also find automobile.",
        "Typos": "Typo tolerance matches words one letter away from the query.",
        "Facets": "Facets count the results by category before a filter is applied.",
    },
}
QUESTIONS = (
    "how do I get a refund on an invoice?",
    "my password reset link expired",
    "how long are archive snapshots kept?",
    "roll back a canary release",
    "who is paged when the error budget burns?",
    "find automobile when searching for car",
)


def write_docs(folder: Path) -> Path:
    """Two pages per topic, each section of a topic in both with a different opening: 36 passages over 12 pages."""
    folder.mkdir()
    for topic, sections in PAGES.items():
        for n, opening in enumerate(("In short:", "In detail:")):
            lines = [f"# {topic.title()} {'guide' if n else 'overview'}", ""]
            for heading, text in sections.items():
                lines += [f"## {heading}", "", f"{opening} {text}", ""]
            (folder / f"{topic}-{n}.md").write_text("\n".join(lines))
    return folder


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    return write_docs(tmp_path_factory.mktemp("serving-docs") / "docs")


@pytest.fixture(scope="module")
def home(docs, tmp_path_factory) -> Path:
    """A data directory with the corpus ``guides`` in three shards."""
    home = tmp_path_factory.mktemp("serving-home")
    here(home).corpora.index(docs, corpus="guides", shards=3)
    return home


@pytest.fixture(scope="module")
def whole(docs, tmp_path_factory) -> Workspace:
    """The same folder as one index."""
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("whole-home"), embedding_threads=1))
    workspace.corpora.index(docs, corpus="guides")
    return workspace


@pytest.fixture(scope="module")
def serve(ray_cluster):
    """Ray Serve on the cluster for this module, and gone after it (the build tests want the CPUs)."""
    from ray import serve

    yield serve
    serve.shutdown()


def here(home: Path, **settings) -> Workspace:
    return Workspace(Settings(home=home, embedding_threads=1, **settings))


def on_ray(home: Path, cluster, **settings) -> Workspace:
    return here(home, ray_address=cluster.address, **settings)


def answers(workspace: Workspace, corpus: str = "guides") -> list[list[dict]]:
    return [[r.model_dump() for r in workspace.corpora.search(corpus, q, 10).results] for q in QUESTIONS]


def ranked(workspace: Workspace, corpus: str = "guides") -> list[list[str]]:
    return [[r.source_id for r in workspace.corpora.search(corpus, q, 10).results] for q in QUESTIONS]


def test_shards_on_ray_answer_as_shards_here_and_as_one_index(ray_cluster, serve, home, whole):
    served = on_ray(home, ray_cluster)
    assert answers(served) == answers(here(home))  # the same passages, scores and all
    assert ranked(served) == ranked(whole)
    assert all(ranked(served))  # every question has passages above the floor
    generation = served.corpora.store.current("guides").path
    names = [shard_application(generation.resolve(), n) for n in range(3)]
    assert {name: serve.status().applications[name].status for name in names} == dict.fromkeys(names, "RUNNING")


def test_http_and_mcp_give_the_answers_of_one_machine(ray_cluster, serve, home, whole):
    served, local = on_ray(home, ray_cluster), here(home)
    for workspace in (served, local):  # on the event loop: the shards are asked from threads of their own
        client = TestClient(create_app(workspace=workspace))
        bodies = [client.post("/v1/corpora/guides/search", json={"question": q, "k": 10}).json() for q in QUESTIONS]
        assert [[r["source_id"] for r in body["results"]] for body in bodies] == ranked(whole)

    async def mcp(workspace: Workspace) -> list[dict]:
        async with Client(create_server(workspace, corpora=["guides"])) as client:
            return [
                (await client.call_tool("search_docs", {"question": q, "k": 5})).structured_content for q in QUESTIONS
            ]

    over_ray, over_here = anyio.run(mcp, served), anyio.run(mcp, local)
    assert over_ray == over_here
    assert [[p["source_id"] for p in found["passages"]] for found in over_ray] == [ids[:5] for ids in ranked(whole)]


def test_a_newer_generation_replaces_the_older_ones_applications(ray_cluster, serve, docs, home):
    served = on_ray(home, ray_cluster)
    before = served.corpora.store.current("guides").path.resolve()
    ranked(served)
    here(home).corpora.index(docs, corpus="guides", shards=3)  # the vectors reused: nothing embedded
    after = served.corpora.store.current("guides").path.resolve()
    assert ranked(served) == ranked(here(home))
    running = serve.status().applications
    assert all(shard_application(after, n) in running for n in range(3))
    gone = [shard_application(before, n) for n in range(3)]
    deadline = time.monotonic() + 30
    while any(name in serve.status().applications for name in gone) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(name in serve.status().applications for name in gone)


def replicas(serve, generation: Path, names: list[str] | None = None) -> dict[str, list[str]]:
    """The nodes the running replicas of each shard of ``generation`` (or of ``names``) are on (Serve's own record)."""
    from ray.serve.context import _get_global_client
    from ray.serve.schema import ServeInstanceDetails

    details = ServeInstanceDetails(**_get_global_client().get_serve_details())
    names = names or [shard_application(generation, n) for n in range(3)]
    return {
        name: [r.node_id for r in details.applications[name].deployments["shard"].replicas if r.state == "RUNNING"]
        for name in names
        if name in details.applications
    }


class SlowShard(Shard):
    """A shard whose ranking takes a second: long enough for its node to go in the middle of one."""

    def rank(self, *args):
        time.sleep(1.0)
        return super().rank(*args)


def test_a_node_lost_while_questions_run_costs_no_question(ray_cluster, serve, docs, home):
    here(home).corpora.index(docs, corpus="replicated", shards=3)
    settings = Settings(home=home, embedding_threads=1, ray_address=ray_cluster.address, shard_replicas=2)
    served = Workspace(settings)
    expected = ranked(here(home), "replicated")
    assert ranked(served, "replicated") == expected  # deployed: two replicas of each shard, on two nodes
    generation = served.corpora.store.current("replicated").path.resolve()
    placed = replicas(serve, generation)
    assert all(len(set(nodes)) == 2 for nodes in placed.values()), placed
    # Whole searches spend most of their time in the model and the fusion, and a shard
    # answers in a millisecond: a shard that takes a second is sure to be mid-request
    # when its node goes, as a large shard's would be.
    folder = shard_folders(generation)[0]
    deployment = serve.deployment(
        SlowShard,
        name="shard",
        num_replicas=2,
        max_replicas_per_node=1,
        max_ongoing_requests=1,  # else Serve sends them all to the replica on this node, the head
        ray_actor_options={"num_cpus": 0},
        logging_config={"enable_access_log": False},
    )
    slow = RayShards([serve.run(deployment.bind(str(folder)), name="slow", route_prefix=None)], ["slow"])
    ranking = ("index", "body", ["refund", "invoice"], 10, {})
    answer = Shard(folder).rank(*ranking)
    slow_nodes = replicas(serve, generation, ["slow"])["slow"]
    head = ray_cluster.head_node.node_id
    victim = max(
        (n for n in ray_cluster.list_all_nodes() if n.node_id in slow_nodes and n.node_id != head),
        key=lambda n: sum(n.node_id in nodes for nodes in placed.values()),  # one with replicas of both, if any
    )

    found: list[tuple[int, list[str]]] = []
    slowly: list[list] = []
    failed: list[BaseException] = []
    stop = threading.Event()

    def search():
        while not stop.is_set():
            for n, question in enumerate(QUESTIONS):
                try:
                    found.append((n, [r.source_id for r in served.corpora.search("replicated", question, 10).results]))
                except BaseException as error:  # noqa: BLE001  (the test's verdict)
                    failed.append(error)

    def ask_slowly():
        try:
            slowly.append(slow("rank", *ranking))
        except BaseException as error:  # noqa: BLE001
            failed.append(error)

    searching = [threading.Thread(target=search) for _ in range(2)]
    asking = [threading.Thread(target=ask_slowly) for _ in range(4)]  # one on each replica, two waiting
    for thread in searching:
        thread.start()
    removed = False
    try:
        while len(found) < 12:
            time.sleep(0.01)
        for thread in asking:
            thread.start()
        time.sleep(0.3)
        ray_cluster.remove_node(victim)
        removed, lost_at = True, len(found)
        for thread in asking:
            thread.join()
        time.sleep(2)
    finally:
        stop.set()
        for thread in searching + asking:
            thread.join()
        if removed:  # the cluster has three nodes again for what comes next
            ray_cluster.add_node(num_cpus=1, object_store_memory=STORE)
            ray_cluster.wait_for_nodes()
        serve.delete("slow")
    assert not failed, failed[:3]
    assert slowly == [[answer]] * 4 and slow.retries >= 1  # the one on the lost node asked again on the other
    assert len(found) > lost_at + 12  # questions kept coming after the loss
    assert all(ids == expected[n] for n, ids in found)

    # Serve starts the lost replicas again on the nodes left (it sees them gone at its next health check).
    def restored() -> bool:
        placed = replicas(serve, generation)
        return all(len(nodes) == 2 and victim.node_id not in nodes for nodes in placed.values())

    deadline = time.monotonic() + 60
    while not restored() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert restored(), replicas(serve, generation)
    assert ranked(served, "replicated") == expected


class Handle:
    """A stand-in for a Serve handle whose first ``failures`` calls end as a replica that died mid-request does."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def options(self, method_name: str) -> Handle:
        self.method = method_name
        return self

    def remote(self, *args) -> Handle.Response:
        self.calls += 1
        return Handle.Response(self.calls <= self.failures, (self.method, *args))

    class Response:
        def __init__(self, fails: bool, answer: tuple) -> None:
            self.fails, self.answer = fails, answer

        def result(self, timeout_s: float) -> tuple:
            if self.fails:
                raise ray.exceptions.ActorDiedError()
            return self.answer


def test_a_shard_whose_replica_died_is_asked_again_and_one_that_stays_down_is_a_503():
    steady, flaky = Handle(0), Handle(2)
    shards = RayShards([steady, flaky], ["a-0", "a-1"], attempts=3, backoff_s=0)
    assert shards("rank", "index", 7) == [("rank", "index", 7)] * 2
    assert (steady.calls, flaky.calls, shards.retries) == (1, 3, 2)
    down = RayShards([Handle(0), Handle(3)], ["a-0", "a-1"], attempts=3, backoff_s=0)
    with pytest.raises(ShardsUnavailable, match=r"Shard 1 \(a-1\) did not answer in 3 tries") as raised:
        down("dense_top", [0.0], 5)
    assert raised.value.status == 503 and raised.value.code == "shards_unavailable"
