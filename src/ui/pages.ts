// Server-rendered pages. hono's `html` escapes every interpolated value, so file text is always text; the only raw
// HTML is markdown-it's output, rendered with raw HTML off (markdown.ts). The page's script is a static file.
import { html as escaped, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { FindingView } from "../core/findings.js";
import type { NextStep } from "../core/next-step.js";
import type { VerdictFile } from "../spec/schemas.js";
import { markdownBudget } from "./markdown.js";
import type { GateRow } from "./rows.js";
import type { GateListing } from "../bus/gate-list.js";
import type { DiffLine } from "./diff.js";
import type { RoundView, Timeline } from "./timeline.js";
import { MAX_EXTEND_BY } from "../spec/constants.js";
import { terminalSafe } from "../core/terminal-safe.js";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** hono's `html` with every interpolated string terminal-safe as well: a browser too reorders text at a bidirectional
 * control, and a title copied from the page into a terminal must not carry its escapes. */
const html = (strings: TemplateStringsArray, ...values: unknown[]) =>
  escaped(strings, ...values.map((v) => (typeof v === "string" ? terminalSafe(v) : v)));

export interface PageContext {
  root: string;
  /** The path every link starts with (security.ts): "/" and a random segment. */
  base: string;
  readOnly: boolean;
  csrf: string;
  /** The board's last event when the page was read: its event stream starts after it. */
  seq: number;
}

/** A refused form's fields, given back on the page the refusal redirects to: the person's text is never lost. */
export interface Draft {
  action: string;
  /** The round the form answered: its text goes back into the same form only while that round still waits. */
  round: number;
  fields: Record<string, string>;
}

/** The list shows at most this many rows, newest first; a filter narrows the rest (first paint stays fast with any history). */
export const MAX_ROWS = 100;

/** A gate page's path under the console's base. */
export const gateHref = (run: string, gate: string) => `/gate/${encodeURIComponent(run)}/${encodeURIComponent(gate)}`;

function layout(p: PageContext, title: string, body: Html, kind: "gates" | "gate" | "settings"): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="stylesheet" href="${p.base}/assets/app.css" />
        <script src="${p.base}/assets/app.js" defer></script>
      </head>
      <body data-page="${kind}" data-seq="${p.seq}" data-base="${p.base}">
        <header>
          <a class="brand" href="${p.base}/">guild-bus review console</a>
          <span class="root">${p.root}</span>
          ${p.readOnly ? html`<span class="badge">read-only</span>` : ""}
          <span id="live" class="live" title="live updates">connecting…</span>
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

const STATE_FILTERS: Array<[string, string]> = [
  ["", "every gate"],
  ["open", "open"],
  ["human", "waiting for a person"],
  ["done", "ended"],
];

/** Whether a row passes the list's filters (the page applies the same rule as you type). */
export function rowMatches(row: GateRow, q: string, state: string): boolean {
  if (state === "open" && row.state === "done") return false;
  if (state === "done" && row.state !== "done") return false;
  if (state === "human" && !row.actionable) return false;
  if (!q) return true;
  return q
    .toLowerCase()
    .split(/\s+/)
    .every((w) => row.search.includes(w));
}

function rowHtml(base: string, r: GateRow): Html {
  return html`<tr
    data-key="${r.run}/${r.gate}"
    data-at="${r.requestedMs ?? ""}"
    data-state="${r.state}"
    data-actionable="${r.actionable ? "1" : "0"}"
    data-search="${r.search}"
  >
    <td data-col="run"><a href="${base}${gateHref(r.run, r.gate)}">${r.run}</a></td>
    <td data-col="gate">${r.gate}</td>
    <td data-col="status" class="status s-${r.status}">${r.status}</td>
    <td data-col="round">${r.round}/${r.cap}</td>
    <td data-col="reviewer">${r.reviewer} <span class="muted">${r.model} · ${r.family}</span></td>
    <td data-col="independence">${r.independence}</td>
    <td data-col="waitingFor">${r.waitingFor}</td>
    <td data-col="age"><time datetime="${r.requestedAt ?? ""}" data-ms="${r.requestedMs ?? ""}">${r.requestedAt ?? "-"}</time></td>
  </tr>`;
}

export interface GateList {
  rows: GateRow[];
  /** Rows matching the filter, shown or not. */
  total: number;
  q: string;
  state: string;
  loading: { done: number; total: number };
  /** What the workers ignore under .guild/runs, as `status` lists it: a refused run or gate hides gates `check` fails. */
  ignored: GateListing["ignored"];
}

function ignoredHtml(ignored: GateListing["ignored"]): Html | string {
  if (!ignored.length) return "";
  return html`<ul class="notice error" id="ignored">
    ${ignored.map((i) => html`<li>ignored${i.hides ? " (it hides gates `check` fails)" : ""}: <code>${i.path}</code> — ${i.reason}</li>`)}
  </ul>`;
}

export function gatesPage(p: PageContext, { rows, total, q, state, loading, ignored }: GateList): Html {
  const reading = loading.done < loading.total ? `; reading gates: ${loading.done} of ${loading.total}` : "";
  return layout(
    p,
    "gates — guild-bus",
    html`<form class="filters" method="get" action="${p.base}/">
        <input type="search" name="q" value="${q}" placeholder="filter: run, gate, reviewer, state…" aria-label="filter" />
        <select name="state" aria-label="state">
          ${STATE_FILTERS.map(([v, label]) => html`<option value="${v}" ${v === state ? "selected" : ""}>${label}</option>`)}
        </select>
        <button type="submit">filter</button>
        <span class="muted" id="count"
          >${rows.length < total ? `showing ${rows.length} of ${total} matching gates` : `${total} gates`}${reading}</span
        >
      </form>
      ${ignoredHtml(ignored)}
      <table id="gates" data-max="${MAX_ROWS}">
        <thead>
          <tr>
            <th>run</th>
            <th>gate</th>
            <th>status</th>
            <th>round/cap</th>
            <th>reviewer</th>
            <th>independence</th>
            <th>waiting for</th>
            <th>age</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map((r) => rowHtml(p.base, r))}
        </tbody>
      </table>
      ${total === 0 ? html`<p class="muted">No gates under .guild/runs yet.</p>` : ""}`,
    "gates",
  );
}

/** A page's renderer of reviewer prose: Markdown within the page's budget (markdown.ts), else plain text. */
type Prose = (text: string | null | undefined) => Html | "";

function proseOf(budget = markdownBudget()): Prose {
  return (text) => {
    if (!text) return "";
    const safe = terminalSafe(text);
    const rendered = budget(safe);
    return rendered === null ? html`<pre class="text">${safe}</pre>` : html`<div class="md">${raw(rendered)}</div>`;
  };
}

function findingsHtml(findings: FindingView[], more: number, md: Prose): Html {
  if (!findings.length) return html`<p class="muted">no findings</p>`;
  return html`<table class="findings">
      <thead>
        <tr>
          <th>severity</th>
          <th>finding</th>
          <th>evidence</th>
        </tr>
      </thead>
      <tbody>
        ${findings.map(
          (f) =>
            html`<tr>
              <td class="sev sev-${f.severity ?? "none"}">${f.severity ?? "-"}</td>
              <td><strong>${f.title}</strong>${f.detail && f.detail !== f.title ? md(f.detail) : ""}</td>
              <td><code>${f.evidence ?? ""}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${more ? html`<p class="muted">… and ${more} more in the result</p>` : ""}`;
}

const MARK = { add: "+", del: "-", same: " " } as const;

/** One block per line, nothing between them: a <pre> would render any whitespace between blocks as a line of its own. */
const diffHtml = (lines: DiffLine[]) =>
  html`<pre class="diff">${lines.map((l) => html`<span class="${l.kind}">${MARK[l.kind]} ${l.text}</span>`)}</pre>`;

const scoreText = (v: VerdictFile) =>
  v.score_gate && (v.score_gate.score !== null || v.score_gate.readiness !== null)
    ? `; score ${v.score_gate.score ?? "?"}/10, ${v.score_gate.readiness ?? "no readiness"}`
    : "";

const extendBy = (value: string) =>
  html`<label>rounds to add (extend-cap) <input type="number" name="extend_by" min="1" max="${MAX_EXTEND_BY}" value="${value}" /></label>`;

/** A textarea's text: the HTML parser drops one newline right after the tag, so one is put there (text may begin with one). */
const areaText = (text: string) => `\n${text}`;

/** Which form, if any, takes a refused draft back: the same action's, for the same round. */
function draftForm(t: Timeline, draft: Draft | undefined): string | null {
  if (!draft) return null;
  const { can, at } = t;
  const open: Record<string, boolean> = {
    respond: can.respond && at.respond === draft.round,
    decide: can.decide.length > 0 && at.waiting === draft.round,
    rebut: can.rebut && at.waiting === draft.round,
  };
  return open[draft.action] ? draft.action : null;
}

/** A draft no form can take (the gate moved on): shown to copy, never put into another round's form. */
function draftHtml(draft: Draft): Html {
  return html`<details class="draft" open>
    <summary>What you submitted for round ${draft.round} (not written): copy what you need</summary>
    ${Object.entries(draft.fields).map(
      ([name, value]) =>
        html`<label
          >${name.replace("_", " ")} <textarea readonly rows="${Math.min(12, value.split("\n").length + 1)}">${areaText(value)}</textarea>
        </label>`,
    )}
  </details>`;
}

/** Rounds a gate page shows in full, the newest: a gate of months has dozens, each with its findings, diff and prose
 * (50 heavy rounds made a 16 MB page that took seconds to build in the console's one process). */
export const FULL_ROUNDS = 10;

/** An older round in one paragraph: what it decided and how many findings, the full text one click (or trail.md) away. */
function roundBriefHtml(r: RoundView, id: string): Html {
  const v = r.verdict;
  const found = r.findings.length + r.moreFindings;
  const facts = [
    v ? `${r.state} — verdict ${v.result_verdict ?? "none"}, gate-pass ${v.gate_pass.pass ? "passed" : "not passed"}` : r.state,
    `${found} finding${found === 1 ? "" : "s"}`,
    ...(r.failure ? [`ended without a result: ${r.failure.kind}`] : []),
    ...(r.escalation ? [`escalation: ${r.escalation.reason}`] : []),
    ...(r.decision ? [`decision: ${r.decision.choice}`] : []),
  ];
  return html`<section class="round brief" id="${id}">
    <h2>Round ${r.round}${r.label} <span class="muted">counted ${r.packet.counted_round} of ${r.packet.cap}</span></h2>
    <p>${facts.join("; ")}</p>
  </section>`;
}

/** Where a link to round n lands: its section on this page, or on the page of every round in full when it is brief here. */
type RoundHref = (round: number) => string;

function roundHtml(r: RoundView, id: string, md: Prose, roundHref: RoundHref): Html {
  const p = r.packet;
  const v = r.verdict;
  const ruledOn = p.restart_reason === "ruling" ? p.restart_of : null;
  return html`<section class="round" id="${id}">
    <h2>Round ${r.round}${r.label} <span class="muted">counted ${p.counted_round} of ${p.cap}</span></h2>
    <dl>
      <dt>packet</dt>
      <dd>packet-${r.round}.md issued ${p.issued_at} (${p.packet_id})</dd>
      <dt>reviewer</dt>
      <dd>
        ${p.reviewer_provider} (${p.reviewer_adapter}) · ${v?.reviewer_model ?? p.reviewer_model ?? "default model"} ·
        ${v?.reviewer_family ?? p.reviewer_family}
      </dd>
      <dt>independence</dt>
      <dd>${v?.independence_violation ? "weak (independence violated)" : p.independence} — ${p.selection_reason}</dd>
      <dt>state</dt>
      <dd class="state">${r.state}</dd>
      ${
        r.dispatch.length
          ? html`<dt>dispatch</dt>
              <dd>${r.dispatch.map((d) => html`<div>${d}</div>`)}</dd>`
          : ""
      }
    </dl>
    ${
      v
        ? html`<div class="verdict ${v.gate_pass.pass ? "pass" : "fail"}">
            <p>
              <strong>verdict: ${v.result_verdict ?? "none"}</strong> — gate-pass ${v.gate_pass.pass ? "passed" : "not passed"}; blocking
              findings: ${v.blocking_count ?? "n/a"}${scoreText(v)}
              ${v.rulings ? `; rulings: ${v.rulings.upheld} upheld, ${v.rulings.withdrawn} withdrawn` : ""}
            </p>
            <ul class="conditions">
              ${Object.entries(v.gate_pass.conditions).map(([k, ok]) => html`<li class="${ok ? "ok" : "no"}">${ok ? "✓" : "✗"} ${k}</li>`)}
            </ul>
            ${
              v.gate_pass.reasons.length
                ? html`<ul>
                    ${v.gate_pass.reasons.map((x) => html`<li>${x}</li>`)}
                  </ul>`
                : ""
            }
          </div>`
        : ""
    }
    ${
      r.summary !== null
        ? html`<h3>summary</h3>
            ${md(r.summary)}`
        : ""
    }
    ${
      r.verdict || r.findings.length
        ? html`<h3>findings</h3>
            ${findingsHtml(r.findings, r.moreFindings, md)}`
        : ""
    }
    ${
      r.rulings.length
        ? html`<h3>rulings${ruledOn ? html` on the findings of <a href="${roundHref(ruledOn)}">round ${ruledOn}</a>` : ""}</h3>
            <ul>
              ${r.rulings.map((x) => html`<li>${x}</li>`)}
            </ul>`
        : ""
    }
    ${
      r.rebuttal !== null
        ? html`<h3>the author's rebuttal</h3>
            <pre class="text">${r.rebuttal}</pre>`
        : ""
    }
    ${r.failure ? html`<p class="problem">ended without a result: ${r.failure.kind} — ${r.failure.reason}</p>` : ""}
    ${r.brokenSeal ? html`<p class="problem">${r.brokenSeal}</p>` : ""}
    ${
      r.escalation
        ? html`<p class="escalation">
            escalation: <strong>${r.escalation.reason}</strong> — ${r.escalation.detail} (options: ${r.escalation.options.join(", ")})
          </p>`
        : ""
    }
    ${
      r.decision
        ? html`<p class="decision">
            decision: <strong>${r.decision.choice}${r.decision.extend_by ? ` ${r.decision.extend_by}` : ""}</strong> by
            ${r.decision.decided_by ?? "?"} at ${r.decision.at}${r.decision.note ? html` — <q>${r.decision.note}</q>` : ""}
          </p>`
        : ""
    }
    ${
      r.diff
        ? html`<details class="diff" open>
            <summary>artifact changes since the previous round</summary>
            ${"lines" in r.diff ? diffHtml(r.diff.lines) : html`<p class="muted">${r.diff.note}</p>`}
          </details>`
        : ""
    }
  </section>`;
}

/** The CSRF token, and the round the page showed: the command refuses an action on a gate that has moved on since. */
const hidden = (p: PageContext, round: number) =>
  html`<input type="hidden" name="csrf" value="${p.csrf}" /><input type="hidden" name="round" value="${round}" />`;

function actionsHtml(p: PageContext, t: Timeline, base: string, draft: Draft | undefined): Html {
  if (p.readOnly) return html`<p class="muted">read-only: actions are off</p>`;
  const { can } = t;
  const into = draftForm(t, draft);
  const kept = (action: string, name: string) => (into === action ? (draft?.fields[name] ?? "") : "");
  const chosen = kept("decide", "choice");
  const forms: Html[] = [];
  if (can.respond)
    forms.push(
      html`<form class="act" id="respond" method="post" action="${base}/respond" enctype="multipart/form-data">
        <h3>Answer as the manual reviewer (round ${t.at.respond})</h3>
        <p class="muted">
          review_result.v1 JSON (fenced or bare) or prose ending in <code>## SATISFIED</code>; the same checks as
          <code>guild-bus respond</code>: your model's family must differ from the author's.
        </p>
        <label
          >reviewer model <input name="reviewer_model" required placeholder="e.g. gpt-5" value="${kept("respond", "reviewer_model")}"
        /></label>
        <textarea name="review" rows="10" placeholder="paste the review here">${areaText(kept("respond", "review"))}</textarea>
        <label>or upload <input type="file" name="upload" accept=".md,.json,.txt,text/*" /></label>
        ${hidden(p, t.at.respond)}<button type="submit">submit review</button>
      </form>`,
    );
  if (can.decide.length)
    forms.push(
      html`<form class="act" id="decide" method="post" action="${base}/decide">
        <h3>Decide: ${t.view.snapshot.escalations.get(t.view.decision.round)?.reason ?? "escalation"}</h3>
        ${can.decide.map(
          // none chosen ahead (the first option is often force-pass): the person picks one, as the CLI makes them name it
          (o) =>
            html`<label class="choice"
              ><input type="radio" name="choice" value="${o}" required ${o === chosen ? "checked" : ""} /> ${o}</label
            >`,
        )}
        ${can.decide.includes("extend-cap") ? extendBy(kept("decide", "extend_by")) : ""}
        <label>note <textarea name="note" rows="2">${areaText(kept("decide", "note"))}</textarea></label>
        ${hidden(p, t.at.waiting)}<button type="submit">record decision</button>
      </form>`,
    );
  if (can.rebut)
    forms.push(
      html`<form class="act" id="rebut" method="post" action="${base}/rebut">
        <h3>Contest the findings (once)</h3>
        <textarea name="text" rows="6" required placeholder="your argument about the findings">${areaText(kept("rebut", "text"))}</textarea>
        ${hidden(p, t.at.waiting)}<button type="submit">send rebuttal</button>
      </form>`,
    );
  if (can.resubmit)
    forms.push(
      html`<form class="act" id="resubmit" method="post" action="${base}/resubmit">
        <h3>Resubmit</h3>
        <p class="muted">after revising the artifact: the broker issues the next round</p>
        ${hidden(p, t.at.waiting)}<button type="submit">resubmit</button>
      </form>`,
    );
  return forms.length ? html`${forms}` : html`<p class="muted">nothing to do here now</p>`;
}

/** Who must act and how, as status and wait say it (the forms below do the same as the command). */
function nextStepHtml(next: NextStep, ended: boolean): Html {
  if (ended) return html``;
  return html`<dt>next step</dt>
    <dd class="next-step">
      waiting for ${next.waiting_on}${next.command ? html` — run: <code>${next.command}</code>` : ""}
      ${
        next.notes.length
          ? html`<ul class="notes">
              ${next.notes.map((n) => html`<li>${n}</li>`)}
            </ul>`
          : ""
      }
    </dd>`;
}

/** In place of every page while no gate can be judged: the settings' problems, as `status` and `check` refuse them. */
export function settingsPage(p: PageContext, refusal: string): Html {
  return layout(
    p,
    "settings problems — guild-bus",
    html`<section class="summary">
      <h1>No gate is shown: the settings have problems</h1>
      <p class="notice error" role="status">${refusal}</p>
      <p>
        A gate judged on what is left of these settings could pass what the project's settings fail, so the console judges none (as
        <code>guild-bus status</code>, <code>check</code> and <code>wait</code> refuse them) and takes no action. Fix
        <code>.guild/settings.json</code>; this page reloads when a gate next changes.
      </p>
    </section>`,
    "settings",
  );
}

export function gatePage(
  p: PageContext,
  t: Timeline,
  notice: { ok: boolean; text: string } | null,
  draft?: Draft,
  { allRounds = false }: { allRounds?: boolean } = {},
): Html {
  const o = t.view.output;
  const s = t.view.snapshot;
  const base = p.base + gateHref(s.runId, s.gate);
  // the newest rounds spend the page's Markdown budget first, as they do its diff budget (timeline.ts)
  const md = proseOf();
  const numbers = [...new Set(t.rounds.map((r) => r.round))];
  const fullFrom = allRounds ? -Infinity : (numbers[numbers.length - FULL_ROUNDS] ?? -Infinity);
  const brief = numbers.filter((n) => n < fullFrom);
  const roundHref: RoundHref = (n) => (n < fullFrom ? `${base}?all=1#round-${n}` : `#round-${n}`);
  // a quorum round is one section per member: a link to the round lands on its first, the others are told apart
  const ids = new Map<RoundView, string>();
  const sections = new Map<number, number>();
  for (const r of t.rounds) {
    const k = (sections.get(r.round) ?? 0) + 1;
    sections.set(r.round, k);
    ids.set(r, k === 1 ? `round-${r.round}` : `round-${r.round}-${k}`);
  }
  const rounds = [...t.rounds]
    .reverse()
    .map((r) => (r.round < fullFrom ? roundBriefHtml(r, ids.get(r)!) : roundHtml(r, ids.get(r)!, md, roundHref)))
    .reverse();
  const briefNote = brief.length
    ? html`<p class="muted">
        Rounds ${brief[0]}–${brief[brief.length - 1]} are shown in brief: <a href="${base}?all=1">show every round in full</a> (so does
        <code>${o.trail_path}</code>).
      </p>`
    : "";
  return layout(
    p,
    `${s.gate} ${s.runId} — guild-bus`,
    html`<nav><a href="${p.base}/">all gates</a> › ${s.runId} › ${s.gate}</nav>
      <section class="summary" data-key="${s.runId}/${s.gate}">
        <h1>${s.gate} <span class="muted">${s.runId}</span> <span class="status s-${o.status}">${o.status}</span></h1>
        <dl>
          <dt>artifact</dt>
          <dd><code>${s.request?.artifact_path ?? "?"}</code></dd>
          <dt>author</dt>
          <dd>${o.author_host}${s.request?.author_model ? ` (${s.request.author_model})` : ""}</dd>
          <dt>state</dt>
          <dd>${o.state}, round ${o.round}; ${o.rounds} counted</dd>
          <dt>waiting for</dt>
          <dd>${o.waiting_for}</dd>
          ${nextStepHtml(t.view.next, o.state === "done")}
          <dt>detail</dt>
          <dd>${o.detail}</dd>
          <dt>modes</dt>
          <dd>stop ${o.modes.stop}, difficulty ${o.modes.difficulty}${o.modes.human_checkpoint ? ", human checkpoint" : ""}</dd>
          <dt>last verdict</dt>
          <dd>${o.last_verdict ?? "-"}</dd>
        </dl>
      </section>
      ${notice ? html`<p class="notice ${notice.ok ? "ok" : "error"}" role="status">${notice.text}</p>` : ""}
      ${draft && !p.readOnly && !draftForm(t, draft) ? draftHtml(draft) : ""}
      <p id="stale" class="notice" hidden>This gate changed. <a href="${base}">Reload</a></p>
      <p id="outdated" class="notice" hidden>
        This page is out of date (the settings changed, or it missed updates): it reloads once you submit or clear what you typed, not
        before. <a href="${base}">Reload now</a> (what you typed is lost)
      </p>
      <section class="actions">${actionsHtml(p, t, base, draft)}</section>
      ${
        t.before
          ? html`<section class="round">
              <h2>Before round 1</h2>
              <p class="escalation">escalation: <strong>${t.before.escalation.reason}</strong> — ${t.before.escalation.detail}</p>
              ${t.before.decision ? html`<p class="decision">decision: <strong>${t.before.decision.choice}</strong></p>` : ""}
            </section>`
          : ""
      }
      ${briefNote} ${rounds}
      ${
        s.rejected.length || s.problems.length
          ? html`<section class="round">
              <h2>Files the bus refused</h2>
              <ul>
                ${t.rejected.map((f) => html`<li>rejected: ${f.file} — ${f.reason}</li>`)}
                ${s.problems.map((f) => html`<li>invalid: ${f.file} — ${f.reason}</li>`)}
              </ul>
            </section>`
          : ""
      }`,
    "gate",
  );
}
