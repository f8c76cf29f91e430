"""The config file (``schema-search.toml``): the catalogs and corpora a server offers, and settings beside them.

::

    home = "./data"                        # any setting, by its field name
    [catalogs.shop]
    url = "sqlite:///shop.db"              # where queries run (optional); relative paths: from this file's folder
    instructions = "Amounts are in EUR."   # the operator's instructions, for the preflight checklist
    [catalogs.shop.defaults]
    timezone = "Europe/Berlin"
    [catalogs.crm]
    url = "postgresql://reader@db.internal/crm"
    password_env = "CRM_DB_PASSWORD"       # or password_file = "/run/secrets/crm_db", or ${VAR} in the url
    [corpora.handbook]

A password never stands in the file: one written in a URL is refused, with what to
write instead. The file is only parsed here; the environment is read when a URL is
asked for (:meth:`CatalogSource.execution_url`), so a rotated secret is picked up and
a missing one fails that catalog alone. A key nobody reads is an error naming it: a
typo must not be silent.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import quote

from .core.store import check_name
from .errors import InvalidInput

CONFIG_NAME = "schema-search.toml"
CATALOG_KEYS = ("url", "password_env", "password_file", "instructions", "defaults")
CORPUS_KEYS = ("instructions",)
SOURCE_TABLES = ("catalogs", "corpora")

# ``${NAME}``: an environment variable's value, percent-encoded, in place.
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# File-backed SQLAlchemy dialects, whose relative database path is read from the config file's folder.
_FILE_DIALECTS = ("sqlite", "duckdb")


class ConfigError(InvalidInput):
    """The config file cannot be used as written: the message names the file and the key."""

    title = "Invalid configuration"


@dataclass(frozen=True)
class CatalogSource:
    """A catalog the config file names.

    Attributes:
        name: the catalog's name (its folder under the data directory).
        url: the database URL queries run against, with ``${VAR}`` references as written and
            no password; ``None``: execution is off for this catalog.
        password_env: the environment variable holding the password.
        password_file: the file whose content (stripped) is the password.
        instructions: the operator's instructions for queries on this catalog.
        defaults: the operator's defaults for the preflight checklist's slots (``timezone``, ...).
    """

    name: str
    url: str | None = None
    password_env: str | None = None
    password_file: Path | None = None
    instructions: str = ""
    defaults: Mapping[str, str] = field(default_factory=dict)

    def execution_url(self, environ: Mapping[str, str]) -> str | None:
        """The URL with its ``${VAR}`` references and password filled in; ``None`` without a URL.

        >>> CatalogSource("crm", "postgresql://reader@db/crm", password_env="PW").execution_url({"PW": "s@cret"})
        'postgresql://reader:s%40cret@db/crm'

        Raises:
            ConfigError: a variable it needs is not set, or the password file cannot be read.
        """
        if self.url is None:
            return None
        url = _VARIABLE.sub(lambda m: quote(self._variable(m.group(1), environ), safe=""), self.url)
        password = None
        if self.password_env:
            password = self._variable(self.password_env, environ)
        elif self.password_file:
            try:
                password = self.password_file.read_text(encoding="utf-8").strip()
            except OSError as error:
                raise ConfigError(
                    f"The password file of catalog {self.name!r}, {self.password_file}, cannot be read "
                    f"({error.strerror or error}).",
                    hint="Check the path in password_file and that this user may read it.",
                ) from None
        return url if password is None else _with_password(url, password)

    def _variable(self, name: str, environ: Mapping[str, str]) -> str:
        if name not in environ:
            raise ConfigError(
                f"Catalog {self.name!r} needs the environment variable {name} for its database URL, which is not set.",
                hint=f"Set {name} in the environment of the server, or fix the catalog's url/password_env.",
            )
        return environ[name]


@dataclass(frozen=True)
class CorpusSource:
    """A corpus the config file names, with the operator's instructions for it (may be empty)."""

    name: str
    instructions: str = ""


@dataclass(frozen=True)
class Sources:
    """What a config file says to serve; empty without one."""

    catalogs: Mapping[str, CatalogSource] = field(default_factory=dict)
    corpora: Mapping[str, CorpusSource] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.catalogs or self.corpora)


@dataclass(frozen=True)
class Config:
    """A parsed config file: its settings (by field name, not yet validated) and its sources."""

    path: Path
    settings: Mapping[str, Any]
    sources: Sources


def find_config(explicit: str | Path | None, cwd: Path) -> Path | None:
    """The config file to read: the one named, else ``schema-search.toml`` in ``cwd`` when it exists.

    Raises:
        ConfigError: the file named explicitly does not exist.
    """
    if explicit is not None and str(explicit) != "":
        path = Path(explicit).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise ConfigError(
                f"The config file {path} does not exist.",
                hint="Check --config or SCHEMA_SEARCH_CONFIG, or create it (see 'Serving several sources' in the README).",
            )
        return path.resolve()
    default = cwd / CONFIG_NAME
    return default.resolve() if default.is_file() else None


def load_config(path: Path) -> Config:
    """Read and check a config file; settings are returned as written, for :class:`~.settings.Settings` to check.

    Raises:
        ConfigError: the file is unreadable or not TOML (with line and column), a source has
            an unknown key, a wrong type or a password written into it.
    """
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"The config file {path} cannot be read ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise ConfigError(f"The config file {path} is not UTF-8 text.", hint="Save it as UTF-8.") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(
            f"The config file {path} is not valid TOML: {error}.",
            hint="Fix the line and column named (https://toml.io shows the syntax).",
        ) from None
    where = _Where(path)
    catalogs = {
        name: _catalog(name, body, where) for name, body in where.tables(data.get("catalogs", {}), "catalogs").items()
    }
    corpora = {
        name: _corpus(name, body, where) for name, body in where.tables(data.get("corpora", {}), "corpora").items()
    }
    settings = {key: value for key, value in data.items() if key not in SOURCE_TABLES}
    return Config(path, settings, Sources(catalogs, corpora))


