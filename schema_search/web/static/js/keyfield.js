// A key typed for a request header (X-Read-Key, X-Admin-Key), checked as it is typed: a
// header carries Latin-1 only, and fetch refuses any other character by throwing before
// anything is sent, which would read as "the server did not answer".

import { h } from "./dom.js";

/** What keeps `value` out of a header, in words, or null when it can be sent. */
export function keyProblem(value) {
  for (const ch of value) {
    const code = ch.codePointAt(0);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      return "The key has a control character (a line break or a tab, say): a key is printable characters only.";
    }
    if (code > 0xff) {
      return `The key has “${ch}”, which a request header cannot carry: use printable ASCII (or Latin-1) characters only.`;
    }
  }
  if (value !== value.trim()) return "The key starts or ends with a space, which a request header drops: remove it.";
  return null;
}

/**
 * A password input for a key, with the line under it that says what is wrong as one types;
 * the form will not submit while it is wrong. Returns {input, message}.
 */
export function keyInput(id, { required = false, describedBy = "" } = {}) {
  const message = h("p", { id: `${id}-problem`, class: "field-problem", "data-testid": `${id}-problem`, "aria-live": "polite" });
  const input = h("input", {
    id,
    name: id,
    type: "password",
    autocomplete: "off",
    required,
    "aria-describedby": `${id}-problem ${describedBy}`.trim(),
  });
  input.addEventListener("input", () => {
    const problem = keyProblem(input.value) || "";
    input.setCustomValidity(problem);
    message.textContent = problem;
  });
  return { input, message };
}
