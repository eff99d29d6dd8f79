"use strict";
// The trace viewer of report.html: filters over the episode list, and one episode turn by turn.
// Everything it reads is inline in the page; it fetches nothing.
(function () {
  const meta = JSON.parse(document.getElementById("meta").textContent);
  const episodes = JSON.parse(document.getElementById("episodes-data").textContent);
  const COLS = ["task", "condition", "catalog", "stratum", "language", "passed", "cause"];
  const LIMIT = 300;
  let traces = null;
  const tracesReady = unpack(document.getElementById("traces-data").textContent.trim());

  async function unpack(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    traces = JSON.parse(await new Response(stream).text());
    return traces;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function distinct(index) {
    return [...new Set(episodes.map((e) => e[index]))];
  }

  const filters = {};
  const filterDefs = [
    ["condition", 1, meta.conditions],
    ["catalog", 2, meta.catalogs.map(String)],
    ["stratum", 3, distinct(3).sort()],
    ["language", 4, distinct(4).sort()],
    ["result", 5, ["pass", "fail"]],
    ["cause", 6, meta.causes],
  ];
  const box = document.getElementById("filters");
  for (const [name, , values] of filterDefs) {
    const select = el("select", { id: "filter-" + name, name: name }, el("option", { value: "" }, "all"));
    for (const v of values) select.append(el("option", { value: v }, v));
    select.addEventListener("change", () => { filters[name] = select.value; renderList(); });
    box.append(el("label", {}, name, select));
  }

  function matches(e) {
    for (const [name, index] of filterDefs) {
      const want = filters[name];
      if (!want) continue;
      const have = name === "result" ? (e[index] ? "pass" : "fail") : String(e[index]);
      if (have !== want) return false;
    }
    return true;
  }

  function renderList() {
    const body = document.querySelector("#episode-list tbody");
    body.replaceChildren();
    const shown = [];
    episodes.forEach((e, i) => { if (matches(e)) shown.push(i); });
    document.getElementById("count").textContent =
      shown.length + " of " + episodes.length + " episodes match" +
      (shown.length > LIMIT ? " (first " + LIMIT + " listed; narrow the filters)" : "");
    for (const i of shown.slice(0, LIMIT)) {
      const e = episodes[i];
      const row = el("tr", { "data-index": String(i), class: "episode-row" },
        el("td", {}, e[0]), el("td", {}, e[1]), el("td", {}, e[2]), el("td", {}, e[3]), el("td", {}, e[4]),
        el("td", { class: e[5] ? "ok" : "bad" }, e[5] ? "pass" : "fail"), el("td", {}, e[6] || "—"));
      row.addEventListener("click", () => openEpisode(i, row));
      body.append(row);
    }
  }

  function routeList(ids, needed) {
    const list = el("ol", { class: "ranking" });
    for (const id of ids || []) list.append(el("li", { class: id === needed ? "needed" : "" }, id));
    return list;
  }

  function json(value) {
    return el("pre", {}, JSON.stringify(value));
  }

  async function openEpisode(i, row) {
    document.querySelectorAll("#episode-list tr.selected").forEach((r) => r.classList.remove("selected"));
    if (row) row.classList.add("selected");
    const target = document.getElementById("episode");
    target.replaceChildren(el("p", {}, "unpacking traces…"));
    await tracesReady;
    const t = traces[i];
    const e = episodes[i];
    const head = el("div", { id: "episode-head" },
      el("h3", {}, t.task_id + " · " + t.condition + " · catalog " + t.catalog),
      el("p", {}, t.stratum + " / " + t.language + " · agent " + t.agent + " · ended by " + t.ended_by +
        " · milestones " + t.milestones_reached + "/" + t.milestones_total + " · ",
        el("span", { class: t.passed ? "ok" : "bad" }, t.passed ? "passed" : "failed"),
        e[6] ? " · primary cause: " + e[6] : ""),
      t.check_reasons.length ? el("ul", {}, ...t.check_reasons.map((r) => el("li", {}, r))) : null);
    const turns = t.turns.map((turn) => {
      const exposed = t.exposures[turn.exposure] || turn.exposed_route_ids || [];
      const calls = turn.retrieval_calls.map((c) => el("div", { class: "call" },
        el("div", {}, c.query_kind + " · k " + c.depth),
        el("pre", { class: "call-text" }, c.text),
        el("ol", { class: "ranking" }, ...c.route_ids.map((r, j) =>
          el("li", {}, r + (c.scores && c.scores[j] !== undefined ? "  (" + c.scores[j].toFixed(3) + ")" : ""))))));
      const d = turn.decision;
      const decision = d.kind + (d.tool_name ? " " + d.tool_name : "") +
        (d.arguments !== null && d.arguments !== undefined ? " " + JSON.stringify(d.arguments) : "") +
        (d.detail ? " — " + d.detail : "") + (d.answer ? " " + JSON.stringify(d.answer) : "");
      const audit = turn.audit ? turn.audit.decision + " (" + turn.audit.reason + ")" +
        (turn.audit.route_id ? " route " + turn.audit.route_id : "") : "—";
      const result = turn.result ? turn.result.status + (turn.result.error_class ? " " + turn.result.error_class : "") +
        (turn.result.route_id ? " · " + turn.result.route_id : "") : "—";
      return el("div", { class: "turn" },
        el("h4", {}, "turn " + turn.turn),
        el("dl", {},
          el("dt", {}, "exposure (" + exposed.length + ")"), el("dd", {}, exposed.length > 40
            ? exposed.slice(0, 40).join(", ") + ", … " + (exposed.length - 40) + " more" : exposed.join(", ")),
          el("dt", {}, "retrieval calls"), el("dd", {}, calls.length ? el("div", {}, ...calls) : "—"),
          el("dt", {}, "ranking top 5"), el("dd", {}, turn.ranking_top5 ? routeList(turn.ranking_top5) : "—"),
          el("dt", {}, "decision"), el("dd", { class: "decision" }, decision),
          el("dt", {}, "gate audit"), el("dd", {}, audit),
          el("dt", {}, "result"), el("dd", {}, result,
            turn.result && turn.result.fields.length ? json(turn.result.fields) : null),
          el("dt", {}, "state after"), el("dd", {}, turn.state_after ? json(turn.state_after) : "—"),
          el("dt", {}, "tokens"), el("dd", {}, "schema " + turn.schema_tokens + ", input " + turn.input_tokens)));
    });
    target.replaceChildren(head, ...turns);
  }

  renderList();
  window.srReport = { tracesReady: tracesReady, openEpisode: openEpisode };
})();
