"""The review desk of one workspace: what the CLI, the HTTP API and the web page call.

Approving writes the entry as a Markdown file (front matter: title, source URL, approval
time) into ``<home>/reviewed/`` and indexes that folder again as the corpus ``reviewed``,
with the workspace's own folder indexing: the next search of that corpus finds it. The
folder is written from the queue's approved entries each time, so it holds exactly those:
a file left by a failed indexing, or one that was never approved, is removed.

An approval marks the entry approved first (one conditional update: a concurrent reject or
approve fails), then indexes; when indexing fails, the entry is pending again.

With a key-encryption key configured, no Markdown is left in the data directory: the approved
entries stay sealed in the queue, and each approval writes all of them into a temporary folder
outside it, indexes that as ``reviewed`` (a sealed generation), and removes the folder.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..core.personal import mask
from ..docs.models import CorpusIndexResult
from ..errors import InvalidInput
from ..workspace import Workspace
from ..workspace.configs import vault
from .models import EntrySummary, ReviewEntry, Status
from .queue import ReviewQueue, now

REVIEWED = "reviewed"  # the corpus, and the folder under the data directory


class Approved(ReviewEntry):
    indexed: CorpusIndexResult


class Reviews:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.queue = ReviewQueue(workspace.settings.home, vault(workspace.settings))
        self.folder = workspace.settings.home / REVIEWED

    def entries(self, status: Status | None = None) -> list[EntrySummary]:
        return self.queue.entries(status)

    def get(self, entry_id: int) -> ReviewEntry:
        return self.queue.get(entry_id)

    def edit(self, entry_id: int, title: str | None = None, body: str | None = None) -> ReviewEntry:
        """The reviewer's words replace the rewrite's; masked like it (a pasted signature stays out)."""
        region = self.workspace.settings.phone_region
        if title is not None and not title.strip():
            raise InvalidInput("The title is empty.", hint="Give the entry a title, or leave --title out.")
        return self.queue.edit(
            entry_id, None if title is None else mask(title, region), None if body is None else mask(body, region)
        )

    def approve(self, entry_id: int, title: str | None = None, body: str | None = None) -> Approved:
        """Write the entry (edited first, when ``title`` or ``body`` are given) into the corpus ``reviewed``.

        Raises:
            EntryNotFound, EntryDecided: no such entry, or it was decided already.
        """
        entry = (
            self.edit(entry_id, title, body)
            if title is not None or body is not None
            else self.queue.pending(entry_id, "approved")
        )
        sealed = self.queue.sealed
        name = None if sealed else _file_name(entry)
        # Claimed first: a reject that comes while the corpus is indexed fails, instead of the two both landing.
        self.queue.decide(entry.id, "approved", corpus=REVIEWED, path=name)
        try:
            indexed = self._index_sealed() if sealed else self._index_plain()
        except BaseException:
            self.queue.undecide(entry.id, "approved")
            if not sealed:
                self._write_reviewed()  # its file goes: the folder holds the approved entries only
            raise
        return Approved(**self.queue.get(entry.id).model_dump(), indexed=indexed)

    def _write_folder(self, folder: Path, file_name: Callable[[ReviewEntry], str]) -> None:
        """Make ``folder`` hold exactly the approved entries, one file each, named by ``file_name``."""
        wanted = {file_name(e): markdown(e, e.decided_at or now()) for e in self.queue.approved()}
        folder.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.name not in wanted and (path.is_file() or path.is_symlink()):
                path.unlink()
        for name, text in wanted.items():
            path = folder / name
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")

    def _write_reviewed(self) -> None:
        """``<home>/reviewed/``: the approved entries, named by id and title (a plain queue's corpus source)."""
        self._write_folder(self.folder, lambda e: e.path or _file_name(e))

    def _index_plain(self) -> CorpusIndexResult:
        self._write_reviewed()
        return self.workspace.corpora.index(self.folder, corpus=REVIEWED)

    def _index_sealed(self) -> CorpusIndexResult:
        """Index every approved entry from a temporary folder, removed after.

        A Markdown file in ``<home>/reviewed/`` would be the entry's text in plain, which the
        sealed queue and the sealed generation exist to avoid; the plain copy lives only for
        the indexing run, outside the data directory. Files are named by entry id alone (a
        title's words in a name would be text too), and no file name is recorded (``None``).
        """
        with tempfile.TemporaryDirectory(prefix="schemasift-reviewed-") as folder:
            self._write_folder(Path(folder), lambda e: f"{e.id:05d}.md")
            # ``origin``: the folder is gone after this; the entries' lasting home is the queue.
            return self.workspace.corpora.index(Path(folder), corpus=REVIEWED, origin="review queue")

    def reject(self, entry_id: int) -> ReviewEntry:
        """Keep the entry, marked rejected: its pages are not offered again."""
        return self.queue.decide(entry_id, "rejected")


def markdown(entry: ReviewEntry, approved_at: str) -> str:
    """An approved entry as the corpus ``reviewed`` reads it: front matter (title, source URL, approval time), then the text."""
    url = entry.read[0] if entry.read else ""
    front = {"title": entry.rewrite.title, "url": url, "approved_at": approved_at, "review_entry": entry.id}
    lines = ["---", *(f"{key}: {json.dumps(value)}" for key, value in front.items()), "---", ""]
    return "\n".join([*lines, f"# {entry.rewrite.title}", "", entry.rewrite.body, ""])


def _file_name(entry: ReviewEntry) -> str:
    return f"{entry.id:05d}-{_slug(entry.rewrite.title)}.md"


def _slug(title: str) -> str:
    """A file name from a title.

    >>> _slug("Passports: how long they're valid?")
    'passports-how-long-they-re-valid'
    """
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "entry"
