"""``/v1/eval``: the eval reports of the results folder (``Settings.eval_results``), for the web page.

The HTML reports are the eval suite's own, self-contained pages (inline SVG, no
scripts); they are served with a policy that lets them run nothing and load nothing,
and be framed only by this server's page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from starlette.responses import FileResponse, HTMLResponse

from ..errors import ReportNotFound
from ..eval_reports import EvalReport, published, report_path, reports
from ..settings import Settings
from .deps import ReadKey, WorkspaceDep
from .problems import problem_responses

router = APIRouter(prefix="/v1/eval", tags=["eval"], dependencies=[ReadKey], responses=problem_responses(401))
PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"


def results_folder(settings: Settings) -> Path:
    return settings.eval_results if settings.eval_results is not None else published()


@router.get("")
def list_reports(ws: WorkspaceDep) -> list[EvalReport]:
    """The tables and documents eval reports, newest first, with the shipped configuration's recall."""
    found = reports(results_folder(ws.settings))
    return [r.model_copy(update={"page": f"/v1/eval/{r.name}/page" if r.page else None}) for r in found]


@router.get("/{name}", response_model=dict[str, Any], responses=problem_responses(404))
def get_report(name: str, ws: WorkspaceDep) -> FileResponse:
    """The report's JSON, as the eval wrote it."""
    return FileResponse(_path(ws.settings, name, ".json"), media_type="application/json")


@router.get("/{name}/page", response_class=HTMLResponse, responses=problem_responses(404))
def get_page(name: str, ws: WorkspaceDep) -> FileResponse:
    """The report's HTML page: recall@k curves, figures, the per-database table."""
    headers = {"Content-Security-Policy": PAGE_POLICY, "X-Content-Type-Options": "nosniff"}
    return FileResponse(_path(ws.settings, name, ".html"), media_type="text/html", headers=headers)


def _path(settings: Settings, name: str, suffix: str) -> Path:
    path = report_path(results_folder(settings), name, suffix)
    if path is None:
        raise ReportNotFound(
            f"No eval report {name!r}{' page' if suffix == '.html' else ''}.", hint="GET /v1/eval lists them."
        )
    return path
