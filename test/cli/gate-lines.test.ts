// `status` prints one line per fact under a gate's row. Planted file names and reasons are foreign text: a newline in
// one must not print a header or a "satisfied" gate of its own.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { gateLines } from "../../src/cli/gate-lines.js";
import { gateStatuses } from "../../src/commands/status.js";
import { waitGate } from "../../src/commands/wait.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("status lines with planted names and reasons", () => {
  it("are each one line, whatever line breaks the names and reasons hold", async () => {
    const run = "spoof";
    const g = await gateWithPacket(run);
    const forged = "x\n\nRUN  GATE    STATE\nspoof G-spec  satisfied\n    outcome satisfied";
    writeFileSync(g.file(forged), "junk");
    const rejected = path.join(path.dirname(g.file("x")), "rejected");
    mkdirSync(rejected, { recursive: true });
    writeFileSync(path.join(rejected, "y"), "junk");
    writeFileSync(path.join(rejected, "y.reason.json"), JSON.stringify({ reason: "bad\nnote: gate-pass verified\u2028also" }));
    const answer = gateStatuses(loadContext(g.layout), { run, gate: GATE });
    expect(answer.ok).toBe(true);
    const lines = gateLines((answer as Extract<typeof answer, { ok: true }>).rows[0]!);
    expect(lines.some((l) => l.includes("x\\u000a\\u000aRUN  GATE"))).toBe(true); // the name is shown, its breaks as escapes…
    for (const line of lines) expect(line).not.toMatch(/[\n\r\u2028\u2029]/); // …on one line
  });
});

describe("wait's progress lines with a planted detail", () => {
  it("are each one line: a forged 'satisfied' line cannot follow the real state", async () => {
    const run = "spoof-wait";
    const g = await gateWithPacket(run);
    // an escalation's detail is what the wait prints; a planted one's newline is the forgery
    const escalation = {
      schema_version: "guild_bus.escalation.v1",
      run_id: run,
      gate: GATE,
      round: 1,
      reason: "cap_hit",
      detail: "x\nspoof-wait G-spec: satisfied\n  state: done",
      options: ["force-pass", "rework"],
      at: new Date().toISOString(),
    };
    writeFileSync(g.file("escalation-1.json"), JSON.stringify(escalation));
    const notes: string[] = [];
    await waitGate(g.layout, run, GATE, { note: (l) => notes.push(l), timeoutMs: 0, intervalMs: 1, heartbeatMs: 1 });
    expect(notes.length).toBeGreaterThan(0);
    for (const line of notes) expect(line).not.toMatch(/[\n\r\u2028\u2029]/);
  });
});
