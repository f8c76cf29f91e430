// Overviews: every catalog and corpus (#/sources), and one of them (#/catalog/NAME, #/corpus/NAME):
// what is indexed, from where, when, with which model, and what the structured index holds.

import { api } from "./api.js";
import { guarded } from "./alert.js";
import { h, replace } from "./dom.js";
import { count, distance, percent, when, words } from "./format.js";
import { searchHref, sourceHref } from "./router.js";
import { sourcePath, sources } from "./sources.js";
import { uploadForms } from "./upload.js";

export function listView(root, _route, { signal }) {
  const lists = h("div", { class: "lists" });
  const forms = h("div", { class: "uploads" });
  const refresh = () => guarded(lists, async () => drawLists(lists, await sources({ fresh: true, signal })));
  replace(root, h("p", { class: "loading", role: "status" }, "Loading…"));
  // The forms come with the lists, not before them: lists arriving above the forms would push them down.
  refresh().then(() => {
    if (signal.aborted) return;
    replace(
      root,
      h("section", { class: "overview" }, h("h1", null, "Catalogs and corpora"), lists),
      h("section", { class: "index-forms", "aria-labelledby": "index-h" }, h("h2", { id: "index-h" }, "Index from the page"), forms),
    );
    uploadForms(forms, { signal, onIndexed: refresh });
  });
  return {};
}

// What each kind's list shows beside its name, source and build time.
const LISTS = {
  catalog: { title: "Catalogs", counts: [["Tables", "tables"], ["Views", "views"]], none: "No catalogs yet." },
  corpus: { title: "Corpora", counts: [["Documents", "documents"], ["Chunks", "chunks"]], none: "No corpora yet." },
};

function drawLists(where, { catalogs, corpora }) {
  replace(where, sourceList("catalog", catalogs), sourceList("corpus", corpora));
}

