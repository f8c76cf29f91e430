"""Under load: a real ``schemasift serve`` keeps answering searches while it re-indexes and is attacked.

    python -m eval.reliability.load [--seconds 20] [--searchers 4]

One worker serves a small catalog (``sample_schemas/shop.sql``, the dense channel off:
two cores are shared by the server, the clients and the re-indexing). First an idle
baseline: one client, searches one after another. Then, for ``--seconds``:

* ``--searchers`` clients search continuously over keep-alive connections;
* the catalog is re-indexed every few seconds, alternately by ``schemasift index``
  in another process and by an HTTP upload to the server itself, each swapping in a new
  generation under the searches (two versions of the DDL alternate);
* a hostile client cycles through a 200 MB declared body, an oversized chunked body,
  JSON nested 100,000 deep, a lone surrogate, multipart sent as DDL, wrong methods, the
  inputs that once held a worker (an unclosed JSON string of escaped quotes, Markdown of
  unclosed comments, HTML of unclosed attributes, YAML escapes of a surrogate pair), and
  a flood of simultaneous searches past the server's concurrency limit
  (``SCHEMA_SEARCH_MAX_CONCURRENT_REQUESTS``, set low here so a flood passes it).

The figures: searches answered, 5xx (any client), search latency p50/p99 next to the
idle p99, re-indexes that succeeded, hostile requests answered otherwise than
expected, and the flood's 429s, each of which must carry ``Retry-After``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .report import Part, show

REPO = Path(__file__).resolve().parents[2]
SHOP = REPO / "sample_schemas" / "shop.sql"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
QUESTIONS = [
    "which customers placed orders last month",
    "products low in stock",
    "order items with their product prices",
    "payments of an order",
    "reviews of a product by customers",
    "shipping address of a customer",
]
EXTRA_TABLE = "\nCREATE TABLE gift_cards (id INTEGER PRIMARY KEY, code TEXT NOT NULL, balance NUMERIC);\n"
TIMEOUT_S = 30.0
MAX_P99_MS = 1000.0


@dataclass
class Tally:
    """What the clients saw."""

    latencies_ms: list[float] = field(default_factory=list)
    search_statuses: Counter = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    hostile: Counter = field(default_factory=Counter)
    hostile_refused: int = 0  # answered 429 by the concurrency limit, during a flood
    unexpected: list[str] = field(default_factory=list)
    flood: Counter = field(default_factory=Counter)
    reindexes: Counter = field(default_factory=Counter)


def run(seconds: float = 20.0, searchers: int = 4, flood: int = 96, max_concurrent: int = 16) -> Part:
    """Serve, measure an idle baseline, then search under re-indexing and attack for ``seconds``."""
    with tempfile.TemporaryDirectory(prefix="schema-search-load-") as scratch:
        folder = Path(scratch)
        env = {
            **os.environ,
            **OFFLINE,
            "SCHEMA_SEARCH_HOME": str(folder / "home"),
            "SCHEMA_SEARCH_DENSE": "false",
            "SCHEMA_SEARCH_MAX_CONCURRENT_REQUESTS": str(max_concurrent),
        }
        versions = [SHOP.read_text(), SHOP.read_text() + EXTRA_TABLE]
        for i, text in enumerate(versions):
            (folder / f"shop{i}.sqlite.sql").write_text(text)
        _index_cli(env, folder / "shop0.sqlite.sql")
        server, port = _start(env, folder / "server.log")
        try:
            idle = asyncio.run(_idle(port, 200))
            tally = asyncio.run(_under_load(port, env, folder, versions, seconds, searchers, flood))
        finally:
            _stop(server)
    return _part(idle, tally, seconds, searchers, max_concurrent)


def _part(idle: list[float], tally: Tally, seconds: float, searchers: int, max_concurrent: int) -> Part:
    p50, p99 = _percentiles(tally.latencies_ms)
    idle_p99 = _percentiles(idle)[1]
    retry_after = tally.flood["429 with Retry-After"]
    counts = {
        "searches": tally.search_statuses[200],
        "5xx": len(tally.server_errors),
        "search p50 ms": round(p50, 1),
        "search p99 ms": round(p99, 1),
        "idle p99 ms": round(idle_p99, 1),
        "searches refused 429": tally.search_statuses[429],
        "re-indexes ok": tally.reindexes["ok"],
        "re-indexes failed": tally.reindexes["failed"],
        "hostile requests": sum(tally.hostile.values()),
        "hostile unexpected": len(tally.unexpected),
        "hostile refused 429": tally.hostile_refused,
        "flood requests": tally.flood["requests"],
        "flood 429": tally.flood[429],
        "flood 429 without Retry-After": tally.flood[429] - retry_after,
    }
    other = {s: n for s, n in tally.search_statuses.items() if s not in (200, 429)}
    details = [
        f"{searchers} searchers for {seconds:g} s; max_concurrent_requests {max_concurrent}",
        "hostile: " + ", ".join(f"{kind} x{n}" for kind, n in sorted(tally.hostile.items())),
        *([f"searches answered otherwise: {other}"] if other else []),
        *tally.server_errors[:5],
        *tally.unexpected[:5],
    ]
    at_target = (
        not tally.server_errors
        and not tally.unexpected
        and tally.flood[429] > 0
        and retry_after == tally.flood[429]
        and tally.reindexes["failed"] == 0
        and counts["searches"] > 0
        and p99 <= MAX_P99_MS
    )
    return Part(
        name="under load",
        counts=counts,
        target=f"0 5xx, hostile answered as expected, flood 429s with Retry-After, search p99 <= {MAX_P99_MS:g} ms",
        at_target=at_target,
        details=details,
    )


# -- the server --------------------------------------------------------------------


def _index_cli(env: dict, ddl: Path) -> bool:
    command = [sys.executable, "-m", "schema_search.cli", "index", str(ddl), "--catalog", "shop"]
    return subprocess.run(command, env=env, capture_output=True, timeout=120).returncode == 0


def _start(env: dict, log: Path, timeout_s: float = 120) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    command = [sys.executable, "-m", "schema_search.cli", "serve", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}; see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
                sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    return server, port
        except OSError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"the server was not ready after {timeout_s} s; see {log}")


def _stop(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the clients -------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


class Connection:
    """One keep-alive HTTP/1.1 connection, reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> Response:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        reused = self.writer is not None
        try:
            response = await self._exchange(head.encode() + b"\r\n" + body)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            # The server closed the idle connection (uvicorn: after 5 s); as any client would, once more.
            await self.close()
            response = await self._exchange(head.encode() + b"\r\n" + body)
        if response.headers.get("connection", "").lower() == "close":
            await self.close()
        return response

    async def _exchange(self, request: bytes) -> Response:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.write(request)
        return await asyncio.wait_for(_read_response(self.reader), TIMEOUT_S)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
        self.reader = self.writer = None


