// The broker worker owns the round loop of every active gate: read the gate, plan the step (core/broker-plan.ts),
// write what the plan built, repeat until the gate waits. Safe beside other brokers: delivery fences every write.
import { lstatSync } from "node:fs";
import { ProviderCache } from "../adapters/provider-cache.js";
import { ageMs } from "../bus/age.js";
import { artifactOrFault, gateArtifact } from "../bus/artifact.js";
import type { BusContext } from "../bus/context.js";
import { deliver, type DeliverResult } from "../bus/deliver.js";
import { DirectoryGone } from "../bus/make-dirs.js";
import { hasValidOutcome } from "../bus/gate-reader.js";
import { issuedNow, readGateLive } from "./issued-packets.js";
import { appendJsonl } from "../bus/jsonl.js";
import { Layout, movesAside } from "../bus/layout.js";
import { rejectFile, rejectPlace } from "../bus/reject.js";
import { planStep, stuck } from "../core/broker-plan.js";
import type { Action, GateDecision } from "../core/decide.js";
import { foreignGraceMs, openRound } from "../core/gate-queries.js";
import { holdsBoundBytes } from "../core/sent-bytes.js";
import { lostFamilyMaps } from "../core/packet-chain.js";
import { configuredProviders, type Provider } from "../core/selection.js";
import { type GateSnapshot, withPacket } from "../core/snapshot.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { GATES_IN_FLIGHT, type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import { Event, type Outcome, type PacketFrontMatter } from "../spec/schemas.js";
import { brokerInput } from "./gate-reads.js";
import { ReadFault } from "../core/read-fault.js";
import { TrailWriter } from "./trail-writer.js";
import { withAdvertised } from "../core/advertised.js";
import { liveAdverts } from "../runtime/peers.js";

export function createBroker(options: WorkerOptions): WorkerRuntime {
  const layout = new Layout(options.root);
  const providers = brokerProviders(layout, new ProviderCache(layout));
  const trails = new TrailWriter();
  const held = new Map<string, string>();
  return workerRuntime(
    "broker",
    options,
    async (ctx, { runId, gate }, _signal, log) => {
      const report = await stepGate(ctx, runId, gate, { providers: () => providers(ctx.settings), trails, log, held });
      for (const { action, result, name } of report.delivered) {
        if (result.status !== "delivered") continue;
        log(`${runId}/${gate}: ${describe(action, name)}`);
        const issued = action.type === "packet" && !action.inherit ? report.snapshot.packets.get(action.round) : undefined;
        // the seed's wording, so tools that grep for it keep working
        if (issued && issued.selection_status !== "selected")
          log(
            `warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); ` +
              `using WEAK same-host review (${issued.selection_reason})`,
          );
      }
      if (report.error) log(`${runId}/${gate}: ${report.error}`);
      return report.snapshot.outcome || report.decision.state === "done" ? "finished" : "active";
    },
    { concurrency: GATES_IN_FLIGHT, shareWork: true }, // several brokers on a tree split the gates (reconciler.ts, peers.ts)
  );
}

/**
 * The reviewers a broker selects from (SPEC §13): this machine's detection, with the providers live reviewer workers on
 * any machine say they run counted available. Read fresh at each selection: a reviewer worker that starts or stops
 * elsewhere counts at the next one.
 */
export function brokerProviders(layout: Layout, cache: Pick<ProviderCache, "get">) {
  return async (settings: BusContext["settings"]): Promise<Provider[]> => {
    const found = await cache.get(settings);
    return withAdvertised(
      found,
      liveAdverts(
        layout,
        found.filter((p) => !p.available).map((p) => p.adapter),
      ),
    );
  };
}

