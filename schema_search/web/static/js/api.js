// The page's one way to the server: JSON in, JSON out, problem+json as a thrown ApiError.
// A read key (servers that set SCHEMA_SEARCH_READ_KEY) is asked for once, kept for the tab
// in sessionStorage, sent as X-Read-Key, and the refused request is retried with it; it is
// also kept in a session cookie for /v1/eval (see storeReadKey).

const KEY_STORE = "schema_search.read_key";

export class ApiError extends Error {
  constructor({ status = 0, code = "error", title = "", detail = "", hint = null }) {
    super(detail || title || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.hint = hint;
  }
}

let askForKey = null;
let pendingKey = null;

/** Register how the page asks for a read key: fn(refusal) resolves once one is stored. */
export function onReadKeyNeeded(fn) {
  askForKey = fn;
}

export function readKey() {
  try {
    return sessionStorage.getItem(KEY_STORE);
  } catch {
    return null;
  }
}

export function storeReadKey(key) {
  sessionStorage.setItem(KEY_STORE, key);
  // A frame or a link (an eval report's page) cannot send X-Read-Key: the server also reads
  // the key from this cookie, which the browser sends only to /v1/eval, only from this site,
  // over https only when the page came over https, and keeps until it closes (every tab).
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `schema_search_read_key=${encodeURIComponent(key)}; path=${new URL(apiUrl("/v1/eval")).pathname}; SameSite=Strict${secure}`;
}

/**
 * Where an API path is, for this page: beside the page, so a server mounted under a prefix
 * (a proxy's /search/, the app's root_path) is called under it too. path: "/v1/...".
 */
export function apiUrl(path) {
  return new URL(path.replace(/^\//, ""), document.baseURI).href;
}

/**
 * Call the API. path: "/v1/...". Options: method, json (a body sent as JSON), body and
 * contentType (anything else: a file, FormData), adminKey, signal. Returns the parsed
 * JSON (or text for non-JSON answers); throws ApiError, or the AbortError when aborted.
 */
export async function api(path, { method = "GET", json, body, contentType, adminKey, signal } = {}) {
  for (;;) {
    const headers = { Accept: "application/json, application/problem+json" };
    const key = readKey();
    if (key) headers["X-Read-Key"] = key;
    if (adminKey) headers["X-Admin-Key"] = adminKey;
    let payload = body;
    if (json !== undefined) {
      payload = JSON.stringify(json);
      headers["Content-Type"] = "application/json";
    } else if (contentType) {
      headers["Content-Type"] = contentType;
    }
    let response;
    try {
      response = await fetch(apiUrl(path), { method, headers, body: payload, signal, credentials: "same-origin" });
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new ApiError({
        code: "network",
        title: "No answer",
        detail: "The server did not answer.",
        hint: "Check that schemasift serve is running and reachable, then try again.",
      });
    }
    if (response.ok) return read(response);
    const problem = await problemOf(response);
    if (problem.code === "read_key_required" && askForKey) {
      await keyFrom(problem, signal);
      continue;
    }
    throw problem;
  }
}

async function read(response) {
  if (response.status === 204) return null;
  const type = response.headers.get("content-type") || "";
  return type.includes("json") ? response.json() : response.text();
}

async function problemOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not problem+json (a proxy's page): say what we know.
  }
  if (body && typeof body === "object" && !Array.isArray(body)) {
    return new ApiError({
      status: response.status,
      code: body.code || `http_${response.status}`,
      title: body.title || response.statusText,
      detail: typeof body.detail === "string" ? body.detail : `HTTP ${response.status} ${response.statusText}`,
      hint: body.hint || null,
    });
  }
  return new ApiError({
    status: response.status,
    code: `http_${response.status}`,
    title: response.statusText,
    detail: `The server answered ${response.status} ${response.statusText} without an explanation.`,
  });
}

// Several requests refused at once share one prompt.
function keyFrom(problem, signal) {
  if (!pendingKey) {
    pendingKey = Promise.resolve(askForKey(problem)).finally(() => {
      pendingKey = null;
    });
  }
  if (!signal) return pendingKey;
  return new Promise((resolve, reject) => {
    const abort = () => reject(new DOMException("Aborted", "AbortError"));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    pendingKey.then(resolve, reject);
  });
}

/** Path segment, encoded. */
export const seg = (value) => encodeURIComponent(value);
