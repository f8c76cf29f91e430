// A table's foreign-key neighbourhood as a small SVG graph: the table in the middle, the
// tables that reference it on the left, those it references on the right, each edge
// labelled with its key columns. Neighbours are links: focusable, opened with Enter; those
// in the results of the search that led here are marked.
// Too narrow for three columns (a phone), the same graph stacks: referencing tables above,
// the table, referenced tables below.

import { s } from "./dom.js";

const FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const LABEL_FONT = "11px ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace";
const NODE_H = 30;
const LINE_H = 15;
const GAP = 10;
const MAX_PER_SIDE = 24; // the list under the graph has every key

let canvas = null;
function textWidth(text, font = FONT) {
  canvas = canvas || document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  ctx.font = font;
  return ctx.measureText(text).width;
}

const short = (table) => table.slice(table.lastIndexOf(".") + 1);

/** "orders.customer_id → customers.id"; compound keys as "a(x, y) → b(p, q)". */
export function keyLabel(fk) {
  const side = (table, cols) => (cols.length === 1 ? `${short(table)}.${cols[0]}` : `${short(table)}(${cols.join(", ")})`);
  return `${side(fk.from_table, fk.from_columns)} → ${side(fk.to_table, fk.to_columns)}`;
}

/** A key's label as lines of at most maxW px: long ones break after the arrow. */
function labelLines(fk, maxW) {
  const text = keyLabel(fk);
  if (textWidth(text, LABEL_FONT) <= maxW) return [text];
  const at = text.indexOf(" → ");
  return [text.slice(0, at + 2), `  ${text.slice(at + 3)}`];
}

const linesOf = (nb, maxW) => nb.keys.flatMap((k) => labelLines(k, maxW));

/**
 * The neighbours of `table` by direction, one per (table, direction), with every key
 * between them: {incoming: [{table, keys}], outgoing: [...]}. A key to itself is in
 * neither (the list under the graph names it).
 */
export function neighbours(table, foreignKeys, referencedBy) {
  const group = (keys, other) => {
    const byTable = new Map();
    for (const fk of keys) {
      const t = other(fk);
      if (t === table) continue;
      if (!byTable.has(t)) byTable.set(t, []);
      byTable.get(t).push(fk);
    }
    return [...byTable].map(([t, ks]) => ({ table: t, keys: ks })).sort((a, b) => a.table.localeCompare(b.table));
  };
  return {
    outgoing: group(foreignKeys, (fk) => fk.to_table),
    incoming: group(referencedBy, (fk) => fk.from_table),
  };
}

/**
 * The graph as an SVG element, at most `width` px wide; hrefOf(table) gives a neighbour's
 * link; within: the tables in the results of the search that led here (marked).
 */
export function fkGraph(table, foreignKeys, referencedBy, width, hrefOf, within = new Set()) {
  const n = neighbours(table, foreignKeys, referencedBy);
  const incoming = n.incoming.slice(0, MAX_PER_SIDE);
  const outgoing = n.outgoing.slice(0, MAX_PER_SIDE);
  const nodeW = (t) => Math.min(280, textWidth(t) + 24);
  const node = (t, x, y, w, direction) => neighbourNode(t, x, y, w, hrefOf(t), direction, within.has(t));
  const args = { table, incoming, outgoing, width, nodeW, node, centerW: nodeW(table) + 16 };
  const wide = columnsLayout(args);
  const svg = wide.used <= width ? columns(args, wide) : stacked(args);
  svg.setAttribute("data-testid", "fk-graph");
  svg.setAttribute("data-layout", wide.used <= width ? "columns" : "stacked");
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", `Foreign keys of ${table}: ${n.incoming.length} tables reference it, it references ${n.outgoing.length}`);
  const hidden = n.incoming.length - incoming.length + n.outgoing.length - outgoing.length;
  if (hidden > 0) svg.dataset.hidden = String(hidden);
  return svg;
}

const COLUMN_GAP = 64;
const LABEL_MAX = 300;
const labelsW = (nb) => Math.max(...linesOf(nb, LABEL_MAX).map((l) => textWidth(l, LABEL_FONT)));
const rowH = (nb) => NODE_H + linesOf(nb, LABEL_MAX).length * LINE_H + GAP + 4;

// Each side's column is as wide as its widest node or key label (the labels sit under
// their node, on the side the edge leaves from).
function columnsLayout({ incoming, outgoing, nodeW, centerW }) {
  const colW = (side) => Math.max(0, ...side.map((nb) => Math.max(nodeW(nb.table), labelsW(nb) + 4)));
  const leftW = colW(incoming);
  const rightW = colW(outgoing);
  const used = (incoming.length ? leftW + COLUMN_GAP : 0) + centerW + (outgoing.length ? COLUMN_GAP + rightW : 0);
  return { leftW, rightW, used };
}

