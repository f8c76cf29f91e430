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
    [catalogs.warehouse]
    url = "${WAREHOUSE_URL}"               # the whole URL from the environment, password and all
    [corpora.handbook]

A password never stands in the file: one written in a URL (as its password or in its
query string) is refused, with what to write instead. The file is only parsed here; the
environment is read when a URL is asked for (:meth:`CatalogSource.execution_url`), so a
rotated secret is picked up and a missing one fails that catalog alone, with a
:class:`SecretUnavailable` (503: the server's fault, not the caller's). A key nobody
reads is an error naming it: a typo must not be silent.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .core.store import check_name
from .errors import InvalidInput

CONFIG_NAME = "schema-search.toml"
CATALOG_KEYS = ("url", "password_env", "password_file", "instructions", "defaults")
CORPUS_KEYS = ("instructions",)
SOURCE_TABLES = ("catalogs", "corpora")

# ``${NAME}``: an environment variable's value, in place (see _substitute).
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a variable stands for while the file is checked, before the environment is read:
# digits parse in any part of a URL, the port included, and no one writes this password.
_PROBE = "0000000000"
# Query parameters that carry a secret, or say where one is (libpq's password, passfile and
# sslpassword, the MySQL drivers' passwd, ODBC's pwd, tokens and keys): a password kept out
# of the userinfo must not come back through the query string. Matched on the lower-cased key.
_SECRET_KEY = re.compile(r"(pass(word|wd|phrase|file)?|pwd)$|secret|token|api_?key|private_?key")
# A value that is itself a connection string with a password (``odbc_connect=...;PWD=...``).
_SECRET_VALUE = re.compile(r"\b(pwd|password)\s*=", re.IGNORECASE)
# File-backed SQLAlchemy dialects, whose relative database path is read from the config file's folder.
_FILE_DIALECTS = ("sqlite", "duckdb")


class ConfigError(InvalidInput):
    """The config file cannot be used as written: the message names the file and the key."""


class SecretUnavailable(ConfigError):
    """A value a catalog's database URL needs is missing where it is used: an unset environment
    variable, an unreadable password file.

    The operator's to fix, not the caller's, so 503, like a database that is down: the hint says
    what to set. A subclass of ConfigError, so code that catches that for "this catalog's
    configuration cannot be used" still does (as TableAmbiguous is a TableNotFound).
    """

    status = 503
    code = "secret_unavailable"


