// Markdown as DOM, safely. markdown-it (vendored under ../vendor) parses; this module builds
// the elements from its token stream with h(), from a whitelist. markdown-it's HTML output is
// never used: whatever a document says, it can only become text nodes and the elements below,
// and a link only an address the caller's link() accepts.

import { h, marked } from "./dom.js";

let loading = null;

/**
 * The Markdown parser, loaded from this server on first use (only the document view needs it).
 *
 * html: false, so raw HTML in a document is text; linkify and typographer off, so the text
 * shown is the text written.
 */
export function markdownParser() {
  // The vendored file is markdown-it's UMD bundle, unchanged: run as a module, it defines
  // globalThis.markdownit (it has no ES exports; the package's ESM sources import bare
  // specifiers, which only an import map could resolve, and an inline one breaks the CSP).
  loading ??= import("../vendor/markdown-it.min.js").then(
    () => globalThis.markdownit({ html: false, linkify: false, typographer: false }),
    (error) => {
      loading = null; // a later view tries again
      throw error;
    },
  );
  return loading;
}

/**
 * Markdown text as a fragment of whitelisted elements and text nodes.
 *
 * words: the question's words, marked in text and code alike (they are often identifiers).
 * link(href): the address a link may open, or null to show its text only; the default opens none.
 * shift: how far headings are demoted, so the document's h1 sits below the page's own.
 */
export function markdownNodes(md, text, options) {
  return nodes(md.parse(text, {}), options);
}

/**
 * Texts that are parts of one document (before a passage, the passage, after it), each parsed
 * on its own so that a construct cut by a split ends with its part. A code fence left open at
 * the end of a part is reopened at the start of the next: the rest of the code stays code.
 */
export function markdownParts(md, texts, options) {
  let opener = null;
  return texts.map((text) => {
    const source = opener ? `${opener}\n${text}` : text;
    const tokens = md.parse(source, {});
    opener = openFence(tokens, source);
    return nodes(tokens, options);
  });
}

function nodes(tokens, { words = [], link = () => null, shift = 2 } = {}) {
  const fragment = document.createDocumentFragment();
  build(tokens, fragment, { words, link, shift });
  return fragment;
}

// A fence's closing line: up to three spaces, then its marker character at least as many times.
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** The opening line of a top-level fence that runs to the end of the text unclosed, else null. */
function openFence(tokens, text) {
  const last = tokens[tokens.length - 1];
  if (!last || last.type !== "fence" || last.level !== 0 || !last.map) return null;
  const [start, end] = last.map; // lines as markdown-it counts them: a lone \r ends one too
  const closing = end - 1 > start ? CLOSING.exec(text.split(/\r\n|\r|\n/)[end - 1]) : null;
  const closed = closing && closing[1][0] === last.markup[0] && closing[1].length >= last.markup.length;
  return closed ? null : last.markup + last.info;
}

// Token name (type without _open) -> element; anything else opens a neutral <div> or <span>.
const ELEMENTS = {
  paragraph: () => h("p"),
  heading: (token, { shift }) => h(`h${Math.min(6, Number(token.tag.slice(1)) + shift)}`),
  bullet_list: () => h("ul"),
  ordered_list: (token) => h("ol", { start: startNumber(token) }),
  list_item: () => h("li"),
  blockquote: () => h("blockquote"),
  table: () => h("table"),
  thead: () => h("thead"),
  tbody: () => h("tbody"),
  tr: () => h("tr"),
  th: (token) => h("th", { class: alignment(token) }),
  td: (token) => h("td", { class: alignment(token) }),
  strong: () => h("strong"),
  em: () => h("em"),
  s: () => h("s"),
  link: (token, { link }) => {
    const href = token.attrGet("href") || "";
    const address = link(href);
    return address
      ? h("a", { href: address, target: "_blank", rel: "noopener noreferrer", title: token.attrGet("title") })
      : h("span", { class: "link-text", title: href ? `${href} (not a web address, so not a link)` : null });
  },
};

function build(tokens, parent, options) {
  const stack = [parent];
  for (const token of tokens) {
    const top = stack[stack.length - 1];
    if (token.hidden) continue; // a tight list's paragraphs: their text goes straight into the <li>
    if (token.nesting === 1) {
      const make = ELEMENTS[token.type.replace(/_open$/, "")];
      const el = make ? make(token, options) : h(token.block ? "div" : "span");
      top.append(el);
      stack.push(el);
    } else if (token.nesting === -1) {
      if (stack.length > 1) stack.pop();
    } else if (token.type === "inline") {
      build(token.children || [], top, options);
    } else {
      top.append(leaf(token, options));
    }
  }
}

function leaf(token, { words }) {
  switch (token.type) {
    case "fence":
    case "code_block": {
      const lang = token.type === "fence" ? token.info.trim().split(/\s+/)[0] : "";
      return h("pre", { class: "code", "data-lang": lang || null }, h("code", null, marked(token.content, words)));
    }
    case "code_inline":
      return h("code", null, marked(token.content, words));
    case "hardbreak":
      return h("br");
    case "softbreak":
      return "\n";
    case "hr":
      return h("hr");
    case "image": {
      // Never loaded: the document's own server is not this one, and an image could track the reader.
      const alt = token.content || "image";
      return h("span", { class: "image-alt", title: "An image, not loaded here" }, "[", marked(alt, words), "]");
    }
    default:
      // text, and anything else with content (html_* if html were on): as text, never as markup.
      return marked(token.content || "", words);
  }
}

function startNumber(token) {
  const start = Number(token.attrGet("start"));
  return Number.isInteger(start) && start !== 1 ? start : null;
}

// markdown-it aligns table cells with a style attribute, which the page's CSP refuses: a class instead.
function alignment(token) {
  const found = /text-align:\s*(left|center|right)/.exec(token.attrGet("style") || "");
  return found ? `align-${found[1]}` : null;
}
