// The search that led to a table or document view, carried in the view's hash: the question
// (q), the words to mark (hl) and the tables in its results (in). A view reads it once, passes
// it on to the views it links to, and offers the way back to the results.

import { h } from "./dom.js";
import { searchHref, sourceHref } from "./router.js";

/** {question, words, within (a Set of the results' table IDs)} from a route's parameters. */
export function searchContext(params) {
  const list = (name) => (params.get(name) || "").split(",").filter(Boolean);
  return { question: params.get("q") || "", words: list("hl"), within: new Set(list("in")) };
}

/** The parameters that keep the context in the next view's hash (its words are that view's own). */
export const passedOn = ({ question, within }) => ({ q: question, in: [...within] });

/** The breadcrumb: the source's overview, and after a search the way back to its results. */
export function crumbs(source, question) {
  return h(
    "nav",
    { class: "crumbs", "aria-label": "Breadcrumb" },
    h("a", { href: sourceHref(source.kind, source.name) }, `${source.kind} ${source.name}`),
    question ? [" · ", h("a", { href: searchHref(source, question), "data-testid": "back-to-results" }, "back to the results")] : null,
  );
}
