"""connectors.ddl: DDL text and files in several dialects, errors, and four real schemas."""

from __future__ import annotations

from pathlib import Path

import pytest

from schema_search.connectors import ddl
from schema_search.connectors.ddl_statements import split_statements, statement_label
from schema_search.errors import SourceError
from schema_search.tables.catalog import Catalog, Column, ForeignKey

SCHEMAS = Path(__file__).resolve().parents[3] / "shared" / "schemas"


def read(text: str, dialect: str | None = "postgres", name: str = "test.sql") -> Catalog:
    return ddl.catalog_from_ddl(text, catalog="t", dialect=dialect, source_name=name)


# --- splitting ------------------------------------------------------------------


def test_split_respects_quotes_comments_and_dollar_quoting():
    script = """
CREATE TABLE a (x text DEFAULT 'it''s; here', "odd;name" int); -- trailing; comment
/* block; comment */
COMMENT ON TABLE a IS $body$ has ; and $$ inside $body$;
SELECT $$;$$, E'\\';'
;"""
    statements = list(split_statements(script))
    assert [s.line for s in statements] == [2, 4, 5]
    assert statements[1].text == "COMMENT ON TABLE a IS $body$ has ; and $$ inside $body$"
    assert statements[2].text.endswith("E'\\';'")


def test_split_mysql_backslash_escapes_and_hash_comments():
    script = "# header; note\nCREATE TABLE a (x text COMMENT 'don\\'t; split');\nCREATE TABLE b (y int);"
    statements = list(split_statements(script, backslash_escapes=True, hash_comments=True))
    assert [(s.line, s.text[:14]) for s in statements] == [(2, "CREATE TABLE a"), (3, "CREATE TABLE b")]


def test_split_tsql_go_batches():
    script = "CREATE TABLE a (x int)\ngo\nCREATE TABLE b (y int);\nGO\n;;\nSELECT 'GO\nGO'"
    statements = list(split_statements(script, go_batches=True))
    assert [(s.line, s.text) for s in statements] == [
        (1, "CREATE TABLE a (x int)"),
        (3, "CREATE TABLE b (y int)"),
        (6, "SELECT 'GO\nGO'"),
    ]


def test_split_skips_copy_data_and_psql_meta_commands():
    script = "\\connect crm\nCOPY t (a) FROM stdin;\nit's; data\n\\.\nCREATE TABLE b (y int);\n"
    statements = list(split_statements(script))
    assert [(s.line, s.text) for s in statements] == [(2, "COPY t (a) FROM stdin"), (5, "CREATE TABLE b (y int)")]


def test_statement_label_picks_the_statements_that_shape_the_catalog():
    assert statement_label("CREATE MATERIALIZED VIEW s.v AS SELECT 1") == "CREATE VIEW s.v"
    assert statement_label("CREATE ALGORITHM=UNDEFINED DEFINER=`r`@`%` SQL SECURITY DEFINER VIEW `v` AS select 1") == (
        "CREATE VIEW `v`"
    )
    assert statement_label("comment on column a.b is 'x'") == "COMMENT ON COLUMN a.b"
    assert statement_label("CREATE INDEX view_idx ON table_x (a)") is None
    assert statement_label("ALTER TABLE a ADD CHECK (x > 0)") is None


# --- tables ---------------------------------------------------------------------


def test_columns_types_defaults_and_inline_keys():
    catalog = read(
        """CREATE TABLE IF NOT EXISTS customers (
            id serial PRIMARY KEY,
            name varchar(100) NOT NULL,
            country char(2) DEFAULT 'NL',
            note text NULL
        );"""
    )
    table = catalog.table("public.customers")
    assert table.primary_key == ("id",)
    assert table.columns == (
        Column("id", "SERIAL", nullable=False),
        Column("name", "VARCHAR(100)", nullable=False),
        Column("country", "CHAR(2)", default="'NL'"),
        Column("note", "TEXT"),
    )
    assert catalog.source == {"kind": "ddl", "files": ["test.sql"], "dialect": "postgres", "db": None}


