// A rejected file's reason may quote the file: a planted result's packet id holding a key was written into its
// reason.json, and shown by trail.md, status and the console, as it was. Every reason is scrubbed as it is recorded
// (rejectFile, the one place reasons are written), with the project's patterns.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { statusRow } from "../../src/commands/status.js";
import { gatePage } from "../../src/ui/pages.js";
import { gateTimeline } from "../../src/ui/timeline.js";
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

  it("is scrubbed where it is shown, whoever recorded it: a reason.json of an older bus or another tool", async () => {
    const run = "unscrubbed-reason";
    const g = await gateWithPacket(run);
    const rejected = path.join(g.layout.gateDir(run, GATE), "rejected");
    mkdirSync(rejected, { recursive: true });
    writeFileSync(path.join(rejected, "result-9.json.old"), "{}\n");
    writeFileSync(path.join(rejected, "result-9.json.old.reason.json"), JSON.stringify({ file: "result-9.json", reason: `key ${KEY}` }));
    g.dropResult();
    const ctx = loadContext(g.layout);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).rejected.map((r) => r.file)).toContain("result-9.json.old");
    const trail = readFileSync(g.file("trail.md"), "utf8");
    expect(trail).toContain("rejected/result-9.json.old: key [REDACTED");
    expect(trail).not.toContain(KEY);
    expect(JSON.stringify(statusRow(loadContext(g.layout), run, GATE).rejected)).not.toContain(KEY);
    const page = String(
      await gatePage(
        { root: g.layout.root, base: "/b", readOnly: true, csrf: "c", seq: 0 },
        gateTimeline(loadContext(g.layout), run, GATE),
        null,
      ),
    );
    expect(page).toContain("result-9.json.old");
    expect(page).not.toContain(KEY);
  });
});
