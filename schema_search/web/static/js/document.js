// The document view: a passage in its page. The document's text with the passage marked
// and scrolled into view, its heading path and title, and a link to the source when it has
// a web address. Markdown documents are rendered (markdown.js), the others shown as plain text.

import { api, seg } from "./api.js";
import { guarded } from "./alert.js";
import { crumbs, searchContext } from "./context.js";
import { escapeRegExp, h, marked, replace } from "./dom.js";
import { markdownNodes, markdownParser, markdownParts } from "./markdown.js";
import { sourcePath } from "./sources.js";

// Formats whose text is Markdown as the reader kept it (MDX is Markdown once its JSX is gone).
// reStructuredText is not: its literal blocks, underlined titles and roles would be misread
// as Markdown, so it stays plain text with the others, whitespace kept.
const MARKDOWN = new Set(["markdown", "mdx"]);

export function documentView(root, route, { signal }) {
  const [, corpus, , id] = route.parts;
  const { question, words } = searchContext(route.params);
  replace(root, h("p", { class: "loading", role: "status" }, `Loading ${id}…`));
  guarded(root, async () => {
    const base = `${sourcePath({ kind: "corpus", name: corpus })}/documents/`;
    const item = await api(base + seg(id), { signal });
    const doc = item.kind === "chunk" ? await api(base + seg(item.document_id), { signal }) : item;
    const md = MARKDOWN.has(doc.format) ? await markdownParser() : null;
    render(root, corpus, item.kind === "chunk" ? item : null, doc, question, words, md);
  }, `Could not show ${id}`);
  return {};
}

/**
 * Where the passage sits in the document: [start, end) or null.
 *
 * Verbatim first; else with any run of whitespace matching any other (a chunker may have
 * joined lines or trimmed indentation).
 */
export function locate(text, passage) {
  const exact = text.indexOf(passage);
  if (exact !== -1) return [exact, exact + passage.length];
  const parts = passage.trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return null;
  const pattern = new RegExp(parts.map(escapeRegExp).join("\\s+"));
  const found = pattern.exec(text);
  return found ? [found.index, found.index + found[0].length] : null;
}

/**
 * The source's web address, or null when it has none a link could open: only an absolute
 * http(s) URL is one. A corpus indexed without a URL template gives a file's relative path
 * ("refunds.md"), which as a link would open a page of this server that is not there; and a
 * "javascript:" or "data:" address is never a link.
 */
export function webAddress(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return null; // relative, or not a URL at all
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

function sourceLine(url, format) {
  const address = webAddress(url);
  if (address) {
    return h("p", { class: "source-link" }, "Source: ", h("a", { href: address, target: "_blank", rel: "noopener noreferrer", "data-testid": "source-link" }, url), ` (${format})`);
  }
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(url || "");
  return h(
    "p",
    { class: "source-link" },
    "Source: ",
    h("code", { "data-testid": "source-text" }, url || "–"),
    ` (${format}) `,
    h(
      "span",
      { class: "muted", "data-testid": "source-note" },
      hasScheme ? "— not a web address, so not a link." : "— no web address: the corpus was indexed without a URL template.",
    ),
  );
}

function render(root, corpus, chunk, doc, question, words, md) {
  const main = chunk || doc;
  const at = chunk ? locate(doc.text, chunk.text) : null;
  const texts = at ? [doc.text.slice(0, at[0]), doc.text.slice(at[0], at[1]), doc.text.slice(at[1])] : [doc.text];
  // Markdown: each part rendered on its own, so a block cut by the passage's edges ends there.
  const parts = md ? markdownParts(md, texts, { words, link: webAddress }) : texts.map((t) => marked(t, words));
  // A rendered passage holds blocks (paragraphs, code), which a <mark> may not: a <div> styled as one.
  const passage = at ? h(md ? "div" : "mark", { class: "passage", id: "passage", "data-testid": "passage", tabindex: "-1" }, parts[1]) : null;
  const body = h(
    "div",
    { class: ["doc-text scroll-box", md && "markdown"], "data-testid": "document-text", "data-format": doc.format },
    at ? [parts[0], passage, parts[2]] : parts[0],
  );
  replace(
    root,
    h(
      "article",
      { class: "doc-page", "data-testid": "document-view", "data-source-id": main.source_id },
      crumbs({ kind: "corpus", name: corpus }, question),
      h("h1", null, doc.title, " ", h("code", { class: "source-id", title: "Source ID, to cite this passage" }, main.source_id)),
      main.heading_path && main.heading_path.length
        ? h(
            "nav",
            { "aria-label": "Heading path" },
            h("p", { class: "path-label" }, "Section"),
            h("ol", { class: "heading-path", "data-testid": "heading-path" }, main.heading_path.map((x) => h("li", null, x))),
          )
        : null,
      sourceLine(main.url, doc.format),
      fields(doc.fields),
      chunk && !at
        ? h(
            "section",
            { class: "passage-alone", "aria-labelledby": "passage-h" },
            h("h2", { id: "passage-h" }, "The passage"),
            h("p", { class: "muted" }, "Its text is not found verbatim in the document below (the reader changed it), so it is shown here."),
            h(
              "blockquote",
              { class: ["passage", md && "markdown"], "data-testid": "passage" },
              md ? markdownNodes(md, chunk.text, { words, link: webAddress }) : marked(chunk.text, words),
            ),
          )
        : null,
      h("section", { "aria-labelledby": "doc-h" }, h("h2", { id: "doc-h" }, chunk && at ? "The document, passage marked" : "The document"), body),
    ),
  );
  if (passage) {
    // Inside the document's own box, and the box into the window: the passage is what was asked for.
    body.scrollTop = Math.max(0, passage.offsetTop - body.clientHeight / 3); // the box is the offsetParent (position: relative)
    passage.scrollIntoView({ block: "nearest" });
  }
}

function fields(values) {
  const entries = Object.entries(values || {});
  if (!entries.length) return null;
  return h(
    "dl",
    { class: "facts fields" },
    entries.map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v.join(", ")))),
  );
}