def test_compound_primary_and_foreign_keys():
    catalog = read(
        """CREATE TABLE sales.orders (customer_id int, order_no int, PRIMARY KEY (customer_id, order_no));
        CREATE TABLE sales.order_lines (
            customer_id int, order_no int, line_no int,
            CONSTRAINT lines_order_fk FOREIGN KEY (customer_id, order_no)
                REFERENCES sales.orders (customer_id, order_no),
            PRIMARY KEY (customer_id, order_no, line_no)
        );"""
    )
    lines = catalog.table("sales.order_lines")
    assert lines.primary_key == ("customer_id", "order_no", "line_no")
    assert lines.foreign_keys == (
        ForeignKey(("customer_id", "order_no"), "sales.orders", ("customer_id", "order_no"), "lines_order_fk"),
    )
    assert all(not c.nullable for c in catalog.table("sales.orders").columns)


def test_references_without_columns_mean_the_targets_primary_key():
    catalog = read(
        """CREATE TABLE Account (code text, region text);
        CREATE TABLE invoice (
            id int, account_code text REFERENCES account, FOREIGN KEY (id, account_code) REFERENCES Account
        );
        ALTER TABLE ONLY account ADD CONSTRAINT account_pk PRIMARY KEY (code);"""
    )
    keys = catalog.table("public.invoice").foreign_keys
    # Only the one-column key matches the one-column primary key declared afterwards.
    assert keys == (
        ForeignKey(("account_code",), "public.account", ("code",)),
        ForeignKey(("id", "account_code"), "public.account", ()),
    )


def test_alter_table_adds_keys_and_columns():
    catalog = read(
        """CREATE TABLE a (id int);
        CREATE TABLE b (id int, a_id int);
        ALTER TABLE a ADD PRIMARY KEY (id);
        ALTER TABLE ONLY b ADD CONSTRAINT b_a_fk FOREIGN KEY (a_id) REFERENCES a(id) ON DELETE CASCADE;
        ALTER TABLE b ADD COLUMN parent int REFERENCES b (id), ADD COLUMN label text NOT NULL;
        ALTER TABLE b OWNER TO admin;"""
    )
    b = catalog.table("public.b")
    assert [c.name for c in b.columns] == ["id", "a_id", "parent", "label"]
    assert b.foreign_keys == (
        ForeignKey(("a_id",), "public.a", ("id",), "b_a_fk"),
        ForeignKey(("parent",), "public.b", ("id",)),
    )
    assert catalog.table("public.a").primary_key == ("id",)
    assert catalog.warnings == ()


def test_comment_on_table_view_and_column():
    catalog = read(
        """CREATE TABLE crm.contacts (email text);
        CREATE VIEW crm.active AS SELECT email FROM crm.contacts;
        COMMENT ON TABLE crm.contacts IS 'People we talk to.';
        COMMENT ON VIEW crm.active IS $$ Contacts seen this year. $$;
        COMMENT ON COLUMN crm.active.email IS $$ From contacts. $$;
        comment on column crm.contacts.email is E'Work address, \\'primary\\'';
        COMMENT ON TABLE crm.active IS 'replaced';
        COMMENT ON TABLE crm.active IS NULL;"""
    )
    assert catalog.table("crm.contacts").comment == "People we talk to."
    assert catalog.table("crm.active").comment is None
    assert catalog.table("crm.contacts").column("email").comment == "Work address, 'primary'"
    assert catalog.table("crm.active").column("email").comment == "From contacts."


def test_mysql_backticks_comments_and_ignored_indexes():
    catalog = read(
        """CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;
        CREATE TABLE `Orders` (
          `ID` int(11) NOT NULL AUTO_INCREMENT COMMENT 'Order number; shown to customers',
          `customer` varchar(40) DEFAULT NULL COMMENT 'Customer\\'s login',
          PRIMARY KEY (`ID`),
          KEY `idx_customer` (`customer`),
          UNIQUE KEY `u` (`customer`),
          CONSTRAINT `fk_customer` FOREIGN KEY (`customer`) REFERENCES `customers` (`login`)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='One row per order';""",
        dialect="mysql",
    )
    orders = catalog.table("shop.orders")
    assert orders.name == "Orders"
    assert orders.comment == "One row per order"
    assert [(c.name, c.type, c.comment) for c in orders.columns] == [
        ("ID", "INT(11)", "Order number; shown to customers"),
        ("customer", "VARCHAR(40)", "Customer's login"),
    ]
    assert orders.foreign_keys == (ForeignKey(("customer",), "shop.customers", ("login",), "fk_customer"),)


