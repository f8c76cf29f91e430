"""``/v1/server``: what this server is and what it asks of a client, for the web page (never needs a key)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from .. import __version__
from .deps import SpacesDep
from .evals import results_folder

router = APIRouter(prefix="/v1", tags=["server"])


class ServerInfo(BaseModel):
    version: str
    reads_need_key: bool = Field(
        description="Reads need a key: SCHEMA_SEARCH_READ_KEY is set, or space keys are issued (`schemasift keys create`)."
    )
    writes_need_key: bool = Field(description="Writes need X-Admin-Key (SCHEMA_SEARCH_ADMIN_KEY is set).")
    url_sources: bool = Field(description="Indexing from a database URL is enabled (with the admin key).")
    eval_reports: bool = Field(description="The eval results folder exists.")


@router.get("/server")
def server(spaces: SpacesDep) -> ServerInfo:
    # The server's settings, not a space's: this answers before any key is checked.
    s = spaces.settings
    return ServerInfo(
        version=__version__,
        reads_need_key=s.read_key is not None or spaces.keys.any_active(),
        writes_need_key=s.admin_key is not None,
        url_sources=s.allow_url_sources,
        eval_reports=results_folder(s).is_dir(),
    )
