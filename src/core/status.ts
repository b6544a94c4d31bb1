// What a person or a waiting author sees of a gate: its state and the seed's ReviewBrokerOutput shape.
import { isGate, isRunId } from "../spec/ids.js";
import { readdirSync } from "node:fs";
import path from "node:path";
import type { Difficulty, Outcome, StopPolicy, VerdictFile } from "../spec/schemas.js";
import type { BusContext } from "../bus/context.js";
import { contestable, type GateDecision, verdictPasses, waitExitCode } from "./decide.js";
import { NO_REQUEST_POLICY, resolvePolicy } from "./policy.js";
import { BUS_DIRS, type GateSnapshot, readGate } from "../bus/gate-reader.js";
import { decideGate, gateArtifact } from "../workers/broker-step.js";
import type { ArtifactState } from "../bus/artifact.js";

export interface ReviewBrokerOutput {
  status:
    | "satisfied" | "skipped" | "cap_hit" | "force_passed" | "extended" | "rework" | "no_verdict" | "unavailable" | "pending"
    | "stopped" | "checkpoint" | "refused" | "blocked" | "artifact_unusable";
  gate: string;
  run_id: string;
  author_host: string;
  reviewer_host: string | null;
  independence: "strong" | "weak" | null;
  rounds: number;
  trail_path: string;
  satisfied_at_round?: number;
  state: string;
  waiting_for: string;
  detail: string;
  last_verdict: string | null;
  round: number;
  /** The auto-review-loop modes in force (bus-spec/SPEC.md §21). */
  modes: { stop: StopPolicy; difficulty: Difficulty; human_checkpoint: boolean };
}

export interface GateView {
  snapshot: GateSnapshot;
  /** The artifact as it is now (SPEC §10). */
  artifact: ArtifactState;
  decision: GateDecision;
  output: ReviewBrokerOutput;
  exitCode: number | null;
}

const WAITING_FOR: Record<string, string> = {
  no_request: "a request", done: "nothing", broker: "the broker", reviewing: "the reviewer", dispatched: "the reviewer",
  normalizing: "the manual worker", verifying: "the verifier", awaiting_author: "the author (revise, then `guild-bus resubmit`)",
  awaiting_decision: "a human decision (`guild-bus decide`)",
};

/** What a waiting gate asks for, where the modes add a choice. */
function waitingFor(s: GateSnapshot, d: GateDecision, rebuttable: boolean): string {
  const blocked = s.problems.find((p) => p.file === "." || BUS_DIRS.has(p.file));
  if (blocked && d.state !== "done") return `a human: ${blocked.file === "." ? "the gate directory" : blocked.file} — ${blocked.reason}`;
  if (d.state === "awaiting_author" && rebuttable) return "the author (revise, then `guild-bus resubmit`; or contest the findings once with `guild-bus rebut`)";
  if (d.state === "awaiting_decision" && s.escalations.get(d.round)?.reason === "human_checkpoint") {
    return "a human checkpoint (`guild-bus decide <run> <gate> continue|stop|rework [--note \"instructions\"]`)";
  }
  return WAITING_FOR[d.state] ?? d.state;
}

function statusOf(s: GateSnapshot, d: GateDecision): ReviewBrokerOutput["status"] {
  if (s.outcome) return s.outcome.status;
  if (d.state === "awaiting_author") return s.decisions.get(d.round)?.choice === "extend-cap" ? "extended" : "rework";
  if (d.state === "awaiting_decision") {
    const reason = s.escalations.get(d.round)?.reason;
    if (reason === "unavailable") return "unavailable";
    if (reason === "no_verdict" || reason === "identity_unverified" || reason === "score_unavailable") return "no_verdict";
    if (reason === "human_checkpoint") return "checkpoint";
    if (reason === "request_refused") return "refused";
    if (reason === "codex_skip_blocked") return "blocked";
    if (reason === "artifact_missing" || reason === "artifact_too_large" || reason === "artifact_not_text" || reason === "scrub_failed") return "artifact_unusable";
    return "cap_hit";
  }
  return "pending";
}

/** "issues (gate not passed; score 5/10, not ready)": the verdict under the stop policy in force. */
function lastVerdict(v: VerdictFile, stop: StopPolicy): string {
  const score = v.score_gate && (v.score_gate.score !== null || v.score_gate.readiness !== null)
    ? `; score ${v.score_gate.score ?? "?"}/10, ${v.score_gate.readiness ?? "no readiness"}`
    : "";
  const rulings = v.rulings ? `; ${v.rulings.upheld} upheld, ${v.rulings.withdrawn} withdrawn` : "";
  return `${v.result_verdict} (gate ${verdictPasses(v, stop) ? "passed" : "not passed"}${score}${rulings})`;
}

