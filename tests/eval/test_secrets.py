"""A database password reaches no output, log, error, stored file or report (eval/reliability/secrets.py).

The PostgreSQL paths need the role ``python -m eval.reliability.secrets --print-pg-setup``
creates on the server of ``SCHEMA_SEARCH_TEST_PG_URL`` (or a URL in
``SCHEMA_SEARCH_TEST_PG_SECRET_URL``); without it only the failing paths run, and the
test that needs a successful index is skipped.
"""

from __future__ import annotations

import os

import pytest

from eval.reliability import secrets

# Leaks found and reported, each with the place to fix; strict, so a fix shows up here.
# Leaks found and fixed since: each case must stay clean.
KNOWN: dict[str, str] = {}


@pytest.fixture(scope="module")
def artifacts() -> secrets.Artifacts:
    return secrets.collect(os.environ.get(secrets.PG_ENV) or secrets.default_pg_url())


def _known(name: str) -> bool:
    return any(case in name for case in KNOWN)


def test_the_password_is_found_whole_encoded_and_in_parts():
    assert secrets.occurrences(secrets.PASSWORD.encode()) == 1
    assert secrets.occurrences(b"postgresql://u:pw-Zq81xK-s%40cret%2F9@h/db") == 1
    assert secrets.occurrences(b"u:***@Zq81xK") == 1
    assert secrets.occurrences(b"postgresql://u:***@cret/9%40127.0.0.1/db") == 1  # the tail, after a split at '@'
    assert secrets.occurrences(b"postgresql://u:***@127.0.0.1/db") == 0


def test_no_artifact_holds_the_password(artifacts):
    leaking = {
        name: secrets.occurrences(data)
        for name, data in artifacts.found.items()
        if not _known(name) and secrets.occurrences(data)
    }
    assert leaking == {}
    assert len(artifacts.found) > 30  # the paths ran: CLI, HTTP, settings, logs


def test_a_successful_index_from_postgresql_is_searched_too(artifacts):
    if artifacts.notes:
        pytest.skip(artifacts.notes[0])
    assert b"Indexed catalog 'pgcli': 2 tables" in artifacts.found["cli index from the URL: stdout"]
    assert any(name.startswith("http index from the URL: 200") for name in artifacts.found)
    assert any(name.startswith("data dir: catalogs/pghttp/gen-") for name in artifacts.found)
    assert b'"rows"' in artifacts.found["ask --execute, the URL in SCHEMA_SEARCH_SOURCE_URLS: stdout"]
    assert any(name.startswith("mcp pgcli: get_table") for name in artifacts.found)


def test_the_report_masks_what_it_quotes(artifacts):
    part = secrets.part(artifacts)
    assert part.counts["artifacts"] == len(artifacts.found)
    assert all(secrets.occurrences(line.encode()) == 0 for line in part.details)
