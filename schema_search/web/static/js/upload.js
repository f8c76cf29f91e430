// Indexing from the page: a DDL file as a catalog, documents as a corpus. Writes send the
// admin key (X-Admin-Key) the person types; it is not stored anywhere.

import { api } from "./api.js";
import { errorBox, isAbort } from "./alert.js";
import { h, replace } from "./dom.js";
import { count } from "./format.js";
import { keyInput } from "./keyfield.js";
import { sourceHref } from "./router.js";
import { sourcePath } from "./sources.js";

// The server's NAME_PATTERN (core/store.py), for feedback as one types; the server checks again.
const NAME = "[a-z0-9][a-z0-9_\\-]{0,63}";
const NAME_HELP = "Lower-case letters, digits, _ or -; up to 64 characters.";

export function uploadForms(where, { signal, onIndexed }) {
  const keyNote = h("p", { class: "key-note", "data-testid": "key-note" }, "Checking whether this server needs the admin key for writes…");
  replace(
    where,
    keyNote,
    h(
      "div",
      { class: "form-pair" },
      form({
        id: "catalog",
        title: "A DDL file as a catalog",
        fileLabel: "DDL file (.sql)",
        accept: ".sql,.ddl,.txt,text/plain,application/sql",
        multiple: false,
        submit: "Index catalog",
        send: (name, files, key) =>
          api(sourcePath({ kind: "catalog", name }), { method: "POST", body: files[0], contentType: "application/sql", adminKey: key }),
        done: (r) => [h("a", { href: sourceHref("catalog", r.catalog.name) }, `Catalog ${r.catalog.name}`), `: ${count(r.catalog.tables, "table")}, ${count(r.catalog.views, "view")}, indexed in ${r.seconds.toFixed(1)} s.`],
        onIndexed,
      }),
      form({
        id: "corpus",
        title: "Documents as a corpus",
        fileLabel: "Documents (Markdown, reST, HTML, PDF, Word, text)",
        accept: null,
        multiple: true,
        submit: "Index corpus",
        send: (name, files, key) => {
          const body = new FormData();
          for (const f of files) body.append("files", f, f.name);
          return api(sourcePath({ kind: "corpus", name }), { method: "POST", body, adminKey: key });
        },
        done: (r) => [h("a", { href: sourceHref("corpus", r.corpus.name) }, `Corpus ${r.corpus.name}`), `: ${count(r.corpus.documents, "document")}, ${count(r.corpus.chunks, "chunk")}, indexed in ${r.seconds.toFixed(1)} s.`],
        onIndexed,
      }),
    ),
  );
  api("/v1/server", { signal }).then(
    (info) => {
      keyNote.textContent = info.writes_need_key
        ? "This server needs the admin key (X-Admin-Key) for every write: type it in the form."
        : "This server takes writes without a key (no SCHEMA_SEARCH_ADMIN_KEY set): leave the key empty.";
      keyNote.dataset.writesNeedKey = String(Boolean(info.writes_need_key));
    },
    (error) => {
      if (isAbort(error)) return;
      keyNote.textContent = `Whether writes need the admin key is unknown (${error.detail || error.message}); type it if you have one.`;
    },
  );
}

function form({ id, title, fileLabel, accept, multiple, submit, send, done, onIndexed }) {
  const name = h("input", { id: `${id}-name`, name: "name", required: true, pattern: NAME, autocomplete: "off", "aria-describedby": `${id}-name-help` });
  const files = h("input", { id: `${id}-files`, name: "files", type: "file", required: true, accept, multiple });
  const { input: key, message: keyMessage } = keyInput(`${id}-key`);
  const button = h("button", { type: "submit" }, submit);
  const outcome = h("div", { class: "outcome", role: "status", "aria-live": "polite", "data-testid": `${id}-outcome` });
  const el = h(
    "form",
    { class: "upload-form", "data-testid": `${id}-form`, "aria-labelledby": `${id}-form-h` },
    h("h3", { id: `${id}-form-h` }, title),
    h("div", { class: "field" }, h("label", { for: `${id}-name` }, "Name"), name, h("p", { id: `${id}-name-help`, class: "help" }, NAME_HELP)),
    h("div", { class: "field" }, h("label", { for: `${id}-files` }, fileLabel), files),
    h("div", { class: "field" }, h("label", { for: `${id}-key` }, "Admin key"), key, keyMessage),
    button,
    outcome,
  );
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    replace(outcome, h("p", null, "Indexing… (a large upload takes a minute)"));
    try {
      const result = await send(name.value, [...files.files], key.value || null);
      replace(outcome, h("p", { class: "ok" }, done(result)));
      if (onIndexed) onIndexed();
    } catch (error) {
      if (!isAbort(error)) replace(outcome, errorBox(error, "Indexing failed"));
    } finally {
      button.disabled = false;
    }
  });
  return el;
}
