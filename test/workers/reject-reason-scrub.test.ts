// A rejected file's reason may quote the file: a planted result's packet id holding a key was written into its
// reason.json, and shown by trail.md, status and the console, as it was. Every reason is scrubbed as it is recorded
// (rejectFile, the one place reasons are written), with the project's patterns.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const KEY = "AKIAIOSFODNN7EXAMPLE";

describe("a rejected file's reason", () => {
  it("is scrubbed when it quotes the file: a planted packet id holding a key, in reason.json and trail.md", async () => {
    const run = "planted-packet-id";
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    g.dropResult({ packet_id: `leak ${KEY}` });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    const rejected = readGate(g.layout, run, GATE).rejected;
    expect(rejected.map((r) => r.reason)).toEqual([expect.stringMatching(/^names packet "leak \[REDACTED:[^\]]+\]"/)]);
    expect(readFileSync(g.file("trail.md"), "utf8")).toContain("names packet");
    expect(readFileSync(g.file("trail.md"), "utf8")).not.toContain(KEY);
  });
});
