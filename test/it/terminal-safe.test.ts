// What reviewers, foreign tools and planted files wrote reaches the terminal with its control characters shown: a
// recorded reason or a stray file name cannot rewrite `guild-bus status`'s lines, hide them, or set the window title.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { REPO } from "../helpers/bus.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** What a terminal acts on: ESC, BEL, CR and a right-to-left override. */
const actedOn = (text: string) => ["\u001b", "\u0007", "\r", "\u202e"].some((c) => text.includes(c));
const HOSTILE = "boom\u001b]0;FAIL-TITLE\u0007\r\u001b[2K\u001b[32mall good, gate passed\u001b[8m\u202e";

describe("guild-bus status on hostile text", () => {
  it("prints control characters from a rejection reason, a failure reason (in trail.md) and a stray name as escapes", async () => {
    const { root, layout, file, field, drop } = await gateWithPacket("term");
    drop(
      "failure-1.json",
      JSON.stringify({
        schema_version: "guild_bus.failure.v1",
        run_id: "term",
        gate: GATE,
        round: 1,
        packet_id: field("packet_id"),
        kind: "unavailable",
        reason: HOSTILE,
        at: new Date().toISOString(),
      }),
    );
    const dir = layout.gateDir("term", GATE);
    writeFileSync(path.join(dir, `zz\u001b[41mstray`), "");
    mkdirSync(path.join(dir, "rejected"));
    writeFileSync(path.join(dir, "rejected", "result-1.json.x"), "");
    writeFileSync(path.join(dir, "rejected", "result-1.json.x.reason.json"), JSON.stringify({ reason: HOSTILE }));
    await stepGate(loadContext(layout), "term", GATE);
    const status = spawnSync(process.execPath, [path.join(REPO, "bin", "guild-bus.js"), "status", "--root", root], { encoding: "utf8" });
    const shown = status.stdout + status.stderr;
    expect(shown).toContain("FAIL-TITLE"); // the text is there…
    expect(shown).toContain("\\u001b]0;FAIL-TITLE\\u0007\\u000d");
    expect(shown).toContain("zz\\u001b[41mstray");
    expect(actedOn(shown)).toBe(false); // …but nothing a terminal acts on
    const trail = readFileSync(file("trail.md"), "utf8");
    expect(trail).toContain("\\u001b]0;FAIL-TITLE");
    expect(actedOn(trail)).toBe(false);
  });
});
