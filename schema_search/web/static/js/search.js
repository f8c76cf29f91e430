// The search page: pick a catalog or corpus, type a question, read the ranked results
// against one shared distance axis. Searches as you type (debounced, the previous request
// aborted); the URL hash holds the source and question.

import { api } from "./api.js";
import { errorBox, isAbort } from "./alert.js";
import { debounce, h, replace } from "./dom.js";
import { count } from "./format.js";
import { chunkResult, tableResult } from "./results.js";
import { replaceHash, searchHref, sourceHref } from "./router.js";
import { HEIGHT as SCALE_HEIGHT, distanceScale } from "./scale.js";
import { parseSourceKey, searchPath, sourceKey, sources } from "./sources.js";
import { CHUNK_CHANNELS, TABLE_CHANNELS, shownChannels } from "./why.js";

const DEBOUNCE_MS = 250;
// "kind:name\nquestion" -> {at, response}: Back shows the results at once; after a minute
// the server is asked again (an upload may have changed the answer).
const cache = new Map();
const CACHE_MS = 60_000;

export function searchView(root, route) {
  const select = h("select", { id: "source", name: "source", "data-testid": "source" });
  const input = h("input", {
    id: "question",
    name: "q",
    type: "search",
    autocomplete: "off",
    enterkeyhint: "search",
    placeholder: "e.g. Which contacts opened an email from a campaign?",
    "data-testid": "question",
  });
  // A follow-up's earlier question: sent as the search's history, so "how do I test it?"
  // is written out with its subject before it is searched (the page says how it was).
  const earlier = h("input", {
    id: "earlier",
    name: "earlier",
    type: "search",
    autocomplete: "off",
    placeholder: "Optional: the question this one follows up",
    "data-testid": "history",
  });
  const nextBatch = h("button", { type: "button", class: "secondary", hidden: true, "data-testid": "next-batch" }, "Next batch");
  const about = h("a", { class: "about-link", href: "#/sources" }, "About this source");
  const pointAt = (src) => {
    about.href = sourceHref(src.kind, src.name);
    about.textContent = `About ${src.kind} ${src.name}`;
    input.placeholder = src.kind === "catalog" ? "e.g. Which contacts opened an email from a campaign?" : "e.g. Who approves a refund?";
  };
  const status = h("p", { class: "status", role: "status", "aria-live": "polite", "data-testid": "status" });
  const scaleBox = h("div", { class: "scale-box" });
  // Its height is the drawing's, set before any drawing: nothing below the axis moves when it comes.
  scaleBox.style.height = `${SCALE_HEIGHT}px`;
  const scale = h(
    "figure",
    { class: "scale" },
    h("figcaption", null, "Distance from the question (cosine; nearer to the left). Markers are labelled by rank."),
    scaleBox,
  );
  const list = h("div", { class: "result-list" });
  // data-question: the question whose answer is shown (tests wait on it while one types).
  const area = h("div", { class: "results-area", "aria-busy": "false", "data-testid": "results-area" }, scale, list);
  const form = h(
    "form",
    { class: "search-form", role: "search", "aria-label": "Search a catalog or corpus" },
    h("div", { class: "field" }, h("label", { for: "source" }, "Catalog or corpus"), select),
    h("div", { class: "field grow" }, h("label", { for: "question" }, "Question"), input),
    h("button", { type: "submit", class: "primary" }, "Search"),
    h("div", { class: "field grow" }, h("label", { for: "earlier" }, "Earlier question"), earlier),
  );
  replace(root, h("section", { class: "search-page" }, h("h1", { class: "visually-hidden" }, "Search"), form, h("div", { class: "search-meta" }, status, nextBatch, about), area));

  let controller = null;
  let shown = null; // what is on screen: {source, question, response, items, levels}
  let source = null;
  let wantedAt = null; // the result the hash asks to scroll to once it is shown (at=SOURCE_ID)
  // This page is one conversation: each new question is a new turn, and the Next batch
  // button repeats the turn's question, which the server answers with the rest of its ranking once.
  const session = `web-${Math.random().toString(36).slice(2)}`;
  let turn = 0;
  let turnKey = null;
  let pendingKey = null; // the key of the search in flight, if any

  const run = async (again = false) => {
    later.cancel();
    const question = input.value.trim();
    const history = earlier.value.trim() ? [earlier.value.trim()] : [];
    nextBatch.hidden = true;
    replaceHash(searchHref(source, input.value));
    // A search cut short may have reached the server, which then counted it as the turn's
    // first batch: the same question again is a new turn, or it would be answered as the next batch.
    const cutShort = pendingKey;
    pendingKey = null;
    if (controller) controller.abort();
    if (!source) return;
    if (!question) {
      controller = null;
      shown = null;
      area.dataset.question = "";
      status.textContent = `Type a question to search ${source.kind} ${source.name}.`;
      list.replaceChildren();
      drawScale([], {});
      return;
    }
    const key = `${sourceKey(source)}\n${history.join("\n")}\n${question}`;
    if (key !== turnKey || (cutShort === key && !again)) {
      turnKey = key;
      turn += 1;
    }
    const kept = again ? null : cache.get(key);
    if (kept && Date.now() - kept.at < CACHE_MS) return show(source, question, kept.response, null);
    controller = new AbortController();
    const mine = controller;
    pendingKey = key;
    area.setAttribute("aria-busy", "true");
    list.classList.add("stale");
    status.textContent = "Searching…";
    const started = performance.now();
    try {
      const json = { question, k: null, history };
      if (source.kind === "corpus") Object.assign(json, { session, turn });
      const response = await api(searchPath(source), { method: "POST", json, signal: mine.signal });
      if (!again) remember(key, response);
      show(source, question, response, performance.now() - started);
    } catch (error) {
      if (isAbort(error)) return;
      shown = null;
      area.dataset.question = question;
      status.textContent = `The search failed: ${error.detail || error.message}`;
      list.replaceChildren(errorBox(error, "The search failed"));
      drawScale([], {});
    } finally {
      if (controller === mine) {
        pendingKey = null;
        area.setAttribute("aria-busy", "false");
        list.classList.remove("stale");
      }
    }
  };
  const later = debounce(run, DEBOUNCE_MS);

  function show(src, question, response, ms) {
    const isCatalog = src.kind === "catalog";
    const items = (isCatalog ? response.candidates : response.results) || [];
    const levels = levelsOf(response);
    shown = { source: src, question, response, items, levels };
    const noun = isCatalog ? "table" : "passage";
    const took = ms == null ? "" : ` in ${Math.round(ms)} ms`;
    status.textContent = response.off_topic
      ? `Nothing found: the question is off topic for ${src.kind} ${src.name}${took}.`
      : `${count(items.length, noun)} for this question in ${src.kind} ${src.name}${took}.`;
    const render = isCatalog ? tableResult : chunkResult;
    const ctx = {
      name: src.name,
      question,
      levels,
      channels: shownChannels(items, isCatalog ? TABLE_CHANNELS : CHUNK_CHANNELS),
      results: isCatalog ? new Map(items.map((i) => [i.table, i.source_id])) : null,
    };
    const children = [];
    for (const note of [followUp(response), batchNote(response, items.length), secondPass(response.coverage)]) {
      if (note) children.push(note);
    }
    nextBatch.hidden = response.batch !== 1 || !items.length;
    if (response.off_topic) children.push(offTopic(src, levels));
    else if (!items.length) children.push(h("p", { class: "notice" }, `No ${noun} matched the question.`));
    if (items.length) {
      children.push(
        h("ol", { class: "results", "data-testid": "results" }, items.map((item, i) => render(item, i + 1, ctx))),
      );
    }
    list.replaceChildren(...children);
    area.dataset.question = question;
    drawScale(items, levels);
    if (wantedAt) jump(wantedAt, false);
    wantedAt = null;
  }

  // To a result in the list (a join's link): scrolled to, marked, and its link focused.
  function jump(sourceId, keepInHash = true) {
    const target = list.querySelector(`[data-testid=result][data-key="${CSS.escape(sourceId)}"]`);
    if (!target) return false;
    for (const old of list.querySelectorAll(".is-target")) old.classList.remove("is-target");
    target.classList.add("is-target");
    target.scrollIntoView({ block: "start" });
    target.querySelector(".result-link").focus({ preventScroll: true });
    if (keepInHash) replaceHash(searchHref(source, input.value, { at: sourceId }));
    return true;
  }
  list.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[data-jump]");
    if (link && jump(link.dataset.jump)) event.preventDefault();
  });

  function drawScale(items, levels) {
    const width = Math.max(240, Math.floor(scaleBox.clientWidth || 600));
    const points = items.map((item, i) => ({
      rank: i + 1,
      distance: item.distance ?? null,
      key: item.source_id,
      label: item.table || item.title,
      testKey: item.table ? { "data-table": item.table } : { "data-source-id": item.source_id },
    }));
    scaleBox.replaceChildren(distanceScale(points, levels, width));
  }

  // Pointing at (or focusing) a result lights its marker on the axis.
  const hot = (event) => {
    const item = event.target.closest && event.target.closest("[data-testid=result]");
    for (const m of scaleBox.querySelectorAll(".marker.hot")) m.classList.remove("hot");
    if (!item) return;
    const marker = scaleBox.querySelector(`.marker[data-key="${CSS.escape(item.dataset.key)}"]`);
    if (marker) marker.classList.add("hot");
  };
  list.addEventListener("pointerover", hot);
  list.addEventListener("focusin", hot);

  let lastWidth = 0;
  const resize = new ResizeObserver(() => {
    const width = Math.floor(scaleBox.clientWidth);
    if (width === lastWidth) return;
    lastWidth = width;
    drawScale(shown ? shown.items : [], shown ? shown.levels : {});
  });
  resize.observe(scaleBox);

  input.addEventListener("input", () => {
    replaceHash(searchHref(source, input.value));
    later();
  });
  earlier.addEventListener("input", () => later());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  nextBatch.addEventListener("click", () => run(true));
  select.addEventListener("change", () => {
    source = parseSourceKey(select.value);
    pointAt(source);
    run();
  });

  async function load(r) {
    const wanted = wantedSource(r.params);
    input.value = r.params.get("q") || "";
    wantedAt = r.params.get("at");
    let listed = { catalogs: [], corpora: [] };
    try {
      listed = await sources();
    } catch (error) {
      if (isAbort(error)) return;
      list.replaceChildren(errorBox(error, "Could not list the catalogs and corpora"));
    }
    fillSelect(select, listed, wanted);
    source = parseSourceKey(select.value) || wanted;
    if (source) pointAt(source);
    else status.textContent = "No catalogs or corpora yet: index one from the Sources page.";
    run();
  }

  load(route);
  drawScale([], {});

  return {
    update(r) {
      if (r.parts[0] !== "search") return false;
      const wanted = wantedSource(r.params) || source;
      const question = r.params.get("q") || "";
      if (wanted && source && sourceKey(wanted) === sourceKey(source) && question === input.value) {
        if (r.params.get("at")) jump(r.params.get("at"), false);
        return true;
      }
      load(r);
      return true;
    },
    destroy() {
      later.cancel();
      if (controller) controller.abort();
      resize.disconnect();
    },
  };
}

