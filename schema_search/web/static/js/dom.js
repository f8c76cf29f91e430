// Element helpers. Everything the API sends reaches the page as text nodes (textContent),
// never as markup: a table comment or a document passage cannot inject anything.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "on") {
      for (const [event, handler] of Object.entries(value)) el.addEventListener(event, handler);
    } else if (key === "class") {
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (key === "text") {
      el.textContent = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("a", {href: "#/", class: "x"}, "text", child). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  return append(el, children);
}

/** An SVG element, same shape as h(). */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  return append(el, children);
}

/** Replace an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/**
 * Where the words occur in text, as [start, end) pairs, case-insensitively, at token edges.
 *
 * A token edge is where a name's parts meet: a non-alphanumeric, a lower-to-upper case change
 * (camelCase) or a letter/digit change; so "email" marks "email_events" and "contact_email"
 * but not "emails", and "Invoice" marks "InvoiceLines". The text is matched as it is (a
 * case-insensitive pattern, not a lower-cased copy): lower-casing can change a string's
 * length ("İ" becomes two code units) and would misplace every mark after it.
 */
export function spans(text, words) {
  const found = [];
  if (!text || !words || !words.length) return found;
  const unique = new Map(words.map((w) => String(w)).filter((w) => w.length > 1).map((w) => [w.toLowerCase(), w]));
  for (const word of unique.values()) {
    const pattern = new RegExp(escapeRegExp(word), "giu");
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      const end = m.index + m[0].length;
      if (edgeBefore(text, m.index) && edgeAfter(text, end)) found.push([m.index, end]);
      pattern.lastIndex = m.index + 1; // overlapping occurrences: "aba" in "ababa" ends at an edge only the second time
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged = [];
  for (const span of found) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}

/** Text as a RegExp source that matches it literally (with or without the u flag). */
export const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

const ALNUM = /[\p{L}\p{N}]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const DIGIT = /\p{N}/u;

function edgeBefore(text, i) {
  if (i === 0) return true;
  const prev = text[i - 1];
  const next = text[i];
  if (!ALNUM.test(prev) || !ALNUM.test(next)) return true;
  if (LOWER.test(prev) && UPPER.test(next)) return true;
  return DIGIT.test(prev) !== DIGIT.test(next);
}

function edgeAfter(text, i) {
  if (i >= text.length) return true;
  return edgeBefore(text, i);
}

/** Text with the words wrapped in <mark>, as a fragment of text nodes and marks. */
export function marked(text, words) {
  const fragment = document.createDocumentFragment();
  const value = text == null ? "" : String(text);
  let at = 0;
  for (const [start, end] of spans(value, words)) {
    if (start > at) fragment.append(value.slice(at, start));
    fragment.append(h("mark", null, value.slice(start, end)));
    at = end;
  }
  if (at < value.length) fragment.append(value.slice(at));
  return fragment;
}

/** Wait ms after the last call before calling fn; cancel() drops a pending call. */
export function debounce(fn, ms) {
  let timer = null;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}
