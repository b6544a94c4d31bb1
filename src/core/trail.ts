// trail.md is a view: regenerated from the gate directory after every change, never appended to.
import * as z from "zod/mini";
import {
  DispatchAttempt,
  type Failure,
  type PacketFrontMatter,
  type StopPolicy,
  type TrailEntry,
  type VerdictFile,
} from "../spec/schemas.js";
import { describeAttempt } from "./dispatch-plan.js";
import type { LenientResult } from "./result-wire.js";
import type { GateDecision } from "./decide.js";
import { boundElsewhere, verdictPasses } from "./verdict-pass.js";
import { type GateSnapshot, memberView, reviewerViews } from "./snapshot.js";
import { roundPacket, roundPackets } from "./gate-queries.js";
import { slotFile } from "./slot-file.js";
import { type FindingView, listedFindings, MAX_LISTED_FINDINGS, shownFindings } from "./findings.js";
import { deepFreeze, memoOn } from "./memo.js";
import { oneLine, textOf } from "./text-of.js";
import { terminalSafe } from "./terminal-safe.js";
import { isoTimeMs } from "./iso-time.js";

/** Round n's result: the gate's own reviewer's, or a quorum member's. */
export type ResultLookup = (round: number, member?: string | null) => (LenientResult & { normalized_from?: string }) | null;

/** " (restart of round 2)", or " (ruling on round 2)" for the round that rules on a rebuttal. */
export function roundLabel(e: Pick<TrailEntry, "restart_of" | "restart_reason">): string {
  if (!e.restart_of) return "";
  if (e.restart_reason === "ruling") return ` (ruling on round ${e.restart_of})`;
  return e.restart_reason === "finalizer"
    ? ` (finalizer for the copilot pass of round ${e.restart_of})`
    : ` (restart of round ${e.restart_of})`;
}

const Ran = z.looseObject({ provider: z.string(), model: z.nullable(z.string()), effort: z.nullable(z.string()), tier: z.string() });

/** Every dispatch of the round, then the pair that ran: from the result, or from the failure when nothing ran. */
function dispatchLines(result: ReturnType<ResultLookup>, failure: Failure | undefined): string[] {
  const r = (result ?? {}) as Record<string, unknown>;
  const attempts = z.array(DispatchAttempt).safeParse(r.dispatch_attempts ?? failure?.dispatch_attempts);
  const lines = attempts.success ? attempts.data.map((a) => `attempt: ${describeAttempt(a)}`) : [];
  const ran = Ran.safeParse(r.ran);
  if (ran.success) {
    const { provider, model, effort, tier } = ran.data;
    const identity =
      typeof r.identity_assurance === "string"
        ? `; identity ${r.identity_assurance}${typeof r.copilot_profile === "string" ? ` (profile ${r.copilot_profile})` : ""}`
        : "";
    lines.push(`ran: ${provider} (${model ?? "default model"}, effort ${effort ?? "not sent"}, tier ${tier})${identity}`);
  }
  return lines;
}

export function rulingLines(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_LISTED_FINDINGS).map((r) => {
    const o = r && typeof r === "object" ? (r as Record<string, unknown>) : {};
    const reason = typeof o.reason === "string" && o.reason ? ` (${o.reason.slice(0, 300)})` : "";
    return `ruling: ${textOf(o.ruling ?? "?").slice(0, 100)} — ${textOf(o.finding ?? "?").slice(0, 300)}${reason}`;
  });
}

function findingTitles(list: unknown): string[] {
  const { findings, more } = listedFindings(list);
  // folded to one line where each is rendered: trail.md's lines and the next packet's prior rounds
  const lines = findings.map((f) =>
    Object.keys(f.fields).length ? `[${(f.severity ?? "?").slice(0, 20)}] ${f.title.slice(0, 300)}` : f.title.slice(0, 300),
  );
  if (more) lines.push(`… and ${more} more finding(s) in the result`);
  return lines;
}

/** What a person reads of a round's result: its summary, each finding in full, and the rulings. */
export interface RoundDetail {
  summary: string | null;
  findings: FindingView[];
  more: number;
  rulings: string[];
}

/**
 * One entry per packet — a quorum round has one per member — in round order; findings and details are keyed by the
 * entry's packet name. A round "passed" under the stop policy in force (the score gate replaces the verdict condition).
 */
