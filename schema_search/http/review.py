"""``/v1/review``: the review queue of public answers: list, show, edit, approve, reject.

Every route needs the admin role of the caller's space (or the server's admin key where it
sets one), reads included: the queue holds what visitors asked. Each space has its own queue.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ..review.models import EntrySummary, ReviewEntry
from ..review.reviews import Approved, Reviews
from .deps import AdminKey, CallerDep, WorkspaceDep, check_write
from .problems import problem_responses

router = APIRouter(prefix="/v1/review", tags=["review"], responses=problem_responses(401, 403))


class EntryEdit(BaseModel):
    title: str | None = Field(
        None, min_length=1, max_length=500, pattern=r"\S", description="The entry's new title (not blank)."
    )
    body: str | None = Field(None, max_length=100_000, description="The entry's new body (Markdown).")


@router.get("", responses=problem_responses(422))
def list_entries(
    ws: WorkspaceDep, caller: CallerDep, key: AdminKey, status: Literal["pending", "approved", "rejected"] | None = None
) -> list[EntrySummary]:
    check_write(caller, ws.settings, key, what="Reading the review queue", role="admin")
    return Reviews(ws).entries(status)


@router.get("/{entry_id}", responses=problem_responses(404))
def get_entry(entry_id: int, ws: WorkspaceDep, caller: CallerDep, key: AdminKey) -> ReviewEntry:
    check_write(caller, ws.settings, key, what="Reading the review queue", role="admin")
    return Reviews(ws).get(entry_id)


@router.patch("/{entry_id}", responses=problem_responses(404, 409, 422))
def edit_entry(entry_id: int, edit: EntryEdit, ws: WorkspaceDep, caller: CallerDep, key: AdminKey) -> ReviewEntry:
    check_write(caller, ws.settings, key, what="Editing a review entry", role="admin")
    return Reviews(ws).edit(entry_id, edit.title, edit.body)


@router.post("/{entry_id}/approve", responses=problem_responses(404, 409, 422))
async def approve_entry(
    entry_id: int, ws: WorkspaceDep, caller: CallerDep, key: AdminKey, edit: EntryEdit | None = None
) -> Approved:
    """Write the entry (edited first, when a title or body is sent) into the corpus `reviewed`, and index it."""
    check_write(caller, ws.settings, key, what="Approving a review entry", role="admin")
    edit = edit or EntryEdit()
    # Indexing reads files and may load the embedding model: off the event loop.
    return await run_in_threadpool(Reviews(ws).approve, entry_id, edit.title, edit.body)


@router.post("/{entry_id}/reject", responses=problem_responses(404, 409))
def reject_entry(entry_id: int, ws: WorkspaceDep, caller: CallerDep, key: AdminKey) -> ReviewEntry:
    """Reject the entry: it is kept, and its pages are not offered again."""
    check_write(caller, ws.settings, key, what="Rejecting a review entry", role="admin")
    return Reviews(ws).reject(entry_id)