def test_mysqldump_views_inside_executable_comments():
    catalog = read(
        """CREATE TABLE t (a int);
        /*!50001 CREATE ALGORITHM=UNDEFINED */
        /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */
        /*!50001 VIEW `v` AS select `t`.`a` AS `a` from `t` */;""",
        dialect="mysql",
    )
    assert [c.name for c in catalog.table("main.v").columns] == ["a"]


def test_search_path_decides_unqualified_names():
    catalog = read(
        """CREATE TABLE public.country (code text PRIMARY KEY);
        SET search_path = music, public;
        CREATE TABLE artist (id int PRIMARY KEY, country text REFERENCES country);
        SET search_path TO "$user", billing;
        CREATE TABLE invoice (artist int REFERENCES music.artist);
        SELECT pg_catalog.set_config('search_path', '', false);
        CREATE TABLE plain (x int);"""
    )
    assert [t.id for t in catalog.tables] == ["public.country", "music.artist", "billing.invoice", "public.plain"]
    assert catalog.table("music.artist").foreign_keys == (ForeignKey(("country",), "public.country", ("code",)),)


@pytest.mark.parametrize(
    ("dialect", "schema"),
    [("postgres", "public"), ("sqlite", "main"), ("duckdb", "main"), ("mysql", "main"), (None, "main")],
)
def test_default_schema_per_dialect(dialect, schema):
    assert read("CREATE TABLE t (a int);", dialect=dialect).tables[0].schema == schema


def test_views_take_columns_from_the_select_list():
    catalog = read(
        """CREATE TABLE t (a int, b text);
        CREATE OR REPLACE VIEW v1 AS SELECT t.a, b AS label, a::text, count(*), 1, t.* FROM t GROUP BY 1, 2;
        CREATE VIEW v2 (x, y) AS SELECT a, b FROM t;
        CREATE MATERIALIZED VIEW v3 AS SELECT a FROM t UNION SELECT a FROM t;"""
    )
    v1 = catalog.table("public.v1")
    assert v1.kind == "view"
    # t.* stands for t's columns; a name given twice counts once (its first, typed occurrence).
    assert [(c.name, c.type) for c in v1.columns] == [("a", "INT"), ("label", "TEXT"), ("b", "TEXT")]
    assert v1.definition.startswith("CREATE OR REPLACE VIEW v1 AS SELECT")
    assert [c.name for c in catalog.table("public.v2").columns] == ["x", "y"]
    assert [c.name for c in catalog.table("public.v3").columns] == ["a"]
    assert catalog.table("public.v3").kind == "view"


def test_line_comments_become_column_comments():
    catalog = read(
        """CREATE TABLE track ( -- replicate
            id serial,
            recording int NOT NULL, -- references recording.id
            -- position on the medium
            position int,
            length int CHECK (
                -- not part of any column's meaning
                length > 0),
            name text COMMENT 'the title' -- loses to the explicit comment
        );""",
        dialect="mysql",
    )
    comments = {c.name: c.comment for c in catalog.table("main.track").columns}
    assert comments == {
        "id": None,
        "recording": "references recording.id",
        "position": "position on the medium",
        "length": None,
        "name": "the title",
    }


def test_dialect_specifics_sqlite_typeless_columns_and_tsql_scripts():
    sqlite = read("CREATE TABLE t (a, b INTEGER PRIMARY KEY AUTOINCREMENT, c REFERENCES t);", dialect="sqlite")
    assert [(c.name, c.type) for c in sqlite.tables[0].columns] == [("a", ""), ("b", "INTEGER"), ("c", "")]
    assert sqlite.tables[0].foreign_keys == (ForeignKey(("c",), "main.t", ("b",)),)
    tsql = read(
        "CREATE TABLE [sales].[Orders] ([Id] INT NOT NULL PRIMARY KEY)\nGO\nCREATE TABLE Log (At DATETIME2)\nGO\n",
        dialect="tsql",
    )
    assert [t.id for t in tsql.tables] == ["sales.orders", "dbo.log"]


def test_inherits_partition_of_and_like_copy_columns():
    catalog = read(
        """CREATE TABLE note (id int, body text);
        CREATE TABLE invoice_note (invoice int) INHERITS (note);
        CREATE TABLE note_2024 PARTITION OF note FOR VALUES FROM (1) TO (9);
        CREATE TABLE note_copy (LIKE note INCLUDING ALL, copied_at date);"""
    )
    columns = {t.name: [c.name for c in t.columns] for t in catalog.tables}
    assert columns["invoice_note"] == ["id", "body", "invoice"]
    assert columns["note_2024"] == ["id", "body"]
    assert columns["note_copy"] == ["id", "body", "copied_at"]


