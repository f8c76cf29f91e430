// The read key, asked for when the server answers 401 read_key_required; kept for the tab,
// and in a session cookie for the eval reports' frames (api.js says why).

import { readKey, storeReadKey } from "./api.js";
import { h, replace } from "./dom.js";
import { keyInput } from "./keyfield.js";

/** Show the key form in `region`; resolves once a key is stored (the refused request is then retried). */
export function askForReadKey(region, problem) {
  return new Promise((resolve) => {
    const refused = readKey() !== null;
    const { input, message } = keyInput("read-key", { required: true, describedBy: "read-key-why" });
    const form = h(
      "form",
      {
        class: "key-form",
        "data-testid": "read-key-form",
        on: {
          submit: (event) => {
            event.preventDefault();
            if (!input.value || !input.checkValidity()) return;
            storeReadKey(input.value);
            region.hidden = true;
            region.replaceChildren();
            resolve();
          },
        },
      },
      h("label", { for: "read-key" }, "Read key"),
      input,
      h("button", { type: "submit" }, "Use key"),
      message,
    );
    replace(
      region,
      h(
        "div",
        { role: "alert", class: "alert" },
        h("p", { class: "alert-title" }, refused ? "That key was not accepted" : "This server needs a read key"),
        h("p", { id: "read-key-why", class: "alert-detail" }, problem.detail),
        problem.hint ? h("p", { class: "alert-hint" }, "What to do: ", problem.hint) : null,
      ),
      form,
      h(
        "p",
        { class: "muted", "data-testid": "read-key-kept" },
        "The key is kept for this tab (sessionStorage) and sent as X-Read-Key; for the eval reports' frames, which cannot send a header, it is also kept in a cookie sent only to /v1/eval, until the browser closes.",
      ),
    );
    region.hidden = false;
    input.focus();
  });
}
