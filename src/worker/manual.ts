// The manual worker: tells the human where a packet is and how to answer, and turns dropped response-<n>.md
// files into results (or rejects them with the reason, freeing the slot for another answer).
import { readFileSync } from "node:fs";
import { FOREIGN_GRACE_MS, readGate } from "../broker/snapshot.js";
import { acceptManualResponse, manualInstructions } from "../manual.js";
import { scrubResult } from "../scrub-result.js";
import { deliver } from "../store/deliver.js";
import { rejectFile } from "../store/reject.js";
import type { BusContext } from "./context.js";
import { deliverMemory } from "./memory.js";

const announced = new Set<string>();

export function manualGate(ctx: BusContext, runId: string, gate: string, log: (m: string) => void, announce: (m: string) => void): "active" | "finished" {
  const { layout } = ctx;
  const s = readGate(layout, runId, gate);
  for (const p of s.problems) {
    if (/^response-\d+\.md$/.test(p.file)) rejectFile(s.dir, p.file, p.reason, layout.guild); // symlinked or oversized
  }
  if (s.outcome) return "finished";
  const R = Math.max(0, ...s.packets.keys());
  const P = s.packets.get(R);
  if (!P || P.reviewer_adapter !== "manual" || s.results.has(R) || s.failures.has(R)) return "active";
  if (s.responses.has(R)) {
    const name = `response-${R}.md`;
    let text: string;
    try {
      text = readFileSync(layout.gateFile(runId, gate, name), "utf8");
    } catch {
      return "active";
    }
    const verdict = acceptManualResponse(text, P, ctx.settings);
    const stillWriting = Date.now() - s.responses.get(R)!.mtimeMs < (ctx.settings.foreign_grace_ms ?? FOREIGN_GRACE_MS);
    // still being written in place (empty, first line unfinished, body unreadable so far): wait out the grace, as
    // for results; an identity refusal is final
    if (!verdict.ok && stillWriting && (!text.includes("\n") || /could not be read/.test(verdict.reason))) return "active";
    if (verdict.ok) {
      const result = scrubResult(verdict.result, ctx.settings.secrets_policy?.redaction_patterns);
      deliverMemory(layout, P, result);
      deliver(layout.gateFile(runId, gate, `result-${R}.json`), JSON.stringify(result, null, 2) + "\n", { guildDir: layout.guild });
      log(`${runId}/${gate} round ${R}: manual response from ${verdict.model} accepted`);
    } else {
      rejectFile(s.dir, name, verdict.reason, layout.guild);
      announce(`[manual] ${runId} ${gate} round ${R}: response rejected — ${verdict.reason}. Answer again.`);
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
