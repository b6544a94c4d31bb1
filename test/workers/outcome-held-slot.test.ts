// An ended gate whose outcome.json is replaced in place by one that does not end it (another gate's, as `cp -p` or a
// hard link leaves it): the broker's outcome finds the slot taken. Its log says what holds the slot and when it goes,
// once, never "another broker" at every pass; after the grace period the file is moved aside and the gate ends again.
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("an outcome slot held by another gate's outcome", () => {
  it("is said once as an invalid file waiting out its grace, then quarantined, and the gate ends again", async () => {
    const run = "held-slot";
    const g = await gateWithPacket(run);
    g.dropResult();
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);
    const real = readFileSync(g.file("outcome.json"), "utf8");
    expect(JSON.parse(real)).toMatchObject({ gate: GATE, status: "satisfied" });

    // replaced in place (fresh mtime: a foreign writer may still be writing it) by an outcome naming another gate
    writeFileSync(g.file("outcome.json"), real.replace(`"gate": "${GATE}"`, `"gate": "G-plan"`));
    const lines: string[] = [];
    const held = new Map<string, string>();
    const log = (m: string) => lines.push(m);
    for (let pass = 0; pass < 3; pass++) await stepGate(loadContext(g.layout), run, GATE, { log, held });
    expect(lines.join("\n")).not.toMatch(/another broker/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /outcome\.json holds an invalid file \(names another run, gate or round \(gate G-plan, not G-\w+\)\).*moved to rejected\/ in ~\d+ s/,
    );
    expect(JSON.parse(readFileSync(g.file("outcome.json"), "utf8")).gate).toBe("G-plan");

    // its grace over (an old mtime, as cp -p keeps): moved aside with its reason, and the gate's own outcome again
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(g.file("outcome.json"), old, old);
    await stepGate(loadContext(g.layout), run, GATE, { log, held });
    expect(JSON.parse(readFileSync(g.file("outcome.json"), "utf8"))).toMatchObject({ gate: GATE, status: "satisfied" });
    const rejected = path.dirname(g.file("rejected/x"));
    const reason = readdirSync(rejected).find((f) => f.startsWith("outcome.json") && f.endsWith(".reason.json"));
    expect(JSON.parse(readFileSync(path.join(rejected, reason!), "utf8")).reason).toMatch(/names another run, gate/);
    expect(held.size).toBe(0);
  });
});
