// `guild-bus check`: for CI and git hooks, re-derive from the files that each gate passed for the artifact bytes now
// in the tree — the outcome, the five conditions of its round (reverify), and strong independence unless allowed
// weak. Files are evidence, not a verdict: an outcome that does not re-derive fails like a missing one.
import { redactedNote } from "../core/artifact-view.js";
import { type BusContext, contextToAct } from "../bus/context.js";
import { settingsRefusal } from "../bus/settings-file.js";
import { wholeOrFault } from "../bus/gate-reader.js";
import { listGates } from "../bus/gate-list.js";
import { assertGate, assertRunId, InvalidIdError } from "../spec/ids.js";
import { reviewerViews } from "../core/snapshot.js";
import { verdictBlocks } from "../core/verdict-pass.js";
import type { Outcome } from "../spec/schemas.js";
import { type Answer, refuse, refusing } from "./answer.js";
import { assertGateExists } from "./gate-exists.js";
import { lineSafe } from "../core/terminal-safe.js";
import { modelSourceWords } from "../core/independence.js";
import { isoTimeMs } from "../core/iso-time.js";
import { type GateView, reverifyGate, viewGate } from "./gate-view.js";

export interface CheckOptions {
  runId?: string;
  /** Only these gate names (default: every gate). */
  gates?: string[];
  /** Gate names that must be among the checked gates and pass. */
  require: string[];
  /** `GATE=GLOB`: every file of the tree the glob matches must be the artifact of a checked gate of that name that passes. */
  requireFiles?: string[];
  allowWeak?: boolean;
  allowForcePass?: boolean;
}

export interface CheckedGate {
  run_id: string;
  gate: string;
  artifact_path: string | null;
  passed: boolean;
  reason: string;
}

/** A run or gate directory the bus refuses (a link in its place): it may hold the newest run, so it fails the check. */
export interface UnjudgedEntry {
  path: string;
  reason: string;
}

/** A file a `--require-files` glob matches that no checked gate of its gate name reviewed (`path` null: the glob
 * matched no file, and a misspelt glob must not require nothing). */
export interface UnreviewedFile {
  gate: string;
  pattern: string;
  path: string | null;
}

export type CheckResult = Answer<{
  passed: boolean;
  gates: CheckedGate[];
  missing: string[];
  unreviewed: UnreviewedFile[];
  unjudged: UnjudgedEntry[];
  lines: string[];
}>;

/** What `check --json` prints: every reason the check failed has its field, so a reader of the JSON alone never sees
 * each gate passed, nothing missing, and `passed: false` with no why. */
export function checkJson(r: Extract<CheckResult, { ok: true }>) {
  return { passed: r.passed, gates: r.gates, missing: r.missing, unreviewed: r.unreviewed, unjudged: r.unjudged };
}

/** `GATE=GLOB` split and checked; a malformed one is refused before anything is judged. */
function fileRequirement(spec: string): { gate: string; pattern: string } {
  const at = spec.indexOf("=");
  if (at < 0) throw new InvalidIdError("file requirement (expected GATE=GLOB, e.g. G-spec=docs/specs/*.md)", spec);
  return { gate: assertGate(spec.slice(0, at).trim()), pattern: spec.slice(at + 1) };
}

/** The files each requirement's glob matches that no checked gate of its name has as its artifact. */
async function unreviewedFiles(
  ctx: BusContext,
  required: Array<{ gate: string; pattern: string }>,
  gates: CheckedGate[],
): Promise<UnreviewedFile[]> {
  if (!required.length) return [];
  const { projectFiles } = await import("../bus/tree-files.js"); // the glob's modules: only for a check that needs them
  return required.flatMap(({ gate, pattern }): UnreviewedFile[] => {
    const files = projectFiles(ctx.layout, pattern);
    if (!files.length) return [{ gate, pattern, path: null }];
    const reviewed = (g: CheckedGate, f: string) => g.artifact_path !== null && ctx.layout.projectPath(g.artifact_path) === f;
    return files.filter((f) => !gates.some((g) => g.gate === gate && reviewed(g, f))).map((path) => ({ gate, pattern, path }));
  });
}

