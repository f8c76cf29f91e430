"""What the eval suite's commands share: cut-offs and the embedding threads a measurement runs with.

Each command runs through the product's own command-line contract
(:func:`schema_search.cli.main.command_line`): the same global options, settings and
error messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schema_search.errors import InvalidInput
from schema_search.settings import Settings


def cutoffs(asked: list[int] | None, default: Sequence[int]) -> list[int]:
    """The -k cut-offs, sorted and checked."""
    ks = sorted(set(asked or default))
    if ks[0] < 1:
        raise InvalidInput(f"-k {ks[0]} is out of range.", hint="Use cut-offs of 1 or more.")
    return ks


def one_embedding_thread(settings: Settings) -> Settings:
    """Settings with one embedding thread, unless the user chose a number.

    One-question encodes: a second thread rarely helps, and on a busy machine two
    contending threads ran ~10x slower (125 ms instead of 11 ms a question).
    """
    if settings.embedding_threads is not None:
        return settings
    return settings.model_copy(update={"embedding_threads": 1})


def write_json(path: Path | None, figures: Any) -> None:
    """Write an eval's figures to ``path`` (the ``--out`` or ``--json`` a script was given), if any."""
    if path is not None:
        path.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
