// Two brokers on one gate: one ends it on a pass while the other restarts the round on an artifact edit that lands
// between the first broker's last look at the artifact and its outcome's link.
import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { TrailWriter } from "../../src/workers/trail-writer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("an outcome and a restart packet racing", () => {
  it("never leaves an outcome beside a later round", async () => {
    const run = "outcome-race";
    const g = await gateWithPacket(run);
    g.dropResult();
    const ctx = loadContext(g.layout);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(existsSync(g.file("verdict-1.json"))).toBe(true);
    const real = new TrailWriter();
    let raced = false;
    const racing = {
      write: async (...args: Parameters<TrailWriter["write"]>) => {
        if (!raced && args[2].state === "done") {
          raced = true;
          writeFileSync(g.artifact, "# Spec\n\nedited while the outcome was being written\n");
          await stepGate(loadContext(g.layout), run, GATE); // the other broker
        }
        return real.write(...args);
      },
    } as unknown as TrailWriter;
    await stepGate(loadContext(g.layout), run, GATE, { trails: racing });
    expect(raced).toBe(true);
    // the other broker's restart stands; no outcome ends round 1 beside it (which would never re-derive: a gate
    // nobody could move again)
    expect(existsSync(g.file("packet-2.md"))).toBe(true);
    expect(existsSync(g.file("outcome.json"))).toBe(false);
    const v = viewGate(loadContext(g.layout), run, GATE);
    expect(v.output.state).not.toBe("unproven");
    expect(v.decision.round).toBe(2);
  });

  it("a pass binds the bytes on disk when its outcome is written, not when the trail before it was", async () => {
    const run = "outcome-edit";
    const g = await gateWithPacket(run);
    g.dropResult();
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    const real = new TrailWriter();
    let edited = false;
    const editing = {
      write: async (...args: Parameters<TrailWriter["write"]>) => {
        if (!edited && args[2].state === "done") {
          edited = true;
          writeFileSync(g.artifact, "# Spec\n\nedited while the outcome was being written\n");
        }
        return real.write(...args);
      },
    } as unknown as TrailWriter;
    await stepGate(loadContext(g.layout), run, GATE, { trails: editing });
    expect(edited).toBe(true);
    expect(existsSync(g.file("outcome.json"))).toBe(false);
    expect(existsSync(g.file("packet-2.md"))).toBe(true); // the round restarts on the bytes now on disk
  });
});
