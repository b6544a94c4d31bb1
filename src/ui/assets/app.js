// The console's only script, served as a file (the CSP allows no inline script). File text reaches the page only
// through textContent: nothing here parses HTML.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** The age of a request time the server read (GateRow.requestedMs; "" when it names none). */
function age(ms) {
  if (ms === "" || ms === null) return "-";
  const t = Number(ms);
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d`;
}

function showAges() {
  for (const el of $$("time[datetime]")) {
    const iso = el.getAttribute("datetime");
    if (iso) {
      el.title = iso;
      el.textContent = age(el.dataset.ms ?? "");
    }
  }
}

/** Every path of the console starts with its base (src/ui/security.ts). */
const base = () => document.body.dataset.base ?? "";
const gateHref = (run, gate) => `${base()}/gate/${encodeURIComponent(run)}/${encodeURIComponent(gate)}`;

/** The same rule as rowMatches() in src/ui/pages.ts. */
function matches(tr, q, state) {
  const s = tr.dataset.state;
  if (state === "open" && s === "done") return false;
  if (state === "done" && s !== "done") return false;
  if (state === "human" && tr.dataset.actionable !== "1") return false;
  // the words the server searches (GateRow.search), not the cells' text: a filter typed, then sent, shows the same rows
  const hay = tr.dataset.search ?? "";
  return q
    .toLowerCase()
    .split(/\s+/)
    .every((w) => hay.includes(w));
}

function applyFilter() {
  const q = $("input[name=q]")?.value ?? "";
  const state = $("select[name=state]")?.value ?? "";
  const rows = $$("#gates tbody tr");
  for (const tr of rows) tr.hidden = !matches(tr, q, state);
  const shown = rows.filter((tr) => !tr.hidden).length;
  const count = $("#count");
  if (count) count.textContent = shown === rows.length ? `${rows.length} gates` : `${shown} of ${rows.length} gates shown`;
}

function cell(tr, col) {
  return $(`td[data-col="${col}"]`, tr);
}

function newRow() {
  const tr = document.createElement("tr");
  for (const col of ["run", "gate", "status", "round", "reviewer", "independence", "waitingFor", "age"]) {
    const td = document.createElement("td");
    td.dataset.col = col;
    tr.append(td);
  }
  const a = document.createElement("a");
  cell(tr, "run").append(a);
  const muted = document.createElement("span");
  muted.className = "muted";
  cell(tr, "reviewer").append(document.createTextNode(""), muted);
  cell(tr, "age").append(document.createElement("time"));
  return tr;
}

function fillRow(tr, row) {
  tr.dataset.key = `${row.run}/${row.gate}`;
  tr.dataset.at = row.requestedMs ?? "";
  tr.dataset.state = row.state;
  tr.dataset.actionable = row.actionable ? "1" : "0";
  tr.dataset.search = row.search;
  const a = $("a", cell(tr, "run"));
  a.href = gateHref(row.run, row.gate);
  a.textContent = row.run;
  cell(tr, "gate").textContent = row.gate;
  const status = cell(tr, "status");
  status.textContent = row.status;
  status.className = `status s-${row.status}`;
  cell(tr, "round").textContent = `${row.round}/${row.cap}`;
  const reviewer = cell(tr, "reviewer");
  reviewer.firstChild.textContent = `${row.reviewer} `;
  $("span", reviewer).textContent = `${row.model} · ${row.family}`;
  cell(tr, "independence").textContent = row.independence;
  cell(tr, "waitingFor").textContent = row.waitingFor;
  const time = $("time", cell(tr, "age"));
  time.setAttribute("datetime", row.requestedAt ?? "");
  time.dataset.ms = row.requestedMs ?? "";
  time.textContent = age(row.requestedMs);
  tr.classList.add("changed");
  setTimeout(() => tr.classList.remove("changed"), 1500);
}

/** A form on its way: the gate changing because of it must not reload the page over the answer's navigation. */
let submitting = false;
/** A reload held while the person types: it happens once the forms are cleared (a submit navigates anyway). */
let held = false;

const typed = () => $$("form.act textarea, form.act input:not([type=hidden]):not([type=radio])").some((f) => f.value);

/** Reload, unless that would wipe what the person is typing: then say so (the banner) and reload once it is cleared. */
function reloadUnlessTyped(banner) {
  if (submitting) return;
  if (!typed()) return void location.reload();
  held = true;
  const b = $(banner);
  if (b) b.hidden = false;
}

function onGate(e) {
  const key = e.kind === "row" ? `${e.row.run}/${e.row.gate}` : `${e.run}/${e.gate}`;
  const page = document.body.dataset.page;
  // the settings had problems when this page was read: a gate moving may mean they are fixed
  if (page === "settings") return void location.reload();
  if (page === "gate") {
    const summary = $("section.summary");
    if (summary?.dataset.key === key) reloadUnlessTyped("#stale");
    return;
  }
  const tbody = $("#gates tbody");
  if (!tbody) return;
  const tr = $$("tr", tbody).find((r) => r.dataset.key === key);
  if (e.kind === "gone") return void tr?.remove();
  const at = String(e.row.requestedMs ?? "");
  if (tr && tr.dataset.at === at) fillRow(tr, e.row);
  else {
    // newest request first, as the server sorts (a gate seen before its request.json moves once it has one);
    // the table keeps its cap
    tr?.remove();
    const rows = $$("tr", tbody);
    // newestFirst() in src/ui/rows.ts: a request time that names none sorts last
    const ms = (v) => (v ? Number(v) : -Infinity);
    const before = rows.find((r) => ms(r.dataset.at) < ms(at));
    const max = Number($("#gates").dataset.max);
    if (!before && rows.length >= max) return applyFilter();
    const row = tr ?? newRow();
    fillRow(row, e.row);
    tbody.insertBefore(row, before ?? null);
    if (rows.length + 1 > max) tbody.lastElementChild?.remove();
  }
  applyFilter();
}

function connect() {
  const live = $("#live");
  const source = new EventSource(`${base()}/events?since=${encodeURIComponent(document.body.dataset.seq ?? "")}`);
  source.addEventListener("hello", () => {
    if (live) live.textContent = "live";
    document.body.dataset.live = "1";
  });
  source.addEventListener("gate", (m) => onGate(JSON.parse(m.data)));
  // the page is older than the events kept, or the settings went wrong: never over a review being typed
  source.addEventListener("reload", () => reloadUnlessTyped("#outdated"));
  source.addEventListener("error", () => {
    // a stream the server refuses is never retried by the browser: the console stopped, and one started since (a new
    // token and path) answers on its port; this page then never updates again
    const gone = source.readyState === EventSource.CLOSED;
    if (live) live.textContent = gone ? "disconnected: open the URL the console printed at its start" : "reconnecting…";
    document.body.dataset.live = gone ? "gone" : "0";
  });
}

document.addEventListener("DOMContentLoaded", () => {
  showAges();
  setInterval(showAges, 30_000);
  document.addEventListener("submit", (e) => {
    if (document.body.dataset.live !== "gone") return void (submitting = true);
    // the console this page came from is gone: sent, the form would be refused and what was typed lost with the page
    e.preventDefault();
    const form = e.target;
    if ($(".notice.unsent", form)) return;
    const p = document.createElement("p");
    p.className = "notice error unsent";
    p.textContent = "Not sent: this page lost its console. Copy what you typed, then open the URL the console printed at its start.";
    form.prepend(p);
  });
  document.addEventListener("input", () => held && !submitting && !typed() && location.reload());
  $("input[name=q]")?.addEventListener("input", applyFilter);
  $("select[name=state]")?.addEventListener("change", applyFilter);
  connect();
});
