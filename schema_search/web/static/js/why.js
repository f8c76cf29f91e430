// Why a result is where it is, in one line of words: its channel ranks, what it matched,
// and how near it is compared with unrelated text.

import { distance as fmt, words } from "./format.js";

// The order channels are shown in; a channel the server adds later goes after these.
export const TABLE_CHANNELS = ["names", "text", "body", "descriptions", "values", "dense"];
export const CHUNK_CHANNELS = ["headings", "body", "dense"];

/** Channel names in the usual order, then any others as they come. */
const inOrder = (names, usual) => [...usual.filter((c) => names.has(c)), ...[...names].filter((c) => !usual.includes(c))];

// Channels a catalog may lack: shown only when some result in the list is ranked there.
const OPTIONAL = new Set(["descriptions", "values"]);

/** The channels a result list shows: every channel its results have, less optional ones none ranks in. */
export function shownChannels(items, usual) {
  const names = new Set(items.flatMap((i) => Object.keys(i.channels || {})));
  return inOrder(names, usual).filter((c) => !OPTIONAL.has(c) || items.some((i) => i.channels && i.channels[c] != null));
}

/**
 * The one-line reason for a result (a TableCandidate or a ChunkResult).
 *
 * levels: {unrelated, floor} from the response.
 */
export function why(result, levels, usual) {
  const parts = [];
  const channels = result.channels || {};
  const ranked = inOrder(new Set(Object.keys(channels)), usual)
    .filter((c) => channels[c] != null)
    .map((c) => `#${channels[c]} in ${c}`);
  if (result.pinned) parts.push("pinned: the question names it");
  if (ranked.length) parts.push(ranked.join(", "));
  if (result.added_for_join) parts.push(joinReason(result));
  else if (result.added) parts.push("added: the passage nearest the question, kept beside the pinned ones");
  else if (!ranked.length && !result.pinned) parts.push("not ranked in any channel");
  // The words as the result writes them; the matched terms are stems ("compani"), not words.
  if (result.highlight.length) parts.push(`matches ${words(unique(result.highlight).slice(0, 6))}`);
  const d = nearness(result.distance, levels, result);
  if (d) parts.push(d);
  return parts.join("; ");
}

function joinReason(result) {
  const others = unique(
    (result.joins || []).flatMap((j) => [j.from_table, j.to_table]).filter((t) => t !== result.table),
  );
  return others.length ? `added for the join with ${words(others.slice(0, 4))}` : "added for a join between other results";
}

function nearness(d, levels, result) {
  if (d == null) return "";
  const unrelated = levels.unrelated;
  let text = `distance ${fmt(d)}`;
  if (unrelated == null) return text;
  if (d < unrelated) return `${text} — nearer than unrelated text (${fmt(unrelated)})`;
  text += ` — no nearer than unrelated text (${fmt(unrelated)})`;
  const floor = levels.floor;
  if (floor != null && d > floor) {
    const kept = result.pinned ? "its pin" : result.added_for_join || result.added ? "the join" : "its keyword match";
    text += `, beyond the floor (${fmt(floor)}): kept by ${kept}`;
  }
  return text;
}

/**
 * A result's score as its parts: what each channel added (its weight / (k + rank)), largest
 * first, and what is left, which the kind's boost added (tables: a share of the scores of
 * the tables it joins). fusion: {weights, k} from the response; null when it has none.
 */
export function scoreParts(result, fusion) {
  if (!fusion || fusion.k == null) return null;
  const parts = Object.entries(result.channels || {})
    .filter(([c, rank]) => rank != null && fusion.weights[c] > 0)
    .map(([c, rank]) => [c, fusion.weights[c] / (fusion.k + rank)])
    .sort((a, b) => b[1] - a[1]);
  const boost = result.score - parts.reduce((sum, [, part]) => sum + part, 0);
  return { parts, boost: boost > 0.0005 ? boost : 0 }; // scores come rounded to 6 places
}

/** The score in words: "score 0.769 = dense 0.250 + body 0.091 + 0.311 from the tables it joins". */
export function scoreLine(result, fusion) {
  const split = scoreParts(result, fusion);
  if (!split) return "";
  const terms = split.parts.map(([c, part]) => `${c} ${part.toFixed(3)}`);
  if (split.boost) terms.push(`${split.boost.toFixed(3)} from the results it joins (foreign-key boost)`);
  const sum = terms.length ? ` = ${terms.join(" + ")}` : "";
  const pin = result.pinned ? "; pinned, so placed first whatever its score" : "";
  return `score ${result.score.toFixed(3)}${sum}${pin}`;
}

const unique = (items) => [...new Set(items)];
