// Eval reports: the list (headline recall and MRR of each), and the chosen report's own
// page (recall@k curves, per-database table) in a sandboxed frame.

import { api, apiUrl, seg } from "./api.js";
import { guarded } from "./alert.js";
import { h, replace } from "./dom.js";
import { figure } from "./format.js";
import { href } from "./router.js";

// Tables reports say recall@k, documents reports page_recall@k.
const HEADLINE = [
  ["R@1", ["recall@1", "page_recall@1"]],
  ["R@5", ["recall@5", "page_recall@5"]],
  ["R@10", ["recall@10", "page_recall@10"]],
  ["MRR", ["mrr"]],
];

export function evalView(root, route, { signal }) {
  const listBox = h("div", null, h("p", { class: "loading", role: "status" }, "Loading…"));
  const frameBox = h("div", { class: "report-box" });
  replace(
    root,
    h(
      "section",
      { class: "eval-page" },
      h("h1", null, "Eval reports"),
      h("p", { class: "muted" }, "Recall of the shipped configuration on each benchmark: the share of questions whose tables (or page) are in the top k."),
      listBox,
      frameBox,
    ),
  );
  let reports = null;
  const choose = (wanted) => {
    const chosen = reports.find((r) => r.name === wanted) || reports.find((r) => r.page) || reports[0];
    for (const row of listBox.querySelectorAll("[data-report]")) {
      const on = row.dataset.report === chosen.name;
      row.classList.toggle("chosen", on);
      if (on) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    }
    replace(frameBox, report(chosen));
  };
  guarded(listBox, async () => {
    reports = await api("/v1/eval", { signal });
    if (!reports.length) {
      replace(listBox, h("p", { class: "muted" }, "No eval reports on this server (the eval results folder is empty)."));
      return;
    }
    replace(listBox, reportTable(reports));
    choose(route.parts[1] || null);
  }, "Could not list the eval reports");
  return {
    // Choosing another report changes only the frame: the list stays where it is.
    update(r) {
      if (!reports || !reports.length) return false;
      choose(r.parts[1] || null);
      return true;
    },
  };
}

function headline(r, keys) {
  const found = keys.find((k) => r.headline && r.headline[k] != null);
  return found ? figure(r.headline[found]) : "–";
}

function reportTable(reports) {
  return h(
    "div",
    { class: "scroll-box" },
    h(
      "table",
      { class: "listing", "data-testid": "eval-list" },
      h("caption", null, `Reports (${reports.length}), newest first`),
      h("thead", null, h("tr", null, ["Report", "Benchmark", "Condition", "Questions", ...HEADLINE.map(([l]) => l), "Generated"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        null,
        reports.map((r) =>
          h(
            "tr",
            { "data-testid": "eval-report", "data-report": r.name },
            h("th", { scope: "row" }, h("a", { href: href(["eval", r.name]) }, r.name)),
            h("td", null, r.benchmark || "–"),
            h("td", null, r.condition || "–"),
            h("td", { class: "num" }, r.questions ?? "–"),
            HEADLINE.map(([, keys]) => h("td", { class: "num" }, headline(r, keys))),
            // As the report writes it: the eval machine's clock, with no time zone to convert from.
            h("td", null, r.generated_at || "–"),
          ),
        ),
      ),
    ),
  );
}

function report(r) {
  // Both built here from the name: an address from the API never becomes a link as it is.
  const json = apiUrl(`/v1/eval/${seg(r.name)}`);
  const page = `${json}/page`;
  if (!r.page) {
    return h(
      "p",
      { class: "muted" },
      `Report ${r.name} has no HTML page; `,
      h("a", { href: json, target: "_blank", rel: "noopener" }, "its JSON"),
      " holds every configuration's figures.",
    );
  }
  return [
    h(
      "p",
      { class: "report-links" },
      h("strong", null, r.name),
      " · ",
      h("a", { href: page, target: "_blank", rel: "noopener", "data-testid": "report-alone" }, "open the report alone"),
      " · ",
      h("a", { href: json, target: "_blank", rel: "noopener" }, "JSON"),
    ),
    // No scripts in the report, and the sandbox lets it run none: it is a picture with tables.
    h("iframe", { class: "report-frame", src: page, title: `Eval report ${r.name}`, sandbox: "", "data-testid": "report-frame" }),
  ];
}
