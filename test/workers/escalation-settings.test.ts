// The broker's own escalation stays its own when the settings it was raised under change (SPEC §6, request.json): the
// cap, the checkpoint, restart_cap and stall_detection in force are recorded with the request, and its evidence reads
// them there, so raising restart_cap or turning stall detection off never moves a person's pending choice aside. A
// gate requested by the build before (no such fields) is judged under the settings, as it was, and still ends.
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, stalledAtUnchangedResubmit } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
const BLOCKER = { verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] };
type Gate = Awaited<ReturnType<typeof gateWithPacket>>;

const setSettings = (g: Gate, settings: Record<string, unknown>) =>
  writeFileSync(path.join(g.root, ".guild", "settings.json"), JSON.stringify(settings));

/** The escalation of round `round` is still there and still answerable after the settings changed: force-pass ends it. */
async function staysAndEnds(g: Gate, run: string, round: number, reason: string) {
  const ctx = loadContext(g.layout); // the settings as they are now
  utimesSync(g.file(`escalation-${round}.json`), past(), past());
  expect(viewGate(ctx, run, GATE).snapshot.problems).toEqual([]);
  await stepGate(ctx, run, GATE);
  expect(JSON.parse(readFileSync(g.file(`escalation-${round}.json`), "utf8"))).toMatchObject({ reason });
  expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  expect(
    await decideEscalation(ctx, run, GATE, { choice: reason === "human_checkpoint" ? "stop" : "force-pass", decidedBy: "me", round }),
  ).toMatchObject({
    ok: true,
  });
  await stepGate(ctx, run, GATE);
  expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: reason === "human_checkpoint" ? "stopped" : "force_passed" });
}

/** Round `round` answered with a blocker and verified, then the broker's step. */
async function blockedRound(g: Gate, run: string, round = 1) {
  const ctx = loadContext(g.layout);
  g.dropResult(BLOCKER, round);
  await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(ctx, run, GATE);
}

describe("the broker's own escalation, after the settings it was raised under change", () => {
  it("stays the broker's (stalled) when stall detection is turned off", async () => {
    const run = "settings-stalled";
    const { g } = await stalledAtUnchangedResubmit(run);
    setSettings(g, { stall_detection: false });
    await staysAndEnds(g, run, 1, "stalled");
  });

  it("stays the broker's (restart_cap_hit) when restart_cap is raised", async () => {
    const run = "settings-restart-cap";
    const g = await gateWithPacket(run, { settings: { restart_cap: 1 } });
    const ctx = loadContext(g.layout);
    for (const [round, text] of [
      [1, "# Spec\n\nedited once\n"],
      [2, "# Spec\n\nedited twice\n"],
    ] as const) {
      g.dropResult({}, round);
      await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
      writeFileSync(g.artifact, text);
      utimesSync(g.artifact, past(), past()); // settled: not a save in progress
      await stepGate(ctx, run, GATE);
    }
    expect(JSON.parse(readFileSync(g.file("escalation-2.json"), "utf8"))).toMatchObject({ reason: "restart_cap_hit" });
    setSettings(g, { restart_cap: 10 });
    await staysAndEnds(g, run, 2, "restart_cap_hit");
  });

  it("stays the broker's (cap_hit) when max_rounds is raised", async () => {
    const run = "settings-cap";
    const g = await gateWithPacket(run, { settings: { max_rounds: 1 } });
    await blockedRound(g, run);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });
    setSettings(g, { max_rounds: 5 });
    await staysAndEnds(g, run, 1, "cap_hit");
  });

  it("stays the broker's (human_checkpoint) when the checkpoint is turned off", async () => {
    const run = "settings-checkpoint";
    const g = await gateWithPacket(run, { settings: { human_checkpoint: true } });
    await blockedRound(g, run);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "human_checkpoint" });
    setSettings(g, { human_checkpoint: false });
    await staysAndEnds(g, run, 1, "human_checkpoint");
  });
});

describe("a gate requested by the build before (request.json without the recorded settings)", () => {
  it("is judged under the settings, and its stall escalation still ends on a decision", async () => {
    const run = "settings-older";
    const { g } = await stalledAtUnchangedResubmit(run);
    const request = JSON.parse(readFileSync(g.file("request.json"), "utf8"));
    const { restart_cap, stall_detection, human_checkpoint, cap, ...older } = request;
    expect([restart_cap, stall_detection, human_checkpoint, cap]).toEqual([3, true, false, 5]);
    g.drop("request.json", JSON.stringify(older));
    await staysAndEnds(g, run, 1, "stalled");
  });

  it.each([
    ["the checkpoint is turned on", { human_checkpoint: true }],
    ["max_rounds is lowered to the round", { max_rounds: 1 }],
  ])("keeps its stall escalation the broker's when %s (raised first only had they been in force)", async (_, settings) => {
    const run = `settings-older-${Object.keys(settings)[0]!.replace("_", "-")}`;
    const { g } = await stalledAtUnchangedResubmit(run);
    const { restart_cap, stall_detection, human_checkpoint, cap, ...older } = JSON.parse(readFileSync(g.file("request.json"), "utf8"));
    expect([restart_cap, stall_detection, human_checkpoint, cap]).toEqual([3, true, false, 5]);
    g.drop("request.json", JSON.stringify(older));
    setSettings(g, settings);
    await staysAndEnds(g, run, 1, "stalled");
  });

  it("keeps its cap_hit the broker's when max_rounds is raised (the cap its packet was issued under)", async () => {
    const run = "settings-older-cap";
    const g = await gateWithPacket(run, { settings: { max_rounds: 1 } });
    const { restart_cap, stall_detection, human_checkpoint, cap, ...older } = JSON.parse(readFileSync(g.file("request.json"), "utf8"));
    expect([restart_cap, stall_detection, human_checkpoint, cap]).toEqual([3, true, false, 1]);
    g.drop("request.json", JSON.stringify(older));
    await blockedRound(g, run);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });
    setSettings(g, { max_rounds: 5 });
    await staysAndEnds(g, run, 1, "cap_hit");
  });
});
