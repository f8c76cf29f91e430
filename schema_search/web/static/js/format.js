// How numbers and times read on the page.

/** A distance as people compare them: two decimals. */
export const distance = (d) => (d == null ? "–" : Number(d).toFixed(2));

/** A fraction as a percentage: 0.934 -> "93%", 0.9994 -> "99.9%". */
export function percent(x) {
  if (x == null) return "–";
  const p = Number(x) * 100;
  if (p > 99 && p < 100) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** A recall or MRR figure: 0.8123 -> "0.812". */
export const figure = (x) => (x == null ? "–" : Number(x).toFixed(3));

/** Unix seconds or an ISO string, as local date and time with how long ago. */
export function when(value) {
  if (value == null || value === "") return "–";
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const text = date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return `${text} (${ago(date)})`;
}

function ago(date) {
  const seconds = (Date.now() - date.getTime()) / 1000;
  if (seconds < 0) return "in the future";
  const steps = [
    [60, "second", 1],
    [3600, "minute", 60],
    [86400, "hour", 3600],
    [86400 * 30, "day", 86400],
    [86400 * 365, "month", 86400 * 30],
    [Infinity, "year", 86400 * 365],
  ];
  for (const [limit, unit, size] of steps) {
    if (seconds < limit) {
      const n = Math.max(1, Math.floor(seconds / size));
      return seconds < 10 ? "just now" : `${n} ${unit}${n === 1 ? "" : "s"} ago`;
    }
  }
  return "";
}

/** "1 table", "3 tables". */
export const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A list in words: ["a", "b", "c"] -> "a, b and c". */
export function words(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
