"""A PostgreSQL query tree, as the server prints it, read for the objects it resolves to.

With ``debug_print_rewritten`` on, parsing a statement makes the server send its rewritten
query tree (views and row-level policies expanded) as a LOG message, in the format of
``nodeToString()``: ``({QUERY :commandType 1 ... :targetList ({TARGETENTRY :expr {FUNCEXPR
:funcid 870 ...}})})``. Every function, operator, type and relation is there by OID, as the
parser resolved it: a cast someone planted shows up as the ``FUNCEXPR`` it calls, an
overload planted in ``pg_catalog`` as its OID (built-ins are below 16384).

Pure: :func:`references` returns what the tree refers to, :func:`expanded_size` how large its
expressions grow when the planner pulls views and subqueries up. The fields a reference may
hide in are listed (PostgreSQL 15's); a node or field not listed is reported, so a tree this
module does not fully know is never taken for a harmless one (:mod:`.pg_guard` decides).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

# FirstNormalObjectId: every object with a lower OID was made by initdb.
FIRST_USER_OID = 16384
# format_node_dump() wraps its output at this width.
_LINE = 78

_TOKEN = re.compile(r"[(){}]|(?:\\.|[^\s(){}\\])+", re.S)
_UNESCAPE = re.compile(r"\\(.)", re.S)

# Fields that hold an OID (or a list of them), by what the OID names.
FUNCTIONS = {
    "funcid", "opfuncid", "hashfuncid", "negfuncid", "aggfnoid", "winfnoid", "startInRangeFunc", "endInRangeFunc",
    "tsmhandler",
}  # fmt: skip
OPERATORS = {"opno", "eqop", "sortop", "opnos", "cycle_mark_neop"}
OPERATOR_FAMILIES = {"opfamilies"}
TYPES = {
    "vartype", "consttype", "funcresulttype", "opresulttype", "paramtype", "resulttype", "aggtype", "aggtranstype",
    "aggargtypes", "wintype", "array_typeid", "element_typeid", "casetype", "coalescetype", "minmaxtype", "coltypes",
    "colTypes", "ctecoltypes", "funccoltypes", "row_typeid", "typeId", "refcontainertype", "refelemtype", "refrestype",
    "cycle_mark_type",
}  # fmt: skip
TYPES_OF = {("XMLEXPR", "type"), ("SQLVALUEFUNCTION", "type")}
RELATIONS = {"relid"}
# Fields that name nothing whose code could run (positions, flags, names, collations) or
# whose value is a node walked on its own.
PLAIN = frozenset(
    """
location args arg aggargtypes aggcollid aggdirectargs aggdistinct aggfilter agglevelsup aggno aggorder
aggsplit aggstar aggtransno aggvariadic inputcollid aliasname colnames multidims elements array_collid
booltesttype boolop casecollid defresult expr result coalescecollid coerceformat resultcollid
aliascolnames ctecolcollations ctecolnames ctecoltypmods ctematerialized ctename ctequery cterecursive
cterefcount cycle_clause search_clause constbyval constcollid constisnull constlen consttypmod
constvalue opcollid opretset fromlist quals funccollid funcformat funcretset funcvariadic content kind
alias isNatural join_using_alias jointype larg rarg rtindex usingClause minmaxcollid op nulltesttype
argisrow paramcollid paramid paramkind paramtypmod canSetTag commandType constraintDeps cteList
distinctClause groupClause groupDistinct groupingSets hasAggs hasDistinctOn hasForUpdate
hasModifyingCTE hasRecursive hasRowSecurity hasSubLinks hasTargetSRFs hasWindowFuncs havingQual
isReturn jointree limitCount limitOffset limitOption mergeActionList mergeUseOuterJoin onConflict
override querySource resultRelation returningList rowMarks rtable setOperations sortClause stmt_len
stmt_location targetList utilityStmt windowClause withCheckOptions checkAsUser colcollations
coltypmods ctelevelsup eref extraUpdatedCols funcordinality functions inFromCl inh insertedCols
joinaliasvars joinleftcols joinmergedcols joinrightcols lateral relkind rellockmode requiredPerms
rtekind securityQuals security_barrier selectedCols self_reference subquery tablesample updatedCols
values_lists funccolcollations funccolcount funccolnames funccoltypmods funcexpr funcparams
relabelformat resulttypmod inputcollids largs rargs rctype pushedDown rti strength waitPolicy useOr
all colCollations colTypmods groupClauses hashable nulls_first tleSortGroupRef typmod operName
subLinkId subLinkType subselect testexpr repeatable resjunk resname resno resorigcol resorigtbl
ressortgroupref varattno varattnosyn varcollid varlevelsup varno varnosyn vartypmod copiedOrder
endOffset frameOptions inRangeAsc inRangeColl inRangeNullsFirst name orderClause partitionClause
refname runCondition startOffset winref winagg wincollid winstar arg_names named_args xmloption
collation typeMod collOid coercionformat cycle_col_list cycle_mark_collation cycle_mark_column
cycle_mark_default cycle_mark_typmod cycle_mark_value cycle_path_column search_breadth_first
search_col_list search_seq_column fieldnum cols refs row_format refassgnexpr refcollid reflowerindexpr
reftypmod refupperindexpr refexpr elemexpr convertformat newvals fieldnums enrname enrtuples tablefunc
ns_uris ns_names docexpr rowexpr colexprs coldefexprs notnulls ordinalitycol indent aggkind
""".split()
)
KNOWN_NODES = frozenset(
    """
