"""Spaces: each a data directory of its own catalogs and corpora, with one Workspace each.

The default space is the data directory itself, laid out as it always was, so nothing
indexed before spaces existed moves or is lost. Space ``X`` lives in ``<home>/spaces/X/``
with the same layout inside. Everything below the Workspace is unchanged: a space is only
a different ``home``, so whatever is done per data directory (encryption at rest, the
turns file) is done per space.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from pydantic import BaseModel

from ..config import Sources
from ..core.store import NAME_PATTERN, check_name
from ..errors import InvalidInput, SpaceExists, SpaceNotFound
from ..settings import Settings
from ..workspace import Workspace
from .keys import KEYS_FILE, KeyStore

DEFAULT = "default"
SPACES_DIR = "spaces"
_DELETED_PREFIX = ".deleted-"


class SpaceInfo(BaseModel):
    name: str
    catalogs: int
    corpora: int


def space_home(root: Path, space: str) -> Path:
    """The data directory of ``space`` under the root data directory ``root``.

    >>> space_home(Path("/d"), "default"), space_home(Path("/d"), "team-a")
    (PosixPath('/d'), PosixPath('/d/spaces/team-a'))
    """
    return root if space == DEFAULT else root / SPACES_DIR / space


def space_settings(settings: Settings, space: str) -> Settings:
    """``settings`` (the root's) for ``space``: its home, and nothing of the operator's databases.

    The config file's catalogs (with their database URLs) and ``source_urls`` belong to the
    default space: a catalog of the same name in another space must not run queries on them.
    """
    if space == DEFAULT:
        return settings
    copy = settings.model_copy(update={"home": space_home(settings.home, space), "source_urls": {}})
    copy._sources = Sources()
    return copy


class Spaces:
    """The spaces under one root data directory, their Workspaces made once and kept, and their keys."""

    def __init__(self, settings: Settings, default: Workspace | None = None) -> None:
        self.settings = settings
        self.keys = KeyStore(settings.home / KEYS_FILE)
        self._workspaces: dict[str, Workspace] = {DEFAULT: default} if default is not None else {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """``default`` first, then the others by name."""
        folder = self.settings.home / SPACES_DIR
        others = (
            sorted(p.name for p in folder.iterdir() if p.is_dir() and NAME_PATTERN.match(p.name))
            if folder.is_dir()
            else []
        )
        return [DEFAULT, *others]

    def exists(self, space: str) -> bool:
        return space == DEFAULT or (
            NAME_PATTERN.match(space or "") is not None and space_home(self.settings.home, space).is_dir()
        )

    def check(self, space: str, visible: list[str] | None = None) -> str:
        """``space``, or a 404 whose hint names only ``visible`` (every space, when not given).

        Raises:
            SpaceNotFound: no such space.
        """
        if not self.exists(space):
            raise self.missing(space, self.names() if visible is None else visible)
        return space

    @staticmethod
    def missing(space: str, visible: list[str]) -> SpaceNotFound:
        """The 404 for ``space``, whether it does not exist or the caller may not see it: the same words."""
        return SpaceNotFound(
            f"No space named {space!r}.",
            hint=f"Known: {', '.join(visible) or 'none'}. Create one with `schemasift spaces create NAME`.",
        )

    def workspace(self, space: str) -> Workspace:
        """The Workspace of ``space``, made on first use; searchers stay cached in it."""
        with self._lock:
            found = self._workspaces.get(space)
            if found is None:
                self.check(space)
                found = self._workspaces[space] = Workspace(space_settings(self.settings, space))
            return found

    def info(self, space: str) -> SpaceInfo:
        ws = self.workspace(space)
        return SpaceInfo(name=space, catalogs=len(ws.catalogs.store.names()), corpora=len(ws.corpora.store.names()))

    def infos(self) -> list[SpaceInfo]:
        return [self.info(name) for name in self.names()]

    def create(self, space: str) -> SpaceInfo:
        """Make an empty space.

        Raises:
            InvalidInput: a name that cannot be a folder.
            SpaceExists: the space is there already (``default`` always is).
        """
        check_name(space, "space")
        if self.exists(space):
            raise SpaceExists(f"The space {space!r} exists already.", hint="`schemasift spaces list` shows them.")
        space_home(self.settings.home, space).mkdir(parents=True)
        return self.info(space)

    def delete(self, space: str) -> int:
        """Delete ``space``: every catalog and corpus in it, and its keys revoked; how many keys that revoked.

        Raises:
            InvalidInput: the default space, which is the data directory itself.
            SpaceNotFound: no such space.
        """
        if space == DEFAULT:
            raise InvalidInput(
                "The default space cannot be deleted: it is the data directory itself.",
                hint="Delete its catalogs and corpora one by one (`schemasift delete`, `schemasift docs delete`).",
            )
        self.check(space)
        revoked = self.keys.revoke_space(space)  # first: no request gets in while the files go
        home = space_home(self.settings.home, space)
        # Renamed first, then removed: a crash halfway leaves no half-space under a live name.
        doomed = home.with_name(f"{_DELETED_PREFIX}{space}")
        shutil.rmtree(doomed, ignore_errors=True)
        home.rename(doomed)
        shutil.rmtree(doomed, ignore_errors=True)
        with self._lock:
            self._workspaces.pop(space, None)
        return revoked
