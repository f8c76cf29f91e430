"""``/v1/spaces``: list, create and delete spaces (the server's admin key), and issue, list and revoke their keys.

A space's keys are managed by the server's admin key, or by an admin key of that space;
an admin key of another space is told the space does not exist, in the words a space
that does not exist gets, so it learns no name.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Response
from pydantic import BaseModel, Field

from ..core.store import NAME_PATTERN
from ..spaces.keys import IssuedKey, KeyInfo, Role
from ..spaces.registry import SpaceInfo, Spaces
from .deps import AdminKey, Caller, CallerDep, SpacesDep, check_server_admin, check_write, get_caller
from .problems import problem_responses

router = APIRouter(
    prefix="/v1/spaces", tags=["spaces"], dependencies=[Depends(get_caller)], responses=problem_responses(401, 403)
)
Space = Annotated[str, Path(description="Space name.", json_schema_extra={"pattern": NAME_PATTERN.pattern})]


class KeyRequest(BaseModel):
    role: Role = Field("read", description="read: search and read; write: also index and delete; admin: also keys.")
    label: str = Field("", max_length=200, description="What the key is for (who holds it); shown in lists.")


@router.get("")
def list_spaces(spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None) -> list[SpaceInfo]:
    """Every space, with how many catalogs and corpora each holds. The server's admin key only."""
    check_server_admin(caller, spaces.settings, admin_key, what="Listing spaces")
    return spaces.infos()


@router.post("/{space}", status_code=201, responses=problem_responses(409, 422))
def create_space(space: Space, spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None) -> SpaceInfo:
    """Create an empty space. The server's admin key only."""
    check_server_admin(caller, spaces.settings, admin_key, what="Creating a space")
    return spaces.create(space)


@router.delete("/{space}", status_code=204, response_class=Response, responses=problem_responses(404, 422))
def delete_space(space: Space, spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None) -> Response:
    """Delete a space, every catalog and corpus in it, and revoke its keys. The server's admin key only."""
    check_server_admin(caller, spaces.settings, admin_key, what="Deleting a space")
    spaces.delete(space)
    return Response(status_code=204)


@router.get("/{space}/keys", responses=problem_responses(404))
def list_keys(space: Space, spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None) -> list[KeyInfo]:
    """The space's keys, revoked ones included; never a secret."""
    _check_key_manager(space, spaces, caller, admin_key, "Listing keys")
    return spaces.keys.list(space)


@router.post("/{space}/keys", status_code=201, responses=problem_responses(404, 422))
def create_key(
    space: Space, request: KeyRequest, spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None
) -> IssuedKey:
    """Issue a key of the space; its secret is in this answer only."""
    _check_key_manager(space, spaces, caller, admin_key, "Issuing keys")
    return spaces.keys.create(space, request.role, request.label)


@router.delete("/{space}/keys/{key_id}", responses=problem_responses(404))
def revoke_key(space: Space, key_id: str, spaces: SpacesDep, caller: CallerDep, admin_key: AdminKey = None) -> KeyInfo:
    """Revoke a key of the space: from now on it gets 401, in the words an unknown key gets."""
    _check_key_manager(space, spaces, caller, admin_key, "Revoking keys")
    return spaces.keys.revoke(key_id, space)


def _check_key_manager(space: str, spaces: Spaces, caller: Caller, admin_key: str | None, what: str) -> None:
    """The server's admin key for any space; an admin key of ``space`` for its own; 404 for another's."""
    if caller.server_admin:
        spaces.check(space)
        return
    if caller.anonymous:  # no space key: only the server's admin key will do
        check_server_admin(caller, spaces.settings, admin_key, what=what)
    check_write(caller, spaces.settings, admin_key, what=what, role="admin")  # the role first: it names nothing
    if space != caller.space:
        raise spaces.missing(space, [caller.space])
