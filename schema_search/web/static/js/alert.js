// Errors as people read them: what was wrong (the problem's detail) and what to do (its hint).

import { h } from "./dom.js";

/** An alert box for an error: an ApiError's detail and hint, or any other error's message. */
export function errorBox(error, what = "") {
  const detail = error && error.detail ? error.detail : String((error && error.message) || error);
  const status = error && error.status ? `${error.status} ${error.title || ""}`.trim() : "";
  return h(
    "div",
    { class: "alert", role: "alert", "data-testid": "error", "data-code": (error && error.code) || "error" },
    h("p", { class: "alert-title" }, what || (status ? `Error: ${status}` : "Error")),
    h("p", { class: "alert-detail", "data-testid": "error-detail" }, detail),
    error && error.hint ? h("p", { class: "alert-hint", "data-testid": "error-hint" }, "What to do: ", error.hint) : null,
  );
}

/** Call fn; an error other than an abort is shown in place (in `where`) instead of thrown. */
export async function guarded(where, fn, what) {
  try {
    return await fn();
  } catch (error) {
    if (isAbort(error)) return undefined;
    where.replaceChildren(errorBox(error, what));
    return undefined;
  }
}

export const isAbort = (error) => error && error.name === "AbortError";