/** Why an ended gate does not count as passed for the bytes now in the tree, or null when it does. */
function failure(ctx: BusContext, view: GateView, o: CheckOptions): string | null {
  const outcome = view.snapshot.outcome;
  // a gate file the bus refused (an outcome.json it cannot read, say) is named: in CI no worker will ever move the gate,
  // and "broker — pass" alone reads as a pass on its way
  if (!outcome) return `not ended: ${view.decision.state} — ${view.decision.detail}${invalidFiles(view)}`;
  if (outcome.status === "force_passed" && !o.allowForcePass)
    return "force-passed by a human decision (allow with --allow-force-pass, `allow_force_pass` over MCP)";
  if (outcome.status !== "satisfied" && outcome.status !== "force_passed") return `ended ${outcome.status}: ${outcome.reason}`;
  const verify = reverifyGate(ctx, view);
  if (verify && !verify.ok) return `the outcome does not re-derive from the files: ${verify.problems.join("; ")}`;
  if (outcome.status === "satisfied" && outcome.independence !== "strong" && !o.allowWeak)
    return `independence ${outcome.independence ?? "unknown"}, not strong (allow with --allow-weak, \`allow_weak\` over MCP)`;
  return null;
}

/** "; invalid: outcome.json: …" for the gate files the bus refused to read (the first three, and how many more). */
function invalidFiles(view: GateView): string {
  const { problems } = view.snapshot;
  if (!problems.length) return "";
  const named = problems.slice(0, 3).map((p) => `${p.file}: ${p.reason}`);
  return `; invalid: ${named.join("; ")}${problems.length > 3 ? `; and ${problems.length - 3} more (guild-bus status lists them)` : ""}`;
}

/** ", quorum 2/3: codex (openai), gem (google)" for a quorum gate's outcome. */
function quorumWords(o: Outcome): string {
  if (!o.quorum) return "";
  return `, quorum ${o.quorum.need}/${o.quorum.of}: ${o.quorum.members.map((m) => `${m.provider} (${m.family})`).join(", ")}`;
}

/** Who passed it: a human's force-pass names no reviewer's independence (no review passed it). */
function passedBy(o: Outcome): string {
  return o.status === "force_passed" ? "by a human decision" : `independence ${o.independence ?? "n/a"}${quorumWords(o)}`;
}

/**
 * "; reviewer model …" when the reviewer did not report its model itself (a command's declared model, a manual round's
 * word, a foreign result): "independence strong" rests on that word, and a CI reader should see whose word it is.
 */
function identityWords(o: Outcome): string {
  const known = o.identity_assurance;
  if (o.status !== "satisfied" || !known || known.split("; ").every((part) => /(^|: )reported$/.test(part))) return "";
  return `; reviewer model ${modelSourceWords(known)}`;
}

/**
 * Without --run, the newest run of each (gate, artifact): an older run of the same artifact is history, not the state.
 * A run whose requested_at names no time (SPEC §0: parseIsoTime) cannot be placed: it is checked, and hides no other.
 */
function newestPerArtifact(ctx: BusContext, views: GateView[]): GateView[] {
  const newest = new Map<string, { at: number; runs: GateView[] }>();
  const unplaced: GateView[] = [];
  for (const v of views) {
    const at = isoTimeMs(v.snapshot.request?.requested_at);
    if (at === null) {
      unplaced.push(v);
      continue;
    }
    const artifact = v.snapshot.request ? ctx.layout.projectPath(v.snapshot.request.artifact_path) : v.snapshot.runId;
    const key = `${v.snapshot.gate}\0${artifact}`;
    const held = newest.get(key);
    if (!held || at > held.at) newest.set(key, { at, runs: [v] });
    // runs equally new are all checked: neither hides the other
    else if (at === held.at) held.runs.push(v);
  }
  return [...[...newest.values()].flatMap((n) => n.runs), ...unplaced];
}

/**
 * The runs judged: the newest of each (gate, artifact), and every other run whose reviewer blocked the bytes now in
 * the tree (`verdictBlocks`: a blocking finding, or a contested one it upheld). "Newest" rests on a clock the writer of
 * request.json chose: a later run that blocked these very bytes is judged whatever its requested_at says, so an older
 * pass cannot hide it. A run abandoned before any verdict, or an earlier weak pass, is history as before.
 */