async def _read_response(reader: asyncio.StreamReader) -> Response:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", 0)))
    return Response(int(lines[0].split()[1]), headers, body)


def _search_body(i: int) -> bytes:
    return json.dumps({"question": QUESTIONS[i % len(QUESTIONS)], "k": 5}).encode()


JSON = {"Content-Type": "application/json"}
UPLOAD = "/v1/catalogs/shop?dialect=sqlite"


async def _idle(port: int, searches: int) -> list[float]:
    connection, latencies = Connection(port), []
    for i in range(searches):
        started = time.perf_counter()
        response = await connection.request("POST", "/v1/catalogs/shop/search", _search_body(i), JSON)
        if response.status == 200:
            latencies.append((time.perf_counter() - started) * 1000)
    await connection.close()
    return latencies


async def _under_load(
    port: int, env: dict, folder: Path, versions: list[str], seconds: float, searchers: int, flood: int
) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + seconds

    async def searcher(n: int) -> None:
        connection, i = Connection(port), n
        while time.monotonic() < deadline:
            i += 1
            started = time.perf_counter()
            try:
                response = await connection.request("POST", "/v1/catalogs/shop/search", _search_body(i), JSON)
            except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
                tally.search_statuses[f"no answer ({type(error).__name__})"] += 1
                await connection.close()
                continue
            tally.search_statuses[response.status] += 1
            if response.status == 200:
                tally.latencies_ms.append((time.perf_counter() - started) * 1000)
            elif response.status >= 500:
                tally.server_errors.append(f"search -> {response.status}: {response.body[:200]!r}")
            elif response.status == 429:
                await asyncio.sleep(float(response.headers.get("retry-after", 1)) / 10)  # a polite client, briefly
        await connection.close()

    async def reindexer() -> None:
        connection, n = Connection(port), 0
        every = max(seconds / 7, 1.0)
        while time.monotonic() + every < deadline:
            await asyncio.sleep(every)
            n += 1
            path = folder / f"shop{n % 2}.sqlite.sql"
            if n % 2:
                ok = await asyncio.to_thread(_index_cli, env, path)
            else:
                try:
                    ddl = versions[n % 2].encode()
                    response = await connection.request("POST", UPLOAD, ddl, {"Content-Type": "application/sql"})
                except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
                    tally.unexpected.append(f"upload: no answer ({type(error).__name__})")
                    tally.reindexes["failed"] += 1
                    await connection.close()
                    continue
                ok = response.status == 200
                if response.status >= 500:
                    tally.server_errors.append(f"upload -> {response.status}: {response.body[:200]!r}")
            tally.reindexes["ok" if ok else "failed"] += 1
        await connection.close()

    async def hostile() -> None:
        attacks = _attacks(port)
        i = 0
        while time.monotonic() < deadline:
            name, attack = attacks[i % len(attacks)]
            i += 1
            try:
                problem = await attack()
            except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
                problem = f"no answer ({type(error).__name__}: {error})"
            tally.hostile[name] += 1
            if problem == BUSY:  # the concurrency limit answered first, during a flood: as it should
                tally.hostile_refused += 1
            elif problem:
                (tally.server_errors if problem.startswith("5") else tally.unexpected).append(f"{name}: {problem}")
            await asyncio.sleep(0.2)

    async def flooder() -> None:
        while time.monotonic() < deadline:
            await asyncio.sleep(seconds / 4)
            if time.monotonic() >= deadline:
                break
            statuses = await asyncio.gather(*(_one_search(port, i) for i in range(flood)), return_exceptions=True)
            for result in statuses:
                tally.flood["requests"] += 1
                if isinstance(result, BaseException):
                    tally.flood[f"no answer ({type(result).__name__})"] += 1
                    continue
                tally.flood[result.status] += 1
                if result.status == 429 and result.headers.get("retry-after", "").isdigit():
                    tally.flood["429 with Retry-After"] += 1
                if result.status >= 500:
                    tally.server_errors.append(f"flood -> {result.status}: {result.body[:200]!r}")

    await asyncio.gather(*(searcher(n) for n in range(searchers)), reindexer(), hostile(), flooder())
    return tally