function describe(action: Action, name: string): string {
  if (action.type === "packet") {
    const restart = action.restart_reason ? `, ${action.restart_reason} of round ${action.restart_of}` : "";
    return `${name} issued (counted round ${action.counted_round}/${action.cap}${restart})`;
  }
  if (action.type === "escalation") return `escalation-${action.round}.json: ${action.reason} — ${action.detail}`;
  return `outcome: ${action.status} (${action.reason})`;
}

export interface StepReport {
  decision: GateDecision;
  snapshot: GateSnapshot;
  delivered: Array<{ action: Action; result: DeliverResult; name: string }>;
  error?: string;
}

export interface StepDeps {
  /** Detected reviewers, asked for only when a new selection needs them (detection probes binaries). */
  providers: () => Promise<Provider[]>;
  trails: TrailWriter;
  log: (message: string) => void;
  /**
   * Per gate directory, the last line said about a slot held by an invalid file: said once per version of the file,
   * not at every pass of its grace period (a worker's map; entries go when the gate delivers again).
   */
  held: Map<string, string>;
}

/** Advance one gate as far as it can go now. */
export async function stepGate(ctx: BusContext, runId: string, gate: string, deps?: Partial<StepDeps>): Promise<StepReport> {
  const {
    providers: detect = async () => configuredProviders(ctx.settings),
    trails = new TrailWriter(),
    log = () => {},
    held = new Map<string, string>(),
  } = deps ?? {};
  const delivered: StepReport["delivered"] = [];
  let providers: Provider[] | null = null;
  // a packet this step just delivered: planned from memory next, not read back (below)
  let justIssued: { s: GateSnapshot; packet: PacketFrontMatter } | null = null;
  for (let guard = 0; guard < 20; guard++) {
    let s: GateSnapshot;
    if (justIssued) s = withPacket(justIssued.s, justIssued.packet);
    else {
      s = readGateLive(ctx, runId, gate);
      const moved = await quarantine(ctx, s);
      if ((await restoreMaps(ctx, s, { held, log })) || moved) s = readGateLive(ctx, runId, gate);
    }
    const fromMemory = justIssued !== null;
    justIssued = null;
    const input = brokerInput(ctx, s, providers);
    let step = planStep(s, input);
    // After its own packet the gate usually waits for the reviewer: the trail says so without reading the gate back.
    // Anything else is planned from the files; and a file another writer drops meanwhile wakes this worker again.
    if (fromMemory && step.type !== "wait") continue;
    if (step.type === "select") {
      const asked = step;
      step = await detect().then(
        (found) => planStep(s, { ...input, providers: (providers = found) }),
        (error: unknown) => stuck(asked.decision, asked.decision.action!, error),
      );
    }
    if (step.type === "recheck") continue;
    if (step.type !== "write") {
      await trails.write(ctx, s, step.decision, input);
      // a select here would be a bug in the plan; it waits like stuck rather than loop
      return { decision: step.decision, snapshot: s, delivered, ...(step.type === "wait" ? {} : { error: step.decision.detail }) };
    }
    const ended = step.outcome
      ? {
          snapshot: { ...s, outcome: step.outcome },
          decision: { state: "done", round: step.action.round, action: null, detail: `outcome ${step.outcome.status}` } as const,
        }
      : null;
    let result: DeliverResult;
    try {
      // the trail shows the final disposition before anyone can see the outcome (SPEC §16)
      if (ended) await trails.write(ctx, ended.snapshot, ended.decision, input);
      // another broker may have ended the gate since this one read it: no packet after an outcome (SPEC §15)
      if (step.action.type === "packet" && hasValidOutcome(ctx.layout, runId, gate)) continue;
      // ...nor an outcome after another broker's next round, or on bytes the artifact no longer holds: the plan's
      // look at the gate and the artifact is as old as the trail write above, and the gate is planned again
      if (step.outcome && !outcomeStillHolds(ctx, s, step.outcome)) continue;
      // a packet's family maps are on disk before it is (first writer wins: equal maps are one file, SPEC §7)
      if (step.familyMaps && !s.familyMaps.has(step.familyMaps.sha)) {
        const maps = await deliver(ctx.layout.gateFile(runId, gate, step.familyMaps.name), step.familyMaps.text, {
          guildDir: ctx.layout.guild,
        });
        // the broker's own to move aside (quarantine), not a person's: the step is tried again until then
        if (maps.status === "conflict")
          throw new Error(
            `${step.familyMaps.name} holds other bytes than its name binds: moved to rejected/ once foreign_grace_ms has passed`,
          );
      }
      result = await deliver(ctx.layout.gateFile(runId, gate, step.name), step.text, { guildDir: ctx.layout.guild });
    } catch (error) {
      // tried again later, or the gate was removed meanwhile (the worker forgets it): neither is the gate's state
      if (error instanceof ReadFault || error instanceof DirectoryGone) throw error;
      const { decision } = stuck(step.decision, step.action, error);
      await trails.write(ctx, s, decision, input);
      return { decision: step.decision, snapshot: s, delivered, error: decision.detail };
    }
    delivered.push({ action: step.action, result, name: step.name });
    if (result.status === "delivered") held.delete(s.dir);
    if (result.status === "conflict") sayConflict(ctx, s, step, { held, log });
    if (result.status === "delivered") appendEvents(ctx, runId, step.events, log);
    if (result.status === "delivered" && step.packet) {
      issuedNow(ctx, step.text);
      const maps = step.familyMaps;
      justIssued = { s: maps ? { ...s, familyMaps: new Map(s.familyMaps).set(maps.sha, maps.maps) } : s, packet: step.packet };
    }
    // the gate has ended as its trail already says: nothing left to read or plan
    if (result.status === "delivered" && ended) return { ...ended, delivered };
    // Another writer holds the slot: its file is handled on the next pass (a racing broker's, or quarantined).
    if (result.status === "conflict") return { decision: step.decision, snapshot: s, delivered };
  }
  throw new Error(`gate ${runId}/${gate} did not settle`);
}

