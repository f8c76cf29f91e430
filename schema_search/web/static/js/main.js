// The page's entry: routes the hash to a view, keeps the navigation in step, and asks for
// a read key when the server wants one.

import { onReadKeyNeeded } from "./api.js";
import { errorBox } from "./alert.js";
import { replace } from "./dom.js";
import { documentView } from "./document.js";
import { evalView } from "./evalview.js";
import { askForReadKey } from "./keyprompt.js";
import { listView, sourceView } from "./overview.js";
import { current } from "./router.js";
import { reviewView } from "./review.js";
import { searchView } from "./search.js";
import { tableView } from "./table.js";

const view = document.getElementById("view");
const keyRegion = document.getElementById("key-prompt");
const nav = document.querySelectorAll("[data-nav]");

onReadKeyNeeded((problem) => askForReadKey(keyRegion, problem));

/** The view for a route and the page title, or null for a hash no view answers. */
function pick({ parts }) {
  const [first, name, what, id] = parts;
  // The address a new user opens (/) is the search: the page's main job.
  if (!first || (first === "search" && parts.length === 1)) return [searchView, "Search", "search"];
  if (first === "sources" && parts.length === 1) return [listView, "Catalogs and corpora", "sources"];
  if ((first === "catalog" || first === "corpus") && name && parts.length === 2) return [sourceView, `${first} ${name}`, "sources"];
  if (first === "catalog" && what === "table" && id && parts.length === 4) return [tableView, id, "search"];
  if (first === "corpus" && what === "doc" && id && parts.length === 4) return [documentView, id, "search"];
  if (first === "eval" && parts.length <= 2) return [evalView, "Eval reports", "eval"];
  if (first === "review" && parts.length === 1) return [reviewView, "Review queue", "review"];
  return null;
}

let shown = null; // {update, destroy, controller, render}

function route(event) {
  const r = current();
  // "Search" in the navigation goes back to the last search (its hash changes as one types).
  const old = event && event.oldURL ? new URL(event.oldURL).hash : "";
  const last = r.parts[0] === "search" ? location.hash : old.startsWith("#/search") ? old : null;
  if (last) document.querySelector("[data-nav=search]").setAttribute("href", last);
  const chosen = pick(r);
  if (shown && chosen && shown.render === chosen[0] && shown.update && shown.update(r)) return;
  if (shown) {
    shown.controller.abort();
    if (shown.destroy) shown.destroy();
  }
  const controller = new AbortController();
  const first = shown === null;
  if (!chosen) {
    shown = null;
    document.title = "Not found · schema_search";
    replace(
      view,
      errorBox({ status: 404, title: "Not Found", detail: `The page has no view at ${location.hash}.`, hint: "Use the links above: Search, Sources or Eval." }),
    );
    return;
  }
  const [render, title, section] = chosen;
  document.title = `${title} · schema_search`;
  for (const link of nav) {
    if (link.dataset.nav === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const made = render(view, r, { signal: controller.signal }) || {};
  shown = { ...made, controller, render };
  if (!first) {
    // A new view starts at its top, and keyboard and screen-reader users start there too.
    window.scrollTo(0, 0);
    view.focus({ preventScroll: true });
  }
}

document.getElementById("skip").addEventListener("click", () => {
  const target = view.querySelector("input, h1") || view;
  if (target.tagName === "H1") target.setAttribute("tabindex", "-1");
  target.focus();
});

window.addEventListener("hashchange", route);
route();
