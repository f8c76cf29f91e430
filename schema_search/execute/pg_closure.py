"""Everything a statement's objects lead to in the PostgreSQL catalog, and whether all of it is built in.

A query tree names the functions, operators, types and relations a statement resolves to; their
code reaches further: an operator's function and selectivity estimators, a type's input and output
functions and domain checks, a table's index expressions, constraints and partition bounds, the
support functions of operator families, an aggregate's state functions, a text-search
configuration's parser. :func:`close_over_catalog` follows all of it (each catalog query run
through the caller's checked ``run``); :func:`refusal` says why the result may not run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .pg_inventory import Inventory, Run
from .pg_tree import FIRST_USER_OID, references

# Built-ins that run SQL given as text, or read relations by name, at run time: never.
_RUNS_SQL_TEXT = frozenset(
    {
        "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema",
        "table_to_xml", "table_to_xmlschema", "table_to_xml_and_xmlschema", "schema_to_xml", "schema_to_xmlschema",
        "schema_to_xml_and_xmlschema", "database_to_xml", "database_to_xmlschema", "database_to_xml_and_xmlschema",
        "ts_stat", "ts_rewrite",
    }
)  # fmt: skip
# JSON functions look a cast from each value's type to json up at run time.
_JSON_CASTS = re.compile(
    r"^(to_jsonb?|row_to_json|array_to_json|jsonb?_build_(object|array)|jsonb?_(object_)?agg(_strict|_unique|_unique_strict)?_transfn)$"
)


@dataclass
class Closure:
    """Every object a statement reaches, by (kind, oid): its name and what is notable about it."""

    names: dict[tuple[str, int], str] = field(default_factory=dict)
    notes: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    seen: set[tuple[str, int]] = field(default_factory=set)


def close_over_catalog(run: Run, objects: set[tuple[str, int]]) -> Closure:
    """Everything the objects lead to: each object's own code, then what that code refers to."""
    closure = Closure()
    pending = set(objects)
    while pending:
        closure.seen |= pending
        found = _expand(run, pending)
        following: set[tuple[str, int]] = set()
        for key in pending:
            name, notes, children = found.get(key, ("?", {"not in the catalog"}, set()))
            closure.names[key] = name
            if notes:
                closure.notes.setdefault(key, set()).update(notes)
            following |= children
        pending = following - closure.seen
    if any("looks casts up" in notes for notes in closure.notes.values()):
        _json_casts(run, closure)
    return closure


def _json_casts(run: Run, closure: Closure) -> None:
    """to_json and its kind find a cast ``<type> -> json`` at run time for each type that is not built in."""
    types = sorted(oid for kind, oid in closure.seen if kind == "type" and oid >= FIRST_USER_OID)
    if not types:
        return
    functions = set()
    for cast, name, function in run(_JSON_CASTS_QUERY, (types,)):
        closure.names[("cast", cast)] = name
        closure.seen.add(("cast", cast))
        if function:
            functions.add(("func", function))
    if functions - closure.seen:
        more = close_over_catalog(run, functions - closure.seen)
        closure.names.update(more.names)
        closure.seen |= more.seen
        for key, notes in more.notes.items():
            closure.notes.setdefault(key, set()).update(notes)


_JSON_CASTS_QUERY = """
SELECT c.oid::pg_catalog.int8, pg_catalog.format('cast %%s -> %%s', c.castsource::pg_catalog.regtype,
       c.casttarget::pg_catalog.regtype), c.castfunc::pg_catalog.oid::pg_catalog.int8
  FROM pg_catalog.pg_cast c WHERE c.castsource = ANY(%s::pg_catalog.oid[]) AND c.casttarget IN (114, 3802)
"""


def _expand(run: Run, keys: set[tuple[str, int]]) -> dict[tuple[str, int], tuple[str, set[str], set]]:
    """Per object: its name, what is notable about it, and the objects its code refers to."""
    by_kind: dict[str, list[int]] = {}
    for kind, oid in keys:
        by_kind.setdefault(kind, []).append(oid)
    out: dict[tuple[str, int], tuple[str, set[str], set]] = {}
    for kind, query in _QUERIES.items():
        oids = by_kind.get(kind)
        if not oids:
            continue
        for row in run(query, (oids,) * query.count("%s")):
            out.update(_READERS[kind](row))
    return out


