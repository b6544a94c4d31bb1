// Process entrypoint: the broker owns the round loop of every active gate.
import type { Action } from "../core/decide.js";
import { stepGate } from "./broker-step.js";
import { Layout } from "../bus/layout.js";
import { ProviderCache } from "../adapters/provider-cache.js";
import { type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";

export function createBroker(options: WorkerOptions): WorkerRuntime {
  const providers = new ProviderCache(new Layout(options.root));
  return workerRuntime("broker", options, async (ctx, { runId, gate }, _signal, log) => {
    const report = await stepGate(ctx, runId, gate, () => providers.get(ctx.settings));
    for (const { action, result } of report.delivered) {
      if (result.status === "conflict") log(`${runId}/${gate}: another broker already delivered ${action.type} for round ${action.round}; reloading`);
      if (result.status !== "delivered") continue;
      log(`${runId}/${gate}: ${describe(action)}`);
      const issued = action.type === "packet" && !action.inherit ? report.snapshot.packets.get(action.round) : undefined;
      // the seed's wording, so tools that grep for it keep working
      if (issued && issued.selection_status !== "selected") log(`warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); using WEAK same-host review (${issued.selection_reason})`);
    }
    if (report.error) log(`${runId}/${gate}: ${report.error}`);
    return report.snapshot.outcome || report.decision.state === "done" ? "finished" : "active";
  });
}

function describe(action: Action): string {
  if (action.type === "packet") {
    return `packet-${action.round}.md issued (counted round ${action.counted_round}/${action.cap}${action.restart_reason ? `, ${action.restart_reason} of round ${action.restart_of}` : ""})`;
  }
  if (action.type === "escalation") return `escalation-${action.round}.json: ${action.reason} — ${action.detail}`;
  return `outcome: ${action.status} (${action.reason})`;
}
