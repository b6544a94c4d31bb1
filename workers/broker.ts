// Process entrypoint: the broker owns the round loop of every active gate.
import { readFileSync } from "node:fs";
import { parsePacket } from "../src/broker/packet-format.js";
import { Layout } from "../src/layout.js";
import { stepGate } from "../src/broker/step.js";
import { ProviderCache } from "../src/providers/cache.js";
import { ContextHolder, type WorkerOptions, workerLogger } from "../src/worker/options.js";
import { WorkerRuntime } from "../src/worker/runtime.js";

export function createBroker(options: WorkerOptions): WorkerRuntime {
  const log = workerLogger("broker");
  const layout = new Layout(options.root);
  const holder = new ContextHolder(layout, log);
  const providers = new ProviderCache(layout);
  return new WorkerRuntime({
    kind: "broker",
    layout,
    poll: options.poll,
    reconcileMs: options.reconcileMs,
    fullScanMs: options.fullScanMs,
    log,
    beforePass: () => holder.reload(),
    handleGate: async ({ runId, gate }) => {
      const report = await stepGate(holder.current, runId, gate, () => providers.get(holder.current.settings));
      for (const { action, result } of report.delivered) {
        if (result.status === "delivered") log(`${runId}/${gate}: ${describe(action)}`);
        if (result.status === "delivered" && action.type === "packet" && !action.inherit && report.snapshot.request) {
          const first = readFirstPacket(holder.current.layout, runId, gate);
          if (first && first.selection_status !== "selected") log(`warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); using WEAK same-host review (${first.selection_reason})`);
        }
        else if (result.status === "conflict") log(`${runId}/${gate}: another broker already delivered ${action.type} for round ${action.round}; reloading`);
      }
      if (report.error) log(`${runId}/${gate}: ${report.error}`);
      return report.snapshot.outcome || report.decision.state === "done" ? "finished" : "active";
    },
  });
}

function readFirstPacket(layout: Layout, runId: string, gate: string) {
  try {
    return parsePacket(readFileSync(layout.gateFile(runId, gate, "packet-1.md"), "utf8")).front;
  } catch {
    return null;
  }
}

function describe(action: import("../src/broker/decide.js").Action): string {
  if (action.type === "packet") {
    return `packet-${action.round}.md issued (counted round ${action.counted_round}/${action.cap}${action.restart_reason ? `, ${action.restart_reason} of round ${action.restart_of}` : ""})`;
  }
  if (action.type === "escalation") return `escalation-${action.round}.json: ${action.reason} — ${action.detail}`;
  return `outcome: ${action.status} (${action.reason})`;
}