def _function(row: tuple) -> dict:
    oid, name, language, support, returns, proname, text_body, sql_body, *aggregate = row
    *procedures, sort_operator, state_type, moving_state_type = aggregate
    notes = set()
    if oid < FIRST_USER_OID:
        if language not in ("internal", "c", "sql"):
            notes.add(f"a built-in OID in language {language} (replaced in place)")
        if language == "sql" and text_body:
            notes.add("its body is text, analysed when it runs")
        if _JSON_CASTS.match(proname):
            notes.add("looks casts up to json at run time")
        if proname in _RUNS_SQL_TEXT:
            notes.add("runs SQL text at run time")
    children = {("func", p) for p in (support, *procedures) if p}
    children |= {("type", t) for t in (returns, state_type, moving_state_type) if t}
    if sql_body:
        # A LANGUAGE sql function's parsed body: what it calls is part of what runs (a built-in's
        # body replaced in place keeps the built-in's OID, so only its body tells).
        children |= references(sql_body, wrapped=False).objects
    if sort_operator:
        children.add(("oper", sort_operator))
    return {("func", oid): (name, notes, children)}


def _operator(row: tuple) -> dict:
    oid, name, code, restrict, join, commutator, negator, left, right, result, families = row
    children = {("func", p) for p in (code, restrict, join) if p}
    children |= {("oper", p) for p in (commutator, negator) if p}
    children |= {("type", t) for t in (left, right, result) if t}
    children |= {("opfamily", f) for f in families}
    return {("oper", oid): (name, set(), children)}


def _family(row: tuple) -> dict:
    oid, name, handler, procedures = row
    return {("opfamily", oid): (name, set(), {("func", p) for p in (handler, *procedures) if p})}


def _type(row: tuple) -> dict:
    oid, name, procedures, related, checks, attributes, families = row
    children = {("func", p) for p in procedures if p}
    children |= {("type", t) for t in (*related, *attributes) if t}
    children |= {("opfamily", f) for f in families if f}
    for expression in checks:
        children |= references(expression, wrapped=False).objects
    return {("type", oid): (name, set(), children)}


def _relation(row: tuple) -> dict:
    oid, name, kind, handler, expressions, families, handlers, inheritors = row
    children = {("func", p) for p in (handler, *handlers) if p}
    children |= {("opfamily", f) for f in families if f}
    children |= {("rel", r) for r in inheritors}
    for expression in expressions:
        children |= references(expression, wrapped=False).objects
    return {("rel", oid): (name, {"a foreign table"} if kind == "f" else set(), children)}


def _text_search(row: tuple) -> dict:
    kind, oid, name, procedures = row
    return {(kind, oid): (name, set(), {("func", p) for p in procedures if p})}


