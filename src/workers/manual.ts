// The manual worker: tells the human where a packet is and how to answer, and turns dropped response-<n>.md
// files into results (or rejects them with the reason, freeing the slot for another answer).
import { readGateLive } from "./issued-packets.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { acceptManualResponse, manualInstructions } from "../core/manual-answer.js";
import { ageMs } from "../bus/age.js";
import { readTextBounded, type ReadRefused } from "../bus/read-bounded.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { movesAside } from "../bus/layout.js";
import { rejectFile, rejectPlace } from "../bus/reject.js";
import type { BusContext } from "../bus/context.js";
import { deliverResult } from "./deliver-result.js";
import { type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { foreignGraceMs, openRound } from "../core/gate-queries.js";

const announced = new Set<string>();

/** One look at a gate (exported for the gate explorer, which runs it between the other workers' steps). */
export async function manualGate(
  ctx: BusContext,
  runId: string,
  gate: string,
  log: (m: string) => void,
  announce: (m: string) => void,
): Promise<"active" | "finished"> {
  const { layout } = ctx;
  const s = readGateLive(ctx, runId, gate);
  for (const p of s.problems) {
    // symlinked, oversized, not a regular file
    if (movesAside("manual", p.file)) await rejectFile(s.dir, p.file, p.reason, rejectPlace(ctx), p);
  }
  if (s.outcome) return "finished";
  const R = openRound(s);
  const P = s.packets.get(R);
  if (!P || P.reviewer_adapter !== "manual" || s.results.has(R) || s.failures.has(R)) return "active";
  if (s.responses.has(R)) {
    const name = `response-${R}.md`;
    const seen = s.responses.get(R)!;
    const stillWriting = ageMs(`${s.dir}/${name}`, seen) < foreignGraceMs(ctx.settings);
    let text: string;
    try {
      text = readTextBounded(layout.gateFile(runId, gate, name), { max: MAX_FILE_BYTES });
    } catch (error) {
      rethrowSystemFault(error);
      if ((error as ReadRefused).kind === "missing" || stillWriting) return "active"; // moved meanwhile, or still being written
      await rejectFile(s.dir, name, (error as Error).message, rejectPlace(ctx), seen);
      announce(`[manual] ${runId} ${gate} round ${R}: response rejected — ${(error as Error).message}. Answer again.`);
      return "active";
    }
    const verdict = acceptManualResponse(text, P, ctx.settings);
    // still being written in place (empty, first line unfinished, body unreadable so far): wait out the grace, as
    // for results; an identity refusal is final
    if (!verdict.ok && stillWriting && (!text.includes("\n") || /could not be read/.test(verdict.reason))) return "active";
    const delivery = verdict.ok ? await deliverResult(ctx, P, verdict.result) : verdict;
    if (delivery.ok) {
      log(`${runId}/${gate} round ${R}: manual response accepted`);
    } else {
      // the response judged, not one the person wrote in its place since
      await rejectFile(s.dir, name, delivery.reason, rejectPlace(ctx), seen);
      announce(`[manual] ${runId} ${gate} round ${R}: response rejected — ${delivery.reason}. Answer again.`);
    }
    return "active";
  }
  const key = `${runId}\u0000${gate}\u0000${R}`;
  if (!announced.has(key)) {
    announced.add(key);
    announce(manualInstructions(layout.root, P, layout.rel(layout.gateFile(runId, gate, `packet-${R}.md`))));
  }
  return "active";
}

export function createManual(options: WorkerOptions): WorkerRuntime {
  const announce = (message: string) => process.stdout.write(message + "\n");
  return workerRuntime("manual", options, async (ctx, { runId, gate }, _signal, log) => manualGate(ctx, runId, gate, log, announce));
}