QUERY RANGETBLENTRY RANGETBLFUNCTION RANGETBLREF FROMEXPR JOINEXPR TARGETENTRY ALIAS VAR CONST PARAM FUNCEXPR
OPEXPR DISTINCTEXPR NULLIFEXPR SCALARARRAYOPEXPR BOOLEXPR SUBLINK CASEEXPR CASEWHEN CASETESTEXPR ARRAYEXPR
ROWEXPR ROWCOMPAREEXPR COALESCEEXPR MINMAXEXPR SQLVALUEFUNCTION XMLEXPR NULLTEST BOOLEANTEST COERCETODOMAIN
COERCETODOMAINVALUE RELABELTYPE COERCEVIAIO ARRAYCOERCEEXPR CONVERTROWTYPEEXPR COLLATEEXPR FIELDSELECT
SUBSCRIPTINGREF AGGREF GROUPINGFUNC WINDOWFUNC WINDOWCLAUSE SORTGROUPCLAUSE GROUPINGSET SETOPERATIONSTMT
COMMONTABLEEXPR CTESEARCHCLAUSE CTECYCLECLAUSE TABLESAMPLECLAUSE ROWMARKCLAUSE TABLEFUNC
""".split()
)
# Constants whose value is the OID of an object a built-in function runs code of (text search).
_REGISTERED_CONSTANTS = {3734: "tsconfig", 3769: "tsdict"}
# rtekind values.
_SUBQUERY, _JOIN, _CTE = "1", "2", "6"


class TreeError(ValueError):
    """The text is not a tree this module can read with certainty."""


class Node:
    """One ``{TAG :field value ...}`` of the tree, its fields in order."""

    __slots__ = ("tag", "fields")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.fields: list[tuple[str, object]] = []

    def get(self, name: str, default: object = None) -> object:
        return next((value for key, value in self.fields if key == name), default)

    def __repr__(self) -> str:
        fields = " ".join(f":{name} {value!r}" for name, value in self.fields)
        return f"{{{self.tag} {fields}}}"


@dataclass
class References:
    """What a tree refers to, and what of it this module could not read."""

    objects: set[tuple[str, int]] = field(default_factory=set)  # (kind, oid): func, oper, opfamily, type, rel, ...
    unknown: set[str] = field(default_factory=set)  # node tags and fields not listed above
    commands: set[str] = field(default_factory=set)  # commandType of each query (1: SELECT)
    utility: bool = False  # a utility statement (not a plain query) is in the tree
    queries: list[Node] = field(default_factory=list)  # the top-level queries, for expanded_size


def unwrap(text: str) -> str:
    """The dump on one line again: format_node_dump() replaced a space with a line break every
    78 characters, or broke a token where 78 characters held no space, which cannot be undone.

    >>> unwrap("{QUERY :a\\n1}")
    '{QUERY :a 1}'
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if any(len(line) >= _LINE and " " not in line[1:] for line in lines[:-1]):
        raise TreeError("a line break inside a token of the query tree (78 characters without a space)")
    return " ".join(lines)