_QUERIES = {
    "func": """
SELECT p.oid::pg_catalog.int8, p.oid::pg_catalog.regprocedure::text, l.lanname::text,
       p.prosupport::pg_catalog.oid::pg_catalog.int8, p.prorettype::pg_catalog.int8, p.proname::text,
       p.prolang = 14 AND p.prosqlbody IS NULL, p.prosqlbody::text,
       a.aggtransfn::pg_catalog.oid::pg_catalog.int8, a.aggfinalfn::pg_catalog.oid::pg_catalog.int8,
       a.aggcombinefn::pg_catalog.oid::pg_catalog.int8, a.aggserialfn::pg_catalog.oid::pg_catalog.int8,
       a.aggdeserialfn::pg_catalog.oid::pg_catalog.int8, a.aggmtransfn::pg_catalog.oid::pg_catalog.int8,
       a.aggminvtransfn::pg_catalog.oid::pg_catalog.int8, a.aggmfinalfn::pg_catalog.oid::pg_catalog.int8,
       a.aggsortop::pg_catalog.int8, a.aggtranstype::pg_catalog.int8, a.aggmtranstype::pg_catalog.int8
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
  LEFT JOIN pg_catalog.pg_aggregate a ON a.aggfnoid = p.oid
 WHERE p.oid = ANY(%s::pg_catalog.oid[])""",
    "oper": """
SELECT o.oid::pg_catalog.int8, o.oid::pg_catalog.regoperator::text, o.oprcode::pg_catalog.oid::pg_catalog.int8,
       o.oprrest::pg_catalog.oid::pg_catalog.int8, o.oprjoin::pg_catalog.oid::pg_catalog.int8,
       o.oprcom::pg_catalog.int8, o.oprnegate::pg_catalog.int8, o.oprleft::pg_catalog.int8,
       o.oprright::pg_catalog.int8, o.oprresult::pg_catalog.int8,
       ARRAY(SELECT amopfamily::pg_catalog.int8 FROM pg_catalog.pg_amop WHERE amopopr = o.oid)
  FROM pg_catalog.pg_operator o WHERE o.oid = ANY(%s::pg_catalog.oid[])""",
    "opfamily": """
SELECT f.oid::pg_catalog.int8, f.opfname || ' (' || am.amname || ')', am.amhandler::pg_catalog.oid::pg_catalog.int8,
       ARRAY(SELECT amproc::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_amproc WHERE amprocfamily = f.oid)
  FROM pg_catalog.pg_opfamily f JOIN pg_catalog.pg_am am ON am.oid = f.opfmethod
 WHERE f.oid = ANY(%s::pg_catalog.oid[])""",
    "type": """
SELECT t.oid::pg_catalog.int8, t.oid::pg_catalog.regtype::text,
       ARRAY[t.typinput::pg_catalog.oid, t.typoutput::pg_catalog.oid, t.typreceive::pg_catalog.oid,
             t.typsend::pg_catalog.oid, t.typmodin::pg_catalog.oid, t.typmodout::pg_catalog.oid,
             t.typanalyze::pg_catalog.oid, t.typsubscript::pg_catalog.oid, r.rngcanonical::pg_catalog.oid,
             r.rngsubdiff::pg_catalog.oid]::pg_catalog.int8[],
       ARRAY[t.typelem, t.typbasetype, r.rngsubtype, mr.rngtypid]::pg_catalog.int8[],
       ARRAY(SELECT conbin::text FROM pg_catalog.pg_constraint WHERE contypid = t.oid AND conbin IS NOT NULL),
       ARRAY(SELECT atttypid::pg_catalog.int8 FROM pg_catalog.pg_attribute
              WHERE attrelid = t.typrelid AND t.typrelid <> 0 AND attnum > 0 AND NOT attisdropped),
       ARRAY(SELECT opcfamily::pg_catalog.int8 FROM pg_catalog.pg_opclass WHERE opcintype = t.oid AND opcdefault)
         || ARRAY(SELECT opcfamily::pg_catalog.int8 FROM pg_catalog.pg_opclass WHERE oid = r.rngsubopc)
  FROM pg_catalog.pg_type t
  LEFT JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid
  LEFT JOIN pg_catalog.pg_range mr ON mr.rngmultitypid = t.oid
 WHERE t.oid = ANY(%s::pg_catalog.oid[])""",
    "rel": """
SELECT c.oid::pg_catalog.int8, c.oid::pg_catalog.regclass::text, c.relkind::text,
       (SELECT amhandler::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_am WHERE oid = c.relam),
       ARRAY(SELECT x FROM pg_catalog.pg_index i, LATERAL (VALUES (i.indexprs::text), (i.indpred::text)) v(x)
              WHERE i.indrelid = c.oid AND x IS NOT NULL)
         || ARRAY(SELECT conbin::text FROM pg_catalog.pg_constraint WHERE conrelid = c.oid AND conbin IS NOT NULL)
         || ARRAY(SELECT partexprs::text FROM pg_catalog.pg_partitioned_table
                  WHERE partrelid = c.oid AND partexprs IS NOT NULL)
         || ARRAY(SELECT stxexprs::text FROM pg_catalog.pg_statistic_ext WHERE stxrelid = c.oid AND stxexprs IS NOT NULL)
         || ARRAY(SELECT relpartbound::text FROM pg_catalog.pg_class WHERE oid = c.oid AND relpartbound IS NOT NULL),
       ARRAY(SELECT oc.opcfamily::pg_catalog.int8 FROM pg_catalog.pg_index i,
                    pg_catalog.unnest(i.indclass::pg_catalog.oid[]) u(opc)
               JOIN pg_catalog.pg_opclass oc ON oc.oid = u.opc WHERE i.indrelid = c.oid)
         || ARRAY(SELECT oc.opcfamily::pg_catalog.int8 FROM pg_catalog.pg_partitioned_table pt,
                    pg_catalog.unnest(pt.partclass::pg_catalog.oid[]) u(opc)
               JOIN pg_catalog.pg_opclass oc ON oc.oid = u.opc WHERE pt.partrelid = c.oid),
       ARRAY(SELECT am.amhandler::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_index i
               JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
               JOIN pg_catalog.pg_am am ON am.oid = ic.relam WHERE i.indrelid = c.oid)
         || ARRAY(SELECT w.fdwhandler::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_foreign_table ft
               JOIN pg_catalog.pg_foreign_server s ON s.oid = ft.ftserver
               JOIN pg_catalog.pg_foreign_data_wrapper w ON w.oid = s.srvfdw WHERE ft.ftrelid = c.oid),
       ARRAY(SELECT inhrelid::pg_catalog.int8 FROM pg_catalog.pg_inherits WHERE inhparent = c.oid)
  FROM pg_catalog.pg_class c WHERE c.oid = ANY(%s::pg_catalog.oid[])""",
    "tsconfig": """
SELECT 'tsconfig', c.oid::pg_catalog.int8, c.oid::pg_catalog.regconfig::text,
       ARRAY[p.prsstart::pg_catalog.oid, p.prstoken::pg_catalog.oid, p.prsend::pg_catalog.oid,
             p.prsheadline::pg_catalog.oid, p.prslextype::pg_catalog.oid]::pg_catalog.int8[]
         || ARRAY(SELECT tm.tmplinit::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_ts_config_map m
                  JOIN pg_catalog.pg_ts_dict d ON d.oid = m.mapdict
                  JOIN pg_catalog.pg_ts_template tm ON tm.oid = d.dicttemplate WHERE m.mapcfg = c.oid)
         || ARRAY(SELECT tm.tmpllexize::pg_catalog.oid::pg_catalog.int8 FROM pg_catalog.pg_ts_config_map m
                  JOIN pg_catalog.pg_ts_dict d ON d.oid = m.mapdict
                  JOIN pg_catalog.pg_ts_template tm ON tm.oid = d.dicttemplate WHERE m.mapcfg = c.oid)
  FROM pg_catalog.pg_ts_config c JOIN pg_catalog.pg_ts_parser p ON p.oid = c.cfgparser
 WHERE c.oid = ANY(%s::pg_catalog.oid[])""",
    "tsdict": """
SELECT 'tsdict', d.oid::pg_catalog.int8, d.oid::pg_catalog.regdictionary::text,
       ARRAY[tm.tmplinit::pg_catalog.oid, tm.tmpllexize::pg_catalog.oid]::pg_catalog.int8[]
  FROM pg_catalog.pg_ts_dict d JOIN pg_catalog.pg_ts_template tm ON tm.oid = d.dicttemplate
 WHERE d.oid = ANY(%s::pg_catalog.oid[])""",
}
_READERS = {
    "func": _function,
    "oper": _operator,
    "opfamily": _family,
    "type": _type,
    "rel": _relation,
    "tsconfig": _text_search,
    "tsdict": _text_search,
}


