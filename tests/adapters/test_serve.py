"""`serve` as users run it: several workers that each warm up before answering, and readiness that says so."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from fastapi.testclient import TestClient

from schema_search.http import create_app


def test_a_warmed_app_is_ready_with_every_collection_open(tiny_workspace):
    with TestClient(create_app(workspace=tiny_workspace, warm=True)) as client:  # `with`: runs the warm-up
        ready = client.get("/readyz")
        assert ready.status_code == 200
        body = ready.json()
        assert body["status"] == "ready" and body["catalogs"] == ["tiny"] and body["worker"] == os.getpid()


def test_an_app_built_without_warming_is_ready_at_once(tiny_workspace):
    assert TestClient(create_app(workspace=tiny_workspace)).get("/readyz").json()["status"] == "ready"


def test_a_catalog_that_cannot_open_is_named_and_the_others_still_answer(tiny_workspace):
    from ..conftest import tiny_catalog

    tiny_workspace.catalogs.index_catalog(tiny_catalog("broken"))
    (tiny_workspace.catalogs.store.current("broken").path / "catalog.json").write_text("{not json")
    with TestClient(create_app(workspace=tiny_workspace, warm=True)) as client:
        body = client.get("/readyz").json()
        assert body["status"] == "degraded" and body["catalogs"] == ["tiny"]
        assert "broken" in body["problems"][0] and "schemasift index" in body["hint"]
        assert client.post("/v1/catalogs/tiny/search", json={"question": "contacts"}).status_code == 200


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(port: int, path: str):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, json.loads(response.read())
    except OSError:
        return None, None


@pytest.mark.slow  # two worker processes, each loading the model
def test_serve_starts_workers_that_warm_up_share_the_load_and_stop_on_ctrl_c(tiny_workspace):
    port = _free_port()
    env = {**os.environ, "SCHEMA_SEARCH_HOME": str(tiny_workspace.settings.home)}
    server = subprocess.Popen(
        [sys.executable, "-m", "schema_search.cli", "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        workers, deadline = set(), time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline:
            status, body = _get(port, "/readyz")
            if status == 200:
                assert body["catalogs"] == ["tiny"]  # ready means warmed: the catalog is open
                workers.add(body["worker"])
            time.sleep(0.1)
        assert len(workers) == 2, "both workers report ready"
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/catalogs/tiny/search",
            data=json.dumps({"question": "contact emails"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["candidates"][0]["table"] == "crm.contacts"
    finally:
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=30)
    assert server.returncode == 0, output
    assert "with 2 workers" in output and output.count("ready in") == 2


def test_serve_on_a_port_in_use_says_so_and_exits(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "schema_search.cli",
                "--home",
                str(tmp_path),
                "serve",
                "--port",
                str(port),
                "--workers",
                "2",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Serving" not in done.stderr  # the error alone: nothing announced as served first


def test_a_second_server_on_the_same_port_is_refused(tmp_path):
    from schema_search.errors import InvalidInput
    from schema_search.http.serve import _check_free, _listening_socket

    port = _free_port()
    first = _listening_socket("127.0.0.1", port)  # what a running `serve` worker holds (SO_REUSEPORT)
    try:
        with pytest.raises(InvalidInput, match="Cannot listen"):
            _check_free("127.0.0.1", port)
    finally:
        first.close()
    _check_free("127.0.0.1", port)  # free again


def test_zero_workers_is_refused(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "schema_search.cli", "--home", str(tmp_path), "serve", "--workers", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "--workers 0" in done.stderr


def test_a_model_that_cannot_load_leaves_the_worker_degraded_with_the_fix(tiny_workspace, monkeypatch):
    from schema_search.errors import ModelUnavailable

    def unavailable():
        raise ModelUnavailable("No model here.", hint="Set SCHEMA_SEARCH_DENSE=false.")

    monkeypatch.setattr(tiny_workspace, "embedder", unavailable)
    with TestClient(create_app(workspace=tiny_workspace, warm=True)) as client:
        body = client.get("/readyz").json()
        assert body["status"] == "degraded" and "No model here." in body["problems"]
        failed = client.post("/v1/catalogs/tiny/search", json={"question": "contacts"})
        assert failed.status_code == 503 and failed.headers["content-type"] == "application/problem+json"
