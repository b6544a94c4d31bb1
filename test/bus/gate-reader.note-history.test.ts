// A decision's note over 64 KiB is refused now (SPEC §6), but `decide` wrote longer ones before: once the broker has
// acted on a decision (a later round, or the outcome), it is the gate's history, and the gate still reads as it ended.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation, rebut } from "../../src/commands/author.js";
import { statusRow } from "../../src/commands/status.js";
import { MAX_NOTE_BYTES } from "../../src/spec/constants.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const RUN = "hist";

describe("a decision the broker acted on, with a note longer than today's limit", () => {
  it("still answers its escalation: a force-pass written by an older decide stays a pass, not unproven", async () => {
    const { layout, file, dropResult } = await gateWithPacket(RUN, { cap: 1 });
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), RUN, GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });
    expect(await decideEscalation(loadContext(layout), RUN, GATE, { choice: "force-pass", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), RUN, GATE);
    expect(JSON.parse(readFileSync(file("outcome.json"), "utf8"))).toMatchObject({ status: "force_passed" });
    // as yesterday's decide wrote it: the same decision, with a note of any length (up to the 4 MiB a tool could send)
    const old = { ...JSON.parse(readFileSync(file("decision-1.json"), "utf8")), note: "n".repeat(MAX_NOTE_BYTES + 1000) };
    writeFileSync(file("decision-1.json"), JSON.stringify(old, null, 2) + "\n");
    expect(statusRow(loadContext(layout), RUN, GATE)).toMatchObject({ status: "force_passed" });
    expect(readGate(layout, RUN, GATE).problems).toEqual([]);
  });

  it("is refused while the broker has yet to act on it (a continue note would go whole into the next packet)", async () => {
    const { layout, file, dropResult } = await gateWithPacket(RUN, { humanCheckpoint: true });
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), RUN, GATE);
    expect(await decideEscalation(loadContext(layout), RUN, GATE, { choice: "continue", decidedBy: "me" })).toMatchObject({ ok: true });
    const long = { ...JSON.parse(readFileSync(file("decision-1.json"), "utf8")), note: "n".repeat(MAX_NOTE_BYTES + 1) };
    writeFileSync(file("decision-1.json"), JSON.stringify(long, null, 2) + "\n");
    expect(readGate(layout, RUN, GATE).problems).toContainEqual(
      expect.objectContaining({ file: "decision-1.json", reason: expect.stringContaining("a decision's note holds at most") }),
    );
  });
});

describe("a rebuttal the broker ruled on, longer than today's limit", () => {
  it("stays the gate's history: older rebut wrote longer ones, and its ruling round is not orphaned", async () => {
    const run = "hist-rebut";
    const { layout, file, dropResult } = await gateWithPacket(run, { difficulty: "hard" });
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(await rebut(loadContext(layout), run, GATE, "the defect is not one")).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), run, GATE);
    expect(readFileSync(file("packet-2.md"), "utf8")).toMatch(/restart_reason: ruling/);
    writeFileSync(file("rebuttal-1.md"), "r".repeat(MAX_NOTE_BYTES + 1000) + "\n");
    const s = readGate(layout, run, GATE);
    expect(s.problems).toEqual([]);
    expect(s.rebuttals.has(1)).toBe(true);
  });
});
