"""``schemasift serve``: the HTTP API in one or several worker processes.

Several workers let every core answer: each loads the model once and opens the
indexes memory-mapped, so the page cache holds one copy of the index files for all
of them. Each worker warms up before it answers anything (``/readyz``): connections
the kernel hands it meanwhile wait in its queue, as they do while a worker that died
is replaced.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from ..errors import InvalidInput
from ..settings import Settings

APP = "schema_search.http.app:serve_app"
QUICK_FAILURE_S = 10.0  # a worker that dies sooner than this after starting failed to start
GRACE_S = 15.0  # how long stopping workers may take to finish what they are doing


def default_workers() -> int:
    return min(os.cpu_count() or 1, 4)


def serve(settings: Settings, host: str, port: int, workers: int | None = None) -> int:
    """Serve until Ctrl-C or SIGTERM; the exit code (1 when workers kept dying as they started)."""
    if workers is not None and workers < 1:
        raise InvalidInput(f"--workers {workers} is not a number of processes.", hint="Use 1 or more.")
    workers = workers or settings.workers or default_workers()
    if workers > 1 and not hasattr(socket, "SO_REUSEPORT"):
        raise InvalidInput("Several workers need SO_REUSEPORT, which this system lacks.", hint="Use --workers 1.")
    # Workers are fresh processes that read their settings from the environment.
    os.environ["SCHEMA_SEARCH_HOME"] = str(settings.home)
    if settings.config_file is not None:  # the config file's catalogs (their databases for execute) too
        os.environ["SCHEMA_SEARCH_CONFIG_FILE"] = str(Path(settings.config_file).resolve())
    if workers > 1:
        # One thread each for the model and numpy's BLAS (read when a worker imports
        # numpy): several workers' thread pools spinning on the same cores slow them all.
        if settings.embedding_threads is None:
            os.environ["SCHEMA_SEARCH_EMBEDDING_THREADS"] = "1"
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(variable, "1")
    # NO_COLOR (https://no-color.org): uvicorn colours its log lines on a terminal otherwise.
    options = {
        "host": host,
        "port": port,
        "log_level": "info",
        **({"use_colors": False} if os.environ.get("NO_COLOR") else {}),
    }
    _check_free(host, port)
    sockets = [_listening_socket(host, port) for _ in range(workers)]
    # Only once the port is ours: a busy port is an error, never first announced as served.
    print(
        f"Serving catalogs and corpora from {settings.home} on http://{host}:{port} with {workers} "
        f"worker{'s' if workers > 1 else ''} (docs at /docs; GET /readyz says when a worker can answer)",
        file=sys.stderr,
    )
    if workers == 1:
        _worker(sockets[0], options)  # in this process: nothing to supervise
        return 0
    return _supervise(sockets, options)


def _check_free(host: str, port: int) -> None:
    """Refuse a port something else listens on, another ``serve`` included.

    Every worker socket sets SO_REUSEPORT, so binding them would succeed beside
    another server's and the kernel would split connections between the two. A
    probe without the option fails instead.
    """
    probe = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as error:
        raise _cannot_listen(host, port, error) from None
    finally:
        probe.close()


def _cannot_listen(host: str, port: int, error: OSError) -> InvalidInput:
    return InvalidInput(
        f"Cannot listen on {host}:{port}: {error.strerror}.", hint="Pick another --port, or stop what uses it."
    )


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _listening_socket(host: str, port: int) -> socket.socket:
    """One listening socket per worker, all on the same port (SO_REUSEPORT).

    The kernel spreads new connections evenly over the sockets. With one shared
    socket (uvicorn's ``--workers``), whichever worker woke first accepted them: all
    16 keep-alive connections of a load test landed on one worker and the other
    idled (110 req/s instead of ~2x). The socket also names IPPROTO_TCP and sets
    TCP_NODELAY (Linux passes it on to accepted sockets): with protocol number 0,
    asyncio did not recognise the connections as TCP and left Nagle's algorithm on,
    and with delayed ACKs every response waited ~40 ms.
    """
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as error:  # taken between the probe and here
        sock.close()
        raise _cannot_listen(host, port, error) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _worker(sock: socket.socket, options: dict) -> None:
    import uvicorn

    uvicorn.Server(uvicorn.Config(APP, factory=True, **options)).run(sockets=[sock])


def _supervise(sockets: list[socket.socket], options: dict) -> int:
    """Run one worker per socket; restart a worker that dies; stop them all on Ctrl-C or SIGTERM.

    A worker that dies within seconds of starting three times in a row is not
    restarted again: something is wrong with the setup, and the log says what.
    """
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no forked model or thread state
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    def start(i: int):
        process = context.Process(target=_worker, args=(sockets[i], options), name=f"worker-{i}", daemon=False)
        process.start()
        return process, time.monotonic()

    running = [start(i) for i in range(len(sockets))]
    quick_failures = 0
    status = 0
    while not stop.wait(0.5):
        for i, (process, since) in enumerate(running):
            if process.is_alive():
                continue
            quick_failures = quick_failures + 1 if time.monotonic() - since < QUICK_FAILURE_S else 0
            if quick_failures >= 3:
                print("error: workers keep dying as they start; see the log above.", file=sys.stderr)
                status = 1
                stop.set()
                break
            print(f"Worker {process.pid} exited with {process.exitcode}; starting another.", file=sys.stderr)
            running[i] = start(i)
    for process, _ in running:
        if process.is_alive():
            process.terminate()  # SIGTERM: uvicorn finishes the requests in flight
    for process, _ in running:
        process.join(timeout=GRACE_S)
        if process.is_alive():
            process.kill()
    return status