function wantedSource(params) {
  if (params.get("catalog")) return { kind: "catalog", name: params.get("catalog") };
  if (params.get("corpus")) return { kind: "corpus", name: params.get("corpus") };
  return null;
}

function fillSelect(select, listed, wanted) {
  const group = (label, kind, items) =>
    items.length
      ? h("optgroup", { label }, items.map((i) => h("option", { value: sourceKey({ kind, name: i.name }) }, i.name)))
      : null;
  const options = [group("Catalogs", "catalog", listed.catalogs), group("Corpora", "corpus", listed.corpora)].filter(Boolean);
  const names = new Set([
    ...listed.catalogs.map((c) => sourceKey({ kind: "catalog", name: c.name })),
    ...listed.corpora.map((c) => sourceKey({ kind: "corpus", name: c.name })),
  ]);
  // A source the URL names but the server does not list stays selected: its search then says why.
  if (wanted && !names.has(sourceKey(wanted))) {
    options.unshift(h("option", { value: sourceKey(wanted) }, `${wanted.name} (not on this server)`));
  }
  replace(select, ...options);
  if (wanted) select.value = sourceKey(wanted);
}

// What the response says its results are read against: the distance levels, and the
// fusion as it ran (each score is its channels' weight / (k + rank), plus any boost).
function levelsOf(response) {
  return {
    unrelated: response.unrelated_distance ?? null,
    floor: response.floor_distance ?? null,
    nearest: response.nearest_distance ?? null,
    fusion: { weights: response.channel_weights || {}, k: response.rrf_k ?? null },
  };
}