function sourceList(kind, items) {
  const { title, counts, none } = LISTS[kind];
  if (!items.length) return h("p", { class: "muted" }, none);
  const head = ["Name", ...counts.map(([label]) => label), "Source", "Built", ""];
  const rows = items.map((item) =>
    h(
      "tr",
      { [`data-${kind}`]: item.name },
      h("th", { scope: "row" }, h("a", { href: sourceHref(kind, item.name) }, item.name)),
      counts.map(([, field]) => h("td", { class: "num" }, item[field])),
      h("td", { class: "source" }, sourceText(item.source)),
      h("td", null, when(item.built_at)),
      h("td", null, h("a", { href: searchHref({ kind, name: item.name }, "") }, `Search ${item.name}`)),
    ),
  );
  return h(
    "div",
    { class: "scroll-box" },
    h(
      "table",
      { class: "listing", "data-testid": `${kind}-list` },
      h("caption", null, `${title} (${items.length})`),
      h("thead", null, h("tr", null, head.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, rows),
    ),
  );
}

/** One catalog's or corpus's page: kind is "catalog" or "corpus". */
export function sourceView(root, route, { signal }) {
  const [kind, name] = route.parts;
  const fieldsBody = h("div", null, h("p", { class: "loading" }, "Loading…"));
  const fields = h("section", { class: "fields", "aria-labelledby": "fields-h" }, h("h2", { id: "fields-h" }, "Structured index"), fieldsBody);
  const facts = h("div", null, h("p", { class: "loading", role: "status" }, "Loading…"));
  replace(
    root,
    h(
      "article",
      { class: "source-page", "data-testid": `${kind}-view` },
      h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/sources" }, "all catalogs and corpora")),
      h("h1", null, `${kind === "catalog" ? "Catalog" : "Corpus"} ${name}`),
      h("p", null, h("a", { class: "button", href: searchHref({ kind, name }, "") }, `Search ${name}`)),
      facts,
      fields,
    ),
  );
  guarded(facts, async () => {
    const info = await api(sourcePath({ kind, name }), { signal });
    replace(facts, sourceFacts(kind, info), visualTable(info.visual), warnings(info.warnings));
  }, `Could not show ${kind} ${name}`);
  guarded(fieldsBody, async () => drawFields(fieldsBody, await api(`${sourcePath({ kind, name })}/fields`, { signal })), "The structured index could not be read");
  return {};
}

const fact = (term, ...value) => h("div", null, h("dt", null, term), h("dd", null, ...value));

// A source's facts: its kind's counts (as its list shows them), then what every source has.
function sourceFacts(kind, c) {
  return h(
    "dl",
    { class: "facts", "data-testid": "facts" },
    LISTS[kind].counts.map(([label, field]) => fact(label, String(c[field]))),
    fact("Source", sourceText(c.source)),
    fact("Generation", h("code", null, c.generation)),
    fact("Built", when(c.built_at)),
    denseFacts(c),
    kind === "catalog" ? fact("Descriptions", describedText(c)) : null,
  );
}

function denseFacts(c) {
  if (c.dense === false) return fact("Dense channel", "not built: only the keyword channels rank");
  return [
    fact("Embedding model", c.embedding_model || (c.dense ? "(not reported)" : "–")),
    fact(
      "Unrelated text",
      c.unrelated_distance == null ? "–" : `distance ${distance(c.unrelated_distance)}: a result nearer than this is nearer than unrelated everyday text gets`,
    ),
    c.floor_distance != null ? fact("Relevance floor", `distance ${distance(c.floor_distance)}: further results stay only by a keyword match, a pin or a join`) : null,
  ];
}

function describedText(c) {
  if (c.described == null) return "–";
  if (!c.described) return "No generated descriptions (schemasift describe writes them).";
  const total = c.tables + c.views;
  const models = c.description_models && c.description_models.length ? ` by ${words(c.description_models)}` : "";
  const at = c.described_at ? `, latest ${when(c.described_at)}` : "";
  return `${c.described} of ${count(total, "table")} described${models}${at}.`;
}

// What reading beyond the text layer did, per PDF or DOCX: the pages OCR'd, the figures read,
// the decorations (a repeated logo, a page frame) skipped, and any vision model's calls.
const VISUAL_COLUMNS = [
  ["Pages", "pages"],
  ["OCR'd", "pages_ocr"],
  ["Figures found", "figures_found"],
  ["Described", "figures_described"],
  ["Decorations skipped", "decorations_skipped"],
  ["Vision calls", "vision_calls"],
];

function visualTable(visual) {
  const rows = Object.entries(visual || {});
  if (!rows.length) return null;
  return h(
    "section",
    { class: "visual", "aria-labelledby": "visual-h", "data-testid": "visual" },
    h("h2", { id: "visual-h" }, "Read beyond the text layer"),
    h(
      "table",
      null,
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Document"), VISUAL_COLUMNS.map(([label]) => h("th", { scope: "col" }, label)), h("th", { scope: "col" }, "Seconds"))),
      h(
        "tbody",
        null,
        rows.map(([path, v]) =>
          h(
            "tr",
            { "data-testid": "visual-row" },
            h("th", { scope: "row" }, h("code", null, path)),
            VISUAL_COLUMNS.map(([, field]) => h("td", null, v[field] == null ? "–" : String(v[field]))),
            h("td", null, v.seconds == null ? "–" : Number(v.seconds).toFixed(1)),
          ),
        ),
      ),
    ),
  );
}

function warnings(list) {
  if (!list || !list.length) return h("p", { class: "muted", "data-testid": "no-warnings" }, "No warnings from indexing.");
  return h(
    "section",
    { class: "warnings", "aria-labelledby": "warn-h", "data-testid": "warnings" },
    h("h2", { id: "warn-h" }, `Warnings from indexing (${list.length})`),
    h("ul", null, list.map((w) => h("li", { class: "warning" }, w))),
  );
}

/** A source dict in words: its kind, then what it names (files, a path, a URL). */
export function sourceText(source) {
  if (!source || typeof source !== "object") return "–";
  const parts = [];
  for (const [key, value] of Object.entries(source)) {
    if (key === "kind" || value == null || value === false || (Array.isArray(value) && !value.length)) continue;
    const text = Array.isArray(value) ? value.join(", ") : typeof value === "object" ? JSON.stringify(value) : String(value);
    parts.push(value === true ? key : `${key} ${text}`);
  }
  return `${source.kind || "source"}${parts.length ? `: ${parts.join("; ")}` : ""}`;
}

function drawFields(where, f) {
  const body = [h("p", { "data-testid": "fields-message" }, f.message)];
  if (f.structured) {
    for (const t of f.tables) body.push(...fieldsTable(t));
    if (f.dropped && f.dropped.length) {
      body.push(
        h("h3", null, "Header fields left out"),
        h("ul", null, f.dropped.map((d) => h("li", null, h("code", null, d.name), ` (${percent(d.coverage)} of documents): ${d.reason}`))),
      );
    }
  }
  replace(where, ...body);
}

// Header keys and examples are a corpus's: a column no field fills is left out.
const FIELD_COLUMNS = [
  ["Field", null, (c) => [h("code", null, c.name), c.description ? h("span", { class: "field-desc" }, c.description) : null]],
  ["Type", null, (c) => h("code", null, c.type)],
  ["Coverage", null, (c) => [c.coverage == null ? "–" : percent(c.coverage), c.unparsed ? h("span", { class: "muted" }, ` (${c.unparsed} unparsed)`) : null]],
  ["Exact", null, (c) => (c.exact ? h("span", { class: "badge", title: "compared exactly (no stemming)" }, "exact") : "")],
  ["Header keys", (c) => c.keys && c.keys.length, (c) => c.keys.join(", ")],
  ["Examples", (c) => c.examples && c.examples.length, (c) => c.examples.slice(0, 4).join(", ")],
];

function fieldsTable(t) {
  const shown = FIELD_COLUMNS.filter(([, any]) => !any || t.columns.some(any));
  return [
    h("h3", null, h("code", null, t.name), ` (${count(t.rows, "row")})`),
    t.description ? h("p", { class: "muted" }, t.description) : null,
    h(
      "div",
      { class: "scroll-box" },
      h(
        "table",
        { class: "fields-table", "data-testid": "fields-table" },
        h("thead", null, h("tr", null, shown.map(([label]) => h("th", { scope: "col" }, label)))),
        h(
          "tbody",
          null,
          t.columns.map((c) =>
            h(
              "tr",
              { "data-field": c.name },
              shown.map(([label, , cell], i) =>
                i === 0 ? h("th", { scope: "row" }, cell(c)) : h("td", { class: label === "Coverage" ? "num" : null }, cell(c)),
              ),
            ),
          ),
        ),
      ),
    ),
  ];
}