def test_duplicate_definitions_last_wins_unless_if_not_exists():
    catalog = read(
        """CREATE TABLE a (x int); CREATE TABLE b (y int);
        CREATE TABLE a (x int, z int);
        CREATE TABLE IF NOT EXISTS b (ignored int);"""
    )
    assert [(t.name, [c.name for c in t.columns]) for t in catalog.tables] == [("a", ["x", "z"]), ("b", ["y"])]


def test_quoted_identifiers_keep_their_spelling():
    catalog = read('CREATE TABLE "Sales Data"."Order Lines" ("Line No" int, "unitPrice" numeric(10,2));')
    table = catalog.table("sales data.order lines")
    assert (table.schema, table.name) == ("Sales Data", "Order Lines")
    assert [(c.name, c.type) for c in table.columns] == [("Line No", "INT"), ("unitPrice", "DECIMAL(10, 2)")]


def test_catalog_round_trips_through_json():
    catalog = read(
        "CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (a_id int REFERENCES a); COMMENT ON TABLE b IS 'x'"
    )
    assert Catalog.from_json(catalog.to_json()) == catalog


# --- errors for people ----------------------------------------------------------


def test_malformed_ddl_names_file_line_and_dialect():
    with pytest.raises(SourceError) as caught:
        read("-- contacts\n\nCREATE TABLE contacts (\n  id int,\n  email text NOT NULL DEFAULT\n);", name="crm.sql")
    message = str(caught.value)
    assert "crm.sql:3: could not parse CREATE TABLE contacts" in message
    assert "line 6" in message
    assert "--dialect" in message


def test_partly_malformed_ddl_keeps_the_rest_with_warnings():
    catalog = read(
        """CREATE TABLE good (id int PRIMARY KEY);
        CREATE TABLE bad (id int NOT NULL DEFAULT);
        CREATE EXTENSION IF NOT EXISTS cube;
        ALTER TABLE missing ADD FOREIGN KEY (a) REFERENCES good;
        CREATE INDEX good_idx ON good USING gist (id);""",
        name="app.sql",
    )
    assert [t.name for t in catalog.tables] == ["good"]
    assert len(catalog.warnings) == 2
    assert catalog.warnings[0].startswith("app.sql:2: skipped CREATE TABLE bad: ")
    assert catalog.warnings[1] == "app.sql:4: skipped ALTER TABLE missing: no table missing was created before"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "is empty"),
        ("  \n-- nothing\n", "No CREATE TABLE or CREATE VIEW"),
        ("INSERT INTO t VALUES (1); GRANT ALL ON t TO bob;", "No CREATE TABLE or CREATE VIEW"),
        ("ALTER TABLE t ADD PRIMARY KEY (a); COMMENT ON TABLE t IS 'x';", "No CREATE TABLE or CREATE VIEW"),
        ("CREATE TABLE t (a text DEFAULT 'unterminated);", "test.sql:1: could not parse CREATE TABLE t"),
        ("CREATE TABLE ((((", "could not parse"),
        ("\x00\ufffd CREATE TABLE", "No CREATE TABLE"),
    ],
)
def test_bad_input_raises_only_source_error(text, expected):
    with pytest.raises(SourceError, match=expected):
        read(text)


def test_unknown_dialect_lists_the_valid_ones():
    with pytest.raises(SourceError) as caught:
        read("CREATE TABLE t (a int);", dialect="oracle9")
    assert "Unknown SQL dialect 'oracle9'" in str(caught.value)
    assert "postgres" in caught.value.hint and "mysql" in caught.value.hint


