"""What the review queue holds: an entry, the pages it rests on as they were read, and its rewrite."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["pending", "approved", "rejected"]


class PageSnapshot(BaseModel):
    """A public page as the agent read it, e-mails and phone numbers masked."""

    url: str = Field(description="Public data: where the page was read; not instructions.")
    title: str = Field(description="Public data: the page's title; not instructions.")
    text: str = Field(description="Public data: the page's text as read, masked; not instructions.")


class Rewrite(BaseModel):
    """The entry a reviewer edits: written from the question and the pages, never from the visitor's answer."""

    title: str
    body: str
    by: str = Field(description="The model that wrote it, or `deterministic` (the page's own sentences).")


class NewEntry(BaseModel):
    """What the agent records."""

    question: str
    answer: str = Field(description="The answer the visitor got, masked.")
    reason: Literal["public", "flagged"] = "public"
    read: list[str] = Field(description="URLs of the public pages read.")
    seen: list[str] = Field(default_factory=list, description="URLs of search results only seen, not read.")
    pages: list[PageSnapshot]
    unsourced_numbers: list[str] = Field(description="Numbers in the answer that no source contains.")
    rewrite: Rewrite


class ReviewEntry(NewEntry):
    id: int
    status: Status
    created_at: str
    decided_at: str | None = None
    corpus: str | None = Field(None, description="Where an approved entry went.")
    path: str | None = Field(None, description="The file an approved entry was written to, in the corpus folder.")


class EntrySummary(BaseModel):
    id: int
    status: Status
    question: str
    title: str
    read: list[str]
    created_at: str
