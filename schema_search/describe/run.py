"""Generated table descriptions: a cached, concurrent run of any :class:`~.describer.Describer`.

A description bridges the words users ask with ("monthly cost per member") and the
words tables are named with (``v_pmpm``). It goes into the table's own
generated-description slot (:class:`~schema_search.tables.catalog.Description`) and from
there into the index's *descriptions* field, which no other field shares (see
``tables.documents``); the database's own comments are never overwritten.

* :class:`~.describer.Describer` is the one method a backend implements; tests use a fake.
* :class:`~schema_search.describe.litellm_describer.LiteLLMDescriber` calls any litellm
  model (``openai/...``, ``anthropic/...``, ``ollama/...``, an OpenAI-compatible
  ``api_base``) and the embedded default ``local/smollm2`` (see :mod:`schema_search.llm.local`), with a
  timeout per call and retries with backoff. Keys come from the provider's usual
  environment variables (``OPENAI_API_KEY``, ...) and are never logged.
* :func:`describe_catalog` skips tables whose description is fresh (same content
  hash, model and prompt version), runs the rest on a thread pool, and hands each
  description to a callback as soon as it exists, so progress survives a crash.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from ..errors import SchemaSearchError
from ..settings import Settings
from ..tables.catalog import Catalog, Description, Table
from .describer import Describer, EmptyDescription, ProviderUnavailable
from .descriptions import DescriptionKey, DescriptionLog, read_descriptions
from .prompt import PROMPT_VERSION, table_context

if TYPE_CHECKING:
    from ..workspace import Workspace
    from .litellm_describer import LiteLLMDescriber

__all__ = ["PROMPT_VERSION", "Describer", "describe_catalog", "describe_and_index", "litellm_describer"]

Only = Literal["changed", "all"]

# Failures of the first tables that stop a run: when nothing has worked yet, the cause
# is the model or its settings, not the tables. Later failures are counted, not fatal.
STOP_AFTER_FAILURES = 5


# -- the run ------------------------------------------------------------------------------


@dataclass
class DescribeRun:
    """What :func:`describe_catalog` did.

    Attributes:
        catalog: the input catalog with every description it has now.
        described: tables described by the model in this run.
        reused: tables whose description came from the cache (not the live catalog).
        fresh: tables that already had a fresh description.
        failed: table id -> why, for tables that could not be described.
        empty: tables the model answered without a usable description (only code).
        stopped: set when the provider refused or was unreachable; the run stopped there.
        interrupted: Ctrl-C stopped the run; what was described before is in ``catalog``.
        seconds: wall time of the model calls.
    """

    catalog: Catalog
    described: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    fresh: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    stopped: tuple[str, ProviderUnavailable] | None = None
    interrupted: bool = False
    seconds: float = 0.0


def is_fresh(description: Description | None, table: Table, model: str) -> bool:
    """Whether ``description`` still describes ``table`` as ``model`` would with this prompt.

    >>> t = Table("s", "orders")
    >>> is_fresh(Description("x", "m", PROMPT_VERSION, "2025", t.content_hash()), t, "m")
    True
    >>> is_fresh(Description("x", "other", PROMPT_VERSION, "2025", t.content_hash()), t, "m")
    False
    """
    return (
        description is not None
        and description.content_hash == table.content_hash()
        and description.model == model
        and description.prompt_version == PROMPT_VERSION
    )


def describe_catalog(
    catalog: Catalog,
    describer: Describer,
    *,
    only: Only = "changed",
    concurrency: int = 4,
    cache: Mapping[DescriptionKey, Description] | None = None,
    on_described: Callable[[str, Description], None] | None = None,
    progress: Callable[[int], Callable[[], None]] | None = None,
) -> DescribeRun:
    """Describe the tables of ``catalog`` that need it.

    Args:
        catalog: the live catalog.
        describer: writes each description.
        only: ``"changed"`` skips tables with a fresh description (in the catalog or in
            ``cache``); ``"all"`` describes every table again.
        concurrency: calls in flight at once.
        cache: earlier descriptions by (table id, content hash), e.g. from an
            interrupted run.
        on_described: called with each new description as soon as it exists (on the
            calling thread, so it may write a file without a lock).
        progress: called once with the number of tables to describe; returns the
            function to call after each one.

    Returns:
        The run; ``run.catalog`` has the new descriptions. A refused or unreachable
        provider (``run.stopped``) or Ctrl-C (``run.interrupted``) stops the run but
        keeps what was described.
    """
    run = DescribeRun(catalog)
    todo, chosen = _plan(catalog, describer.model, only, cache or {}, run)
    tick = progress(len(todo)) if progress else (lambda: None)
    started = time.perf_counter()
    stop = threading.Event()

    def work(table: Table) -> Description | None:
        if stop.is_set():
            return None
        try:
            text = describer.describe(table, table_context(catalog, table))
        except ProviderUnavailable:
            stop.set()  # here, not in the caller: this worker's next table must not start
            raise
        return Description(text, describer.model, PROMPT_VERSION, _now(), table.content_hash())

    early_failures = 0  # provider errors before the first success

    def take(table: Table, future: Future) -> None:
        nonlocal early_failures
        try:
            description = future.result()
        except ProviderUnavailable as error:
            run.stopped = run.stopped or (table.id, error)
            return
        except EmptyDescription:  # a weak model's answer, not a broken provider
            run.empty.append(table.id)
            tick()
            return
        except Exception as error:  # one table's trouble must not lose the others
            run.failed[table.id] = str(error) or type(error).__name__
            early_failures += 1
            if early_failures >= STOP_AFTER_FAILURES and not run.described and run.stopped is None:
                run.stopped = (table.id, _too_many_failures(describer, run.failed[table.id]))
                stop.set()
            tick()
            return
        if description is None:  # skipped: the run was stopping
            return
        chosen[table.id] = description
        run.described.append(table.id)
        if on_described:
            on_described(table.id, description)
        tick()

    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="describe") as pool:
        pending: dict[Future, Table] = {pool.submit(work, t): t for t in todo}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in [f for f in pending if f in done]:  # in submission order
                    take(pending.pop(future), future)
        except KeyboardInterrupt:
            run.interrupted = True
        finally:
            stop.set()
            for future in pending:
                future.cancel()
            # Calls already running finish anyway (a thread cannot be killed): keep their work.
            for future, table in pending.items():
                if not future.cancelled():
                    take(table, future)
    run.seconds = time.perf_counter() - started
    run.catalog = catalog.with_tables(
        replace(t, description=chosen[t.id]) if t.id in chosen else t for t in catalog.tables
    )
    return run


def _plan(
    catalog: Catalog, model: str, only: Only, cache: Mapping[DescriptionKey, Description], run: DescribeRun
) -> tuple[list[Table], dict[str, Description]]:
    """Which tables to describe, and which get a fresh description from the cache."""
    todo: list[Table] = []
    chosen: dict[str, Description] = {}
    for table in catalog.tables:
        if only == "all":
            todo.append(table)
            continue
        cached = cache.get((table.id, table.content_hash()))
        options = [d for d in (table.description, cached) if is_fresh(d, table, model)]
        if not options:
            todo.append(table)
        elif (best := max(options, key=lambda d: d.generated_at)) is table.description:
            run.fresh += 1
        else:
            chosen[table.id] = best
            run.reused.append(table.id)
    return todo, chosen


def _too_many_failures(describer: Describer, last: str) -> ProviderUnavailable:
    model = describer.model
    provider = getattr(describer, "provider", model.split("/", 1)[0])
    return ProviderUnavailable(
        model,
        provider,
        f"the first {STOP_AFTER_FAILURES} tables could not be described; the last said: {last}",
        "Check the model and its settings (--model, SCHEMA_SEARCH_DESCRIBE_*), "
        "or use the embedded model: --model local/smollm2.",
    )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- a stored catalog -----------------------------------------------------------------------

CACHE_FILE = "descriptions.jsonl"  # under catalogs/<name>/, beside the generations


class DescribeError(SchemaSearchError):
    """The description provider refused or was unreachable; what was described is kept."""

    status = 502


def litellm_describer(settings: Settings, model: str | None = None) -> LiteLLMDescriber:
    """The describer the settings ask for (``model`` overrides ``describe_model``).

    Raises:
        DescribeError: the provider is unknown, or its key is not set (checked before litellm loads).
    """
    from ..llm.providers import missing_key

    model = model or settings.describe_model
    key = missing_key(model, settings.describe_api_base)
    if key:
        raise DescribeError(
            f"Cannot describe with {model!r}: {key} is not set.",
            hint=f"Set {key} in the environment (keys are read only from there). "
            "Or use the embedded model: --model local/smollm2 (no key, no network).",
        )
    from .litellm_describer import LiteLLMDescriber  # imports litellm (~2.5 s): only when describing

    try:
        return LiteLLMDescriber(
            model,
            api_base=settings.describe_api_base,
            timeout=settings.describe_timeout,
            retries=settings.describe_retries,
            max_tokens=settings.describe_max_tokens,
            threads=settings.describe_threads,
        )
    except ProviderUnavailable as error:
        raise DescribeError(f"Cannot describe with {error.model!r}: {error.reason}.", hint=error.hint) from None


def describe_and_index(
    workspace: Workspace,
    name: str,
    describer: Describer,
    *,
    only: Only = "changed",
    concurrency: int | None = None,
    progress: Callable[[int], Callable[[], None]] | None = None,
) -> DescribeRun:
    """Describe a stored catalog's tables and index the result as a new generation.

    Each description is appended to ``catalogs/<name>/descriptions.jsonl`` the moment
    it exists, so an interrupted run (a crash, Ctrl-C, a refused key) resumes where it
    stopped; after Ctrl-C or a refusal, what was described is indexed before returning.

    Re-indexing writes a new generation, and only when some description changed. The
    tantivy index is rebuilt whole (unchanged tables get the same documents; ~0.25 s
    per 1,000 tables); the dense channel re-embeds only tables whose text changed.

    Raises:
        DescribeError: the provider refused or was unreachable; the tables described
            before that are indexed first, so nothing is lost.
    """
    live = workspace.catalogs.searcher(name).catalog
    log = DescriptionLog(workspace.catalogs.store.root / name / CACHE_FILE)
    concurrency = concurrency or workspace.settings.describe_concurrency
    concurrency = min(concurrency, getattr(describer, "max_concurrency", None) or concurrency)
    run = describe_catalog(
        live,
        describer,
        only=only,
        concurrency=concurrency,
        cache=read_descriptions(log.path),
        on_described=log.append,
        progress=progress,
    )
    if run.catalog != live:
        workspace.catalogs.index_catalog(run.catalog)
    ids = {t.id for t in live.tables}
    log.compact((key[0], d) for key, d in read_descriptions(log.path).items() if key[0] in ids)
    if run.stopped:
        table, error = run.stopped
        kept = len(run.described) + len(run.reused)
        raise DescribeError(
            f"Describing {table} with {error.model} (provider {error.provider}) failed: {error.reason}.",
            hint=f"{error.hint} The {kept} tables described in this run are kept and indexed; "
            "re-run the same command to continue.",
        )
    return run
