// The review queue: answers that used a public source, each as the rewritten entry a reviewer
// edits, then approves into the corpus `reviewed` or rejects (kept, so its page is not offered
// again). Every call sends the admin key typed here: the queue holds what visitors asked.

import { api, seg } from "./api.js";
import { errorBox, guarded } from "./alert.js";
import { h, replace } from "./dom.js";
import { keyInput } from "./keyfield.js";

export function reviewView(root, _route, { signal }) {
  const key = keyInput("review-key");
  const status = h("select", { id: "review-status" }, ...["pending", "approved", "rejected"].map((s) => h("option", { value: s }, s)));
  const list = h("div", { "data-testid": "review-list" });
  const load = () =>
    guarded(list, async () => {
      replace(list, h("p", { class: "loading", role: "status" }, "Loading…"));
      const entries = await api(`/v1/review?status=${seg(status.value)}`, { adminKey: key.input.value || undefined, signal });
      if (!entries.length) return replace(list, h("p", { class: "muted" }, `No ${status.value} entries.`));
      replace(list, ...entries.map((e) => h("div", { class: "review-entry", "data-entry": e.id }, h("p", null, "Loading entry ", e.id, "…"))));
      for (const e of entries) {
        const full = await api(`/v1/review/${e.id}`, { adminKey: key.input.value || undefined, signal });
        list.querySelector(`[data-entry="${e.id}"]`).replaceWith(entryCard(full, key, load, signal));
      }
    });
  status.addEventListener("change", load);
  replace(
    root,
    h(
      "section",
      { class: "review-page" },
      h("h1", null, "Review queue"),
      h("p", { class: "muted" }, "Answers that used a public source, rewritten from the question and the page (never from the visitor's answer), e-mails and phones masked. Approve one into the corpus “reviewed”, or reject it: its page is then not offered again."),
      h("p", null, h("label", { for: "review-key" }, "Admin key "), key.input, " ", h("label", { for: "review-status" }, "Show "), status, " ", h("button", { type: "button", on: { click: load } }, "Load")),
      key.message,
      list,
    ),
  );
  load();
  return {};
}

function entryCard(entry, key, reload, signal) {
  const title = h("input", { type: "text", value: entry.rewrite.title, "aria-label": "Entry title", size: 60 });
  const body = h("textarea", { rows: 8, cols: 80, "aria-label": "Entry body" });
  body.value = entry.rewrite.body;
  const message = h("div", { "aria-live": "polite" });
  const pending = entry.status === "pending";
  const act = (path, method, json) => async () => {
    try {
      await api(`/v1/review/${entry.id}${path}`, { method, json, adminKey: key.input.value || undefined, signal });
      reload();
    } catch (error) {
      if (error.name !== "AbortError") replace(message, errorBox(error));
    }
  };
  const edited = () => ({ title: title.value, body: body.value });
  return h(
    "article",
    { class: "review-entry", "data-entry": entry.id },
    h("h2", null, `#${entry.id} `, entry.rewrite.title, h("span", { class: "muted" }, ` (${entry.status})`)),
    h("p", null, h("strong", null, "Question: "), entry.question),
    h("p", null, h("strong", null, "Public pages read: "), ...entry.read.map((u) => h("code", null, u, " "))),
    entry.seen.length ? h("p", { class: "muted" }, "Seen in results, not read: ", entry.seen.join(", ")) : null,
    entry.unsourced_numbers.length ? h("p", { class: "alert-hint" }, "Numbers no source contains: ", entry.unsourced_numbers.join(", ")) : null,
    h("p", null, h("label", null, "Title ", title)),
    h("p", null, h("label", null, "Body (Markdown) ", h("br"), body)),
    h("details", null, h("summary", null, "The answer the visitor got"), h("pre", null, entry.answer)),
    pending
      ? h(
          "p",
          null,
          h("button", { type: "button", on: { click: () => act("", "PATCH", edited())() } }, "Save"),
          " ",
          h("button", { type: "button", on: { click: () => act("/approve", "POST", edited())() } }, "Approve"),
          " ",
          h("button", { type: "button", on: { click: act("/reject", "POST") } }, "Reject"),
        )
      : null,
    message,
  );
}
