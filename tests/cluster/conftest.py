"""A real Ray cluster of three nodes on this machine (Ray's own ``cluster_utils``), one CPU each.

Started once per session, and only by the tests that ask for it: without Ray installed
they skip, and the tests of what a missing Ray says still run.
"""

from __future__ import annotations

import pytest

MB = 1024 * 1024
# Ray's least: each node's object store. The tests move a few hundred small vectors.
STORE = 100 * MB


@pytest.fixture(scope="session")
def ray_cluster():
    """The cluster, this process its driver: a head and two workers of one CPU each (one actor each)."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        connect=True,
        head_node_args={"num_cpus": 1, "object_store_memory": STORE, "include_dashboard": False},
    )
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1, object_store_memory=STORE)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
