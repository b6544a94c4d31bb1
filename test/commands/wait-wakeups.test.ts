// `wait` (the CLI's, `review --wait`, the MCP tool) looks at the gate when a file lands in its directory, not only on
// its timer: a look reads the whole gate, so the timer is slow (a second) and the directory's changes bring it sooner.
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { waitGate } from "../../src/commands/wait.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { stepGate } from "../../src/workers/broker.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** Longer than the test may take: a wait that looked only on its timer would not end before the test times out. */
const NEVER_MS = 10 * 60_000;

describe("waitGate's wake-ups", () => {
  it("a verdict and the broker's next file end the wait at once, however long its timer", { timeout: 120_000 }, async () => {
    const run = "woken";
    const { layout, dropResult } = await gateWithPacket(run);
    const notes: string[] = [];
    const waiting = waitGate(layout, run, GATE, { note: (l) => notes.push(l), intervalMs: NEVER_MS, heartbeatMs: NEVER_MS });
    // the wait has looked once (the round is out) before the reviewer answers
    await expect.poll(() => notes.join("\n"), { timeout: 60_000 }).toMatch(/round 1: /);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    const { view, timedOut } = await waiting;
    expect(timedOut).toBe(false);
    expect(view.exitCode).toBe(3); // the author's turn
  });

  it("a cancelled wait answers at once, as a timeout does", { timeout: 120_000 }, async () => {
    const run = "cancelled";
    const { layout } = await gateWithPacket(run);
    const abort = new AbortController();
    const notes: string[] = [];
    const waiting = waitGate(layout, run, GATE, { note: (l) => notes.push(l), intervalMs: NEVER_MS, signal: abort.signal });
    await expect.poll(() => notes.length, { timeout: 60_000 }).toBeGreaterThan(0);
    abort.abort();
    expect(await waiting).toMatchObject({ timedOut: true });
  });
});
