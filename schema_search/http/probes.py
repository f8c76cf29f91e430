"""``/healthz`` (liveness) and ``/readyz`` (readiness), each answering GET and HEAD.

Liveness says the worker answers: 200 whenever it can, model loaded or not (an
orchestrator that restarted a worker for loading its model would never see it up).
Readiness says it can answer a search now: 503 until its model is loaded (and, for a
``serve`` worker, every collection open), so a load balancer sends it nothing before.
``/healthz`` used to say ``ok`` while the model was still loading.

HEAD (a load balancer's usual probe) gets the same status with no body; FastAPI's
routes answer HEAD only when they say so. Both are async: they run on the event loop
and never wait for a thread-pool thread that uploads may all be holding.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, Response

from .. import __version__
from ..spaces.registry import DEFAULT
from .deps import SpacesDep
from .problems import problem, problem_responses
from .readiness import Readiness

PATHS = frozenset({"/healthz", "/readyz"})
MODEL = (
    "The embedding model: `off` (dense channel off), `not loaded`, `loading`, `loaded`, or `unavailable` "
    "(it failed to load; searches answer 503)."
)


class Health(BaseModel):
    """The worker is alive; whether it can search yet is ``/readyz``'s answer."""

    status: Literal["alive"] = "alive"
    version: str
    model: str = Field(description=MODEL)
    # None where space keys are issued: a probe needs no key, so it must not count what a key guards.
    catalogs: int | None = Field(description="Catalogs in the default space (null where space keys are issued).")
    corpora: int | None = Field(description="Corpora in the default space (null where space keys are issued).")


class Ready(BaseModel):
    """The worker can answer searches; ``degraded``: some collection (or the model) failed to load, the rest answers."""

    status: Literal["ready", "degraded"]
    worker: int = Field(description="The worker's process ID.")
    model: str = Field(description=MODEL)
    problems: list[str] = Field(description="What failed to load, each with its name.")
    hint: str | None = Field(None, description="How to fix what failed.")
    catalogs: list[str] | None = Field(None, description="The catalogs opened by the warm-up (a `serve` worker).")
    corpora: list[str] | None = Field(None, description="The corpora opened by the warm-up (a `serve` worker).")
    warmed_in_s: float | None = Field(None, description="How long the warm-up took.")


def router(readiness: Readiness) -> APIRouter:
    """The two probes over one worker's :class:`~.readiness.Readiness`."""
    probes = APIRouter(tags=["meta"])

    @probes.head("/healthz", include_in_schema=False)
    @probes.get("/healthz", response_model=Health)
    async def healthz(request: Request, spaces: SpacesDep) -> Response:
        """Liveness: 200 while the worker answers, with whether its model is loaded. HEAD: the status alone."""
        model = await readiness.model()
        if request.method == "HEAD":
            return Response(status_code=200)
        ws, guarded = spaces.workspace(DEFAULT), spaces.keys.any_active()
        health = Health(
            version=__version__,
            model=model,
            catalogs=None if guarded else len(ws.catalogs.store.names()),
            corpora=None if guarded else len(ws.corpora.store.names()),
        )
        return JSONResponse(health.model_dump())

    @probes.head("/readyz", include_in_schema=False)
    @probes.get("/readyz", response_model=Ready, response_model_exclude_none=True, responses=problem_responses(503))
    async def readyz(request: Request, spaces: SpacesDep) -> Response:
        """Readiness: 200 once the model is loaded (and a `serve` worker is warm), else 503. HEAD: the status alone."""
        await readiness.model()
        report = readiness.report()
        status = 503 if report["status"] == "loading" else 200
        if request.method == "HEAD":
            return Response(status_code=status)
        if status == 503:
            # Seen by an app embedded elsewhere; `serve` answers nothing before it is warm.
            return problem(
                503,
                "not_ready",
                f"This worker is still loading its model and indexes (model: {report['model']}).",
                "Retry in a second.",
            )
        # "degraded": some collection failed to open; the others answer, so the worker serves.
        if spaces.keys.any_active():  # a probe needs no key: no name of what keys guard (the log has them)
            report = {k: v for k, v in report.items() if k not in ("catalogs", "corpora")}
            failed = len(report.get("problems") or [])
            report["problems"] = (
                [f"{failed} collection(s) failed to open; the worker's log names them."] if failed else []
            )
        return JSONResponse(Ready.model_validate(report).model_dump(exclude_none=True))

    return probes
