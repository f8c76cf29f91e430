// One search result as a list item: a table candidate or a document passage.

import { h, marked } from "./dom.js";
import { keyLabel } from "./graph.js";
import { docHref, searchHref, tableHref } from "./router.js";
import { CHUNK_CHANNELS, TABLE_CHANNELS, scoreLine, why } from "./why.js";

const COLUMNS_SHOWN = 12;
const SNIPPET = 320;

/**
 * The list item for a table candidate; ctx: {name (the catalog), question, levels, channels,
 * results: Map of every result's table ID to its source ID}.
 */
export function tableResult(c, rank, { name: catalog, question, levels, channels, results }) {
  const words = c.highlight;
  const link = h(
    "a",
    { class: "result-link", href: tableHref(catalog, c.table, { q: question, hl: words, in: [...results.keys()] }) },
    marked(c.table, words),
  );
  return h(
    "li",
    {
      class: ["result", c.pinned && "is-pinned", c.added_for_join && "is-added"],
      "data-testid": "result",
      "data-kind": c.kind || "table",
      "data-table": c.table,
      "data-source-id": c.source_id,
      "data-rank": rank,
      "data-key": c.source_id,
    },
    h(
      "div",
      { class: "result-head" },
      h("span", { class: "rank" }, `#${rank}`),
      link,
      c.kind === "view" ? h("span", { class: "badge" }, "view") : null,
      h("code", { class: "source-id", title: "Source ID, to cite this table" }, c.source_id),
    ),
    badges(c.pinned, c.added_for_join, "table"),
    h("p", { class: "why", "data-testid": "why" }, why(c, levels, TABLE_CHANNELS)),
    channelList(c.channels, channels),
    h("p", { class: "score", "data-testid": "score" }, scoreLine(c, levels.fusion)),
    joinLine(c, catalog, question, results),
    c.comment ? h("p", { class: "comment" }, marked(c.comment, words)) : null,
    c.description ? h("p", { class: "generated-inline" }, h("span", { class: "badge generated" }, "generated"), " ", marked(c.description.text, words)) : null,
    columnLine(c, words),
    valueLine(c.matched_values),
  );
}

// The keys between this result and the others, each a link to the other's place in the
// list (search.js scrolls there; the hash keeps the search, so a new tab shows it too).
// A key to itself joins it to no other result: the table view lists it.
function joinLine(c, catalog, question, results) {
  const keys = (c.joins || []).filter((j) => j.from_table !== j.to_table);
  if (!keys.length) return null;
  return h(
    "div",
    { class: "joins-line", "data-testid": "joins" },
    h("span", { class: "label" }, "Joins: "),
    h(
      "ul",
      { class: "inline-list" },
      keys.map((j) => {
        const other = j.from_table === c.table ? j.to_table : j.from_table;
        const at = results.get(other);
        return h(
          "li",
          null,
          h(
            "a",
            { href: searchHref({ kind: "catalog", name: catalog }, question, { at }), "data-jump": at, "data-table": other, title: `to result ${other}` },
            keyLabel(j),
          ),
        );
      }),
    ),
  );
}

