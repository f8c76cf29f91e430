"""The review desk of one workspace: what the CLI, the HTTP API and the web page call.

Approving writes the entry as a Markdown file (front matter: title, source URL, approval
time) into ``<home>/reviewed/`` and indexes that folder again as the corpus ``reviewed``,
with the workspace's own folder indexing: the next search of that corpus finds it.

With a key-encryption key configured, no Markdown is left in the data directory: the approved
entries stay sealed in the queue, and each approval writes all of them into a temporary folder
outside it, indexes that as ``reviewed`` (a sealed generation), and removes the folder.
"""

from __future__ import annotations

import json
import re
import tempfile
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
        if self.queue.sealed:
            indexed, name = self._index_sealed(entry)
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"{entry.id:05d}-{_slug(entry.rewrite.title)}.md"
            path.write_text(markdown(entry, now()), encoding="utf-8")
            indexed, name = self.workspace.corpora.index(self.folder, corpus=REVIEWED), path.name
        decided = self.queue.decide(entry_id, "approved", corpus=REVIEWED, path=name)
        return Approved(**decided.model_dump(), indexed=indexed)

    def _index_sealed(self, entry: ReviewEntry) -> tuple[CorpusIndexResult, None]:
        """Index every approved entry and ``entry`` from a temporary folder, removed after.

        A Markdown file in ``<home>/reviewed/`` would be the entry's text in plain, which the
        sealed queue and the sealed generation exist to avoid; the plain copy lives only for
        the indexing run, outside the data directory. Files are named by entry id alone (a
        title's words in a name would be text too), and no file name is recorded (``None``).
        """
        with tempfile.TemporaryDirectory(prefix="schemasift-reviewed-") as folder:
            for each in [*self.queue.approved(), entry]:
                approved_at = each.decided_at or now()
                (Path(folder) / f"{each.id:05d}.md").write_text(markdown(each, approved_at), encoding="utf-8")
            # ``origin``: the folder is gone after this; the entries' lasting home is the queue.
            return self.workspace.corpora.index(Path(folder), corpus=REVIEWED, origin="review queue"), None

    def reject(self, entry_id: int) -> ReviewEntry:
        """Keep the entry, marked rejected: its pages are not offered again."""
        return self.queue.decide(entry_id, "rejected")


def markdown(entry: ReviewEntry, approved_at: str) -> str:
    """An approved entry as the corpus ``reviewed`` reads it: front matter (title, source URL, approval time), then the text."""
    url = entry.read[0] if entry.read else ""
    front = {"title": entry.rewrite.title, "url": url, "approved_at": approved_at, "review_entry": entry.id}
    lines = ["---", *(f"{key}: {json.dumps(value)}" for key, value in front.items()), "---", ""]
    return "\n".join([*lines, f"# {entry.rewrite.title}", "", entry.rewrite.body, ""])


def _slug(title: str) -> str:
    """A file name from a title.

    >>> _slug("Passports: how long they're valid?")
    'passports-how-long-they-re-valid'
    """
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "entry"
