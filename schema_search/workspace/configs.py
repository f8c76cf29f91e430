"""The one place where settings become the typed configs the layers below take.

Nothing under the workspace is handed :class:`~schema_search.settings.Settings`: ranking,
chunking, value sampling, collection queries and the execute gate each take a small
config object made here, so each layer can be used (and tested) without the settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.embedders import Embedder
from ..core.sealing import Vault, load_kek
from ..docs.chunker import Chunking
from ..docs.search import DocsSearchConfig
from ..errors import ExecutionOff
from ..settings import Settings
from ..structured.models import QueryRequest
from ..tables.search import SearchConfig

if TYPE_CHECKING:  # imported where used: connectors load database drivers, the gate sqlglot
    from ..connectors.values import ValueHints
    from ..preflight.gate import GateConfig


def configured_kek(s: Settings) -> bytes | None:
    """The key-encryption key the settings name (a file, else base64), or None when encryption is off.

    Raises:
        InvalidInput: the configured key file is missing, unreadable or not 32 bytes.
    """
    return load_kek(s.kek_file, s.kek.get_secret_value() if s.kek else None)


def vault(s: Settings) -> Vault:
    """The data key of the data directory ``s.home``, under the configured key-encryption key (``core.sealing``).

    Raises:
        InvalidInput: the configured key file is missing, unreadable or not 32 bytes.
    """
    return Vault(s.home, configured_kek(s))


def search_config(s: Settings) -> SearchConfig:
    """How tables are ranked."""
    return SearchConfig(
        weights=s.weights(),
        rrf_k=s.rrf_k,
        depth=s.channel_depth,
        scale_by_coverage=s.scale_by_coverage,
        graph_boost=s.graph_boost,
        pin_identifiers=s.pin_identifiers,
        relevance_floor=s.relevance_floor,
        complete_joins=s.complete_joins,
        complete_entities=s.complete_entities,
    )


def docs_config(s: Settings) -> DocsSearchConfig:
    """How passages are ranked."""
    return DocsSearchConfig(
        weights=s.docs_weights(),
        rrf_k=s.docs_rrf_k,
        depth=s.channel_depth,
        scale_by_coverage=s.scale_by_coverage,
        pin_identifiers=s.pin_identifiers and s.docs_pin_share > 0,
        pin_share=s.docs_pin_share,
        pin_gap=s.docs_pin_gap,
        relevance_floor=s.relevance_floor,
        page_weight=s.docs_weight_pages,
        per_page=s.docs_per_page,
        group_pages=s.docs_group_pages,
    )


def chunking(s: Settings, counter: Embedder | None) -> Chunking:
    """Chunk sizes from the settings, capped by the embedding model's window when it counts the tokens."""
    cap = getattr(counter, "max_tokens", Chunking.max_tokens)
    return Chunking(min(s.docs_chunk_tokens, cap), s.docs_chunk_overlap, cap, counter)


def value_hints(s: Settings) -> ValueHints | None:
    """How many values a live database lends the index, and within what time; ``None`` when off."""
    from ..connectors.values import ValueHints

    if not s.value_hints:
        return None
    return ValueHints(
        max_rows=s.value_hints_max_rows,
        max_values=s.value_hints_max_values,
        max_chars=s.value_hints_max_chars,
        timeout_s=s.value_hints_timeout_s,
        budget_s=s.value_hints_budget_s,
        allow_contacts=s.value_hints_allow_contacts,
    )


@dataclass(frozen=True)
class QueryLimits:
    """What one collection query may take."""

    max_rows: int
    timeout_s: float
    memory_limit: str
    memory_bytes: int
    max_bytes: int


def query_limits(s: Settings, request: QueryRequest) -> QueryLimits:
    """The limits of a collection query: the request may ask for fewer rows, never more."""
    return QueryLimits(
        max_rows=min(request.max_rows or s.query_max_rows, s.query_max_rows),
        timeout_s=s.query_timeout_s,
        memory_limit=s.query_memory_limit,
        memory_bytes=s.query_process_memory_mb * 2**20,
        max_bytes=s.execute_max_bytes,
    )


def gate_config(s: Settings, name: str, url: str | None = None) -> GateConfig:
    """How queries run on catalog ``name``: its database URL (unless ``url`` is given), the
    operator's instructions and defaults (config file), and the execution limits.

    Raises:
        ExecutionOff: no database is configured for it: running queries on it is off.
        SecretUnavailable: its password's environment variable is unset or its file unreadable.
    """
    from ..preflight.gate import VERDICTS_FILE, GateConfig
    from ..preflight.verdicts import VerdictLog

    url = url or s.execution_url(name)
    if url is None:
        raise ExecutionOff(
            f"Running queries on catalog {name!r} is off: no database is configured for it.",
            hint=f"Name its database in the config file ([catalogs.{name}] url = ..., with password_env or "
            "password_file) or in SCHEMA_SEARCH_SOURCE_URLS, and restart the server.",
        )
    configured = s.sources.catalogs.get(name)
    return GateConfig(
        url=url,
        log=VerdictLog(s.home / VERDICTS_FILE),
        instructions=configured.instructions if configured else "",
        defaults=dict(configured.defaults) if configured else {},
        max_rows=s.execute_max_rows,
        timeout_s=s.execute_timeout_s,
        max_bytes=s.execute_max_bytes,
        memory_mb=s.execute_process_memory_mb,
        allow_privileged=s.execute_allow_privileged_role,
        trusted_objects=tuple(s.execute_trusted_objects),
    )