/**
 * Why a delivery found its slot taken. A valid file there is a racing broker's (planned again at once); an invalid one
 * read with the gate (a drop, an outcome restored over the real one) holds the slot until it is moved to rejected/ when
 * its grace period has passed (quarantine above), or, when it is not the broker's to move, until a person moves it:
 * the line says which and when, once per version of the file, rather than naming another broker at every pass.
 */
function sayConflict(
  ctx: BusContext,
  s: GateSnapshot,
  { action, name }: { action: Action; name: string },
  { held, log }: Pick<StepDeps, "held" | "log">,
): void {
  const where = `${s.runId}/${s.gate}`;
  const p = s.problems.find((problem) => problem.file === name && !problem.fault);
  if (!p || !sameVersion(`${s.dir}/${name}`, p.mtimeMs)) {
    log(`${where}: another broker already delivered ${action.type} for round ${action.round}; reloading`);
    return;
  }
  const key = `${name}\u0000${p.mtimeMs}\u0000${p.reason}`;
  if (held.get(s.dir) === key) return;
  held.set(s.dir, key);
  if (held.size > 10_000) held.delete(held.keys().next().value!);
  const moved = !p.blocks && !p.kept && movesAside("broker", name);
  const left = Math.ceil(Math.max(0, foreignGraceMs(ctx.settings) - ageMs(`${s.dir}/${name}`, p)) / 1000);
  log(
    `${where}: ${name} holds an invalid file (${p.reason}), not the ${action.type} for round ${action.round}; ` +
      (moved
        ? `it is moved to rejected/ in ~${left} s (foreign_grace_ms, from its mtime), then the gate is planned again`
        : `it is not the broker's to move aside: a person must (\`guild-bus status ${s.runId} ${s.gate}\` says why)`),
  );
}

/** Whether the file still has the mtime it was judged at (another broker may have moved it aside and delivered). */
function sameVersion(file: string, mtimeMs: number): boolean {
  try {
    return lstatSync(file).mtimeMs === mtimeMs;
  } catch {
    return false;
  }
}

