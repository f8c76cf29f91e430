"""Only built-in code runs on PostgreSQL, whatever a superuser or a type's owner planted.

A database where SQL that names nothing suspicious resolves to planted code: a cast from
integer to text, overloads and an operator planted inside ``pg_catalog``, a cast from an enum
to text made by the enum's owner, a doubling chain of views. Every planted function writes a
file with ``COPY`` (which a read-only transaction allows), so an effect is a file in ``out``.
The guard must refuse such SQL everywhere the product sends SQL (execution, the checklist's
probes, indexing) and let ordinary SQL run.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from schema_search.connectors import sqlalchemy_url
from schema_search.connectors.values import ValueHints
from schema_search.errors import QueryFailed, QueryRefused, QueryStopped, SourceError
from schema_search.execute.run import execute_sql
from schema_search.preflight.gate import Gate, GateConfig
from schema_search.preflight.verdicts import VerdictLog

from .planted import as_superuser, scratch_database

pytestmark = pytest.mark.postgres

DATA = """
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ss_type_owner') THEN CREATE ROLE ss_type_owner; END IF;
END $$;
GRANT CREATE ON SCHEMA public TO ss_type_owner;
CREATE FUNCTION public.effect(tag text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $f$
BEGIN
    EXECUTE format('COPY (SELECT %L) TO %L', tag, format('@OUT@/%s_%s', tag, md5(random()::text)));
END $f$;
SET ROLE ss_type_owner;
CREATE TYPE public.mood AS ENUM ('calm', 'busy', 'angry');
RESET ROLE;
CREATE TABLE public.people (id int PRIMARY KEY, name varchar(60), mood public.mood, score numeric(6, 2), joined date);
INSERT INTO public.people SELECT g, 'person ' || g, (ARRAY['calm', 'busy', 'angry'])[1 + g % 3]::public.mood,
    g * 1.5, date '2024-01-01' + g FROM generate_series(1, 40) g;
CREATE VIEW public.v_dbl0 AS SELECT 'x'::text AS s;
DO $$ BEGIN FOR i IN 1..22 LOOP
    EXECUTE format('CREATE VIEW public.v_dbl%s AS SELECT s || s AS s FROM public.v_dbl%s', i, i - 1);
END LOOP; END $$;
GRANT USAGE ON SCHEMA public TO schema_search_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO schema_search_reader;
"""

# A cast from integer to text: the checklist's value probe casts a column to text.
CAST = """
CREATE FUNCTION public.int_text(integer) RETURNS text LANGUAGE plpgsql SECURITY DEFINER AS $f$
BEGIN PERFORM public.effect('int_text'); RETURN $1::varchar; END $f$;
CREATE CAST (integer AS text) WITH FUNCTION public.int_text(integer);
"""

# Overloads and an operator planted where the built-ins are, and the enum owner's cast.
OVERLOADS = """
CREATE FUNCTION pg_catalog.lower(varchar) RETURNS text LANGUAGE plpgsql SECURITY DEFINER AS $f$
BEGIN PERFORM public.effect('lower'); RETURN pg_catalog.lower($1::text); END $f$;
CREATE FUNCTION pg_catalog.length(varchar) RETURNS int LANGUAGE plpgsql AS $f$
BEGIN PERFORM public.effect('length'); RETURN pg_catalog.length($1::text); END $f$;
CREATE FUNCTION public.vcat(varchar, varchar) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM public.effect('vcat'); RETURN $1::text || $2::text; END $f$;
CREATE OPERATOR pg_catalog.|| (LEFTARG = varchar, RIGHTARG = varchar, FUNCTION = public.vcat);
SET ROLE ss_type_owner;
CREATE FUNCTION public.mood_text(public.mood) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN PERFORM public.effect('mood_text'); RETURN $1::varchar; END $f$;
CREATE CAST (public.mood AS text) WITH FUNCTION public.mood_text(public.mood);
RESET ROLE;
"""


def _effects(out: Path) -> list[str]:
    return sorted(p.name.split("_")[0] for p in out.iterdir())


@pytest.fixture
def out():
    folder = Path(tempfile.mkdtemp(prefix="ss_guard_"))
    folder.chmod(0o777)  # the server writes here as postgres
    yield folder
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


def _planted(out: Path, *scripts: str):
    sql = "\n".join((DATA, *scripts)).replace("@OUT@", str(out))
    return scratch_database(sql, prefix="ss_guard")


@pytest.fixture
def cast_db(out):
    with _planted(out, CAST) as made:
        yield made


@pytest.fixture
def overloads_db(out):
    with _planted(out) as (url, name):
        # Indexed before the overloads are planted: with them, reading the catalog is refused.
        catalog = sqlalchemy_url.introspect(url, catalog="people")
        as_superuser(name, (CAST + OVERLOADS).replace("@OUT@", str(out)))
        yield url, name, catalog


def test_the_checklist_probes_nothing_planted_before_any_approval(cast_db, out, tmp_path) -> None:
    url, _ = cast_db
    catalog = sqlalchemy_url.introspect(url, catalog="people")
    assert _effects(out) == []  # the cast was planted before indexing: reading the catalog did not run it
    gate = Gate(catalog, GateConfig(url=url, log=VerdictLog(tmp_path / "verdicts.jsonl")))
    for sql in [
        "SELECT id FROM people WHERE id = 7",
        "SELECT name FROM people WHERE mood = 'busy'",
        "SELECT count(*) FROM people WHERE name = 'person 3'",
    ]:
        result = gate.execute_sql(sql, "which people?")
        assert result.status in ("ready", "needs_answers", "refused")
    assert _effects(out) == []


def test_sql_that_names_nothing_planted_is_refused_naming_what_it_would_run(overloads_db, out) -> None:
    url, _, catalog = overloads_db
    refused = {
        "SELECT CAST(id AS TEXT) FROM people": "public.int_text(integer)",
        "SELECT id::text FROM people": "public.int_text(integer)",
        "SELECT lower(name) FROM people": "the function lower(character varying)",
        "SELECT length(name) FROM people": "the function length(character varying)",
        "SELECT name || 'x' FROM people": "public.vcat(character varying,character varying)",
        "SELECT mood::text FROM people": "public.mood_text(public.mood)",
        "SELECT id FROM people WHERE mood::text LIKE 'bu%'": "public.mood_text(public.mood)",
        # A built-in SQL function whose text body picks the planted cast up when it runs.
        "SELECT 'n' || id FROM people": "a built-in SQL function analysed when it runs",
    }
    for sql, named in refused.items():
        with pytest.raises(QueryRefused, match="reaches code that is not built in") as caught:
            execute_sql(url, sql, catalog, max_rows=5, timeout_s=3)
        assert named in str(caught.value), sql
    # Ordinary SQL on the same tables runs: its tree resolves to built-ins only.
    assert execute_sql(url, "SELECT count(*) FROM people WHERE id < 5", catalog, max_rows=5, timeout_s=3).rows == [[4]]
    rows = execute_sql(url, "SELECT upper(name) FROM people WHERE id = 1", catalog, max_rows=5, timeout_s=3).rows
    assert rows == [["PERSON 1"]]
    assert execute_sql(url, "SELECT id FROM people WHERE mood = 'busy' AND id < 3", catalog, max_rows=5, timeout_s=3)
    assert _effects(out) == []


def test_the_operator_may_trust_what_it_planted_itself(overloads_db, out) -> None:
    url, _, catalog = overloads_db
    result = execute_sql(
        url,
        "SELECT lower(name) FROM people WHERE id = 1",
        catalog,
        max_rows=5,
        timeout_s=3,
        trusted_objects=("lower(character varying)",),
    )
    assert result.rows == [["person 1"]]
    assert _effects(out) == ["lower"]


def test_indexing_a_database_whose_reflection_would_run_planted_code_is_refused(overloads_db, out) -> None:
    url, _, _ = overloads_db
    # SQLAlchemy's reflection binds "$1::VARCHAR || '%'": the planted || would run in it.
    with pytest.raises(SourceError, match=r"public\.vcat\(character varying,character varying\)"):
        sqlalchemy_url.introspect(url, catalog="again", value_hints=ValueHints(timeout_s=1))
    assert _effects(out) == []


def test_indexing_samples_values_without_running_a_planted_cast(cast_db, out) -> None:
    url, _ = cast_db
    catalog = sqlalchemy_url.introspect(url, catalog="people", value_hints=ValueHints(timeout_s=2))
    assert catalog.table("public.people").column("name").values
    assert _effects(out) == []


def test_a_chain_of_doubling_views_is_refused_before_it_is_planned(overloads_db) -> None:
    url, _, catalog = overloads_db
    # Refused by the size of its tree (planning it would take seconds and gigabytes, uninterruptibly).
    with pytest.raises(QueryRefused, match="grows to about 6,291,"):
        execute_sql(url, "SELECT s FROM v_dbl20 LIMIT 1", catalog, max_rows=1, timeout_s=3)
    assert execute_sql(url, "SELECT length(s) FROM v_dbl5", catalog, max_rows=1, timeout_s=3).rows == [[32]]


def test_a_recursive_query_that_doubles_a_string_is_stopped(overloads_db) -> None:
    url, _, catalog = overloads_db
    # Stopped by statement_timeout or the role's temp_file_limit; how soon is measured by the
    # hostile suite's runaway part (a benchmark, not a test: this machine may be busy).
    with pytest.raises((QueryStopped, QueryFailed), match="ran longer than|temp_file_limit"):
        execute_sql(
            url,
            "WITH RECURSIVE r(s) AS (SELECT 'x'::text UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r",
            catalog,
            max_rows=5,
            timeout_s=2,
        )


def test_a_planted_selectivity_estimator_on_a_built_in_operator_is_found(overloads_db) -> None:
    url, name, catalog = overloads_db
    # Planning "integer = integer" in a WHERE calls the operator's estimator, planted or not.
    as_superuser(
        name,
        "CREATE FUNCTION public.mysel(internal, oid, internal, integer) RETURNS float8 LANGUAGE internal STABLE "
        "AS 'eqsel';\nALTER OPERATOR pg_catalog.= (integer, integer) SET (RESTRICT = public.mysel);",
    )
    with pytest.raises(QueryRefused, match=r"public\.mysel"):
        execute_sql(url, "SELECT count(*) FROM people WHERE id = 3", catalog, max_rows=5, timeout_s=3)
    assert execute_sql(url, "SELECT count(*) FROM people", catalog, max_rows=5, timeout_s=3).rows == [[40]]
    # On "oid = oid", the checker's own catalog queries would call it: they are refused before they run.
    as_superuser(name, "ALTER OPERATOR pg_catalog.= (oid, oid) SET (RESTRICT = public.mysel);")
    with pytest.raises(QueryRefused, match="checker's own catalog queries"):
        execute_sql(url, "SELECT count(*) FROM people", catalog, max_rows=5, timeout_s=3)