/**
 * How a follow-up was searched, or null when it was searched as asked: the server wrote it
 * out with the earlier question (the response's `retrieval_question`) and says why.
 */
export function followUp(response) {
  const searched = response.retrieval_question;
  if (!searched || searched === response.question) return null;
  const how = response.rewrite ? ` (${response.rewrite.why}; written by ${response.rewrite.by})` : "";
  return h("p", { class: "notice", "data-testid": "rewrite-note" }, `A follow-up: searched as “${searched}”${how}.`);
}

/** The next batch's note: these passages continue the turn's first ranking, none shown before. */
export function batchNote(response, shown) {
  if (response.batch !== 2) return null;
  const what = shown ? `${count(shown, "passage")} that the first search ranked next` : "nothing more: the first search showed all it ranked";
  return h("p", { class: "notice", "data-testid": "batch-note" }, `The next batch of this question's ranking: ${what}, none shown before.`);
}

/**
 * What the coverage second pass did, in a sentence, or null when it did not run: the
 * passages found lacked the question's subject or aspect, so one more search ran for it.
 * The server's words (what it looked for, what it searched) reach the page as text only.
 */
export function secondPass(coverage) {
  if (!coverage) return null;
  const added = coverage.added.length
    ? `and added ${count(coverage.added.length, "passage")} that ${coverage.added.length === 1 ? "holds" : "hold"} it`
    : "and found nothing that holds it";
  return h(
    "p",
    { class: "notice", "data-testid": "coverage-note" },
    `No passage showed ${coverage.looked_for}: a second search ran for “${coverage.searched}” ${added}.`,
  );
}

function offTopic(src, levels) {
  const thing = src.kind === "catalog" ? "table" : "passage";
  const where = [];
  if (levels.nearest != null) where.push(`the nearest ${thing} is at distance ${levels.nearest.toFixed(2)}`);
  if (levels.unrelated != null) where.push(`unrelated text comes to ${levels.unrelated.toFixed(2)}`);
  return h(
    "div",
    { class: "notice off-topic", "data-testid": "off-topic" },
    h("p", { class: "notice-title" }, `Nothing in ${src.kind} ${src.name} relates to this question.`),
    h(
      "p",
      null,
      where.length
        ? `On the axis above, ${where.join("; ")}: no ${thing} is nearer to the question than everyday unrelated text, and no name matches it.`
        : `No ${thing} is nearer to the question than everyday unrelated text, and no name matches it.`,
    ),
  );
}

function remember(key, response) {
  cache.delete(key);
  cache.set(key, { at: Date.now(), response });
  if (cache.size > 50) cache.delete(cache.keys().next().value);
}
