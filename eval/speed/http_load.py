"""``schemasift serve`` under a bounded load on loopback: throughput, latency, errors, memory.

The server runs as users run it (the CLI, its default workers); the load is a fixed
number of requests over a fixed number of keep-alive connections, so a slow server
shows as lower throughput and longer latency, never as an unbounded queue. The client
is plain asyncio over sockets, light enough to leave the cores to the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from schema_search.http.serve import default_workers

from .machine import percentiles, tree_memory_mb


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    workers: int
    ready_s: float

    def memory_mb(self) -> dict[str, float]:
        return tree_memory_mb(self.process.pid)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(
    home: Path, workers: int | None, log: Path, backend: str | None = None, timeout_s: float = 180
) -> Server:
    """Start ``schemasift serve`` on a free port and wait until every worker says it is ready."""
    port = _free_port()
    env = {**os.environ, "SCHEMA_SEARCH_HOME": str(home)}
    if backend:
        env["SCHEMA_SEARCH_EMBEDDING_BACKEND"] = backend
    command = [sys.executable, "-m", "schema_search.cli", "serve", "--port", str(port)]
    if workers:
        command += ["--workers", str(workers)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    expected = workers or int(env.get("SCHEMA_SEARCH_WORKERS") or default_workers())
    ready: set[int] = set()
    while len(ready) < expected:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}; see {log}")
        if time.perf_counter() - started > timeout_s:
            process.kill()
            raise RuntimeError(f"the server was not ready after {timeout_s} s; see {log}")
        status, body = _get(port, "/readyz")
        if status == 200:
            ready.add(json.loads(body)["worker"])  # each poll reaches whichever worker accepts it
        time.sleep(0.05)
    return Server(process, port, expected, round(time.perf_counter() - started, 2))


def load(port: int, requests: list[tuple[str, str, bytes | None]], connections: int) -> dict:
    """Send ``requests`` (method, path, JSON body) over ``connections`` keep-alive connections.

    Returns:
        Requests per second, latency p50/p99 in ms, and how many answers were not 200.
    """
    return asyncio.run(_load(port, requests, connections))


async def _load(port: int, requests: list[tuple[str, str, bytes | None]], connections: int) -> dict:
    queue = iter(requests)
    latencies: list[float] = []
    errors = {"count": 0, "first": None}

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for method, path, body in queue:
                head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                if body is not None:
                    head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                started = time.perf_counter()
                writer.write(head.encode() + b"\r\n" + (body or b""))
                status, payload = await _response(reader)
                latencies.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    errors["count"] += 1
                    errors["first"] = errors["first"] or f"{status}: {payload[:200]!r}"
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.perf_counter() - started
    p50, p99 = percentiles(latencies)
    return {
        "requests": len(latencies),
        "connections": connections,
        "seconds": round(elapsed, 2),
        "rps": round(len(latencies) / elapsed, 1),
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "errors": errors["count"],
        **({"first_error": errors["first"]} if errors["first"] else {}),
    }


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), 0)
    return status, await reader.readexactly(length)


def _get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
    except OSError:
        return 0, b""
    head, _, body = data.partition(b"\r\n\r\n")
    parts = head.split()
    return (int(parts[1]), body) if len(parts) > 1 and parts[1].isdigit() else (0, b"")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
