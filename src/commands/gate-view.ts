// A gate as `status`, `wait` and the author commands see it: read from disk, decided by the core, described.
import { gateArtifact } from "../bus/artifact.js";
import type { BusContext } from "../bus/context.js";
import { readGate, resultBytes } from "../bus/gate-reader.js";
import type { ArtifactState, ArtifactView } from "../core/artifact-view.js";
import { decideGate, type GateDecision, waitExitCode } from "../core/decide.js";
import { gatePolicy } from "../core/gate-queries.js";
import { runningSupervisor } from "../runtime/supervisor-lock.js";
import { liveAdverts, stuckOn, unresponsiveWorkers, workerRunning } from "../runtime/peers.js";
import { nextStep, type NextStep, SUPERVISOR_START_MS } from "../core/next-step.js";
import { type Reverification, type ReverifyInput, reverifyOutcome, unprovenPass } from "../core/reverify.js";
import type { GateSnapshot } from "../core/snapshot.js";
import { gateStatus, type ReviewBrokerOutput } from "../core/status.js";
import { ReadFault } from "../core/read-fault.js";
import { withoutUnissued } from "../workers/issued-packets.js";
import { refusedWriteIn } from "../bus/refused-write.js";
import { existsSync } from "node:fs";
import path from "node:path";

/** A gate in review as its workers see it: an open round's packet that is not the broker's is a problem, not a round. */
function asWorkersSee(ctx: BusContext, s: GateSnapshot): GateSnapshot {
  if (s.outcome) return s;
  try {
    return withoutUnissued(ctx, s);
  } catch (error) {
    if (error instanceof ReadFault) return s; // a read the system failed: shown as read, as every other fault is
    throw error;
  }
}

export interface GateView {
  snapshot: GateSnapshot;
  /** The artifact as it is now (SPEC §10). */
  artifact: ArtifactState;
  decision: GateDecision;
  output: ReviewBrokerOutput;
  /** Who must act now and how (the same words in status, wait and the console). */
  next: NextStep;
  exitCode: number | null;
  /** Why an ended gate's pass does not re-derive from its files (a hand-written outcome), when it does not. */
  unproven?: string;
}

/** `read`, asked once per kind. */
function perKind<T>(read: (kind: string) => T): (kind: string) => T {
  const seen = new Map<string, T>();
  return (kind) => {
    if (!seen.has(kind)) seen.set(kind, read(kind));
    return seen.get(kind)!;
  };
}

export function viewGate(ctx: BusContext, runId: string, gate: string): GateView {
  const s = asWorkersSee(ctx, readGate(ctx.layout, runId, gate));
  const artifact = gateArtifact(ctx.layout, ctx.settings, s);
  const decision = decideGate(s, ctx.settings, { codexSkip: ctx.codexSkip, artifact: () => artifact });
  const trailPath = ctx.layout.rel(ctx.layout.gateFile(runId, gate, "trail.md"));
  const output = gateStatus(s, decision, artifact, gatePolicy(s, ctx.settings), trailPath);
  // the next step asks of a kind's presence files several times (each reviewer, each rule): read once per view
  const adverts = perKind((kind) => liveAdverts(ctx.layout, [kind]));
  const workers = {
    running: perKind((kind) => workerRunning(ctx.layout, kind)),
    servedBy: (kind: string, provider: string) => adverts(kind).filter((a) => a.providers.includes(provider)),
    advertising: adverts,
    unresponsive: perKind((kind) => unresponsiveWorkers(ctx.layout, kind)),
    stuckOn: (kind: string, run: string, gateName: string) => stuckOn(ctx.layout, kind, run, gateName),
    supervisedFor: () => {
      const up = runningSupervisor(ctx.layout);
      const since = up ? Date.parse(up.started_at) : NaN;
      if (up === null) return null;
      const ran = Date.now() - since;
      // a start further ahead of this clock than the start-up time is no start to wait on (another machine's clock, or
      // this one stepped back): the missing worker is named now, not once this clock has caught up with it
      return Number.isNaN(ran) || ran < -SUPERVISOR_START_MS ? Infinity : Math.max(0, ran);
    },
  };
  const next = withRefusedWrite(
    ctx,
    runId,
    gate,
    decision,
    nextStep(s, decision, ctx.layout.rel(ctx.layout.gateDir(runId, gate)), artifact, workers),
  );
  const view = { snapshot: s, artifact, decision, output, next, exitCode: waitExitCode(s, decision, artifact) };
  // a pass (satisfied, force_passed, skipped) is reported (wait's 0, the MCP tools, the stop hook) only while it
  // re-derives from the gate's files: an outcome.json dropped by hand is not one. A pass of bytes the artifact no
  // longer holds (2) is judged at the bytes its round sent: said as a pass of other bytes only when it was one.
  const unproven = s.outcome && unprovenPass(s, reverifyInput(ctx, s, view.artifact));
  if (unproven) {
    // the row never shows the outcome's own word: a script reading `status` must not see a pass (nor its round)
    const { satisfied_at_round: _claimed, ...output } = view.output;
    return {
      ...view,
      output: {
        ...output,
        status: "unproven",
        state: "unproven",
        waiting_for: "human",
        detail: `outcome.json says ${s.outcome!.status}, but that does not re-derive from the gate's files: ${unproven}`,
      },
      unproven,
      exitCode: 2,
      next: {
        ...next,
        waiting_on:
          `a human: the outcome does not re-derive from the gate's files (${unproven}); do not report it as passed ` +
          "(`guild-bus status --verify` says why)",
        command: null,
        person_first: true,
      },
    };
  }
  return view;
}

/** The gate's state and detail on one line: a pass that does not re-derive as the row says it (unproven), never the file's word. */
export const stateWords = (view: GateView): string =>
  view.unproven ? `${view.output.state} — ${view.output.detail}` : `${view.decision.state} — ${view.decision.detail}`;

/**
 * A gate a worker moves, whose directory (or the staging one) the system refuses writes in: the workers keep what they
 * could not write and try again, but only a person can make the write work (SPEC §5).
 */
function withRefusedWrite(ctx: BusContext, runId: string, gate: string, d: GateDecision, next: NextStep): NextStep {
  if (["done", "no_request", "awaiting_decision", "awaiting_author"].includes(d.state)) return next; // a person's turn already
  const { layout } = ctx;
  const tmp = path.join(layout.guild, "tmp");
  const refused = refusedWriteIn([layout.gateDir(runId, gate), existsSync(tmp) ? tmp : layout.guild], (p) => layout.rel(p));
  return refused
    ? { ...next, waiting_on: `a person: ${refused}; the workers keep what they could not write and try again`, person_first: true }
    : next;
}

/** `status --verify`: an ended gate's outcome re-derived from its files (SPEC §17); null for an open gate. */
export function reverifyGate(ctx: BusContext, view: GateView): Reverification | null {
  return reverifyOutcome(view.snapshot, reverifyInput(ctx, view.snapshot, view.artifact));
}

function reverifyInput(ctx: BusContext, s: GateSnapshot, artifact: ArtifactView): Omit<ReverifyInput, "requiredNow"> {
  return {
    settings: ctx.settings,
    policy: gatePolicy(s, ctx.settings),
    artifact,
    resultBytes: (n, member) => resultBytes({ dir: s.dir, member }, n),
  };
}
