// Hash routes: the page's state lives in the URL, so a reload or a shared link shows the same thing.
//   #/, #/search?catalog=NAME&q=TEXT  search a catalog (corpus=NAME for a corpus); &at=SOURCE_ID
//                                   scrolls to that result
//   #/sources                       every catalog and corpus, and the upload forms
//   #/catalog/NAME                  a catalog's overview
//   #/catalog/NAME/table/ID?q=&hl=&in=  a table (q: the search that led there, hl: its words,
//                                   in: the tables in its results)
//   #/corpus/NAME                   a corpus's overview
//   #/corpus/NAME/doc/SOURCE_ID?q=&hl=  a passage in its document
//   #/eval, #/eval/NAME             eval reports

/** The current route: {parts: [decoded path segments], params: URLSearchParams}. */
export function current(hash = location.hash) {
  const raw = hash.replace(/^#/, "");
  const [path, query = ""] = raw.split(/\?(.*)/s, 2);
  const parts = path
    .split("/")
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { parts, params: new URLSearchParams(query) };
}

/** A hash for these path segments and query parameters (empty values left out). */
export function href(parts, params = {}) {
  const path = "#/" + parts.map((p) => encodeURIComponent(p)).join("/");
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    const text = Array.isArray(value) ? value.join(",") : value == null ? "" : String(value);
    if (text !== "") query.set(key, text);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Change the URL without a hashchange (typing a question): the view already shows it. */
export function replaceHash(hash) {
  if (location.hash !== hash) history.replaceState(history.state, "", hash);
}

export const searchHref = (source, question, extra = {}) =>
  href(["search"], source ? { [source.kind]: source.name, q: question, ...extra } : { q: question, ...extra });
export const tableHref = (catalog, table, extra = {}) => href(["catalog", catalog, "table", table], extra);
export const docHref = (corpus, sourceId, extra = {}) => href(["corpus", corpus, "doc", sourceId], extra);
export const sourceHref = (kind, name) => href([kind, name]);