function columns({ table, incoming, outgoing, width, centerW, nodeW, node }, { leftW, used }) {
  const sideH = (side) => side.reduce((sum, nb) => sum + rowH(nb), 0);
  const height = Math.max(NODE_H + 2 * GAP, sideH(incoming), sideH(outgoing)) + 8;
  const left = Math.max(0, (width - used) / 2);
  const cx = left + (incoming.length ? leftW + COLUMN_GAP : 0);
  const svg = s("svg", { class: "fk-svg", width, height, viewBox: `0 0 ${width} ${height}` }, defs());
  const centerY = height / 2;
  const place = (side, isIncoming) => {
    let y = (height - sideH(side)) / 2 + 4;
    for (const nb of side) {
      const w = nodeW(nb.table);
      const nodeX = isIncoming ? left + leftW - w : cx + centerW + COLUMN_GAP;
      const midY = y + NODE_H / 2;
      // Edges meet the middle table spread over its side, not all in one point.
      const targetY = centerY + Math.max(-10, Math.min(10, (midY - centerY) * 0.1));
      // A key points from the referencing table to the referenced one.
      svg.append(isIncoming ? edge(nodeX + w, midY, cx, targetY, nb) : edge(cx + centerW, targetY, nodeX, midY, nb));
      svg.append(node(nb.table, nodeX, y, w, isIncoming ? "incoming" : "outgoing"));
      linesOf(nb, LABEL_MAX).forEach((line, i) => {
        const lx = isIncoming ? nodeX + w : nodeX;
        const ly = y + NODE_H + 12 + i * LINE_H;
        svg.append(s("text", { class: "edge-label", x: lx, y: ly, "text-anchor": isIncoming ? "end" : "start" }, line));
      });
      y += rowH(nb);
    }
  };
  place(incoming, true);
  place(outgoing, false);
  svg.append(center(table, cx, centerY - NODE_H / 2, centerW));
  return svg;
}

function stacked({ table, incoming, outgoing, width: room, nodeW, node }) {
  const indent = 28;
  const maxW = Math.max(160, room - indent - 8);
  // Wider than the room only for a label that cannot fit even broken: its box then scrolls.
  const labels = [...incoming, ...outgoing].flatMap((nb) => linesOf(nb, maxW).map((l) => textWidth(l, LABEL_FONT)));
  const width = Math.ceil(Math.max(room, indent + 8 + Math.max(0, ...labels)));
  const rowsH = (side) => side.reduce((sum, nb) => sum + NODE_H + linesOf(nb, maxW).length * LINE_H + GAP + 6, 0);
  const height = rowsH(incoming) + rowsH(outgoing) + NODE_H + 2 * GAP + 16;
  const svg = s("svg", { class: "fk-svg", width, height, viewBox: `0 0 ${width} ${height}` }, defs());
  const trunk = 14;
  let y = 4;
  const fit = (t) => Math.min(width - indent - 4, nodeW(t));
  const rows = (side, direction) => {
    for (const nb of side) {
      const lines = linesOf(nb, maxW);
      lines.forEach((line, i) => {
        svg.append(s("text", { class: "edge-label", x: indent, y: y + 11 + i * LINE_H }, line));
      });
      y += lines.length * LINE_H + 4;
      const midY = y + NODE_H / 2;
      const path =
        direction === "incoming" ? `M ${indent} ${midY} H ${trunk}` : `M ${trunk} ${midY} H ${indent - 2}`;
      svg.append(s("path", { class: "edge", d: path, "marker-end": "url(#fk-arrow)" }));
      svg.append(node(nb.table, indent, y, fit(nb.table), direction));
      y += NODE_H + GAP + 2;
    }
  };
  const top = y;
  rows(incoming, "incoming");
  const cy = y + GAP / 2;
  svg.append(center(table, 0, cy, Math.min(width, nodeW(table) + 16)));
  y = cy + NODE_H + GAP;
  rows(outgoing, "outgoing");
  // The trunk joins every row to the table.
  svg.prepend(s("line", { class: "trunk", x1: trunk, x2: trunk, y1: top + 8, y2: Math.max(cy, y - GAP - NODE_H / 2) }));
  return svg;
}

function defs() {
  return s(
    "defs",
    null,
    s(
      "marker",
      { id: "fk-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow" }),
    ),
  );
}

function edge(x1, y1, x2, y2, nb) {
  // Drawn from the referencing table to the referenced one, as a foreign key points.
  const mid = (x1 + x2) / 2;
  return s("path", {
    class: "edge",
    d: `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`,
    "marker-end": "url(#fk-arrow)",
    "data-table": nb.table,
  });
}

function neighbourNode(table, x, y, w, href, direction, inResults) {
  const label = truncate(table, w - 16);
  const role = direction === "incoming" ? "references this table" : "referenced by this table";
  return s(
    "a",
    {
      href,
      class: ["fk-node", inResults && "in-results"],
      "data-testid": "graph-node",
      "data-table": table,
      "data-direction": direction,
      "data-in-results": inResults ? "true" : null,
      "aria-label": `${table} (${role}${inResults ? "; in the results" : ""})`,
    },
    s("title", null, inResults ? `${table}: in the results` : table),
    s("rect", { x, y, width: w, height: NODE_H, rx: 6 }),
    s("text", { x: x + w / 2, y: y + NODE_H / 2 + 4, "text-anchor": "middle" }, label),
  );
}

function center(table, x, y, w) {
  return s(
    "g",
    { class: "fk-center", "data-testid": "graph-center", "data-table": table },
    s("rect", { x, y, width: w, height: NODE_H, rx: 6 }),
    s("text", { x: x + w / 2, y: y + NODE_H / 2 + 4, "text-anchor": "middle" }, truncate(table, w - 12, "bold 12px system-ui, sans-serif")),
  );
}

function truncate(text, room, font = FONT) {
  if (textWidth(text, font) <= room) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(`${cut}…`, font) > room) cut = cut.slice(0, -1);
  return `${cut}…`;
}