export function trailEntries(
  gate: GateSnapshot,
  lookup: ResultLookup,
  stop: StopPolicy = "verdict",
): { entries: TrailEntry[]; findings: Map<string, string[]>; details: Map<string, RoundDetail> } {
  const entries: TrailEntry[] = [];
  const findings = new Map<string, string[]>();
  const details = new Map<string, RoundDetail>();
  for (const s of reviewerViews(gate)) reviewerEntries(s, lookup, stop, { entries, findings, details });
  entries.sort((a, b) => a.round - b.round || (a.member ?? "").localeCompare(b.member ?? ""));
  return { entries, findings, details };
}

function reviewerEntries(
  s: GateSnapshot,
  lookup: ResultLookup,
  stop: StopPolicy,
  { entries, findings, details }: ReturnType<typeof trailEntries>,
): void {
  for (const round of [...s.packets.keys()].sort((a, b) => a - b)) {
    const p = s.packets.get(round)!;
    const verdict = s.verdicts.get(round);
    const failure = s.failures.get(round);
    const result = s.results.has(round) ? lookup(round, s.member) : null;
    const attempted = s.attempts.has(round);
    const hasResult = s.results.has(round);
    const deps = [round, s.member, stop, verdict, failure, result, hasResult, attempted];
    const made = entryMemo(p, deps, () => roundEntry(s.member, round, p, { verdict, failure, result, hasResult, stop, attempted }));
    entries.push(made.entry);
    if (made.text) {
      findings.set(made.entry.packet, made.text.titles);
      details.set(made.entry.packet, made.text.detail);
    }
  }
}

/** A round's entry, and what its result says, keyed by its packet: rebuilt only when one of its inputs changed. */
const entryMemo = memoOn<PacketFrontMatter, { entry: TrailEntry; text: { titles: string[]; detail: RoundDetail } | null }>();

function roundEntry(
  member: string | null,
  round: number,
  p: PacketFrontMatter,
  seen: {
    verdict: VerdictFile | undefined;
    failure: Failure | undefined;
    result: ReturnType<ResultLookup>;
    hasResult: boolean;
    stop: StopPolicy;
    attempted: boolean;
  },
): { entry: TrailEntry; text: { titles: string[]; detail: RoundDetail } | null } {
  const { verdict, failure, result, hasResult, stop, attempted } = seen;
  const packetName = slotFile("packet", round, member);
  let text: { titles: string[]; detail: RoundDetail } | null = null;
  if (result) {
    const listed = listedFindings(shownFindings(result));
    const summary = (result as { summary?: unknown }).summary;
    text = {
      titles: [...findingTitles(shownFindings(result)), ...rulingLines(result.rulings)],
      detail: {
        summary: typeof summary === "string" && summary.trim() ? summary.trim().slice(0, 2000) : null,
        ...listed,
        rulings: rulingLines(result.rulings),
      },
    };
  }
  const dispatch = dispatchLines(result, failure);
  let state = "reviewing";
  if (failure) state = `ended without a result: ${failure.kind} (${failure.reason})`;
  else if (verdict && verdictPasses(verdict, stop)) state = "gate passed";
  // a sha that was never the packet's is the reviewer's mistake (the broker re-runs it as malformed), not an edit
  else if (verdict && !verdict.gate_pass.conditions.sha256_match && verdict.gate_pass.conditions.parses)
    state = boundElsewhere(verdict, p)
      ? "gate not passed: the result names another artifact_sha256_reviewed than its packet's (copy it from the packet)"
      : "rejected: artifact changed mid-review; restarted";
  else if (verdict) state = "gate not passed";
  else if (hasResult) state = "verifying";
  else if (attempted) state = "dispatched";
  const scan =
    failure?.kind === "malformed"
      ? `malformed termination: ${failure.reason}`
      : result?.normalized_from
        ? `${result.normalized_from === "sentinel" ? "sentinel" : "structured-envelope"}; clean`
        : result
          ? "structured-envelope (foreign writer); clean"
          : "n/a";
  const entry: TrailEntry = {
    round,
    counted_round: p.counted_round,
    restart_of: p.restart_of,
    restart_reason: p.restart_reason,
    reviewer_host: p.reviewer_provider,
    reviewer_model: verdict?.reviewer_model ?? p.reviewer_model,
    reviewer_family: verdict?.reviewer_family ?? p.reviewer_family,
    independence: verdict?.independence_violation ? "weak" : p.independence,
    ...(member === null ? {} : { member }),
    packet: packetName,
    result: hasResult ? slotFile("result", round, member) : null,
    post_sentinel_scan: scan,
    artifact_sha256_packet: p.artifact_sha256,
    artifact_sha256_reviewed: verdict?.artifact_sha256_reviewed ?? null,
    verifier_recomputed_sha256: verdict?.gate_pass.recomputed_sha256 ?? null,
    gate_pass: verdict ? verdict.gate_pass.pass : null,
    reasons: [...(verdict?.gate_pass.reasons ?? [])], // a copy: the entry is frozen, the verdict is not ours to freeze
    verdict: verdict?.result_verdict ?? null,
    blocking_findings: verdict?.blocking_count ?? null,
    score: verdict?.score_gate?.score ?? null,
    readiness: verdict?.score_gate?.readiness ?? null,
    ...(dispatch.length ? { dispatch } : {}),
    state,
  };
  // shared by every later step that finds the round unchanged: nobody may edit it
  return deepFreeze({ entry, text });
}