def parse(text: str) -> list[object]:
    """The dump as nodes, lists and scalars (tokens as the server wrote them, escapes undone).

    >>> parse("({QUERY :commandType 1 :rtable <>})")
    [[{QUERY :commandType '1' :rtable '<>'}]]
    """
    tokens = [_UNESCAPE.sub(r"\1", t) if "\\" in t else t for t in _TOKEN.findall(text)]
    position = 0

    def value() -> object:
        nonlocal position
        token = tokens[position]
        if token == "{":
            node = Node(tokens[position + 1])
            position += 2
            while tokens[position] != "}":
                name = tokens[position]
                if not name.startswith(":"):
                    raise TreeError(f"a field was expected at {name!r}")
                position += 1
                if tokens[position].startswith(":") or tokens[position] == "}":
                    node.fields.append((name[1:], None))
                elif name == ":constvalue":
                    node.fields.append(("constvalue", _datum(tokens, position)))
                    position = _after_datum(tokens, position)
                else:
                    node.fields.append((name[1:], value()))
            position += 1
            return node
        if token == "(":
            position += 1
            kind = None
            if tokens[position] in ("b", "i", "o", "x"):  # a Bitmapset, an int, OID or xid list
                kind = tokens[position]
                position += 1
            items = []
            while tokens[position] != ")":
                items.append(value())
            position += 1
            return (kind, items) if kind else items
        position += 1
        return token

    found = []
    try:
        while position < len(tokens):
            found.append(value())
    except IndexError:
        raise TreeError("the query tree ends in the middle of a node") from None
    return found


def _datum(tokens: list[str], position: int) -> object:
    """A Const's value: ``<>`` (null), or its length and bytes ``4 [ 1 0 0 0 ]``."""
    if tokens[position] == "<>":
        return None
    end = tokens.index("]", position)
    return [int(b) for b in tokens[position + 2 : end]]


def _after_datum(tokens: list[str], position: int) -> int:
    return position + 1 if tokens[position] == "<>" else tokens.index("]", position) + 1


def walk(tree: object) -> Iterator[Node]:
    """Every node of ``tree``, depth first, without recursion (trees can nest deeply)."""
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            yield item
            stack.extend(value for _, value in item.fields if isinstance(value, (Node, list, tuple)))
        elif isinstance(item, tuple):
            stack.extend(item[1])
        elif isinstance(item, list):
            stack.extend(item)


def references(text: str, wrapped: bool = True) -> References:
    """Every object a dumped tree (``wrapped`` as the LOG message prints it) refers to.

    >>> found = references("({QUERY :commandType 1 :targetList ({TARGETENTRY :expr {FUNCEXPR :funcid 16459 "
    ...                    ":funcresulttype 25 :args <> :location 7} :resno 1})})", wrapped=False)
    >>> sorted(found.objects), found.unknown, found.commands
    ([('func', 16459), ('type', 25)], set(), {'1'})
    """
    tree = parse(unwrap(text) if wrapped else text)
    found = References(queries=[item for item in _top(tree) if isinstance(item, Node) and item.tag == "QUERY"])
    for node in walk(tree):
        if node.tag not in KNOWN_NODES:
            found.unknown.add(f"node {node.tag}")
            continue
        if node.tag == "QUERY":
            found.commands.add(str(node.get("commandType")))
            if node.get("utilityStmt") not in (None, "<>"):
                found.utility = True
        if node.tag == "CONST" and node.get("constisnull") == "false":
            kind = _REGISTERED_CONSTANTS.get(int(str(node.get("consttype"))))
            datum = node.get("constvalue")
            if kind and isinstance(datum, list) and len(datum) >= 4:
                found.objects.add((kind, int.from_bytes(bytes(b & 0xFF for b in datum[:4]), "little")))
        for name, value in node.fields:
            kind = _kind(node.tag, name)
            if kind:
                found.objects.update((kind, oid) for oid in _oids(value) if oid)
            elif name not in PLAIN:
                found.unknown.add(f"field {node.tag}.{name}")
    return found


def _kind(tag: str, name: str) -> str | None:
    if name in FUNCTIONS:
        return "func"
    if name in OPERATORS:
        return "oper"
    if name in OPERATOR_FAMILIES:
        return "opfamily"
    if name in TYPES or (tag, name) in TYPES_OF:
        return "type"
    if name in RELATIONS:
        return "rel"
    return None