@dataclass(frozen=True)
class CatalogSource:
    """A catalog the config file names.

    Attributes:
        name: the catalog's name (its folder under the data directory).
        url: the database URL queries run against, as written: ``${VAR}`` references, a relative
            database file, no password; ``None``: execution is off for this catalog.
        password_env: the environment variable holding the password.
        password_file: the file whose content (stripped) is the password.
        instructions: the operator's instructions for queries on this catalog.
        defaults: the operator's defaults for the preflight checklist's slots (``timezone``, ...).
        folder: the folder a relative database file (SQLite, DuckDB) is read from: the config
            file's; ``None``: the working directory's.
    """

    name: str
    url: str | None = None
    password_env: str | None = None
    password_file: Path | None = None
    instructions: str = ""
    defaults: Mapping[str, str] = field(default_factory=dict)
    folder: Path | None = None

    def execution_url(self, environ: Mapping[str, str]) -> str | None:
        """The URL with its ``${VAR}`` references and password filled in; ``None`` without a URL.

        >>> CatalogSource("crm", "postgresql://reader@db/crm", password_env="PW").execution_url({"PW": "s@cret"})
        'postgresql://reader:s%40cret@db/crm'
        >>> CatalogSource("shop", "sqlite:///${DIR}/shop.db", folder=Path("/srv/conf")).execution_url({"DIR": "data"})
        'sqlite:////srv/conf/data/shop.db'

        Variables are filled in first, so a relative path a variable brings is read from
        :attr:`folder` too.

        Raises:
            SecretUnavailable: a variable it needs is not set, or the password file cannot be read.
        """
        if self.url is None:
            return None
        url = _substitute(self.url, lambda name: self._variable(name, environ))
        if self.folder is not None:
            url = _from_folder(url, self.folder)
        password = None
        if self.password_env:
            password = self._variable(self.password_env, environ)
        elif self.password_file:
            try:
                password = self.password_file.read_text(encoding="utf-8").strip()
            except OSError as error:
                raise SecretUnavailable(
                    f"The password file of catalog {self.name!r}, {self.password_file}, cannot be read "
                    f"({error.strerror or error}).",
                    hint="Check the path in password_file and that the server's user may read it.",
                ) from None
        return url if password is None else _with_password(url, password)

    def _variable(self, name: str, environ: Mapping[str, str]) -> str:
        if name not in environ:
            raise SecretUnavailable(
                f"Catalog {self.name!r} needs the environment variable {name} for its database URL, which is not set.",
                hint=f"Set {name} in the server's environment and restart it, or fix the catalog's url/password_env "
                "in the config file.",
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
                hint="Check --config or SCHEMA_SEARCH_CONFIG_FILE (or SCHEMA_SEARCH_CONFIG), or create it (see 'Serving several sources' in the README).",
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
        raise where.error(f'[{table}] password_env must name an environment variable, like "CRM_DB_PASSWORD".')
    password_file = None
    if file:
        password_file = Path(file).expanduser()
        password_file = password_file if password_file.is_absolute() else where.path.parent / password_file
    if url:
        _check_url(url, where, table, bool(env or file))
    return CatalogSource(
        name=name,
        url=url or None,
        password_env=env,
        password_file=password_file,
        instructions=where.text(body, "instructions", table) or "",
        defaults=_defaults(body.get("defaults", {}), where, table),
        folder=where.path.parent,
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


def _check_url(url: str, where: _Where, table: str, password_given: bool) -> None:
    """Refuse a URL that is not one, or that holds a password (as its password or in its query string).

    What ``${VAR}`` references bring is not known yet: they are checked as placeholders. A URL
    that is one variable (``${DATABASE_URL}``) is not checked: it comes from the environment,
    where a password belongs.
    """
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    if _VARIABLE.fullmatch(url):
        return
    try:
        parsed = make_url(_VARIABLE.sub(_PROBE, url))
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        raise where.error(
            f"[{table}] url is not a database URL.",
            hint='Write it as SQLAlchemy does, e.g. "postgresql://user@host/db", or "${NAME}" to take all of it '
            "from an environment variable.",
        ) from None
    written = parsed.password
    if written is not None and written != _PROBE:
        raise _password_written(where, table, "url has a password written into it")
    if written is not None and password_given:
        raise where.error(
            f"[{table}] url has a ${{...}} password and password_env/password_file too.", hint="Keep one."
        )
    for key, value in parsed.query.items():
        values = (value,) if isinstance(value, str) else value
        if _SECRET_KEY.search(key.lower()) or any(_SECRET_VALUE.search(v) for v in values):
            raise _password_written(where, table, f"url has a secret in its query string ({key}=...)")


def _password_written(where: _Where, table: str, what: str) -> ConfigError:
    return where.error(
        f"[{table}] {what}.",
        hint='Keep passwords out of this file: leave it out of the url and set password_env = "NAME" '
        '(an environment variable) or password_file = "/run/secrets/...", or write ${NAME} as the url\'s '
        'password, or take the whole url from the environment: url = "${NAME}".',
    )


def _parts(url: str) -> tuple[str, str | None, str, str | None]:
    """A URL's text in four: ``scheme://``, the userinfo (``None``: no ``@``), host and path, the query (``None``: no ``?``).

    Split as text, not parsed, so that ``${VAR}`` references stay as they are.

    >>> _parts("postgresql://u:${PW}@db:5432/crm?sslmode=require"), _parts("sqlite:///shop.db"), _parts("${URL}")
    (('postgresql://', 'u:${PW}', 'db:5432/crm', 'sslmode=require'), ('sqlite://', None, '/shop.db', None), ('', None, '${URL}', None))
    """
    scheme, separator, rest = url.partition("://")
    if not separator:
        return "", None, url, None
    rest, question, query = rest.partition("?")
    authority, slash, path = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    return (
        scheme + separator,
        userinfo if at else None,
        (host if at else authority) + slash + path,
        query if question else None,
    )


def _joined(scheme: str, userinfo: str | None, location: str, query: str | None) -> str:
    return scheme + ("" if userinfo is None else userinfo + "@") + location + ("" if query is None else "?" + query)


def _substitute(url: str, value: Callable[[str], str]) -> str:
    """``url`` with each ``${NAME}`` replaced by ``value(NAME)``.

    Percent-encoded in the userinfo and the query string, where every character of a user
    name, password or parameter must stand for itself (``@``, ``:``, ``&``, ``+``); put in as
    it is elsewhere, so a host may bring its port (``db:6432``), a path its slashes, and a
    variable the whole URL.

    >>> env = {"U": "a@b", "H": "db:6432", "D": "/srv/data", "A": "x&y", "URL": "mysql://u:p%40@h/d"}.__getitem__
    >>> _substitute("postgresql://${U}@${H}/crm?application_name=${A}", env)
    'postgresql://a%40b@db:6432/crm?application_name=x%26y'
    >>> _substitute("sqlite:///${D}/shop.db", env), _substitute("${URL}", env)
    ('sqlite:////srv/data/shop.db', 'mysql://u:p%40@h/d')
    """

    def fill(text: str | None, encode: bool) -> str | None:
        if text is None:
            return None
        return _VARIABLE.sub(lambda m: quote(value(m.group(1)), safe="") if encode else value(m.group(1)), text)

    scheme, userinfo, location, query = _parts(url)
    return _joined(scheme, fill(userinfo, True), fill(location, False), fill(query, True))


def _from_folder(url: str, folder: Path) -> str:
    """``url`` with a relative database file (SQLite, DuckDB) read from ``folder``; other URLs as they are.

    >>> _from_folder("sqlite:///dbs/shop.db?mode=ro", Path("/srv/conf")), _from_folder("sqlite:///:memory:", Path("/x"))
    ('sqlite:////srv/conf/dbs/shop.db?mode=ro', 'sqlite:///:memory:')
    """
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return url  # not for us to judge here: connecting says what is wrong with it
    database = parsed.database
    if (
        parsed.get_backend_name() not in _FILE_DIALECTS
        or database in (None, "", ":memory:")
        or database.startswith("file:")
    ):
        return url
    path = Path(database).expanduser()
    if path.is_absolute():
        return url
    # Only the path changes, as text: the query stays as written.
    scheme, userinfo, location, query = _parts(url)
    return _joined(scheme, userinfo, f"{location.partition('/')[0]}/{(folder / path).resolve()}", query)


def _with_password(url: str, password: str) -> str:
    """``url`` with ``password`` put in (percent-encoded), whatever it held there before.

    >>> _with_password("postgresql://reader@db/crm", "p/w"), _with_password("mysql://u:old@h/d?ssl=1", "new")
    ('postgresql://reader:p%2Fw@db/crm', 'mysql://u:new@h/d?ssl=1')
    """
    scheme, userinfo, location, query = _parts(url)
    user = (userinfo or "").partition(":")[0]
    return _joined(scheme, f"{user}:{quote(password, safe='')}", location, query)
