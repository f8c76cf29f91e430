// The distance axis: one horizontal scale shared by the whole result list, so "how near is
// this?" reads against the same line for every result and against unrelated text.

import { s } from "./dom.js";
import { distance as fmt } from "./format.js";

// The drawing's height, and its box's (search.js sizes the box with it before anything is drawn).
export const HEIGHT = 112;
const PAD = 18;
const AXIS_Y = 70;
const LANES = [52, 38, 24]; // rank labels, nearest the axis first
const CHAR = 7.2; // px per character of a 12 px label, near enough to keep labels apart

/**
 * The axis as an SVG element.
 *
 * items: [{rank, distance, key, testKey: {"data-table": ...}}]; levels: {unrelated, floor,
 * nearest} (distances or null); width: the pixels it has.
 */
export function distanceScale(items, levels, width) {
  const placed = items.filter((i) => i.distance != null);
  const values = [...placed.map((i) => i.distance), levels.unrelated, levels.floor, levels.nearest].filter(
    (v) => v != null,
  );
  const svg = s("svg", {
    class: "scale-svg",
    width,
    height: HEIGHT,
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: "img",
    "data-testid": "distance-scale",
    "aria-label": summary(placed, levels),
  });
  const axisEnd = width - PAD;
  svg.append(s("line", { class: "axis", x1: PAD, x2: axisEnd, y1: AXIS_Y, y2: AXIS_Y }));
  if (!values.length) {
    svg.append(s("text", { class: "scale-empty", x: width / 2, y: AXIS_Y - 12, "text-anchor": "middle" }, "distances show here"));
    return svg;
  }
  const [lo, hi] = domain(values);
  const x = (d) => PAD + ((d - lo) / (hi - lo)) * (axisEnd - PAD);

  if (levels.unrelated != null) {
    // Beyond unrelated text: nothing there is nearer than everyday text gets.
    svg.append(s("rect", { class: "beyond", x: x(levels.unrelated), y: 14, width: axisEnd - x(levels.unrelated), height: AXIS_Y - 14 }));
  }
  for (const t of ticks(lo, hi, width)) {
    svg.append(s("line", { class: "tick", x1: x(t), x2: x(t), y1: AXIS_Y, y2: AXIS_Y + 4 }));
    svg.append(s("text", { class: "tick-label", x: x(t), y: AXIS_Y + 16, "text-anchor": "middle" }, t.toFixed(2)));
  }
  if (levels.floor != null) {
    svg.append(level("floor-level", x(levels.floor), 14, `floor ${fmt(levels.floor)}`, width));
  }
  if (levels.unrelated != null) {
    svg.append(level("unrelated-level", x(levels.unrelated), HEIGHT - 6, `unrelated text ${fmt(levels.unrelated)}`, width));
  }
  if (levels.nearest != null && !placed.length) {
    const cx = x(levels.nearest);
    svg.append(
      s(
        "g",
        { class: "nearest", "data-testid": "nearest-marker", "data-distance": levels.nearest },
        s("title", null, `The nearest item in the collection: distance ${fmt(levels.nearest)}`),
        s("circle", { cx, cy: AXIS_Y, r: 5 }),
        s("text", { x: cx, y: LANES[0], "text-anchor": anchor(cx, width, 80) }, `nearest ${fmt(levels.nearest)}`),
      ),
    );
  }
  const lanesEnd = LANES.map(() => -Infinity);
  // Nearest first, so the leading results get the lowest lanes.
  for (const item of [...placed].sort((a, b) => a.distance - b.distance)) {
    const cx = x(item.distance);
    const label = String(item.rank);
    const half = (label.length * CHAR) / 2 + 2;
    const lane = lanesEnd.findIndex((end) => cx - half > end);
    const g = s(
      "g",
      {
        class: "marker",
        "data-testid": "distance-marker",
        "data-rank": item.rank,
        "data-key": item.key,
        "data-distance": item.distance,
        ...item.testKey,
      },
      s("title", null, `#${item.rank} ${item.label}: distance ${fmt(item.distance)}`),
      s("circle", { cx, cy: AXIS_Y, r: 5 }),
    );
    if (lane !== -1) {
      lanesEnd[lane] = cx + half;
      g.append(s("line", { class: "stem", x1: cx, x2: cx, y1: LANES[lane] + 3, y2: AXIS_Y - 5 }));
      g.append(s("text", { x: cx, y: LANES[lane], "text-anchor": "middle" }, label));
    }
    svg.append(g);
  }
  return svg;
}

function level(testid, x, labelY, text, width) {
  const top = testid === "floor-level" ? 18 : 14;
  return s(
    "g",
    { class: testid, "data-testid": testid },
    s("line", { x1: x, x2: x, y1: top, y2: AXIS_Y + 6 }),
    s("text", { x, y: labelY, "text-anchor": anchor(x, width, text.length * 3.6) }, text),
  );
}

// A label near either end is anchored to stay inside the picture.
function anchor(x, width, half) {
  if (x - half < 2) return "start";
  if (x + half > width - 2) return "end";
  return "middle";
}

/** The axis range: the values with some room, on round numbers, at least 0.2 wide. */
export function domain(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const room = Math.max(0.02, (hi - lo) * 0.08);
  lo = Math.max(0, Math.floor((lo - room) * 20) / 20);
  hi = Math.ceil((hi + room) * 20) / 20;
  if (hi - lo < 0.2) {
    const mid = (hi + lo) / 2;
    lo = Math.max(0, mid - 0.1);
    hi = lo + 0.2;
  }
  return [lo, hi];
}

function ticks(lo, hi, width) {
  const most = Math.max(2, Math.floor(width / 70));
  const step = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5].find((st) => (hi - lo) / st <= most) || 0.5;
  const out = [];
  for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + 1e-9; t += step) out.push(Math.round(t * 1000) / 1000);
  return out;
}

function summary(placed, levels) {
  const parts = ["Distance from the question, nearer to the left"];
  if (placed.length) parts.push(placed.map((i) => `#${i.rank} at ${fmt(i.distance)}`).join(", "));
  if (levels.nearest != null && !placed.length) parts.push(`nearest item at ${fmt(levels.nearest)}`);
  if (levels.unrelated != null) parts.push(`unrelated text at ${fmt(levels.unrelated)}`);
  if (levels.floor != null) parts.push(`floor at ${fmt(levels.floor)}`);
  return parts.join("; ");
}
