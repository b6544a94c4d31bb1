// The judging half of `guild-bus check` (check.ts lists what there is to judge): which runs count, and whether each
// passed for the artifact bytes now in the tree. Loaded only when there is a gate to judge.
import { redactedNote } from "../core/artifact-view.js";
import { type BusContext, contextToAct } from "../bus/context.js";
import { wholeOrFault } from "../bus/gate-reader.js";
import { reviewerViews } from "../core/snapshot.js";
import { verdictBlocks } from "../core/verdict-pass.js";
import type { Outcome } from "../spec/schemas.js";
import { modelSourceWords } from "../core/independence.js";
import { isoTimeMs } from "../core/iso-time.js";
import { type GateView, reverifyGate, viewGate } from "./gate-view.js";

export interface CheckedGate {
  run_id: string;
  gate: string;
  artifact_path: string | null;
  passed: boolean;
  reason: string;
}

/** What may pass besides a satisfied gate of strong independence (check.ts's CheckOptions). */
export interface JudgeOptions {
  allowWeak?: boolean;
  allowForcePass?: boolean;
}

/** Why an ended gate does not count as passed for the bytes now in the tree, or null when it does. */
function failure(ctx: BusContext, view: GateView, o: JudgeOptions): string | null {
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

/** The listed gates judged: with `runId`, every one of them; without, the runs `runsToJudge` chooses. */
export function judgeGates(
  ctx: BusContext,
  listed: Array<{ runId: string; gate: string }>,
  runId: string | undefined,
  o: JudgeOptions,
): CheckedGate[] {
  const views = listed.map((r) => viewGate(contextToAct(ctx), r.runId, r.gate));
  // a verdict for CI: never on default settings, nor on a gate the system failed to read whole
  for (const v of views) wholeOrFault(v.snapshot);
  const chosen = runId ? views : runsToJudge(ctx, views);
  return chosen.map((v): CheckedGate => {
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
}
