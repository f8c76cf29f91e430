"""A corpus embedded on a real three-node Ray cluster is the corpus built here: the same vectors, the same
answers; and a worker node lost in the middle of the embedding costs nothing but time."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import numpy as np
import pytest

from schema_search.core.checkpoint import Interrupted
from schema_search.core.dense import DenseIndex
from schema_search.core.embedders import BATCH
from schema_search.settings import Settings
from schema_search.workspace import Workspace

pytest.importorskip("ray")

TOPICS = {
    "billing": "invoice refund card charge currency tax receipt discount subscription plan",
    "accounts": "password login session token role permission profile email team invite",
    "storage": "bucket object upload download quota retention archive snapshot replica region",
    "search": "index query ranking synonym filter facet highlight phrase typo relevance",
    "deploys": "release rollback canary pipeline build artifact container cluster node health",
    "alerts": "threshold pager incident escalation silence metric latency error budget dashboard",
}
QUESTIONS = (
    "how do I get a refund on an invoice?",
    "rotate a session token after a password change",
    "how long is an archive snapshot kept?",
    "roll back a canary release",
    "who is paged when the error budget burns?",
)


def write_docs(folder: Path, files: int = 24, sections: int = 14) -> Path:
    """Markdown pages of short sections on a few topics: about ``files * sections`` chunks, several model batches."""
    rng = random.Random(33)
    folder.mkdir()
    for f in range(files):
        topic = list(TOPICS)[f % len(TOPICS)]
        words = TOPICS[topic].split()
        lines = [f"# {topic.title()} guide {f}", ""]
        for s in range(sections):
            lines += [f"## {rng.choice(words).title()} {s}", ""]
            for _ in range(rng.randint(2, 5)):
                lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).capitalize() + ".")
            lines.append("")
        (folder / f"{topic}-{f}.md").write_text("\n".join(lines))
    return folder


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    return write_docs(tmp_path_factory.mktemp("cluster-docs") / "docs")


@pytest.fixture(scope="module")
def plain(docs, tmp_path_factory) -> Workspace:
    """The corpus built in this process, as without Ray."""
    workspace = Workspace(Settings(home=tmp_path_factory.mktemp("plain-home"), embedding_threads=1))
    workspace.corpora.index(docs, corpus="guides")
    return workspace


def on_ray(home: Path, cluster) -> Workspace:
    return Workspace(Settings(home=home, embedding_threads=1, ray_address=cluster.address))


def vectors(workspace: Workspace) -> DenseIndex:
    return DenseIndex.load(workspace.corpora.store.current("guides").path)


def answers(workspace: Workspace) -> list[list[dict]]:
    return [[r.model_dump() for r in workspace.corpora.search("guides", q, 10).results] for q in QUESTIONS]


def test_a_build_on_the_cluster_stores_the_vectors_and_answers_of_a_build_here(ray_cluster, docs, plain, tmp_path):
    clustered = on_ray(tmp_path / "home", ray_cluster)
    result = clustered.corpora.index(docs, corpus="guides")
    here, there = vectors(plain), vectors(clustered)
    assert len(here.ids) > 4 * BATCH  # several batches, spread over the three actors
    assert result.corpus.chunks == len(here.ids)
    assert there.ids == here.ids and there.keys == here.keys and there.model == here.model
    # Bit for bit: each actor encodes the very batches this process would, with one thread as here.
    assert np.array_equal(there.vectors, here.vectors)
    assert (there.floor, there.nearest_floor) == (here.floor, here.nearest_floor)
    assert answers(clustered) == answers(plain)


def test_a_worker_node_lost_in_the_middle_of_the_embedding_loses_nothing(ray_cluster, docs, plain, tmp_path):
    first_batch_in = threading.Event()
    removed: list = []
    said: list[str] = []

    def progress(items, label):
        for n, item in enumerate(items):
            yield item
            if label == "embedding" and n == 0:  # asked for the second text: the first batch is back
                first_batch_in.set()
        said.append(label)

    def remove_a_worker():
        if first_batch_in.wait(timeout=120):
            node = ray_cluster.list_all_nodes()[-1]  # a worker, its actor busy with a batch
            ray_cluster.remove_node(node)
            removed.append(node)
            said.append("node removed")

    killer = threading.Thread(target=remove_a_worker)
    killer.start()
    try:
        clustered = on_ray(tmp_path / "home", ray_cluster)
        clustered.corpora.index(docs, corpus="guides", progress=progress)
    finally:
        killer.join()
        for _ in removed:  # the next test has three nodes again
            ray_cluster.add_node(num_cpus=1, object_store_memory=100 * 1024 * 1024)
        ray_cluster.wait_for_nodes()
    assert said.index("node removed") < said.index("embedding"), said  # while batches were still out
    here, there = vectors(plain), vectors(clustered)
    assert there.ids == here.ids and np.array_equal(there.vectors, here.vectors)


def test_ctrl_c_keeps_the_batches_back_from_the_cluster_and_the_next_build_encodes_only_the_rest(
    ray_cluster, docs, plain, tmp_path
):
    def progress(items, label):
        for n, item in enumerate(items):
            yield item
            if label == "embedding" and n == BATCH:  # while the batch after the first is counted
                raise KeyboardInterrupt

    clustered = on_ray(tmp_path / "home", ray_cluster)
    with pytest.raises(Interrupted) as stopped:
        clustered.corpora.index(docs, corpus="guides", progress=progress)
    total = len(vectors(plain).ids)
    assert 0 < stopped.value.kept < total
    again = clustered.corpora.index(docs, corpus="guides")
    dense = clustered.corpora.store.current("guides").manifest()["dense"]
    assert (dense["resumed"], dense["encoded"]) == (stopped.value.kept, total - stopped.value.kept)
    assert again.corpus.chunks == total
    assert np.array_equal(vectors(clustered).vectors, vectors(plain).vectors)
