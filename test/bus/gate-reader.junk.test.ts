// Names no bus file has, planted by the thousand: each look at the gate names the first few and counts the rest, so
// status stays readable, and the gate's own files are read as ever.
import { statSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { movesAside } from "../../src/bus/layout.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("a gate directory full of junk names", () => {
  it("names the first 20, counts the rest in one problem, and still reads the gate's own files", async () => {
    const run = "junk";
    const { layout, file } = await gateWithPacket(run);
    for (let i = 0; i < 2000; i++) writeFileSync(file(`junk-${String(i).padStart(4, "0")}`), "");
    for (let i = 0; i < 500; i++) writeFileSync(file(`.tmp-${i}`), ""); // foreign temp files: not reported
    writeFileSync(file("result-01.json"), "{}"); // a misnamed result, after all the junk: its mover needs it named
    const s = readGate(layout, run, GATE);
    expect(s.problems.find((p) => p.file === "result-01.json")).toMatchObject({
      mtimeMs: statSync(file("result-01.json")).mtimeMs,
      reason: "round written with leading zeros: rounds are written without them (result-1.json)",
    });
    expect(movesAside("verifier", "result-01.json")).toBe(true);
    s.problems = s.problems.filter((p) => p.file !== "result-01.json");
    expect(s.problems).toHaveLength(21);
    expect(s.problems.slice(0, 20).map((p) => p.file)).toEqual(Array.from({ length: 20 }, (_, i) => `junk-${String(i).padStart(4, "0")}`));
    expect(s.problems[20]).toMatchObject({ file: "1980 more names", reason: "not bus file names either (the first 20 are named above)" });
    expect(s.packets.get(1)).toBeDefined();
    expect(viewGate(loadContext(layout), run, GATE).decision.state).toBe("reviewing");
  });
});