/**
 * "19:45:29 UTC" of an ISO time (the date is in the header), or the text as written when `parseIsoTime` reads no
 * time in it: a time without a zone is nobody's UTC.
 */
function clock(iso: string): string {
  const ms = isoTimeMs(iso);
  return ms === null ? iso : `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** "2.3 s", "4 min 5 s" between two ISO times; null when either names no time (no zone: this machine's would guess). */
function duration(from: string, to: string): string | null {
  const start = isoTimeMs(from);
  const end = isoTimeMs(to);
  if (start === null || end === null || end < start) return null;
  const ms = end - start;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** When the round's packet was issued, dispatched, and verified or ended, with the time each step took. */
function timingLine(s: GateSnapshot, round: number): string {
  const p = s.packets.get(round)!;
  const parts = [`issued ${clock(p.issued_at)}`];
  const attempt = s.attempts.get(round);
  if (attempt) parts.push(`dispatched ${clock(attempt.started_at)}`);
  const end = s.verdicts.get(round)?.verified_at ?? s.failures.get(round)?.at;
  if (end) {
    const took = duration(attempt?.started_at ?? p.issued_at, end);
    parts.push(
      `${s.verdicts.has(round) ? "verified" : "ended"} ${clock(end)}${took ? ` (${took} after ${attempt ? "dispatch" : "issue"})` : ""}`,
    );
  }
  return `- time: ${parts.join("; ")}`;
}

/** The five conditions on one line when they all hold; each named, with the reasons, when one failed. */
function gatePassLine(s: GateSnapshot, e: TrailEntry): string {
  const conditions = s.verdicts.get(e.round)?.gate_pass.conditions;
  if (e.gate_pass === null || !conditions) return "- deterministic_gate_pass: not evaluated yet";
  if (e.gate_pass) return "- deterministic_gate_pass: true (all five conditions hold)";
  const each = Object.entries(conditions)
    .map(([k, b]) => `${k}=${b}`)
    .join(", ");
  return `- deterministic_gate_pass: false${e.reasons.length ? ` (${e.reasons.join("; ")})` : ""}; conditions: ${each}`;
}

/** The packet's, the reviewed and the recomputed artifact sha: one value when they agree. */
function shaLines(e: TrailEntry): string[] {
  const { artifact_sha256_packet: sent, artifact_sha256_reviewed: reviewed, verifier_recomputed_sha256: recomputed } = e;
  if (reviewed === sent && recomputed === sent)
    return [`- artifact_sha256: ${sent} (packet = artifact_sha256_reviewed = verifier_recomputed_sha256)`];
  const lines = [`- artifact_sha256 (packet): ${sent}`];
  if (reviewed !== null || recomputed !== null)
    lines.push(`- artifact_sha256_reviewed: ${reviewed ?? "none given"}`, `- verifier_recomputed_sha256: ${recomputed ?? "none"}`);
  return lines;
}

/** Each finding with its severity, detail and evidence, numbered; then the rulings. */
function findingLines(detail: RoundDetail | undefined, titles: string[] | undefined): string[] {
  if (!detail) return (titles ?? []).map((t) => `  - ${t}`);
  const out: string[] = [];
  detail.findings.forEach((f, i) => {
    const severity = Object.keys(f.fields).length ? `[${(f.severity ?? "?").slice(0, 20)}] ` : "";
    out.push(`  ${i + 1}. ${severity}${f.title.slice(0, 300)}`);
    if (f.detail && f.detail !== f.title) out.push(`     ${f.detail.slice(0, 1000)}`);
    if (f.evidence) out.push(`     evidence: ${f.evidence.slice(0, 1000)}`);
  });
  if (detail.more) out.push(`  … and ${detail.more} more finding(s) in the result`);
  for (const r of detail.rulings) out.push(`  - ${r}`);
  return out;
}

const sectionMemo = memoOn<TrailEntry, readonly string[]>();

/**
 * A round's section (s: its reviewer's view of the gate): its reviewer's lines, then (once a round) what the round's
 * escalation, decision and author did.
 */
function roundSection(
  s: GateSnapshot,
  e: TrailEntry,
  text: { titles: string[] | undefined; detail: RoundDetail | undefined },
  place: { first: boolean; last: boolean },
): string[] {
  const { titles, detail } = text;
  const p = s.packets.get(e.round)!;
  const quorum = p.quorum ? ` — quorum ${p.quorum.need}/${p.quorum.of}` : "";
  const out = place.first ? [`## Round ${e.round}${roundLabel(e)}${quorum}`, ""] : [];
  if (e.member !== undefined) out.push(`### Reviewer ${e.member}`, "");
  const family = e.reviewer_family;
  const counted = `counted round ${e.counted_round} of ${p.cap}`;
  const scan = e.post_sentinel_scan === "n/a" ? "no result to scan" : e.post_sentinel_scan;
  out.push(
    `- reviewer_host: ${e.reviewer_host}${e.reviewer_model ? ` (${e.reviewer_model}, ${e.reviewer_family})` : ` (family ${family})`}; ` +
      `independence: ${e.independence}`,
  );
  if (e.verdict !== null || e.blocking_findings !== null)
    out.push(`- verdict: ${e.verdict ?? "none"}; blocking_findings: ${e.blocking_findings ?? "not counted"}; ${counted}`);
  else out.push(`- ${counted}`);
  if (detail?.summary) out.push(`- summary: ${detail.summary}`);
  out.push(`- state: ${e.state}`, timingLine(s, e.round));
  out.push(`- packet: ${e.packet}; result: ${e.result ?? "none"}; post_sentinel_scan: ${scan}`);
  out.push(...shaLines(e), gatePassLine(s, e));
  for (const d of e.dispatch ?? []) out.push(`- dispatch ${d}`);
  const sg = s.verdicts.get(e.round)?.score_gate;
  const scoreGate = sg?.positive ? "positive" : sg?.available ? "not positive" : "unavailable";
  if ((e.score ?? e.readiness ?? null) !== null)
    out.push(`- score: ${e.score ?? "n/a"}/10; readiness: ${e.readiness ?? "n/a"}; score gate: ${scoreGate}`);
  const listed = findingLines(detail, titles);
  if (listed.length) out.push("- findings:", ...listed);
  if (s.memories.has(e.round))
    out.push(`- reviewer memory: ${slotFile("memory", e.round, s.member)} (given back to the reviewer next round)`);
  if (!place.last) return [...out, ""];
  if (s.rebuttals.has(e.round)) out.push(`- author rebuttal: rebuttal-${e.round}.md (contests this round's findings)`);
  const esc = s.escalations.get(e.round);
  const failure = s.failures.get(e.round);
  if (esc)
    out.push(
      `- escalation: ${esc.reason} — ${failure && esc.detail === failure.reason ? "the failure above" : esc.detail} ` +
        `(options: ${esc.options.join(", ")})`,
    );
  const dec = s.decisions.get(e.round);
  if (dec)
    out.push(
      `- decision: ${dec.choice}${dec.extend_by ? ` ${dec.extend_by}` : ""}${dec.note ? ` — ${dec.note}` : ""} ` +
        `(by ${dec.decided_by}, ${clock(dec.at)})`,
    );
  if (s.resubmits.has(e.round)) out.push("- author resubmitted after this round");
  out.push("");
  return out;
}