# -- the verdict -----------------------------------------------------------------------


def refusal(closure: Closure, found: Inventory) -> str | None:
    """Why the objects a statement reaches may not run, or ``None`` when they may.

    Tables, enums, composites and domains are the database's own by nature: only their code
    counts, which the closure lists as functions of its own.
    """
    wrong, text_bodies = [], False
    for key in sorted(closure.seen):
        kind, oid = key
        name, notes = closure.names.get(key, "?"), closure.notes.get(key, set())
        if name in found.trusted:
            continue
        if "runs SQL text at run time" in notes:
            wrong.append(f"{name}, which runs SQL text at run time")
        if "a foreign table" in notes:
            wrong.append(f"{name}, a foreign table (reading it reaches another server)")
        if "its body is text, analysed when it runs" in notes:
            text_bodies = True
        if kind in ("rel", "type"):
            continue
        if oid >= FIRST_USER_OID or any(n.startswith(("a built-in OID in", "not in the catalog")) for n in notes):
            wrong.append(f"{_KINDS.get(kind, kind)} {name}")
    if text_bodies and found.hijacks:
        kind, what = found.hijacks[0]
        wrong.append(
            f"a built-in SQL function analysed when it runs, in a database that changes what built-ins do "
            f"({len(found.hijacks)} changes, first: {kind} {what})"
        )
    if not wrong:
        return None
    shown = "; ".join(dict.fromkeys(wrong[:6]))
    return f"Refusing to run this SQL: it reaches code that is not built in: {shown}" + (
        f" (and {len(wrong) - 6} more)." if len(wrong) > 6 else "."
    )


_KINDS = {"func": "the function", "oper": "the operator", "opfamily": "the operator family", "cast": "the"}
