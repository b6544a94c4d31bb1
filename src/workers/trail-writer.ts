// trail.md as the broker keeps it: rewritten when the gate or the decision changed since this broker last wrote it.
// While machines drive a gate its trail is rewritten at most every TRAIL_PACE_MS, the last state always written (a
// long chain rewrote the whole file at every step), and such paced writes of all gates are scheduled TRAIL_GAP_MS
// apart (a burst of gates rewrote each trail three times in two rounds, a fifth of the broker's CPU); a gate that
// ended or waits for a person is written at once, so the trail never lags an outcome, an escalation or a question to
// the author.
import { existsSync } from "node:fs";
import path from "node:path";
import type { BusContext } from "../bus/context.js";
import { hasValidOutcome } from "../bus/gate-reader.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { replace } from "../bus/replace.js";
import { type TrailInput, trailText } from "../core/broker-plan.js";
import type { GateDecision, GateStateName } from "../core/decide.js";
import type { GateSnapshot } from "../core/snapshot.js";

export const TRAIL_PACE_MS = 250;
/** Paced writes of all gates, one broker: at most 50 a second, so under a burst rounds go first and trails catch up. */
export const TRAIL_GAP_MS = 20;
/**
 * States where the gate waits for a worker: its trail may lag by up to TRAIL_PACE_MS. Not "broker": a trail written
 * in that state says why the broker could not act (an error), which is written at once.
 */
const MACHINE_STATES = new Set<GateStateName>(["reviewing", "dispatched", "normalizing", "verifying"]);

interface Job {
  ctx: BusContext;
  s: GateSnapshot;
  d: GateDecision;
  input: TrailInput;
  stamp: string;
}

interface GateTrail {
  /** Whether this broker wrote the gate's trail since it started (then every new state is written as is). */
  written: boolean;
  /** The state last asked for (written, being written or due): asking for it again asks for nothing. */
  wanted: string | null;
  writtenAt: number;
  due: Job | null;
  timer: NodeJS.Timeout | null;
  /** Writes of this gate's trail, one after another in the order they were asked for. */
  writing: Promise<void>;
}

export class TrailWriter {
  private readonly gates = new Map<string, GateTrail>();
  /** When the next paced write of any gate may start (monotonic ms): each one scheduled takes the slot it is given. */
  private nextSlot = 0;

  async write(ctx: BusContext, s: GateSnapshot, d: GateDecision, input: TrailInput): Promise<void> {
    const key = `${s.runId}\u0000${s.gate}`;
    const job = { ctx, s, d, input, stamp: `${s.fingerprint}#${d.state}#${d.detail}` };
    let gate = this.gates.get(key);
    const firstLook = !gate;
    if (!gate)
      this.gates.set(key, (gate = { written: false, wanted: null, writtenAt: 0, due: null, timer: null, writing: Promise.resolve() }));
    if (gate.wanted === job.stamp) return;
    gate.wanted = job.stamp;
    if (s.outcome || !MACHINE_STATES.has(d.state)) {
      gate.due = null;
      return this.flush(key, gate, job);
    }
    // Slots are never given back: a restart's first look at hundreds of open gates whose trails already say so would
    // otherwise hold the next real change back by seconds. (A first look has no write of this writer in flight.)
    if (firstLook && trailAlreadySays(job)) return;
    gate.due = job;
    if (gate.timer) return; // its slot is taken: the write then is of this state
    // monotonic: a wall clock stepped back would hold the trail back by as much
    const now = performance.now();
    const at = Math.max(now, gate.writtenAt + TRAIL_PACE_MS, this.nextSlot);
    this.nextSlot = at + TRAIL_GAP_MS;
    if (at <= now) {
      gate.due = null;
      return this.flush(key, gate, job);
    }
    gate.timer = setTimeout(() => {
      gate.timer = null;
      const due = gate.due;
      gate.due = null;
      if (due) this.writeLate(key, gate, due);
    }, at - now).unref();
  }

  /**
   * A paced write, skipped when another broker ended the gate meanwhile (its trail is the final one). One that fails,
   * or cannot tell, leaves the gate's next step to write its trail again, and say why.
   */
  private writeLate(key: string, gate: GateTrail, job: Job): void {
    const forget = () => {
      gate.wanted = null;
      gate.writtenAt = 0;
    };
    try {
      if (hasValidOutcome(job.ctx.layout, job.s.runId, job.s.gate)) {
        if (this.gates.get(key) === gate) this.gates.delete(key);
        return;
      }
    } catch {
      return forget();
    }
    this.flush(key, gate, job).catch(() => {});
  }

  private flush(key: string, gate: GateTrail, job: Job): Promise<void> {
    gate.writing = gate.writing
      .catch(() => {})
      .then(() => this.writeNow(key, gate, job))
      .catch((error: unknown) => {
        gate.wanted = null; // not on disk: asked again, it is written again
        gate.writtenAt = 0;
        throw error;
      });
    return gate.writing;
  }

  private async writeNow(key: string, gate: GateTrail, { ctx, s, d, input }: Job): Promise<void> {
    const text = trailText(s, d, input);
    if (text === null) return;
    const file = ctx.layout.gateFile(s.runId, s.gate, "trail.md");
    // A gate this writer has no record of (a finished one looked at again, or the first write since start) keeps a
    // trail.md that already says this: a rename would move the gate directory's mtime, which is how every worker tells
    // that a file arrived after an outcome, so that look must settle. An open gate's changed stamp is written as is.
    try {
      if (gate.written || !hasText(file, text)) await replace(file, text, { guildDir: ctx.layout.guild, durable: false });
    } catch (error) {
      // the gate was removed since it was read (a run deleted): its view goes with it, never a directory made for it
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || existsSync(path.dirname(file))) throw error;
      return this.drop(key, gate);
    }
    gate.written = true;
    gate.writtenAt = performance.now();
    // A gate with its outcome is rarely handled again: forget it, so a long-lived broker keeps no entry per gate ever seen.
    if (s.outcome) this.drop(key, gate);
  }

  /** No more writes for this gate (ended, or removed): its pending one is cancelled and its record let go. */
  private drop(key: string, gate: GateTrail): void {
    if (gate.timer) clearTimeout(gate.timer);
    if (this.gates.get(key) === gate) this.gates.delete(key);
  }
}

/** Whether the gate's trail.md is this job's text (a new gate has none yet, and is not rendered twice to learn it). */
function trailAlreadySays({ ctx, s, d, input }: Job): boolean {
  const file = ctx.layout.gateFile(s.runId, s.gate, "trail.md");
  if (!existsSync(file)) return false;
  const text = trailText(s, d, input);
  return text === null || hasText(file, text);
}

function hasText(file: string, text: string): boolean {
  try {
    // bounded by the text itself, not by the gate-file limit: a long gate's trail can pass 4 MiB, and one never read
    // as "already says this" was rewritten at every look, each rewrite moving the ended gate's mtime for another look
    return readTextBounded(file, { max: Buffer.byteLength(text, "utf8") }) === text;
  } catch {
    return false; // absent, unreadable or not a regular file: written anew
  }
}
