"""Header blocks read as :mod:`email.parser` reads them: installed packages' ``METADATA`` and the PEPs."""

from __future__ import annotations

import email.parser
import email.policy
import importlib.metadata
from pathlib import Path

import pytest

from schema_search.docs.readers.headers import header_block

from ..conftest import SHARED


def _email_fields(text: str) -> dict[str, tuple[str, ...]]:
    """The header fields as email.parser reads them, unfolded the way a reader sees them."""
    message = email.parser.HeaderParser(policy=email.policy.compat32).parsestr(text, headersonly=True)
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        fields.setdefault(key, []).append(" ".join(line.strip() for line in str(value).splitlines() if line.strip()))
    return {key: tuple(values) for key, values in fields.items()}


def _metadata_files() -> list[Path]:
    files = []
    for distribution in importlib.metadata.distributions():
        path = distribution.locate_file(distribution._path / "METADATA")  # type: ignore[attr-defined]
        if Path(path).is_file():
            files.append(Path(path))
    return sorted(set(files))


def test_a_line_of_spaces_continues_a_folded_value_and_the_fields_after_it_are_kept():
    # As in METADATA's License field: a blank line inside the value is written as spaces.
    text = "Metadata-Version: 2.1\nName: demo\nLicense: MIT License\n        \n        Copyright (c) 2024\nVersion: 1.0\n\nBody\n"
    fields, rest = header_block(text)
    assert fields == {
        "Metadata-Version": ("2.1",),
        "Name": ("demo",),
        "License": ("MIT License Copyright (c) 2024",),
        "Version": ("1.0",),
    }
    assert rest == "Body\n"


def test_a_line_of_spaces_before_prose_still_ends_the_block():
    fields, rest = header_block("PEP: 1\nTitle: Purpose\n   \nThis PEP says why.\n")
    assert fields == {"PEP": ("1",), "Title": ("Purpose",)}
    assert rest == "This PEP says why.\n"


def test_every_installed_package_metadata_reads_as_email_parser_reads_it():
    files = _metadata_files()
    assert len(files) > 50  # the venv's own packages: there are always this many
    differ = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        fields, _ = header_block(text)
        if fields != _email_fields(text.split("\n\n", 1)[0] + "\n\n"):
            differ.append(path.parent.name)
    assert not differ


@pytest.mark.skipif(not (SHARED / "docs_corpora" / "peps").is_dir(), reason="PEP corpus not found")
def test_every_pep_header_reads_as_email_parser_reads_it():
    files = sorted((SHARED / "docs_corpora" / "peps").rglob("pep-*.rst")) or sorted(
        (SHARED / "docs_corpora" / "peps").rglob("*.rst")
    )
    assert len(files) > 600
    differ = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        fields, _ = header_block(text)
        if fields != _email_fields(text.split("\n\n", 1)[0] + "\n\n"):
            differ.append(path.name)
    assert not differ
