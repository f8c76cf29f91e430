"""Personal data masked before indexing: what no search may find and no answer may quote."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import REPO

PRODUCT = REPO / "sample_docs" / "product"


def _indexed(tmp_path, **settings) -> Workspace:
    workspace = Workspace(Settings(home=tmp_path, dense=False, **settings))
    workspace.corpora.index(PRODUCT, corpus="product")
    return workspace


def _text(workspace: Workspace, question: str) -> str:
    return "\n".join(r.text for r in workspace.corpora.search("product", question, 10).results)


def test_masked_contacts_are_neither_stored_nor_found(tmp_path):
    workspace = _indexed(tmp_path, docs_mask_personal=True)
    found = _text(workspace, "support phone number e-mail address")
    assert "[phone]" in found and "[e-mail]" in found
    assert "23125" not in found and "@acme-notes.example" not in found
    stored = "\n".join(
        p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file() and p.suffix in {".json", ".jsonl"}
    )
    assert "support@acme-notes.example" not in stored and "+49 30 23125 100" not in stored
    searched = workspace.corpora.search("product", "support@acme-notes.example", 5).results
    assert all("@acme-notes.example" not in r.text for r in searched)  # the address is nowhere to be found
    masked = workspace.corpora.info("product").source["masked"]
    assert masked["e-mail addresses"] >= 5 and masked["phone numbers"] == 2  # +49 ... and +1 415 ...


def test_off_by_default_the_documents_keep_them(tmp_path):
    workspace = _indexed(tmp_path)
    assert "+49 30 23125 100" in _text(workspace, "support phone number")
    assert "masked" not in workspace.corpora.info("product").source


def test_a_region_that_is_not_a_country_code_is_refused():
    with pytest.raises(ValidationError, match="phone_region"):
        Settings(phone_region="Germany")