/** An outcome describes the bytes it ended on; say so when the artifact is no longer those bytes (SPEC §17). */
function outcomeDetail(o: Outcome, now: ArtifactState): string {
  const base = `outcome ${o.status}`;
  if (o.artifact_sha256 === null) return base;
  if (!now.ok) return `${base} for sha ${o.artifact_sha256}; the artifact is now unreadable (${now.detail})`;
  return now.sha === o.artifact_sha256 ? base : `${base} for sha ${o.artifact_sha256}; the artifact is now ${now.sha} (changed since)`;
}

export function viewGate(ctx: BusContext, runId: string, gate: string): GateView {
  const s = readGate(ctx.layout, runId, gate);
  const artifact = gateArtifact(ctx, s);
  const d = decideGate(ctx, s, () => artifact);
  const policy = s.request ? resolvePolicy(s.request, ctx.settings) : NO_REQUEST_POLICY;
  const R = Math.max(0, ...s.packets.keys());
  const p = s.packets.get(R);
  const v = s.verdicts.get(R);
  const rounds = [...s.packets.values()].reduce((n, x) => Math.max(n, x.counted_round), 0);
  const output: ReviewBrokerOutput = {
    status: statusOf(s, d),
    gate,
    run_id: runId,
    author_host: s.request?.author_host ?? "unknown",
    reviewer_host: s.outcome?.reviewer_host ?? p?.reviewer_provider ?? null,
    independence: s.outcome?.independence ?? (v?.independence_violation ? "weak" : p?.independence ?? null),
    rounds,
    trail_path: ctx.layout.rel(ctx.layout.gateFile(runId, gate, "trail.md")),
    ...(s.outcome?.satisfied_at_round ? { satisfied_at_round: s.outcome.satisfied_at_round } : {}),
    state: d.state,
    waiting_for: waitingFor(s, d, contestable(s, policy.difficulty, d.round) && !s.rebuttals.has(d.round)),
    detail: s.outcome ? outcomeDetail(s.outcome, artifact) : d.detail,
    last_verdict: v ? lastVerdict(v, policy.stop) : null,
    round: d.round,
    modes: { stop: policy.stop, difficulty: policy.difficulty, human_checkpoint: policy.humanCheckpoint },
  };
  return { snapshot: s, artifact, decision: d, output, exitCode: waitExitCode(s, d) };
}

export interface GateListing {
  gates: Array<{ runId: string; gate: string }>;
  /** Entries under .guild/runs the workers ignore, and why. */
  ignored: Array<{ path: string; reason: string }>;
}

/** Every (run, gate) on disk, optionally narrowed to one run, and what the workers ignore there. */
export function listGates(ctx: BusContext, runFilter?: string): GateListing {
  const out: GateListing = { gates: [], ignored: [] };
  const { layout } = ctx;
  let runs: string[] = [];
  try {
    runs = runFilter ? [runFilter] : readdirSync(layout.runs).sort();
  } catch {
    return out;
  }
  const refuse = (p: string, reason: string) => out.ignored.push({ path: p, reason });
  for (const runId of runs) {
    const runPath = `.guild/runs/${runId}`;
    if (!isRunId(runId)) {
      refuse(runPath, "not a valid run id (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, no '..')");
      continue;
    }
    try {
      layout.assertNoSymlinks(layout.runDir(runId));
    } catch (error) {
      refuse(runPath, (error as Error).message);
      continue;
    }
    let gates: string[] = [];
    try {
      gates = readdirSync(path.join(layout.runDir(runId), "review")).sort();
    } catch {
      continue;
    }
    for (const gate of gates) {
      if (!isGate(gate)) {
        refuse(`${runPath}/review/${gate}`, "not a gate (G-init G-spec G-plan G-quality G-operations G-diagnose or G-lane:<id>)");
        continue;
      }
      try {
        layout.assertNoSymlinks(layout.gateDir(runId, gate));
      } catch (error) {
        refuse(`${runPath}/review/${gate}`, (error as Error).message);
        continue;
      }
      out.gates.push({ runId, gate });
    }
  }
  return out;
}
