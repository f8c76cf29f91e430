"""Gold data read without our code: PEP headers by Python's ``email.parser``, a catalog by PostgreSQL.

What the structured index answers is compared with answers computed from these
records alone; nothing here imports ``schema_search``.
"""

from __future__ import annotations

import datetime
import email.parser
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pep:
    number: int
    title: str
    url: str
    status: str
    type: str
    topics: tuple[str, ...]
    created: datetime.date
    python_version: str | None
    author: str
    resolution: str | None
    discussions_to: str | None


def read_peps(folder: Path) -> list[Pep]:
    """Every PEP of ``folder`` (``pages/*.rst`` and ``manifest.jsonl``), its header parsed by ``email.parser``."""
    urls = {}
    for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        urls[record["path"]] = record["url"]
    peps = []
    for page in sorted((folder / "pages").glob("pep-*.rst")):
        header = page.read_text(encoding="utf-8").split("\n\n", 1)[0]
        fields = email.parser.HeaderParser().parsestr(header)

        def value(key: str, fields=fields) -> str | None:
            found = fields.get(key)
            return " ".join(found.split()) if found is not None else None

        peps.append(
            Pep(
                number=int(value("PEP")),
                title=value("Title"),
                url=urls[page.name],
                status=value("Status"),
                type=value("Type"),
                topics=tuple(t.strip() for t in (value("Topic") or "").split(",") if t.strip()),
                created=datetime.datetime.strptime(value("Created"), "%d-%b-%Y").date(),
                python_version=value("Python-Version"),
                author=value("Author"),
                resolution=value("Resolution"),
                discussions_to=value("Discussions-To"),
            )
        )
    return peps


@dataclass(frozen=True)
class PgTable:
    schema: str
    name: str
    kind: str  # table or view
    columns: tuple[str, ...]
    nullable: tuple[bool, ...]
    primary_key: tuple[str, ...]
    foreign_key_columns: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.schema}.{self.name}".lower()


def read_postgres(url: str, ddl: Path, database: str = "structured_eval") -> list[PgTable]:
    """Load ``ddl`` into a fresh PostgreSQL database and read its catalog back from ``information_schema``."""
    import psycopg2

    admin = psycopg2.connect(url)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {database}")
        cursor.execute(f"CREATE DATABASE {database}")
    admin.close()
    connection = psycopg2.connect(url.rsplit("/", 1)[0] + f"/{database}")
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(ddl.read_text(encoding="utf-8"))
        cursor.execute(
            "SELECT table_schema, table_name, table_type FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        )
        tables = cursor.fetchall()
        cursor.execute(
            "SELECT table_schema, table_name, column_name, is_nullable FROM information_schema.columns "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY ordinal_position"
        )
        columns = cursor.fetchall()
        cursor.execute(
            "SELECT k.table_schema, k.table_name, k.column_name, c.constraint_type "
            "FROM information_schema.table_constraints c JOIN information_schema.key_column_usage k "
            "ON k.constraint_name = c.constraint_name AND k.constraint_schema = c.constraint_schema "
            "AND k.table_name = c.table_name WHERE c.constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"
        )
        keys = cursor.fetchall()
    connection.close()
    found = []
    for schema, name, kind in tables:
        mine = [(c, n == "YES") for s, t, c, n in columns if (s, t) == (schema, name)]
        found.append(
            PgTable(
                schema=schema,
                name=name,
                kind="view" if kind == "VIEW" else "table",
                columns=tuple(c for c, _ in mine),
                nullable=tuple(n for _, n in mine),
                primary_key=tuple(c for s, t, c, k in keys if (s, t) == (schema, name) and k == "PRIMARY KEY"),
                foreign_key_columns=tuple(
                    dict.fromkeys(c for s, t, c, k in keys if (s, t) == (schema, name) and k == "FOREIGN KEY")
                ),
            )
        )
    return found
