// The catalogs and corpora on this server, fetched once per page load (and again after an upload).

import { api, seg } from "./api.js";

let known = null;

/** {catalogs: [CatalogInfo], corpora: [CorpusInfo]}; fresh: ask the server again. */
export function sources({ fresh = false, signal } = {}) {
  if (!known || fresh) {
    known = Promise.all([api("/v1/catalogs", { signal }), api("/v1/corpora", { signal })]).then(
      ([catalogs, corpora]) => ({ catalogs, corpora }),
      (error) => {
        known = null;
        throw error;
      },
    );
  }
  return known;
}

/** A source as the page names it: {kind: "catalog"|"corpus", name}. */
export const sourceKey = (source) => `${source.kind}:${source.name}`;

export function parseSourceKey(value) {
  const at = value.indexOf(":");
  return at === -1 ? null : { kind: value.slice(0, at), name: value.slice(at + 1) };
}

/** The API path of a source: /v1/catalogs/NAME or /v1/corpora/NAME. */
export const sourcePath = (source) => `/v1/${source.kind === "catalog" ? "catalogs" : "corpora"}/${seg(source.name)}`;

/** The search API path of a source. */
export const searchPath = (source) => `${sourcePath(source)}/search`;
