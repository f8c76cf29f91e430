"""Scratch PostgreSQL databases a superuser fills with planted objects (needs root, as CI runs)."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import make_url

PG_URL = os.environ.get(
    "SCHEMA_SEARCH_TEST_PG_URL", "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
)
# The read-only role scripts/setup_postgres.sh creates: the owner grants it SELECT per scratch schema.
PG_READER_URL = (
    make_url(PG_URL)
    .set(username="schema_search_reader", password="schema_search_reader")
    .render_as_string(hide_password=False)
)


def as_superuser(database: str, sql: str) -> str:
    """Run ``sql`` through psql as the postgres superuser; its output, or RuntimeError with psql's."""
    done = subprocess.run(
        ["su", "postgres", "-c", f"psql -X -q -tA -v ON_ERROR_STOP=1 -p {make_url(PG_URL).port or 5432} -d {database}"],
        input=sql,
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
    )
    if done.returncode:
        raise RuntimeError(done.stderr.strip())
    return done.stdout


@contextmanager
def scratch_database(planted: str, prefix: str = "ss_planted") -> Iterator[tuple[str, str]]:
    """A fresh database ``planted`` was run in as superuser: (the reader's URL to it, its name).

    Skips where no superuser can be reached (not root); fails instead on CI, where one must be.
    """
    if os.geteuid() != 0:
        pytest.skip("planting functions needs a PostgreSQL superuser (run as root, as CI does)")
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    try:
        as_superuser("postgres", f"CREATE DATABASE {name}")
    except (RuntimeError, FileNotFoundError) as error:
        if os.environ.get("CI"):
            pytest.fail(f"cannot create a database as superuser: {error}")
        pytest.skip(f"cannot create a database as superuser: {error}")
    try:
        as_superuser(name, planted)
        yield make_url(PG_READER_URL).set(database=name).render_as_string(hide_password=False), name
    finally:
        as_superuser("postgres", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