/** The list item for a passage; ctx: {name (the corpus), question, levels, channels}. */
export function chunkResult(r, rank, { name: corpus, question, levels, channels }) {
  const words = r.highlight;
  const text = r.text.length > SNIPPET ? `${r.text.slice(0, SNIPPET).trimEnd()}…` : r.text;
  return h(
    "li",
    {
      class: ["result", r.pinned && "is-pinned", r.added && "is-added"],
      "data-testid": "result",
      "data-kind": "chunk",
      "data-source-id": r.source_id,
      "data-document-id": r.document_id,
      "data-rank": rank,
      "data-key": r.source_id,
    },
    h(
      "div",
      { class: "result-head" },
      h("span", { class: "rank" }, `#${rank}`),
      h("a", { class: "result-link", href: docHref(corpus, r.source_id, { q: question, hl: words }) }, marked(r.title, words)),
      h("code", { class: "source-id", title: "Source ID, to cite this passage" }, r.source_id),
    ),
    r.heading_path && r.heading_path.length
      ? h("p", { class: "result-path", "data-testid": "heading-path" }, marked(r.heading_path.join(" › "), words))
      : null,
    badges(r.pinned, r.added, "chunk"),
    // Words read from pixels (a scan, a figure) were not written as text: cite them as such.
    r.derived
      ? h("p", { class: "badges" }, h("span", { class: "badge derived", "data-testid": "derived" }, `from a ${r.derived.note}`))
      : null,
    h("p", { class: "why", "data-testid": "why" }, why(r, levels, CHUNK_CHANNELS)),
    channelList(r.channels, channels),
    h("p", { class: "score", "data-testid": "score" }, scoreLine(r, levels.fusion)),
    h("p", { class: "snippet" }, marked(text, words)),
  );
}

function badges(pinned, added, kind) {
  if (!pinned && !added) return null;
  const thing = kind === "table" ? "table" : "passage";
  return h(
    "p",
    { class: "badges" },
    pinned
      ? h("span", { class: "badge pinned", "data-testid": "pinned" }, "pinned", h("span", { class: "badge-why" }, ` — the question names this ${thing} (or a rare identifier in it)`))
      : null,
    added && kind === "table"
      ? h("span", { class: "badge added", "data-testid": "added-for-join" }, "added for join", h("span", { class: "badge-why" }, " — brought in by the join stages to connect other results; its own ranks would not have placed it here"))
      : null,
    added && kind !== "table"
      ? h("span", { class: "badge added", "data-testid": "added" }, "added", h("span", { class: "badge-why" }, " — the nearest passage, kept beside the pinned ones"))
      : null,
  );
}

function channelList(channels, order) {
  return h(
    "ul",
    { class: "channels", "aria-label": "Rank in each channel (– not ranked)" },
    order.map((name) => {
      const rank = channels ? channels[name] ?? null : null;
      return h(
        "li",
        { class: ["channel", rank == null && "unranked"], "data-channel": name, "data-rank": rank ?? "" },
        h("span", { class: "channel-name" }, name),
        " ",
        h("span", { class: "channel-rank" }, rank == null ? "–" : `#${rank}`),
      );
    }),
  );
}

function columnLine(c, words) {
  const matched = new Set((c.matched_columns || []).map((n) => n.toLowerCase()));
  const columns = c.columns || [];
  let shown = columns;
  if (columns.length > COLUMNS_SHOWN) {
    const room = Math.max(0, COLUMNS_SHOWN - matched.size);
    let others = 0;
    shown = columns.filter((col) => matched.has(col.name.toLowerCase()) || others++ < room);
  }
  if (!shown.length) return null;
  const items = shown.map((col) => {
    const isMatched = matched.has(col.name.toLowerCase());
    return h(
      "li",
      { class: ["column", isMatched && "matched"], "data-column": col.name, "data-matched": isMatched ? "true" : null },
      marked(col.name, words),
      col.primary_key ? h("span", { class: "column-flag", title: "primary key" }, " PK") : null,
      col.foreign_key ? h("span", { class: "column-flag", title: `references ${col.foreign_key}` }, " FK") : null,
    );
  });
  const more = columns.length - shown.length;
  return h(
    "div",
    { class: "columns-line" },
    h("span", { class: "label" }, "Columns", matched.size ? " (matched in bold)" : "", ": "),
    h("ul", { class: "inline-list" }, items, more > 0 ? h("li", { class: "muted" }, `and ${more} more`) : null),
  );
}

function valueLine(values) {
  if (!values || !values.length) return null;
  return h(
    "p",
    { class: "values", "data-testid": "matched-values" },
    h("span", { class: "label" }, "Values the question names: "),
    values.map((v, i) => [i ? "; " : "", h("code", null, v.column), " = ", v.values.map((x) => `'${x}'`).join(", ")]),
  );
}