function runsToJudge(ctx: BusContext, views: GateView[]): GateView[] {
  const chosen = new Set(newestPerArtifact(ctx, views));
  const blockedNow = (v: GateView) => {
    const now = v.artifact.ok ? v.artifact.sha : null;
    if (now === null) return false;
    // in the bytes its reviewer reviewed, whether the verifier read them so or already edited
    return reviewerViews(v.snapshot).some((r) =>
      [...r.verdicts.values()].some(
        (d) => verdictBlocks(d) && (d.gate_pass.recomputed_sha256 === now || d.artifact_sha256_reviewed === now),
      ),
    );
  };
  return views.filter((v) => chosen.has(v) || blockedNow(v));
}

export function checkGates(ctx: BusContext, o: CheckOptions): Promise<CheckResult> {
  return refusing(async (): Promise<CheckResult> => {
    // a verdict for CI is never reached on settings the project did not write: a key dropped for one bad value (or a
    // file that does not parse) leaves defaults in its place, which may pass what the project's settings fail. The
    // CLI refused them before it got here; every other face (the MCP tool) is refused here, the same way
    const refusal = settingsRefusal(ctx.layout, ctx.settingsProblems);
    if (refusal) return refuse(`${refusal}; no gate was judged — fix the settings first`);
    const runId = o.runId === undefined ? undefined : assertRunId(o.runId);
    if (runId !== undefined) assertGateExists(ctx.layout, runId);
    const byFile = (o.requireFiles ?? []).map(fileRequirement);
    const wanted = new Set<string>([...(o.gates ?? []), ...o.require, ...byFile.map((r) => r.gate)].map((g) => assertGate(g)));
    const listing = listGates(ctx.layout, runId);
    // a run or gate of a valid name the workers refuse (a link, say) cannot be judged: it could hold the newest run
    const unjudged = listing.ignored.filter((i) => i.hides && (i.hides.gate === undefined || !wanted.size || wanted.has(i.hides.gate)));
    const views = listing.gates.filter((r) => !wanted.size || wanted.has(r.gate)).map((r) => viewGate(contextToAct(ctx), r.runId, r.gate));
    // a verdict for CI: never on default settings, nor on a gate the system failed to read whole
    for (const v of views) wholeOrFault(v.snapshot);
    const chosen = runId ? views : runsToJudge(ctx, views);
    const gates = chosen.map((v): CheckedGate => {
      const reason = failure(ctx, v, o);
      const redacted = redactedNote(v.artifact);
      const out = v.snapshot.outcome;
      return {
        run_id: v.snapshot.runId,
        gate: v.snapshot.gate,
        artifact_path: v.snapshot.request?.artifact_path ?? null,
        passed: reason === null,
        reason:
          reason ??
          `${out!.status} at round ${out!.final_round}, ${passedBy(out!)}, artifact unchanged${identityWords(out!)}` +
            (redacted ? `; ${redacted}` : ""),
      };
    });
    const missing = o.require.filter((g) => !gates.some((c) => c.gate === g));
    const unreviewed = await unreviewedFiles(ctx, byFile, gates);
    const inRun = runId ? ` ${runId}` : "";
    const lines = [
      // one line per gate: an artifact path or reason from a planted file cannot print a PASS line of its own
      ...gates.map((g) => lineSafe(`${g.passed ? "PASS" : "FAIL"} ${g.run_id} ${g.gate} ${g.artifact_path ?? "-"}: ${g.reason}`)),
      ...missing.map((g) => `FAIL ${g}: required, but no run${inRun} has this gate`),
      ...unreviewed.map((u) =>
        lineSafe(
          u.path === null
            ? `FAIL ${u.gate}=${u.pattern}: no file in the tree matches it (a misspelt pattern would require nothing)`
            : `FAIL ${u.gate} ${u.path}: required by ${u.gate}=${u.pattern}, but no run${inRun} reviewed this file at this gate`,
        ),
      ),
      ...unjudged.map((i) => lineSafe(`FAIL ${i.path}: cannot be judged (${i.reason}); move it aside or make it a directory`)),
    ];
    if (!lines.length) lines.push("FAIL no gates to check under .guild/runs");
    const passed = gates.length > 0 && !missing.length && !unreviewed.length && !unjudged.length && gates.every((g) => g.passed);
    return { ok: true, passed, gates, missing, unreviewed, unjudged: unjudged.map((i) => ({ path: i.path, reason: i.reason })), lines };
  });
}
