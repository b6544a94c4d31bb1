// What a person or a waiting author sees of a gate: its state and the seed's ReviewBrokerOutput shape.
import { isGate, isRunId } from "../spec/ids.js";
import { readdirSync } from "node:fs";
import path from "node:path";
import type { BusContext } from "../worker/context.js";
import { type GateDecision, waitExitCode } from "./decide.js";
import { type GateSnapshot, readGate } from "./snapshot.js";
import { decideGate } from "./step.js";

export interface ReviewBrokerOutput {
  status: "satisfied" | "skipped" | "cap_hit" | "force_passed" | "extended" | "rework" | "no_verdict" | "unavailable" | "pending";
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
}

export interface GateView {
  snapshot: GateSnapshot;
  decision: GateDecision;
  output: ReviewBrokerOutput;
  exitCode: number | null;
}

const WAITING_FOR: Record<string, string> = {
  no_request: "a request", done: "nothing", broker: "the broker", reviewing: "the reviewer", dispatched: "the reviewer",
  normalizing: "the manual worker", verifying: "the verifier", awaiting_author: "the author (revise, then `guild-bus resubmit`)",
  awaiting_decision: "a human decision (`guild-bus decide`)",
};

function statusOf(s: GateSnapshot, d: GateDecision): ReviewBrokerOutput["status"] {
  if (s.outcome) return s.outcome.status;
  if (d.state === "awaiting_author") return s.decisions.get(d.round)?.choice === "extend-cap" ? "extended" : "rework";
  if (d.state === "awaiting_decision") {
    const reason = s.escalations.get(d.round)?.reason;
    if (reason === "unavailable") return "unavailable";
    if (reason === "no_verdict" || reason === "identity_unverified") return "no_verdict";
    return "cap_hit";
  }
  return "pending";
}

export function viewGate(ctx: BusContext, runId: string, gate: string): GateView {
  const s = readGate(ctx.layout, runId, gate);
  const d = decideGate(ctx, s);
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
    waiting_for: WAITING_FOR[d.state] ?? d.state,
    detail: d.detail,
    last_verdict: v ? `${v.result_verdict} (gate ${v.gate_pass.pass ? "passed" : "not passed"})` : null,
    round: d.round,
  };
  return { snapshot: s, decision: d, output, exitCode: waitExitCode(s, d) };
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
