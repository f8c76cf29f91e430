"""Joining a Ray cluster: once per process, with an error a person can act on when it cannot be done.

Only this package imports Ray, and only when a Ray address is configured (``--ray``,
SCHEMA_SEARCH_RAY_ADDRESS), so a single machine needs neither Ray nor its start-up time.
"""

from __future__ import annotations

import logging
import socket
from types import ModuleType

from ..errors import ClusterUnavailable, first_line

EXTRA = "pip install 'schemasift[ray]'"
FORMS = (
    "`local` (start one here), `auto` (the cluster this machine is a node of, e.g. after `ray start --head`), "
    "HOST:6379 (its head), ray://HOST:10001 (Ray Client; not for builds)"
)
# How long a remote address may take to accept a connection: Ray itself retries an
# address nobody answers at for minutes before it gives up.
REACH_S = 5.0


def require_ray() -> ModuleType:
    """The ``ray`` module, or the error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable("--ray needs the ray extra, which is not installed.", hint=f"Run: {EXTRA}") from None
    return ray


def connect(address: str, data: bool = False) -> ModuleType:
    """Join the Ray cluster at ``address`` (``local`` starts one in this process); a second call keeps the first.

    ``data``: this process will run Ray Data pipelines (a build), which do not run over
    Ray Client (``ray://``; Ray 2.60 fails inside its executor): refused at once instead.

    Raises:
        ClusterUnavailable: Ray is not installed, nothing answers at ``address``, or it is
            a Ray Client address and ``data`` is asked for.
    """
    ray = require_ray()
    if data and address.startswith("ray://"):
        raise ClusterUnavailable(
            f"A build cannot run over Ray Client ({address}): Ray Data, which embeds on the cluster, needs this "
            "process to be a node of the cluster.",
            hint="Run the build on a node of the cluster with --ray auto (or its head's HOST:6379), e.g. "
            "after `ray start --address HEAD:6379` here, or submit it as a Ray job.",
        )
    if ray.is_initialized():  # the tests' cluster, or an earlier build of this process
        quiet_data()
        return ray
    if address not in ("local", "auto"):
        reach(address)
    # One started here needs no dashboard; Ray's own INFO lines ("Started a local Ray
    # instance") would interleave with the progress bars, which say what a build does.
    options = {"include_dashboard": False} if address == "local" else {}
    try:
        ray.init(address=address, logging_level=logging.WARNING, **options)
    except ConnectionError as error:
        raise unavailable(address, first_line(error)) from None
    quiet_data()
    return ray


def reach(address: str, timeout_s: float = REACH_S) -> None:
    """Check that something accepts connections at ``address`` (``ray://host:port`` or ``host:port``).

    Raises:
        ClusterUnavailable: the address is malformed, or nothing answers there within ``timeout_s``.
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterUnavailable(f"{address!r} is not a Ray address.", hint=f"Use one of: {FORMS}.")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise unavailable(address, error.strerror or first_line(error)) from None


def unavailable(address: str, why: str) -> ClusterUnavailable:
    return ClusterUnavailable(
        f"No Ray cluster answers at {address!r} ({why}).",
        hint=f"Start one (`ray start --head`), check the address, or use --ray local. Addresses: {FORMS}.",
    )


def quiet_data() -> None:
    """Ray Data without its own progress bars and start-up lines: the build's phases say what it does."""
    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    # Its one warning there says that the bars are off, which is what was asked.
    logging.getLogger("ray.data._internal.progress").setLevel(logging.ERROR)
