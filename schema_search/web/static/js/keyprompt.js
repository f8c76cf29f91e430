// The read key, asked for when the server answers 401 read_key_required; kept for the tab only.

import { readKey, storeReadKey } from "./api.js";
import { h, replace } from "./dom.js";

/** Show the key form in `region`; resolves once a key is stored (the refused request is then retried). */
export function askForReadKey(region, problem) {
  return new Promise((resolve) => {
    const refused = readKey() !== null;
    const input = h("input", {
      id: "read-key",
      name: "read-key",
      type: "password",
      autocomplete: "off",
      required: true,
      "aria-describedby": "read-key-why",
    });
    const form = h(
      "form",
      {
        class: "key-form",
        "data-testid": "read-key-form",
        on: {
          submit: (event) => {
            event.preventDefault();
            if (!input.value) return;
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
      h("p", { class: "muted" }, "The key is kept in this tab only (sessionStorage) and sent as X-Read-Key."),
    );
    region.hidden = false;
    input.focus();
  });
}
