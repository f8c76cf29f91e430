"""A catalog indexed by release 0.1 (before the core was shared with documents) still opens and ranks the same.

``tests/fixtures/legacy_home`` was written by ``schemasift index sample_schemas/shop.sql
--catalog shop --dialect sqlite`` at commit 635bf55, dense channel included, and is
committed as it was written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from schema_search.settings import Settings
from schema_search.workspace import Workspace

from ..conftest import SAMPLES

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_home"
QUESTIONS = [
    json.loads(line)["question"] for line in (SAMPLES / "shop_cases.jsonl").read_text().splitlines() if line.strip()
]


def test_a_previous_release_catalog_opens_and_answers_exactly_as_a_fresh_index(tmp_path):
    shutil.copytree(LEGACY, tmp_path / "legacy")  # a writer's lock file must not touch the repository
    legacy = Workspace(Settings(home=tmp_path / "legacy", embedding_threads=1))
    manifest = legacy.catalogs.store.current("shop").manifest()
    assert "format" not in manifest  # really written by the old release
    fresh = Workspace(Settings(home=tmp_path / "fresh", embedding_threads=1))
    fresh.catalogs.index(str(SAMPLES / "shop.sql"), catalog="shop", dialect="sqlite")
    assert legacy.catalogs.info("shop").tables == fresh.catalogs.info("shop").tables
    for question in QUESTIONS:
        old = legacy.catalogs.search("shop", question, 5).model_dump()
        new = fresh.catalogs.search("shop", question, 5).model_dump()
        # The old generation has no ``descriptions`` or ``values`` field, so no such
        # channels; a fresh DDL index has both, empty (nothing described, no rows), and
        # they match nothing: the answers are the same.
        for candidate in new["candidates"]:
            for field in ("descriptions", "values"):
                assert candidate["channels"].pop(field) is None, question
        # A fresh index types a view's columns where the DDL says (category_id INTEGER, from
        # categories); the old release left them all untyped. Their names are the same.
        for answer in (old, new):
            for candidate in answer["candidates"]:
                if candidate["kind"] == "view":
                    candidate.pop("ddl"), candidate.pop("ddl_trimmed")
                    candidate["columns"] = [c["name"] for c in candidate["columns"]]
        # The levels are each generation's calibration against unrelated text, which the old
        # release measured with other sentences; the distances themselves are the same. The
        # fresh index weighs its two empty channels 0, which the old one does not have.
        for answer in (old, new):
            answer.pop("unrelated_distance"), answer.pop("floor_distance")
        assert {c: w for c, w in new.pop("channel_weights").items() if w} == old.pop("channel_weights"), question
        assert old == new, question