def unknown_key(path: Path, key: str, known: Iterable[str], where: str = "") -> ConfigError:
    """The error for a key nobody reads, with the nearest known one when there is a close one."""
    known = sorted(known)
    close = difflib.get_close_matches(key, known, n=1)
    guess = f"Did you mean {close[0]!r}? " if close else ""
    listed = (
        f"Known: {', '.join(known)}."
        if len(known) <= 12
        else "Known: catalogs, corpora, and every setting of the README's Configuration table, by its name in "
        "lower case without SCHEMA_SEARCH_ (e.g. default_k)."
    )
    return ConfigError(f"The config file {path} has an unknown key {key!r}{where}.", hint=guess + listed)


class _Where:
    """Checks that name the file and the table a wrong value stands in."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, what: str, hint: str | None = None) -> ConfigError:
        return ConfigError(f"The config file {self.path}: {what}", hint=hint)

    def tables(self, value: Any, key: str) -> dict[str, dict[str, Any]]:
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise self.error(f"{key} must hold one table per name, like [{key}.NAME].")
        noun = "catalog" if key == "catalogs" else "corpus"
        for name in value:
            try:
                check_name(name, noun)
            except InvalidInput as error:
                raise self.error(f"[{key}.{name}]: {error.detail}", hint=error.hint) from None
        return value

    def keys(self, body: dict[str, Any], known: tuple[str, ...], table: str) -> None:
        for key in body:
            if key not in known:
                raise unknown_key(self.path, key, known, f" in [{table}]")

    def text(self, body: dict[str, Any], key: str, table: str) -> str | None:
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(f"[{table}] {key} must be a string, not {type(value).__name__}.")
        return value


def _catalog(name: str, body: dict[str, Any], where: _Where) -> CatalogSource:
    table = f"catalogs.{name}"
    where.keys(body, CATALOG_KEYS, table)
    url, env, file = (where.text(body, key, table) for key in ("url", "password_env", "password_file"))
    if env and file:
        raise where.error(f"[{table}] gives both password_env and password_file.", hint="Keep one.")
    if (env or file) and not url:
        raise where.error(f"[{table}] gives a password but no url.", hint="Add the database url, without its password.")
    if env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", env):
        raise where.error(f"[{table}] password_env must name an environment variable, like \"CRM_DB_PASSWORD\".")
    password_file = None
    if file:
        password_file = Path(file).expanduser()
        password_file = password_file if password_file.is_absolute() else where.path.parent / password_file
    return CatalogSource(
        name=name,
        url=_checked_url(url, where, table, bool(env or file)) if url else None,
        password_env=env,
        password_file=password_file,
        instructions=where.text(body, "instructions", table) or "",
        defaults=_defaults(body.get("defaults", {}), where, table),
    )


def _corpus(name: str, body: dict[str, Any], where: _Where) -> CorpusSource:
    table = f"corpora.{name}"
    where.keys(body, CORPUS_KEYS, table)
    return CorpusSource(name=name, instructions=where.text(body, "instructions", table) or "")


def _defaults(value: Any, where: _Where, table: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise where.error(f"[{table}] defaults must be a table, like [{table}.defaults].")
    defaults = {}
    for key, item in value.items():
        if isinstance(item, (dict, list)):
            raise where.error(f"[{table}.defaults] {key} must be a single value (a string or a number).")
        # TOML booleans are lower-case; str(True) would not be.
        defaults[key] = str(item).lower() if isinstance(item, bool) else str(item)
    return defaults


def _checked_url(url: str, where: _Where, table: str, password_given: bool) -> str:
    """The URL as stored: checked to hold no literal password, a relative database file made absolute."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        raise where.error(
            f"[{table}] url is not a database URL.", hint='Write it as SQLAlchemy does, e.g. "postgresql://user@host/db".'
        ) from None
    written = parsed.password
    if written is not None and not _VARIABLE.fullmatch(str(written)):
        raise where.error(
            f"[{table}] url has a password written into it.",
            hint="Keep passwords out of this file: leave it out of the url and set password_env = \"NAME\" "
            "(an environment variable) or password_file = \"/run/secrets/...\", or write ${NAME} in its place.",
        )
    if written is not None and password_given:
        raise where.error(f"[{table}] url has a ${{...}} password and password_env/password_file too.", hint="Keep one.")
    database = parsed.database
    if parsed.get_backend_name() in _FILE_DIALECTS and database not in (None, "", ":memory:"):
        path = Path(database).expanduser()
        if not database.startswith("file:") and not path.is_absolute():
            # Only the path changes, as text: ${VAR} references and the query stay as written.
            scheme, _, rest = url.partition("://")
            authority, _, path_and_query = rest.partition("/")
            _, question, query = path_and_query.partition("?")
            return f"{scheme}://{authority}/{(where.path.parent / path).resolve()}{question}{query}"
    return url


def _with_password(url: str, password: str) -> str:
    """``url`` with ``password`` put in (percent-encoded), whatever it held there before.

    >>> _with_password("postgresql://reader@db/crm", "p/w"), _with_password("mysql://u:old@h/d", "new")
    ('postgresql://reader:p%2Fw@db/crm', 'mysql://u:new@h/d')
    """
    scheme, _, rest = url.partition("://")
    authority, slash, tail = rest.partition("/")
    credentials, at, host = authority.rpartition("@")
    if not at:
        credentials, host = "", authority
    user = credentials.partition(":")[0]
    return f"{scheme}://{user}:{quote(password, safe='')}@{host}{slash}{tail}"