async def _one_search(port: int, i: int) -> Response:
    connection = Connection(port)
    try:
        return await connection.request("POST", "/v1/catalogs/shop/search", _search_body(i), JSON)
    finally:
        await connection.close()


BUSY = "429"


def _refused(response: Response) -> bool:
    return response.status == 429 and response.headers.get("retry-after", "").isdigit()


def _judge(response: Response, status: int) -> str | None:
    if _refused(response):
        return BUSY
    return None if response.status == status else f"{response.status} (expected {status}): {response.body[:160]!r}"


def _attacks(port: int):
    """(name, coroutine function returning None when answered as expected, BUSY for a 429, else what went wrong)."""

    async def expect(status: int, method: str, path: str, body: bytes, headers: dict, check=None) -> str | None:
        connection = Connection(port)
        try:
            response = await connection.request(method, path, body, headers)
        finally:
            await connection.close()
        if (problem := _judge(response, status)) is not None:
            return problem
        if response.headers.get("content-type") != "application/problem+json":
            return f"{response.status} as {response.headers.get('content-type')}, not problem+json"
        return check(response) if check else None

    async def declared_200_mb() -> str | None:
        # Headers and the first 64 KB only: the answer must come without the rest.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                b"POST /v1/catalogs/shop/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 200000000\r\n\r\n" + b"[" * 65_536
            )
            response = await asyncio.wait_for(_read_response(reader), TIMEOUT_S)
        finally:
            writer.close()
        return _judge(response, 413)

    async def chunked_oversized() -> str | None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                b"POST /v1/catalogs/shop/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            chunk = b"10000\r\n" + b" " * 65_536 + b"\r\n"
            try:
                for _ in range(20):  # 1.3 MB, past the 1 MB JSON limit
                    writer.write(chunk)
                    await asyncio.wait_for(writer.drain(), 5)
            except (TimeoutError, OSError):
                pass  # the server stopped reading: it has answered
            response = await asyncio.wait_for(_read_response(reader), TIMEOUT_S)
        finally:
            writer.close()
        return _judge(response, 413)

    deep = b'{"question": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    search = "/v1/catalogs/shop/search"
    multipart = (
        b"--x\r\nContent-Disposition: form-data; name=files; filename=a.sql\r\n\r\nCREATE TABLE a (b int)\r\n--x--\r\n"
    )
    as_multipart = {"Content-Type": "multipart/form-data; boundary=x"}

    def allows_post(response: Response) -> str | None:
        return None if response.headers.get("allow") == "POST" else f"Allow: {response.headers.get('allow')!r}"

    async def uploaded(name: str, filename: str, content: bytes) -> str | None:
        """A document upload that must be indexed (200), whatever its text holds."""
        boundary = "ssboundary"
        body = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=files; filename={filename}\r\n\r\n".encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        connection = Connection(port)
        try:
            response = await connection.request(
                "POST", f"/v1/corpora/{name}", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}
            )
        finally:
            await connection.close()
        return _judge(response, 200)

    # Inputs that held a worker for seconds to minutes while a reader rescanned them (issue 27),
    # at the largest size a request may have: the searches' p99 shows whether they still do.
    unclosed = b'"' + b'\\"' * 450_000  # a JSON string never closed, full of escaped quotes: 900 KB
    surrogate_title = b'---\ntitle: "Release notes \\ud83d\\ude00"\n---\n# Notes\n\nText.\n'

    return [
        ("200 MB declared", declared_200_mb),
        ("chunked past the limit", chunked_oversized),
        ("nested 100,000 deep", lambda: expect(422, "POST", search, deep, JSON)),
        ("lone surrogate", lambda: expect(422, "POST", search, b'{"question": "\\ud800"}', JSON)),
        ("multipart as DDL", lambda: expect(415, "POST", "/v1/catalogs/evil", multipart, as_multipart)),
        ("wrong method", lambda: expect(405, "PUT", search, b"{}", JSON, allows_post)),
        ("unclosed JSON string, any path", lambda: expect(404, "POST", "/nowhere", unclosed, JSON)),
        ("unclosed JSON string, search", lambda: expect(422, "POST", search, unclosed, JSON)),
        ("Markdown of 250,000 '<!--'", lambda: uploaded("md_comments", "a.md", b"<!--" * 250_000)),
        ("HTML of 100,000 open attributes", lambda: uploaded("html_attrs", "a.html", b"<a href='" * 100_000)),
        ("YAML surrogate escapes in a title", lambda: uploaded("yaml_escapes", "a.md", surrogate_title)),
    ]


def _percentiles(samples_ms: list[float]) -> tuple[float, float]:
    if not samples_ms:
        return 0.0, 0.0
    ordered = sorted(samples_ms)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.reliability.load", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load lasts (default 20)")
    parser.add_argument("--searchers", type=int, default=4, help="clients searching continuously (default 4)")
    parser.add_argument("--flood", type=int, default=96, help="simultaneous searches in each flood (default 96)")
    args = parser.parse_args(argv)
    part = run(args.seconds, args.searchers, args.flood)
    return show([part])


if __name__ == "__main__":
    raise SystemExit(main())
