// One search result as a list item: a table candidate or a document passage.

import { h, marked } from "./dom.js";
import { docHref, tableHref } from "./router.js";
import { CHUNK_CHANNELS, TABLE_CHANNELS, markWords, why } from "./why.js";

const COLUMNS_SHOWN = 12;
const SNIPPET = 320;

/** The list item for a table candidate; ctx: {name (the catalog), question, levels, channels}. */
export function tableResult(c, rank, { name: catalog, question, levels, channels }) {
  const { words, prefix } = markWords(c);
  const link = h(
    "a",
    { class: "result-link", href: tableHref(catalog, c.table, { q: question, hl: words }) },
    marked(c.table, words, prefix),
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
    c.comment ? h("p", { class: "comment" }, marked(c.comment, words, prefix)) : null,
    c.description ? h("p", { class: "generated-inline" }, h("span", { class: "badge generated" }, "generated"), " ", marked(c.description.text, words, prefix)) : null,
    columnLine(c, words, prefix),
    valueLine(c.matched_values),
  );
}

/** The list item for a passage; ctx: {name (the corpus), question, levels, channels}. */
export function chunkResult(r, rank, { name: corpus, question, levels, channels }) {
  const { words, prefix } = markWords(r);
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
      h("a", { class: "result-link", href: docHref(corpus, r.source_id, { q: question, hl: words }) }, marked(r.title, words, prefix)),
      h("code", { class: "source-id", title: "Source ID, to cite this passage" }, r.source_id),
    ),
    r.heading_path && r.heading_path.length
      ? h("p", { class: "result-path", "data-testid": "heading-path" }, marked(r.heading_path.join(" › "), words, prefix))
      : null,
    badges(r.pinned, r.added, "chunk"),
    h("p", { class: "why", "data-testid": "why" }, why(r, levels, CHUNK_CHANNELS)),
    channelList(r.channels, channels),
    h("p", { class: "snippet" }, marked(text, words, prefix)),
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

function columnLine(c, words, prefix) {
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
      marked(col.name, words, prefix),
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