def _oids(value: object) -> list[int]:
    if value is None or value == "<>":
        return []
    if isinstance(value, tuple):
        return [int(x) for x in value[1]]
    if isinstance(value, list):
        return [int(x) for x in value if not isinstance(x, Node)]
    return [int(str(value))]


def _top(tree: list[object]) -> Iterator[object]:
    for item in tree:
        if isinstance(item, list):
            yield from item
        else:
            yield item


def expanded_size(queries: list[Node]) -> int:
    """About how many expression nodes the queries grow to when the planner pulls subqueries,
    CTEs and views up, replacing each column of one by the expression it stands for.

    ``v_i AS SELECT s || s AS s FROM v_(i-1)`` doubles at each level: 20 levels planned into
    1.6 GB in 2.5 s, 21 into 3.3 GB, and the planner checks for no interrupt while it works,
    so no timeout, cancel or terminate reaches it. Counted without expanding anything.
    """
    memo: dict[tuple[int, int], int] = {}

    def as_list(value: object) -> list:
        return [] if value in (None, "<>") else value if isinstance(value, list) else [value]

    def source(context: list[Node], varno: int, levels_up: int, attno: int):
        if levels_up >= len(context):
            return None
        query = context[-1 - levels_up]
        table = as_list(query.get("rtable"))
        if not 1 <= varno <= len(table):
            return None
        entry, outer = table[varno - 1], context[: len(context) - levels_up]
        kind = entry.get("rtekind")
        if kind == _SUBQUERY and isinstance(entry.get("subquery"), Node):
            return ("query", entry.get("subquery"), outer, attno)
        if kind == _JOIN:
            aliases = as_list(entry.get("joinaliasvars"))
            return ("expr", aliases[attno - 1], outer) if 1 <= attno <= len(aliases) else None
        if kind == _CTE and entry.get("self_reference") != "true":
            up = int(str(entry.get("ctelevelsup") or 0))
            if up < len(outer):
                for cte in as_list(outer[-1 - up].get("cteList")):
                    if cte.get("ctename") == entry.get("ctename") and cte.get("cterecursive") != "true":
                        return ("query", cte.get("ctequery"), outer[: len(outer) - up], attno)
        return None

    def output_size(query: Node, outer: list[Node], attno: int) -> int:
        key = (id(query), attno)
        if key not in memo:
            memo[key] = 1  # a cycle counts once
            targets = as_list(query.get("targetList"))
            if query.get("setOperations") in (None, "<>") and 1 <= attno <= len(targets):
                memo[key] = size(targets[attno - 1].get("expr"), [*outer, query])
        return memo[key]

    def size(expression: object, context: list[Node]) -> int:
        if isinstance(expression, list):
            return sum(size(item, context) for item in expression)
        if not isinstance(expression, Node):
            return 0
        if expression.tag == "VAR":
            found = source(
                context,
                int(str(expression.get("varno"))),
                int(str(expression.get("varlevelsup"))),
                int(str(expression.get("varattno"))),
            )
            if found is None:
                return 1
            return output_size(found[1], found[2], found[3]) if found[0] == "query" else size(found[1], found[2])
        if expression.tag == "QUERY":
            return query_size(expression, context)
        return 1 + sum(
            size(value, context)
            for name, value in expression.fields
            if isinstance(value, (Node, list)) and name not in ("rtable", "cteList")
        )

    def query_size(query: Node, outer: list[Node]) -> int:
        context = [*outer, query]
        total = sum(
            size(value, context)
            for name, value in query.fields
            if name
            in ("targetList", "jointree", "havingQual", "sortClause", "groupClause", "limitCount", "limitOffset",
                "windowClause", "returningList")
        )  # fmt: skip
        for entry in as_list(query.get("rtable")):
            if isinstance(entry.get("subquery"), Node):
                total += query_size(entry.get("subquery"), context)
            for name in ("securityQuals", "functions", "values_lists"):
                total += size(entry.get(name), context)
        for cte in as_list(query.get("cteList")):
            if isinstance(cte.get("ctequery"), Node):
                total += query_size(cte.get("ctequery"), context)
        return total

    return sum(query_size(query, []) for query in queries)