export function renderTrail(
  s: GateSnapshot,
  entries: TrailEntry[],
  findings: Map<string, string[]>,
  decision: GateDecision,
  {
    details,
    unproven,
  }: {
    details?: Map<string, RoundDetail>;
    /** Why the outcome, a pass, does not re-derive from the gate's files (unprovenPass): then it is not shown as one. */
    unproven?: string | null;
  } = {},
): string {
  const out = [`# ${s.gate} Review Trail`, "", `- run: ${s.runId}`];
  if (s.request)
    out.push(
      `- artifact: ${s.request.artifact_path}`,
      `- author: ${s.request.author_host}${s.request.author_model ? ` (${s.request.author_model})` : ""}`,
    );
  const first = roundPacket(s, 1);
  // a quorum gate's first round names every member it selected
  if (first?.quorum)
    out.push(
      `- reviewer selection: quorum ${first.quorum.need}/${first.quorum.of}` +
        (first.quorum.families ? ` (families ${first.quorum.families.join(", ")})` : "") +
        `: ${roundPackets(s, 1)
          .map((p) => `${p.reviewer_provider} (${p.reviewer_family})`)
          .join(", ")}`,
    );
  else if (first) out.push(`- reviewer selection: ${first.selection_status} — ${first.selection_reason}`);
  if (s.request) out.push(`- requested: ${s.request.requested_at}`);
  out.push("");
  const text = shownLines(out.splice(0));
  entries.forEach((e, i) => {
    const place = { first: entries[i - 1]?.round !== e.round, last: entries[i + 1]?.round !== e.round };
    const listed = { titles: findings.get(e.packet), detail: details?.get(e.packet) };
    const v = e.member === undefined ? s : memberView(s, e.member);
    const r = e.round;
    // everything roundSection reads: a round none of these changed for is not rendered again
    const deps: unknown[] = [v.packets.get(r), v.attempts.get(r), v.verdicts.get(r), v.failures.get(r), v.memories.has(r)];
    deps.push(v.rebuttals.has(r), v.escalations.get(r), v.decisions.get(r), v.resubmits.has(r), listed.titles, listed.detail);
    deps.push(place.first, place.last);
    text.push(...sectionMemo(e, deps, () => Object.freeze(shownLines(roundSection(v, e, listed, place)))));
  });
  const esc0 = s.escalations.get(0);
  if (esc0)
    out.push(
      `## Before round 1`,
      "",
      `- escalation: ${esc0.reason} — ${esc0.detail}`,
      s.decisions.get(0) ? `- decision: ${s.decisions.get(0)!.choice}` : "- decision: pending",
      "",
    );
  if (s.rejected.length || s.problems.length) {
    out.push("## Rejected and invalid files", "");
    for (const r of s.rejected) out.push(`- rejected/${r.file}: ${r.reason}`);
    for (const p of s.problems) out.push(`- ${p.file}: ${p.reason}`);
    out.push("");
  }
  out.push("## Final disposition", "");
  if (s.outcome && unproven)
    out.push(
      `- status: unproven — outcome.json says ${s.outcome.status}, but that does not re-derive from the gate's files: ${unproven}`,
      "- not a pass: do not report it as one (`guild-bus status --verify` says why)",
    );
  else if (s.outcome) {
    const o = s.outcome;
    const last = entries.find((e) => e.round === o.final_round);
    const v = s.verdicts.get(o.final_round);
    out.push(
      `- status: ${o.status}`,
      `- reason: ${o.reason}`,
      `- independence: ${o.independence ?? "n/a"}`,
      `- family relation: author ${o.author_family}${o.author_family_source ? ` (${o.author_family_source})` : ""} ` +
        `vs ${o.quorum ? `reviewers ${o.quorum.members.map((m) => m.family).join(", ")}` : `reviewer ${o.reviewer_family ?? "n/a"}`}: ` +
        `${o.family_relation ?? "n/a"}`,
      `- identity assurance: ${o.identity_assurance ?? "n/a"}`,
      `- satisfied_at_round: ${o.satisfied_at_round ?? "n/a"}`,
      ...(o.quorum
        ? [
            `- quorum ${o.quorum.need}/${o.quorum.of}${o.quorum.families ? ` (families ${o.quorum.families.join(", ")})` : ""}: ` +
              o.quorum.members.map((m) => `${m.provider} (${m.family}${m.model ? `, ${m.model}` : ""})`).join(", "),
          ]
        : []),
      `- verifier_pass: ${last?.gate_pass ?? "n/a"}`,
    );
    if (v)
      out.push(
        `- conditions: ${Object.entries(v.gate_pass.conditions)
          .map(([k, b]) => `${k}=${b}`)
          .join(", ")}`,
      );
    if (v?.score_gate && (v.score_gate.score !== null || v.score_gate.readiness !== null))
      out.push(
        `- score_gate: ${v.score_gate.positive ? "positive" : v.score_gate.available ? "not positive" : "unavailable"} ` +
          `(score ${v.score_gate.score ?? "n/a"}, readiness ${v.score_gate.readiness ?? "n/a"})`,
      );
    out.push(`- current_artifact_sha256: ${o.artifact_sha256 ?? "n/a"}`);
  } else {
    out.push(`- open: ${decision.state} (round ${decision.round}) — ${decision.detail}`);
  }
  return [...text, ...shownLines(out)].join("\n") + "\n";
}

/**
 * Each entry is one line whatever a field holds: a title, model or reason cannot start a heading or a line of its own.
 * Read with cat: reviewers' text shows its control characters. Done per line, so a round's section is done once.
 */
function shownLines(lines: readonly string[]): string[] {
  return lines.map((line) => terminalSafe(oneLine(line)));
}