def test_files_missing_or_empty(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        ddl.introspect(str(tmp_path / "nope.sql"), catalog="x")
    (tmp_path / "empty.sql").write_text("")
    with pytest.raises(SourceError, match="is empty"):
        ddl.introspect(str(tmp_path / "empty.sql"), catalog="x")
    (tmp_path / "sub").mkdir()
    with pytest.raises(SourceError, match="holds no .sql"):
        ddl.introspect(str(tmp_path / "sub"), catalog="x")


# --- files, folders and dialects ------------------------------------------------


def test_matches():
    assert ddl.matches("schema.sql") and ddl.matches("dump.DDL")
    assert not ddl.matches("sqlite:///x.sql") and not ddl.matches("schemas.jsonl")


def test_folder_reads_files_in_name_order_with_their_own_dialects(tmp_path):
    (tmp_path / "2_orders.mysql.sql").write_text("CREATE TABLE `orders` (`customer` int REFERENCES customers (id));")
    (tmp_path / "1_customers.postgresql.ddl").write_text("CREATE TABLE main.customers (id int PRIMARY KEY);")
    (tmp_path / "notes.txt").write_text("not DDL")
    assert ddl.matches(str(tmp_path))
    catalog = ddl.introspect(str(tmp_path), catalog="shop")
    assert [t.id for t in catalog.tables] == ["main.customers", "main.orders"]
    assert catalog.table("main.orders").foreign_keys == (ForeignKey(("customer",), "main.customers", ("id",)),)
    assert catalog.source["dialect"] == "mysql,postgres"
    assert [Path(f).name for f in catalog.source["files"]] == ["1_customers.postgresql.ddl", "2_orders.mysql.sql"]


def test_explicit_dialect_wins_over_the_file_name(tmp_path):
    path = tmp_path / "crm.mysql.sql"
    path.write_text("CREATE TABLE t (a int);")
    assert ddl.introspect(str(path), catalog="c", dialect="PostgreSQL").tables[0].schema == "public"
    assert ddl.introspect(str(path), catalog="c").tables[0].schema == "main"


def test_db_filter(tmp_path):
    path = tmp_path / "two.sql"
    path.write_text("CREATE TABLE a.t (x int); CREATE TABLE b.u (y int REFERENCES a.t (x));")
    assert [t.id for t in ddl.introspect(str(path), catalog="c", db="B").tables] == ["b.u"]
    with pytest.raises(SourceError, match="Schemas found: a, b"):
        ddl.introspect(str(path), catalog="c", db="nope")


# --- four real schemas (../shared/schemas) ---------------------------------------

# From ../shared/schemas/README.md: tables and views that sqlglot parses, and foreign
# keys. Two differ by design: musicbrainz has one FK on the unparsable medium_index,
# ledgersmb declares one FK twice.
REAL = {
    "kuali_coeus.mysql.sql": (1202, 15, 712),
    "musicbrainz.postgres.sql": (515, 12, 888),
    "evergreen.postgres.sql": (495, 123, 838),
    "ledgersmb.postgres.sql": (158, 1, 246),
}


@pytest.fixture(scope="module")
def real_catalog():
    cache: dict[str, Catalog] = {}

    def load(name: str) -> Catalog:
        path = SCHEMAS / name
        if not path.is_file():
            pytest.skip(f"{path} is not here")
        if name not in cache:
            cache[name] = ddl.introspect(str(path), catalog=name.split(".")[0])
        return cache[name]

    return load


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_schema_counts(real_catalog, name):
    catalog = real_catalog(name)
    tables, views, foreign_keys = REAL[name]
    assert sum(t.kind == "table" for t in catalog.tables) == tables
    assert sum(t.kind == "view" for t in catalog.tables) == views
    assert sum(len(t.foreign_keys) for t in catalog.tables) == foreign_keys
    # Every key points at a table the file declares.
    assert all(catalog.table(fk.ref_table) for t in catalog.tables for fk in t.foreign_keys)


@pytest.mark.slow
def test_real_kuali(real_catalog):
    catalog = real_catalog("kuali_coeus.mysql.sql")
    award = catalog.table("main.award")
    assert ForeignKey(("LEAD_UNIT_NUMBER",), "main.unit", ("UNIT_NUMBER",), "FK_AWARD_UNIT") in award.foreign_keys
    assert award.column("AWARD_SEQUENCE_STATUS").default == "'PENDING'"
    assert catalog.warnings == ()


@pytest.mark.slow
def test_real_musicbrainz(real_catalog):
    catalog = real_catalog("musicbrainz.postgres.sql")
    artist = catalog.table("musicbrainz.artist")
    assert artist.primary_key == ("id",)
    assert ForeignKey(("area",), "musicbrainz.area", ("id",), "artist_fk_area") in artist.foreign_keys
    assert artist.column("area").comment == "references area.id"
    assert catalog.warnings[0].startswith("musicbrainz.postgres.sql:3971: skipped CREATE TABLE medium_index: ")


@pytest.mark.slow
def test_real_evergreen(real_catalog):
    catalog = real_catalog("evergreen.postgres.sql")
    assert catalog.table("actor.usr").comment.startswith("User objects")
    hours = catalog.table("actor.hours_of_operation")
    assert hours.column("dow_0_open").comment == "When does this org_unit open on Monday?"
    assert any("skipped CREATE TABLE config.floating_group_member" in w for w in catalog.warnings)


@pytest.mark.slow
def test_real_ledgersmb(real_catalog):
    catalog = real_catalog("ledgersmb.postgres.sql")
    assert catalog.table("public.lsmb_module").comment.startswith("This stores categories functionality into modules.")
    assert catalog.table("public.asset_dep_method").column("method").comment
    assert catalog.warnings == ()


def test_view_columns_take_the_types_of_the_columns_they_come_from():
    catalog = read(
        """CREATE TABLE shop.orders (id bigint PRIMARY KEY, total numeric(10, 2), placed date);
        CREATE TABLE shop.lines (order_id bigint REFERENCES shop.orders, qty int);
        CREATE VIEW shop.v AS
          WITH recent AS (SELECT id FROM shop.orders)
          SELECT o.id, total AS amount, o.placed::text AS day, sum(l.qty) AS units, r.id AS recent_id, qty
          FROM shop.orders o JOIN shop.lines l ON l.order_id = o.id JOIN recent r ON r.id = o.id
          GROUP BY 1, 2, 3, 5, 6;
        CREATE VIEW shop.w AS SELECT v.*, (SELECT 1) AS one FROM shop.v;
        COMMENT ON COLUMN shop.v.units IS 'Items ordered';"""
    )
    v = catalog.table("shop.v")
    assert [(c.name, c.type) for c in v.columns] == [
        ("id", "BIGINT"),
        ("amount", "DECIMAL(10, 2)"),
        ("day", "TEXT"),
        ("units", ""),  # an aggregate: unknown, not guessed
        ("recent_id", ""),  # from a CTE: unknown
        ("qty", "INT"),  # unqualified, found in the one known table that has it
    ]
    assert v.column("units").comment == "Items ordered"  # COMMENT ON a view column still applies
    w = catalog.table("shop.w")  # a view over a view, with its star expanded
    assert [(c.name, c.type) for c in w.columns][:2] == [("id", "BIGINT"), ("amount", "DECIMAL(10, 2)")]
    assert w.column("one").type == ""


def test_mysql_parenthesised_joins_give_view_types():
    catalog = read(
        """CREATE TABLE `a` (`ID` decimal(12,0), `NAME` varchar(20));
        CREATE TABLE `b` (`A_ID` decimal(12,0), `CODE` char(3));
        CREATE VIEW `v` AS select `x`.`ID` AS `ID`,`y`.`CODE` AS `CODE` from (`a` `x` join `b` `y`) where `y`.`A_ID` = `x`.`ID`;""",
        dialect="mysql",
    )
    assert [(c.name, c.type) for c in catalog.table("main.v").columns] == [
        ("ID", "DECIMAL(12, 0)"),
        ("CODE", "CHAR(3)"),
    ]


CHINOOK = Path(__file__).parent.parent / "fixtures" / "chinook_sqlite_head.sql"


@pytest.mark.parametrize("name", ["Chinook.sql", "Chinook_Sqlite.sql"])
def test_bracketed_names_are_read_without_naming_the_dialect(tmp_path: Path, name: str) -> None:
    # The brackets (or the file's name) say which dialect: --dialect sqlite is not needed.
    (tmp_path / name).write_text(CHINOOK.read_text(encoding="utf-8"), encoding="utf-8")
    catalog = ddl.introspect(str(tmp_path / name), catalog="chinook")
    assert [t.id for t in catalog.tables] == ["main.album", "main.artist", "main.track"]
    assert catalog.source["dialect"] == "sqlite"
    album = catalog.table("main.album")
    assert album.primary_key == ("AlbumId",)
    assert album.foreign_keys == (ForeignKey(("ArtistId",), "main.artist", ("ArtistId",)),)


def test_bracketed_ddl_given_as_text_is_read_too() -> None:
    catalog = ddl.catalog_from_ddl(CHINOOK.read_text(encoding="utf-8"), catalog="chinook", dialect=None)
    assert len(catalog.tables) == 3
