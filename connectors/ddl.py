"""DDL files, in any dialect sqlglot reads: a ``.sql``/``.ddl`` file or a folder of them.

A folder is read as one catalog, its files in name order. The dialect is the one
given, else the one a file name carries (``crm.mysql.sql``), else sqlglot's default.
``db`` keeps only the tables of that schema. Statements sqlglot cannot read are
skipped and listed in :attr:`Catalog.warnings`; input that yields no table at all is
a :class:`SourceError` quoting the first failure. How statements become tables is
:mod:`connectors.ddl_reader`'s job.

Input past ``max_bytes`` (``SCHEMA_SEARCH_MAX_DDL_BYTES``) is refused before it is
read: parsing takes ~3 s per MB on one core and several times the text in memory, so
a 200 MB dump ran for twenty minutes, its memory growing, before anything was said.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlglot.dialects.dialect import Dialects

from ..core.build import Progress
from ..errors import PayloadTooLarge, SourceError
from ..settings import Settings
from ..tables.catalog import Catalog
from .ddl_reader import DdlResult, Script, read_ddl

SUFFIXES = (".sql", ".ddl")
# Names people use for a dialect that sqlglot spells differently.
DIALECT_ALIASES = {
    "postgresql": "postgres",
    "pg": "postgres",
    "mariadb": "mysql",
    "mssql": "tsql",
    "sqlserver": "tsql",
}
DIALECTS = tuple(sorted(d.value for d in Dialects if d.value))
# When a caller passes no limit, the setting's default still applies.
DEFAULT_MAX_BYTES: int = Settings.model_fields["max_ddl_bytes"].default
LIMIT_VARIABLE = "SCHEMA_SEARCH_MAX_DDL_BYTES"


def matches(source: str) -> bool:
    """Whether ``source`` is a DDL file path, or a folder holding one; never a URL."""
    if "://" in source:
        return False
    path = Path(source)
    if path.suffix.lower() in SUFFIXES:
        return True
    return path.is_dir() and bool(_ddl_files(path))


def introspect(
    source: str,
    *,
    catalog: str,
    dialect: str | None = None,
    db: str | None = None,
    progress: Progress | None = None,
    max_bytes: int | None = None,
) -> Catalog:
    """Read the DDL file or folder ``source`` into a catalog named ``catalog``.

    Args:
        source: a ``.sql``/``.ddl`` file, or a folder whose such files form one schema.
        catalog: the catalog's name.
        dialect: the sqlglot dialect of every file; by default inferred per file.
        db: keep only the tables of this schema.
        progress: wraps the statements while they are parsed.
        max_bytes: the most bytes of DDL to parse (all files of a folder together);
            by default the default of ``SCHEMA_SEARCH_MAX_DDL_BYTES``.

    Raises:
        SourceError: a missing, empty or unreadable file, an unknown dialect, a
            schema ``db`` that no table is in, or DDL from which no table could be read.
        PayloadTooLarge: the files are larger than ``max_bytes``; nothing was read.
    """
    chosen = resolve_dialect(dialect) if dialect else None
    paths = _ddl_paths(Path(source))
    _check_size(sum(_size(p) for p in paths), max_bytes, _where(Path(source), paths))
    scripts = [_script(p.name, _read(p), chosen) for p in paths]
    if len(scripts) == 1 and not scripts[0].text.strip():
        raise SourceError(f"DDL file {paths[0]} is empty.", hint="Give a file with CREATE TABLE statements.")
    return _catalog(scripts, name=catalog, files=[str(p) for p in paths], db=db, progress=progress)


def catalog_from_ddl(
    text: str,
    *,
    catalog: str,
    dialect: str | None,
    source_name: str = "<ddl>",
    max_bytes: int | None = None,
    progress: Progress | None = None,
) -> Catalog:
    """Read DDL given as text (an upload) into a catalog named ``catalog``.

    ``source_name`` names the text in messages, and its dialect when ``dialect`` is
    not given and the name carries one (``crm.postgres.sql``). ``max_bytes`` and
    ``progress`` are as for :func:`introspect`.

    Raises:
        SourceError: empty text, an unknown dialect, or DDL from which no table could be read.
        PayloadTooLarge: the text is larger than ``max_bytes`` in UTF-8; nothing was parsed.
    """
    _check_size(_utf8_size(text, max_bytes), max_bytes, f"The DDL {source_name} is")
    chosen = resolve_dialect(dialect) if dialect else None
    if not text.strip():
        raise SourceError(f"The DDL {source_name} is empty.", hint="Give CREATE TABLE statements.")
    script = _script(source_name, text, chosen)
    return _catalog([script], name=catalog, files=[source_name], db=None, progress=progress)


def resolve_dialect(name: str) -> str:
    """The sqlglot name of a dialect, accepting common aliases.

    >>> resolve_dialect("PostgreSQL")
    'postgres'

    Raises:
        SourceError: a name sqlglot does not know.
    """
    key = name.strip().lower()
    key = DIALECT_ALIASES.get(key, key)
    if key not in DIALECTS:
        raise SourceError(f"Unknown SQL dialect {name!r}.", hint=f"Use one of: {', '.join(DIALECTS)}.")
    return key


def dialect_from_name(file_name: str) -> str:
    """The dialect a file name carries before its suffix, else ``""`` (sqlglot's default).

    A word of the name counts too: sample databases ship one file per database.

    >>> dialect_from_name("crm.mysql.sql"), dialect_from_name("crm.v2.sql"), dialect_from_name("Chinook_Sqlite.sql")
    ('mysql', '', 'sqlite')
    >>> dialect_from_name("Chinook_SqlServer.sql"), dialect_from_name("big-tables.sql")
    ('tsql', '')
    """
    words = re.split(r"[._\-\s]+", Path(file_name).stem.lower())
    for word in reversed(words):  # the last word first: "crm.mysql.sql" names mysql by its suffix
        key = DIALECT_ALIASES.get(word, word)
        if key in DIALECTS:
            return key
    return ""


def dialect_from_text(text: str) -> str:
    """The dialect the text itself shows, else ``""``: ``[bracketed]`` names are T-SQL's and
    SQLite's, never the default's (sqlglot's default reads ``[`` as an array).

    T-SQL when a batch separator (``GO``) or ``IDENTITY(`` says so, else SQLite.

    >>> dialect_from_text("CREATE TABLE [Album] ([AlbumId] INTEGER);")
    'sqlite'
    >>> dialect_from_text("CREATE TABLE [Album] ([AlbumId] INT IDENTITY(1,1));\\nGO")
    'tsql'
    >>> dialect_from_text("CREATE TABLE album (id INT, tags INT[]);")
    ''
    """
    head = text[:1_000_000]  # the opening statements say it; a dump's data need not be scanned
    if not _BRACKETED.search(head):
        return ""
    return "tsql" if _TSQL.search(head) else "sqlite"


# A bracketed name where a name stands: after CREATE TABLE/VIEW/INDEX ... or a column list's "(" or ",".
_BRACKETED = re.compile(r"(?:\b(?:TABLE|VIEW|INDEX|ON|REFERENCES|KEY)\s+|[(,]\s*)\[[^\]\n]+\]", re.IGNORECASE)
_TSQL = re.compile(r"^\s*GO\s*$|\bIDENTITY\s*\(|\bCREATE\s+(?:PROC|PROCEDURE)\b", re.IGNORECASE | re.MULTILINE)


def _script(name: str, text: str, chosen: str | None) -> Script:
    """A DDL text with its dialect: the one given, else the one its name or its text shows."""
    if chosen is not None:
        return Script(name, text, chosen)
    return Script(name, text, dialect_from_name(name) or dialect_from_text(text))


def _catalog(
    scripts: list[Script], *, name: str, files: list[str], db: str | None, progress: Progress | None = None
) -> Catalog:
    result = read_ddl(scripts, progress)
    if not result.tables:
        raise _nothing_read(scripts, result)
    tables = result.tables
    if db:
        tables = tuple(t for t in tables if t.schema.lower() == db.lower())
        if not tables:
            schemas = sorted({t.schema for t in result.tables})
            raise SourceError(
                f"No table in schema {db!r} in {_names(scripts)}.", hint=f"Schemas found: {', '.join(schemas)}."
            )
    dialects = sorted({s.dialect for s in scripts})
    return Catalog(
        name=name,
        tables=tables,
        source={"kind": "ddl", "files": files, "dialect": ",".join(dialects) or None, "db": db},
        warnings=result.warnings,
    )


def _nothing_read(scripts: list[Script], result: DdlResult) -> SourceError:
    where = _names(scripts)
    if result.first_error is None:
        return SourceError(
            f"No CREATE TABLE or CREATE VIEW statement in {where}.",
            hint="Give schema DDL, such as the output of pg_dump --schema-only or mysqldump --no-data.",
        )
    dialects = sorted({s.dialect or "sqlglot's default" for s in scripts})
    return SourceError(
        f"No table could be read from {where}. {result.first_error}",
        hint=(
            f"Check the DDL is valid {' / '.join(dialects)} SQL. If it is written for another database, "
            f"name its dialect (--dialect; one of {', '.join(DIALECTS)})."
        ),
    )


def _names(scripts: list[Script]) -> str:
    names = [s.name for s in scripts]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more files" if len(names) > 3 else "")


def _ddl_paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = _ddl_files(path)
        if not files:
            raise SourceError(
                f"Folder {path} holds no .sql or .ddl files.", hint="Point at a DDL file or a folder of them."
            )
        return files
    if not path.is_file():
        raise SourceError(
            f"DDL file {path} does not exist.", hint="Check the path; give a .sql or .ddl file, or a folder of them."
        )
    return [path]


def _ddl_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file())


def _check_size(size: int, max_bytes: int | None, subject: str) -> None:
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if size > limit:
        raise PayloadTooLarge(
            f"{subject} {size:,} bytes; the limit is {limit:,} bytes ({LIMIT_VARIABLE}).",
            hint=(
                "Parsing takes about 3 s per MB. Split the schema into catalogs (one file per schema), "
                f"or raise the limit: {LIMIT_VARIABLE}={size}."
            ),
        )


def _where(source: Path, paths: list[Path]) -> str:
    if source.is_dir():
        return f"The {len(paths)} DDL files in {source} are together"
    return f"DDL file {source} is"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError as error:
        raise SourceError(f"Cannot read DDL file {path}: {error.strerror or error}.") from None


def _utf8_size(text: str, max_bytes: int | None) -> int:
    """The text's size in UTF-8, without encoding it when its length alone decides."""
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if len(text) > limit or len(text) * 4 <= limit:  # a character is 1 to 4 bytes
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _read(path: Path) -> str:
    try:
        # utf-8-sig drops a byte-order mark that would otherwise glue onto the
        # first statement; undecodable bytes (a latin-1 comment) must not fail the file.
        return path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as error:
        raise SourceError(f"Cannot read DDL file {path}: {error.strerror or error}.") from None
