"""What a PostgreSQL database holds beside its built-ins that changes what built-in code does.

No query tree shows these: casts that built-in SQL functions pick up when they run, overloads and
operators planted in ``pg_catalog`` (found there before any other schema), built-ins replaced in
place or pointed at other support functions, operator classes and family members, access methods,
text-search parsers and templates, default conversions, types read by functions of their own. Read
once per connection (:mod:`.pg_guard` runs the queries, each checked first); each entry names the
object, so a refusal can say what to look at.

Two reads without a single operator or function call come first (:data:`BOOTSTRAP`): the operators
and functions whose support code is not built in (a selectivity estimator runs while a ``WHERE`` is
planned, a support function while a call is simplified), so the checker can refuse its own queries
before one of those runs, and whether the database defines any function at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .pg_tree import FIRST_USER_OID

# The built-in LANGUAGE sql functions whose body is text, analysed when they run (PostgreSQL 14+
# keeps every other one pre-analysed): planted casts change what they run.
TEXT_BODIES = {
    "quote_literal": "select pg_catalog.quote_literal($1::pg_catalog.text)",
    "quote_nullable": "select pg_catalog.quote_nullable($1::pg_catalog.text)",
    "textanycat": "select $1 operator(pg_catalog.||) $2::pg_catalog.text",
    "anytextcat": "select $1::pg_catalog.text operator(pg_catalog.||) $2",
    "_pg_expandarray": "select $1[s], s operator(pg_catalog.-) pg_catalog.array_lower($1,1) operator(pg_catalog.+) "
    "1 from pg_catalog.generate_series(pg_catalog.array_lower($1,1), pg_catalog.array_upper($1,1), 1) as g(s)",
}
# No operator, no function, no literal: what these read cannot be steered by anything planted.
BOOTSTRAP = {
    "oper": "SELECT oid, oprcode::pg_catalog.oid, oprrest::pg_catalog.oid, oprjoin::pg_catalog.oid "
    "FROM pg_catalog.pg_operator",
    "func": "SELECT oid, prosupport::pg_catalog.oid, prolang FROM pg_catalog.pg_proc",
}
# The languages of compiled built-ins: fmgr calls these by OID from its own table, so even a
# built-in replaced in place runs its original code. Any other language reads pg_proc.
_COMPILED = (12, 13)  # internal, c

Run = Callable[[str, tuple], list[tuple]]


@dataclass
class Inventory:
    """What the database holds beside the built-ins."""

    own_functions: int = 0  # functions of OID 16384 and above, in any schema
    hijacks: list[tuple[str, str]] = field(default_factory=list)  # (kind, object) that change built-in code
    quiet_log: bool = False  # the role may keep the query trees out of the server log
    trusted: frozenset[str] = frozenset()  # objects the operator trusts, as regprocedure/regoperator text

    @property
    def plain(self) -> bool:
        """Nothing but built-in code can run: no function of its own, no built-in changed."""
        return self.own_functions == 0 and not self.hijacks


def support(operators: Iterable[tuple], functions: Iterable[tuple]) -> tuple[dict[tuple[str, int], int], int, set[int]]:
    """From the :data:`BOOTSTRAP` rows: each built-in operator or function whose support code is
    not built in (mapped to that code's OID), how many functions are not built in, and the
    built-ins that are not compiled code (LANGUAGE sql, or replaced in place).

    >>> support([(96, 65, 101, 105), (98, 67, 16500, 105)], [(870, 0, 12), (16400, 0, 13), (1300, 16401, 12), (1708, 0, 14)])
    ({('oper', 98): 16500, ('func', 1300): 16401}, 1, {1708})
    """
    found: dict[tuple[str, int], int] = {}
    for oid, *codes in operators:
        planted = [int(code) for code in codes if int(code) >= FIRST_USER_OID]
        if int(oid) < FIRST_USER_OID and planted:
            found["oper", int(oid)] = planted[0]
    own, interpreted = 0, set()
    for oid, prosupport, language in functions:
        if int(oid) >= FIRST_USER_OID:
            own += 1
            continue
        if int(prosupport) >= FIRST_USER_OID:
            found["func", int(oid)] = int(prosupport)
        if int(language) not in _COMPILED:
            interpreted.add(int(oid))
    return found, own, interpreted


def read(run: Run, version: int, own_functions: int, trusted: frozenset[str]) -> Inventory:
    """The inventory, its queries run through ``run`` (which checks them first)."""
    found = Inventory(own_functions=own_functions, trusted=trusted)
    query = INVENTORY + (REPLACED_SQL_BODIES if version >= 140000 else "")
    params = ([" ".join(body.split()) for body in TEXT_BODIES.values()],) if version >= 140000 else ()
    for kind, name in run(query, params):
        if name not in trusted:
            found.hijacks.append((kind, name))
    if version < 140000:
        found.hijacks.append(
            ("server", "PostgreSQL before 14: built-in SQL functions cannot be told from replaced ones")
        )
    return found


def quiet_log(run: Run, version: int) -> bool:
    """Whether the role may set ``log_min_messages`` (to keep the checks' query trees out of the server log)."""
    return bool(run(QUIET_15 if version >= 150000 else QUIET, ())[0][0])


# PostgreSQL 15 grants the right to set log_min_messages to a role; before, only superusers have it.
QUIET_15 = "SELECT pg_catalog.has_parameter_privilege('log_min_messages'::pg_catalog.text, 'SET'::pg_catalog.text)"
QUIET = (
    "SELECT pg_catalog.current_setting('is_superuser'::pg_catalog.text) OPERATOR(pg_catalog.=) 'on'::pg_catalog.text"
)

INVENTORY = """
SELECT 'cast', pg_catalog.format('%%s -> %%s', c.castsource::pg_catalog.regtype, c.casttarget::pg_catalog.regtype)
  FROM pg_catalog.pg_cast c WHERE c.oid >= 16384
UNION ALL
SELECT 'function in pg_catalog', p.oid::pg_catalog.regprocedure::text
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND p.oid >= 16384
UNION ALL
SELECT 'operator in pg_catalog', o.oid::pg_catalog.regoperator::text
  FROM pg_catalog.pg_operator o WHERE o.oprnamespace = 'pg_catalog'::pg_catalog.regnamespace AND o.oid >= 16384
UNION ALL
SELECT 'relation or type in pg_catalog', c.oid::pg_catalog.regclass::text
  FROM pg_catalog.pg_class c WHERE c.relnamespace = 'pg_catalog'::pg_catalog.regnamespace AND c.oid >= 16384
UNION ALL
SELECT 'built-in function changed', p.oid::pg_catalog.regprocedure::text
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
 WHERE p.oid < 16384 AND (l.lanname NOT IN ('internal', 'c', 'sql') OR p.prosecdef OR p.proconfig IS NOT NULL
       OR p.prosupport::pg_catalog.oid >= 16384)
UNION ALL
SELECT 'built-in operator using a function that is not', o.oid::pg_catalog.regoperator::text
  FROM pg_catalog.pg_operator o
 WHERE o.oid < 16384 AND (o.oprcode::pg_catalog.oid >= 16384 OR o.oprrest::pg_catalog.oid >= 16384
       OR o.oprjoin::pg_catalog.oid >= 16384 OR o.oprcom >= 16384 OR o.oprnegate >= 16384)
UNION ALL
SELECT 'built-in type using a function that is not', t.oid::pg_catalog.regtype::text
  FROM pg_catalog.pg_type t
 WHERE t.oid < 16384 AND GREATEST(t.typinput::pg_catalog.oid, t.typoutput::pg_catalog.oid,
       t.typreceive::pg_catalog.oid, t.typsend::pg_catalog.oid, t.typmodin::pg_catalog.oid,
       t.typmodout::pg_catalog.oid, t.typanalyze::pg_catalog.oid, t.typsubscript::pg_catalog.oid) >= 16384
UNION ALL
SELECT 'built-in aggregate using a function that is not', a.aggfnoid::pg_catalog.regprocedure::text
  FROM pg_catalog.pg_aggregate a
 WHERE a.aggfnoid::pg_catalog.oid < 16384 AND GREATEST(a.aggtransfn::pg_catalog.oid, a.aggfinalfn::pg_catalog.oid,
       a.aggcombinefn::pg_catalog.oid, a.aggserialfn::pg_catalog.oid, a.aggdeserialfn::pg_catalog.oid,
       a.aggmtransfn::pg_catalog.oid, a.aggminvtransfn::pg_catalog.oid, a.aggmfinalfn::pg_catalog.oid) >= 16384
UNION ALL
SELECT 'operator class', oc.opcname || ' for ' || oc.opcintype::pg_catalog.regtype::text
  FROM pg_catalog.pg_opclass oc WHERE oc.oid >= 16384
UNION ALL
SELECT 'operator family member', f.opfname || ': ' || ap.amproc::text
  FROM pg_catalog.pg_amproc ap JOIN pg_catalog.pg_opfamily f ON f.oid = ap.amprocfamily
 WHERE ap.oid >= 16384 AND f.oid < 16384
UNION ALL
SELECT 'operator family member', f.opfname || ': ' || ao.amopopr::pg_catalog.regoperator::text
  FROM pg_catalog.pg_amop ao JOIN pg_catalog.pg_opfamily f ON f.oid = ao.amopfamily
 WHERE ao.oid >= 16384 AND (f.oid < 16384 OR ao.amopopr < 16384)
UNION ALL
SELECT 'access method', a.amname::text FROM pg_catalog.pg_am a WHERE a.oid >= 16384
UNION ALL
SELECT 'text search parser', p.prsname::text FROM pg_catalog.pg_ts_parser p WHERE p.oid >= 16384
UNION ALL
SELECT 'text search template', t.tmplname::text FROM pg_catalog.pg_ts_template t WHERE t.oid >= 16384
UNION ALL
SELECT 'default conversion', c.conname::text FROM pg_catalog.pg_conversion c WHERE c.oid >= 16384 AND c.condefault
UNION ALL
SELECT 'type read by a function that is not built in', t.oid::pg_catalog.regtype::text
  FROM pg_catalog.pg_type t
 WHERE t.typtype IN ('b', 'r', 'm') AND GREATEST(t.typinput::pg_catalog.oid, t.typreceive::pg_catalog.oid,
       t.typmodin::pg_catalog.oid) >= 16384
"""
REPLACED_SQL_BODIES = """UNION ALL
SELECT 'built-in SQL function replaced', p.oid::pg_catalog.regprocedure::text
  FROM pg_catalog.pg_proc p
 WHERE p.oid < 16384 AND p.prolang = 14 AND p.prosqlbody IS NULL
   AND pg_catalog.regexp_replace(pg_catalog.btrim(p.prosrc), '\\s+', ' ', 'g') <> ALL(%s::text[])
"""
