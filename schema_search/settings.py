"""The one Settings object. Every setting has a description; the README table is checked
against this class by the tests.

Values come from arguments, then ``SCHEMA_SEARCH_*`` environment variables, then the
config file's top-level keys (:mod:`.config`), then the defaults below. Nothing deeper
in the code reads the environment: settings are passed down.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import platformdirs
from pydantic import AliasChoices, Field, PrivateAttr, SecretStr, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .config import ConfigError, Sources, find_config, load_config, unknown_key
from .core.embedders import default_model_cache

# config_file's aliases: its environment variables' full names, the documented one first (the
# one pydantic takes when both are set). The sources hold its value under one of them, or
# under the field's name.
CONFIG_FILE_KEYS = ("schema_search_config_file", "schema_search_config")


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("schema-search", appauthor=False))


class Settings(BaseSettings):
    # hide_input_in_errors: a malformed SCHEMA_SEARCH_SOURCE_URLS must not print its passwords.
    # populate_by_name: Settings(config_file=...) by the field's name, which is not one of its aliases.
    model_config = SettingsConfigDict(
        env_prefix="SCHEMA_SEARCH_", extra="ignore", hide_input_in_errors=True, populate_by_name=True
    )

    config_file: Path | None = Field(
        None,
        # SCHEMA_SEARCH_CONFIG is the short name. The aliases are the variables' full names: an
        # alias is read from the environment as written, without the prefix, and a bare
        # CONFIG_FILE belongs to whatever else runs in the container.
        validation_alias=AliasChoices(*CONFIG_FILE_KEYS),
        description=(
            "TOML file naming the catalogs and corpora to serve (with database URLs and the operator's "
            "instructions) and settings by field name; default: `./schema-search.toml` when it exists. "
            "Also read from `SCHEMA_SEARCH_CONFIG`; never from a bare `CONFIG_FILE`."
        ),
    )
    home: Path = Field(
        default_factory=_default_home,
        description="Data directory holding one folder per catalog and per corpus (their index generations).",
    )
    default_k: int = Field(10, ge=1, description="Candidates returned when a request does not say k.")
    max_k: int = Field(100, ge=1, description="Largest k a request may ask for.")
    max_question_chars: int = Field(
        2000, ge=1, description="Longest question accepted; longer ones are refused (HTTP 413)."
    )
    rrf_k: float = Field(5.0, gt=0, description="Reciprocal Rank Fusion constant k (larger flattens ranks).")
    weight_names: float = Field(0.5, ge=0, description="Fusion weight of the names channel (identifiers).")
    weight_text: float = Field(1.0, ge=0, description="Fusion weight of the text channel (DB comments).")
    weight_body: float = Field(
        1.0, ge=0, description="Fusion weight of the body channel (names and comments, one field)."
    )
    weight_dense: float = Field(1.5, ge=0, description="Fusion weight of the dense (embedding) channel.")
    weight_descriptions: float = Field(
        1.0,
        ge=0,
        description=(
            "Fusion weight of the descriptions channel (generated descriptions), before each question "
            "scales it by the share of its words that only descriptions match."
        ),
    )
    weight_examples: float = Field(
        1.0,
        ge=0,
        description=(
            "Fusion weight of the examples channel: the tables read by the catalog's past queries nearest the "
            "question (`schemasift examples add`). 0: examples are neither searched nor shown."
        ),
    )
    examples_from_approved: bool = Field(
        True,
        description=(
            "Keep each query the execute checklist approved and ran, with the user's question, as a past query of "
            "its catalog (origin `approved`)."
        ),
    )
    weight_values: float = Field(
        1.0,
        ge=0,
        description="Fusion weight of the values channel (values sampled from a live database's text columns).",
    )
    dense: bool = Field(
        True,
        description=(
            "Build and use the dense channel (all-MiniLM-L6-v2, embedded in the install). "
            "Off: BM25 channels only, no model load."
        ),
    )
    embedding_threads: int | None = Field(
        None, ge=1, description="CPU threads for the embedding model (default: every core)."
    )
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        "onnx",
        description=(
            "What runs the embedding model: `onnx` (ONNX Runtime, the same vectors as torch, ~2x faster), "
            "`onnx-int8` (int8 weights, ~2x faster again, recall within half a point either way) or "
            "`torch` (sentence-transformers)."
        ),
    )
    model_cache: Path = Field(
        default_factory=default_model_cache,
        description="Folder for the ONNX files exported from the shipped model, once per machine.",
    )
    ray_address: str | None = Field(
        None,
        description=(
            "A Ray cluster to build on and serve shards from (also `--ray`): `local` starts one in this process, "
            "`auto` joins the one this machine is a node of (`ray start --head`, or `ray start --address`), "
            "`host:6379` names its head, `ray://host:10001` reaches it through Ray Client (not for builds: Ray Data "
            "needs a node of the cluster). Needs the ray extra (`pip install 'schemasift[ray]'`); unset: everything "
            "runs here."
        ),
    )
    ray_workers: int = Field(
        0,
        ge=0,
        description=(
            "Embedding actors a build on Ray runs at once; 0: one per GPU of the cluster with the torch backend, "
            "else one per SCHEMA_SEARCH_EMBEDDING_THREADS CPUs (one CPU each when that is unset)."
        ),
    )
    ray_batches_per_task: int = Field(
        1,
        ge=1,
        description=(
            "Model batches (64 texts each) one Ray task carries to an embedding actor: more batch the scheduling, "
            "fewer lose less work when a node dies."
        ),
    )
    shard_replicas: int = Field(
        1, ge=1, description="Replicas each shard of a sharded corpus starts with under `serve --ray`."
    )
    shard_max_replicas: int = Field(
        2,
        ge=1,
        description="Most replicas Ray Serve's autoscaling gives one shard under load (`serve --ray`).",
    )
    scale_by_coverage: bool = Field(
        True,
        description=(
            "Scale each channel's weight by the share of tables it has text for, so a sparse "
            "channel (comments on a few tables) cannot crowd out the ones that match."
        ),
    )
    graph_boost: float = Field(
        0.2,
        ge=0,
        description=(
            "How much a table gains from foreign-key neighbours among the top candidates "
            "(share of their fused score); 0 turns the stage off."
        ),
    )
    pin_identifiers: bool = Field(
        True, description="Put tables whose name (or a rare column name) the question writes verbatim first."
    )
    relevance_floor: bool = Field(
        True,
        description=(
            "Drop candidates the embedding model finds no nearer than unrelated text, unless pinned, read by a past "
            "query near the question, or matched by keywords (a table in its names, body or values; a passage by "
            "every meaningful word of the question); return none, flagged off_topic, when nothing is near and "
            "nothing matched that fully."
        ),
    )
    complete_joins: bool = Field(
        True, description="Add the bridge table two leading candidates need to be joined, marked added_for_join."
    )
    complete_entities: bool = Field(
        True,
        description=(
            "Bring up a table the leading candidates reference by foreign key when the question asks about it "
            "too (it ranks within the first 25), after the leaders, marked added_for_join."
        ),
    )
    channel_depth: int = Field(100, ge=1, description="How many matches each channel contributes to fusion.")
    value_hints: bool = Field(
        True,
        description=(
            "When indexing a live database (a SQLAlchemy URL: SQLite, DuckDB, PostgreSQL), sample the distinct "
            "values of short text columns (names, codes, statuses) so a question that names a stored value finds "
            "its table; never what looks like a secret, an identity, card or bank number, an IP or street address "
            "or a date of birth, nor e-mail addresses and phone numbers unless allowed. Off: no rows are read."
        ),
    )
    value_hints_max_rows: int = Field(
        1000, ge=1, description="Rows of each table the value sample reads (its first ones)."
    )
    value_hints_max_values: int = Field(
        50, ge=1, description="Distinct values kept per column, the most frequent first."
    )
    value_hints_max_chars: int = Field(
        40,
        ge=1,
        description="Longest value kept as a hint; a column of mostly longer values is free text and is left out.",
    )
    value_hints_timeout_s: float = Field(
        2.0, gt=0, description="Seconds one table's sample query may run; a slower table is skipped with a warning."
    )
    value_hints_budget_s: float = Field(
        30.0, gt=0, description="Seconds the value samples of one catalog may take together; later tables go unsampled."
    )
    value_hints_allow_contacts: bool = Field(
        False,
        description=(
            "Sample columns of e-mail addresses and phone numbers too. Secrets, government ids, card and bank "
            "numbers, IP addresses, dates of birth and street addresses are never sampled."
        ),
    )
    docs_chunk_tokens: int = Field(
        200,
        ge=48,
        description=(
            "Size a document chunk grows to, in the embedding model's tokens, context header and overlap "
            "included (the model reads at most 256)."
        ),
    )
    docs_chunk_overlap: int = Field(
        30, ge=0, description="Tokens of the previous chunk of the same section that a chunk repeats."
    )
    docs_weight_headings: float = Field(
        0.5, ge=0, description="Fusion weight of the documents' headings channel (title and heading path)."
    )
    docs_weight_body: float = Field(1.0, ge=0, description="Fusion weight of the documents' body channel (chunk text).")
    docs_weight_dense: float = Field(1.5, ge=0, description="Fusion weight of the documents' dense channel.")
    docs_rrf_k: float = Field(5.0, gt=0, description="Reciprocal Rank Fusion constant k for documents.")
    docs_pin_share: float = Field(
        0.05,
        ge=0,
        le=1,
        description=(
            "A verbatim reference in a question (PEP 572, HTTPException, 3.12) pins the chunks about it only "
            "when at most this share of the documents contain it; 0 turns pinning of chunks off."
        ),
    )
    docs_coverage_pass: bool = Field(
        True,
        description=(
            "When the passages found lack the question's subject or aspect (a price, a duration, a contact, "
            "refunds, compliance, retention, a trial, integrations), search once more for it and put what holds "
            "it in the place of the last passages."
        ),
    )
    next_batch: bool = Field(
        True,
        description=(
            "A search that names its session and turn ranks three times k once; a repeat of its question in the "
            "same turn gets the next k of that ranking, once."
        ),
    )
    docs_pin_gap: bool = Field(
        True,
        description=(
            "A reference in more than SCHEMA_SEARCH_DOCS_PIN_SHARE of the documents still pins the chunks nearest "
            "the question before a clear gap in their distances (none when they slope evenly); needs the dense channel."
        ),
    )
    docs_weight_pages: float = Field(
        1.0,
        ge=0,
        description=(
            "Fusion weight of the documents' page channel (BM25 over each page's title, headings and whole text), "
            "added to every passage of a matching page. 0: off."
        ),
    )
    docs_per_page: int = Field(
        2,
        ge=0,
        description=(
            "Most passages of one page among the first k of a document search; further ones follow the other "
            "pages' passages. 0: no cap."
        ),
    )
    docs_group_pages: bool = Field(
        False,
        description=(
            "List the passages of one page together in a document search, behind its best passage (off: in rank "
            "order, which fits more pages into a context budget)."
        ),
    )
    max_upload_files: int = Field(
        10_000, ge=1, description="Most files an uploaded document archive may hold (HTTP 413 above)."
    )
    allow_url_sources: bool = Field(
        False,
        description=(
            "Let HTTP callers index from a database URL (with the admin key). Off by default: "
            "a URL makes the server connect anywhere and open local files."
        ),
    )
    admin_key: SecretStr | None = Field(
        None,
        description=(
            "When set, every HTTP write (indexing) needs it in the X-Admin-Key header; indexing from a URL always does."
        ),
    )
    read_key: SecretStr | None = Field(
        None,
        description=(
            "When set, every HTTP read (lists, searches, tables, documents, eval reports) needs it, or the "
            "admin key, in the X-Read-Key header; the web page asks for it. Probes, /v1/server and the page "
            "itself need none."
        ),
    )
    space: str = Field(
        "default",
        description=(
            "The space the CLI's catalog and corpus commands act in (also `--space`); `default` is the data "
            "directory itself, any other space lives in `spaces/NAME/` under it (`schemasift spaces create NAME`)."
        ),
    )
    api_key: SecretStr | None = Field(
        None,
        description=(
            "A space's key (`schemasift keys create`): `schemasift mcp` then serves that space's catalogs and "
            "corpora only, and refuses to start with an unknown or revoked key."
        ),
    )
    api_key_file: Path | None = Field(
        None,
        description=(
            "File holding `api_key`, for a config file (which may hold no secret) or a mounted secret; "
            "`api_key` wins when both are set."
        ),
    )
    eval_results: Path | None = Field(
        None,
        description=(
            "Folder of eval reports the web page lists (`python -m eval.tables BENCH --json F.json --report F.html`); "
            "default: the eval suite's published results (eval/results)."
        ),
    )
    max_upload_bytes: int = Field(
        20_000_000, ge=1, description="Largest DDL or document upload accepted over HTTP, in bytes (HTTP 413 above)."
    )
    max_request_bytes: int = Field(
        1_000_000,
        ge=1024,
        description="Largest JSON request body (searches, queries), in bytes; refused (HTTP 413) before it is parsed.",
    )
    max_ddl_bytes: int = Field(
        100_000_000,
        ge=1,
        description="Largest DDL file or text `index` parses, in bytes; a larger one is refused before parsing.",
    )
    max_concurrent_requests: int = Field(
        64,
        ge=1,
        description="Requests one server worker handles at once; more get HTTP 429 with Retry-After.",
    )
    host: str = Field("127.0.0.1", description="Address `schemasift serve` listens on.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description=(
            "Names browsers may reach the HTTP server by, beside localhost, 127.0.0.1 and ::1 (which a server "
            "on loopback always answers): a proxy's public name. A browser's request by any other name gets "
            "403 (DNS rebinding). A JSON list in the environment, e.g. '[\"search.example.com\"]'."
        ),
    )
    port: int = Field(8000, ge=1, le=65535, description="Port `schemasift serve` listens on.")
    workers: int | None = Field(
        None, ge=1, description="Worker processes of `schemasift serve` (default: one per core, at most 4)."
    )
    mcp_port: int = Field(
        8001, ge=1, le=65535, description="Port `schemasift mcp --transport http` listens on (path /mcp)."
    )
    source_urls: dict[str, SecretStr] = Field(
        default_factory=dict,
        description=(
            "Database URL, with its password, per catalog, for `schemasift ask --execute`, as JSON: "
            '{"crm": "postgresql://user:pass@host/db"}. A catalog keeps its URL without the password.'
        ),
    )
    execute_max_rows: int = Field(100, ge=1, description="Most rows `ask --execute` fetches and prints.")
    execute_timeout_s: float = Field(
        10.0, gt=0, description="Seconds a query may run under `ask --execute` before it is stopped."
    )
    execute_max_bytes: int = Field(
        10_000_000, ge=1024, description="Most bytes of result rows a database query may return before it is stopped."
    )
    execute_process_memory_mb: int = Field(
        2048,
        ge=256,
        description=(
            "Address-space cap, in MB, of the child process that runs database queries (SQLite, DuckDB, "
            "the PostgreSQL client); a query that needs more is stopped."
        ),
    )
    execute_allow_privileged_role: bool = Field(
        False,
        description=(
            "Run queries on PostgreSQL even when the connecting role could change something (write, "
            "superuser, file or program access). Off: such a role is refused with the GRANTs to use instead."
        ),
    )
    execute_trusted_objects: list[str] = Field(
        default_factory=list,
        description=(
            "PostgreSQL functions, operators and casts that are not built in but may run in queries, checklist "
            "probes and indexing, named as a refusal names them, as a JSON list (e.g. "
            '\'["public.slugify(text)", "integer -> text"]\'). Anything else not built in is refused.'
        ),
    )
    query_max_rows: int = Field(
        500, ge=1, description="Most rows a collection query (`docs query`, `query`, query_collection) returns."
    )
    query_timeout_s: float = Field(
        5.0, gt=0, description="Seconds a collection query may run before it is interrupted."
    )
    query_memory_limit: str = Field("256MB", description="DuckDB memory limit for one collection query.")
    query_process_memory_mb: int = Field(
        2048,
        ge=512,
        description=(
            "Address-space cap, in MB, of the child process that parses and runs collection queries; "
            "a query that needs more is stopped."
        ),
    )
    exact_fields: list[str] = Field(
        default_factory=list,
        description=(
            "Header fields shown to models only as {{link:N}}-style placeholders, besides the URL- and "
            "ID-shaped ones found by default (JSON list, e.g. '[\"isbn\"]')."
        ),
    )
    plain_fields: list[str] = Field(
        default_factory=list,
        description="Header fields shown to models as they are, even when they look URL- or ID-shaped.",
    )
    describe_model: str = Field(
        "local/smollm2",
        description=(
            "litellm model `schemasift describe` uses: `local/smollm2` (embedded, no key), "
            "`openai/...`, `anthropic/...`, `ollama/...`; keys come from the provider's own "
            "environment variables (OPENAI_API_KEY, ...)."
        ),
    )
    ask_model: str = Field(
        "local/smollm2",
        description=(
            "litellm model `schemasift ask` uses when `--model` is not given: `local/smollm2` (embedded, "
            "no key) or a provider's model (`openai/gpt-4o-mini`, ...), whose key comes from the provider's "
            "own environment variable."
        ),
    )
    describe_api_base: str | None = Field(
        None, description="Server URL for describe's model: an OpenAI-compatible server or Ollama."
    )
    describe_timeout: float = Field(60.0, gt=0, description="Seconds allowed per description call.")
    describe_retries: int = Field(
        3, ge=0, description="Retries (with exponential backoff) after a rate limit, timeout or server error."
    )
    describe_concurrency: int = Field(4, ge=1, description="Description calls in flight at once.")
    describe_max_tokens: int = Field(100, ge=16, description="Longest description asked of the model, in tokens.")
    describe_threads: int | None = Field(
        None,
        ge=1,
        description=(
            "CPU threads of the embedded model (default: half the cores; llama.cpp slows down "
            "sharply when its threads compete with other work)."
        ),
    )
    rewrite_model: str = Field(
        "deterministic",
        description=(
            "How a follow-up question sent with `history` is written out before it is searched: "
            "`deterministic` (the history's subject carried in by rule, no model), `none` (searched as asked), "
            "or a litellm model (`local/smollm2`, `openai/...`); on any model failure the question is searched "
            "as asked."
        ),
    )
    rewrite_timeout: float = Field(10.0, gt=0, description="Seconds allowed for a model's follow-up rewrite.")
    public_sources: bool = Field(
        False,
        description=(
            "When the documents have nothing on a question, let the reference document agent search the web "
            "(SCHEMA_SEARCH_PUBLIC_SEARCH_URL) and read the pages it relies on: one switch for both, since a "
            "snippet without its page is the worst case. Such answers are labelled public and go to the review queue."
        ),
    )
    public_search_url: str | None = Field(
        None,
        description="A SearXNG-compatible search API (`GET {url}/search?q=...&format=json`) for public sources.",
    )
    public_allow_private: bool = Field(
        False,
        description=(
            "Read public pages at loopback and private addresses too (a local test provider); off: a search "
            "result that points into a private network is never fetched."
        ),
    )
    review_flagged: bool = Field(
        False, description="Record answers the citation checks flagged in the review queue too, not only public ones."
    )
    docs_mask_personal: bool = Field(
        False,
        description=(
            "Replace e-mail addresses and phone numbers in indexed documents with [e-mail] and [phone] before "
            "anything is stored or indexed: no search finds them and no answer quotes them. Re-index to apply."
        ),
    )
    phone_region: str | None = Field(
        None,
        pattern=r"^[A-Za-z]{2}$",
        description=(
            "The country (ISO 3166 code: US, DE, ...) whose national phone formats are masked too; unset: only "
            "numbers written in international format (+49 ...)."
        ),
    )
    docs_ocr: bool = Field(
        True,
        description=(
            "Transcribe PDF pages without a usable text layer (scans) with Tesseract, when `tesseract` is installed; "
            "off: such pages read as empty, as before."
        ),
    )
    docs_figures: bool = Field(
        True,
        description=(
            "Read the figures of PDF pages, DOCX files and the local images of Markdown and HTML pages (diagrams, "
            "charts, photos; never repeated logos, frames or tiny images) and put what they say into the text at "
            "their place, marked as derived from a figure."
        ),
    )
    vision_model: str | None = Field(
        None,
        description=(
            "A litellm model with image input (`openai/gpt-4o-mini`, ...) to describe figures; unset: figures are "
            "read by OCR only, and no model is ever called."
        ),
    )
    docs_visual_max_pages: int = Field(
        300,
        ge=1,
        description="Pages of one document rendered for OCR or figures at most; the rest keep their text layer.",
    )
    docs_visual_max_pixels: int = Field(
        40_000_000, ge=1_000_000, description="Pixels one rendered page or image may have (a larger one is skipped)."
    )
    docs_visual_seconds: float = Field(
        300.0,
        gt=0,
        description="Seconds one document's OCR and figure reading may take; then it is indexed as read so far.",
    )
    kek_file: Path | None = Field(
        None,
        description=(
            "File of exactly 32 random bytes (`head -c 32 /dev/urandom > kek.bin`): the key-encryption key. When "
            "set, every space stores its passages, tables and index terms encrypted (`schemasift encryption status`)."
        ),
    )
    kek: SecretStr | None = Field(
        None,
        description="The key-encryption key as base64 of 32 bytes, instead of a `kek_file` (which wins when both are set).",
    )

    _sources: Sources = PrivateAttr(default_factory=Sources)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # After the environment: an exported variable overrides what the file says.
        return init_settings, env_settings, dotenv_settings, file_secret_settings, ConfigFileSource(settings_cls)

    def model_post_init(self, context: Any) -> None:
        # The file's path was settled by the sources (given, or found in the working directory).
        if self.config_file is not None:
            self._sources = load_config(self.config_file).sources

    @property
    def sources(self) -> Sources:
        """The catalogs and corpora the config file names (none without one)."""
        return self._sources

    def execution_url(self, catalog: str) -> str | None:
        """The database URL, password filled in, that queries on ``catalog`` run against; ``None``: none configured.

        ``source_urls`` (a setting, so from arguments, the environment or the file) wins over the
        catalog's table in the config file: the explicit override.

        Raises:
            SecretUnavailable: the password's (or the URL's) environment variable is unset, or the
                password file unreadable.
        """
        if catalog in self.source_urls:
            return self.source_urls[catalog].get_secret_value()
        source = self.sources.catalogs.get(catalog)
        return source.execution_url(os.environ) if source is not None else None

    def docs_weights(self) -> dict[str, float]:
        """Fusion weight per documents channel."""
        return {"headings": self.docs_weight_headings, "body": self.docs_weight_body, "dense": self.docs_weight_dense}

    def weights(self) -> dict[str, float]:
        """Fusion weight per tables channel."""
        return {
            "names": self.weight_names,
            "text": self.weight_text,
            "body": self.weight_body,
            "descriptions": self.weight_descriptions,
            "values": self.weight_values,
            "dense": self.weight_dense,
            "examples": self.weight_examples,
        }


class ConfigFileSource(PydanticBaseSettingsSource):
    """The config file's top-level keys, checked one by one so that an error names the file and the key.

    Paths in it are read from the file's folder. Secrets (``SecretStr`` settings) are refused:
    they belong in the environment, and database passwords in ``password_env``/``password_file``.
    """

    def __call__(self) -> dict[str, Any]:
        keys = [key for key in (*CONFIG_FILE_KEYS, "config_file") if self.current_state.get(key) is not None]
        path = find_config(self.current_state[keys[0]] if keys else None, Path.cwd())
        if path is None:
            return {}
        config = load_config(path)
        fields = {name: f for name, f in self.settings_cls.model_fields.items() if name != "config_file"}
        # Under the key the file was named by, if it was: one value, not two for pydantic to choose from.
        values: dict[str, Any] = {keys[0] if keys else "config_file": path}
        for key, value in config.settings.items():
            if key not in fields:
                raise unknown_key(path, key, [*fields, "catalogs", "corpora"])
            values[key] = _checked(path, key, fields[key], value)
        return values

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads the whole file at once


def _checked(path: Path, key: str, field: FieldInfo, value: Any) -> Any:
    if _holds_secret(field.annotation):
        raise ConfigError(
            f"The config file {path} sets {key}, a secret.",
            hint=f"Set SCHEMA_SEARCH_{key.upper()} in the environment instead"
            + (", or give each catalog a url with password_env/password_file." if key == "source_urls" else "."),
        )
    try:
        # The field's bounds (ge=, le=) too: the file is held to what the environment is.
        checked = TypeAdapter(Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation)
        checked = checked.validate_python(value)
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]["msg"]
        raise ConfigError(
            f"The config file {path} sets {key} = {value!r}: {problem}.",
            hint=f"{field.description} (README, Configuration: SCHEMA_SEARCH_{key.upper()}).",
        ) from None
    if isinstance(checked, Path) and not checked.expanduser().is_absolute():
        return (path.parent / checked).resolve()
    return checked.expanduser() if isinstance(checked, Path) else checked


def _holds_secret(annotation: Any) -> bool:
    """Whether a setting's type is, or holds, a ``SecretStr``.

    >>> _holds_secret(SecretStr | None), _holds_secret(dict[str, SecretStr]), _holds_secret(int)
    (True, True, False)
    """
    return annotation is SecretStr or any(_holds_secret(arg) for arg in get_args(annotation))