/**
 * Whether an outcome planned from `s` may still be written now: no round was issued after the one it ends (a racing
 * broker's restart on an artifact edit: an outcome beside a later round never re-derives, and ends a gate nobody can
 * move again), and a pass still binds the bytes on disk. Read again right before the outcome's delivery.
 */
function outcomeStillHolds(ctx: BusContext, s: GateSnapshot, outcome: Outcome): boolean {
  const now = readGateLive(ctx, s.runId, s.gate);
  if (openRound(now) !== openRound(s)) return false;
  if (outcome.status !== "satisfied") return true;
  const artifact = artifactOrFault(gateArtifact(ctx.layout, ctx.settings, now));
  return holdsBoundBytes(outcome, artifact) === true;
}

/** Telemetry after a delivery: an events.jsonl that cannot be appended (a directory, a FIFO in its place) is logged,
 * never a failed step (the delivery stands, and the gate goes on). */
function appendEvents(ctx: BusContext, runId: string, events: Event[], log: (message: string) => void): void {
  try {
    for (const event of events) appendJsonl(ctx.layout.events(runId), event, Event);
  } catch (error) {
    log(
      `${runId}: ${ctx.layout.rel(ctx.layout.events(runId))} not appended (${(error as Error).message}); telemetry only, the gate goes on`,
    );
  }
}

/**
 * The family-maps files of the open round's packets that the gate lost (deleted, never landed), written again where
 * the maps the broker writes for the packet now are the bytes it binds (SPEC §7; first writer wins): no reviewer is
 * sent a packet without them, so the round goes on once they are back. A file of other bytes under the name is moved
 * aside first (quarantine); maps that are others now are a person's (the round escalates, issued-packets.ts).
 */
async function restoreMaps(ctx: BusContext, s: GateSnapshot, { held, log }: Pick<StepDeps, "held" | "log">): Promise<boolean> {
  const restored = new Set<string>();
  for (const { packet, restore } of lostFamilyMaps(s, ctx.settings)) {
    if (!restore || restored.has(restore.name)) continue; // quorum members issued under the same maps share the file
    const where = `${s.runId}/${s.gate}`;
    const d = await deliver(ctx.layout.gateFile(s.runId, s.gate, restore.name), restore.text, { guildDir: ctx.layout.guild });
    if (d.status !== "conflict") {
      restored.add(restore.name);
      log(`${where}: ${restore.name} written again, the family maps ${packet.packet_id} was issued under (the gate had lost it)`);
    } else if (held.get(s.dir) !== `${restore.name}\u0000restore`) {
      held.set(s.dir, `${restore.name}\u0000restore`);
      log(
        `${where}: ${restore.name} holds other bytes than the family maps ${packet.packet_id} was issued under: it is moved to ` +
          "rejected/ once foreign_grace_ms has passed, then written again; no reviewer is sent the round meanwhile",
      );
    }
  }
  return restored.size > 0;
}

/**
 * Invalid drops the broker answers for are moved to rejected/ with their reason once a foreign writer has had its
 * grace period to finish writing in place; nothing is deleted, and the slot is free again for a valid file.
 */
async function quarantine(ctx: BusContext, s: GateSnapshot): Promise<boolean> {
  let moved = false;
  for (const p of s.problems) {
    // a blocking or kept problem is a person's to settle (a packet a reviewer may have been paid for): never moved
    if (p.blocks || p.kept || !movesAside("broker", p.file) || ageMs(`${s.dir}/${p.file}`, p) < foreignGraceMs(ctx.settings)) continue;
    // only the version judged: a valid file may have taken the name since (another broker moved this one first)
    if (await rejectFile(s.dir, p.file, p.reason, rejectPlace(ctx), p)) moved = true;
  }
  return moved;
}
