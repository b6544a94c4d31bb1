// A rebuttal is ruled on the bytes of the round it contests (SPEC §21): once the artifact changed since that round was
// sent, `rebut` refuses and says to resubmit; a rebuttal written before an edit gets a full round, never a ruling. One
// too long to pass on whole is refused. The console's form and the words that offer a rebuttal follow the same rule.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { rebut } from "../../src/commands/author.js";
import { MAX_NOTE_BYTES } from "../../src/spec/constants.js";
import { statusRow } from "../../src/commands/status.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const RUN = "r1";

/** A hard gate whose round 1 blocked on one finding: the author's turn. */
async function blockedRound() {
  const g = await gateWithPacket(RUN, { difficulty: "hard" });
  g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "no threat model" }] });
  await verifyGate(loadContext(g.layout), RUN, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(g.layout), RUN, GATE);
  return g;
}

describe("rebut: only on the bytes of the contested round", () => {
  it("refuses once the artifact changed since the round was sent, and writes nothing; unchanged bytes may be contested", async () => {
    const { layout, artifact } = await blockedRound();
    writeFileSync(artifact, "# Spec\n\nAdmin endpoints skip authentication.\n");
    const refused = await rebut(loadContext(layout), RUN, GATE, "the finding does not hold");
    expect(refused).toEqual({ ok: false, error: expect.stringContaining("the artifact changed since round 1 was sent") });
    expect(refused.ok || refused.error).toMatch(/resubmit the revised artifact/);
    writeFileSync(artifact, "# Spec\n");
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold")).toEqual({ ok: true, round: 1 });
  });

  it("the console's rebut form and the words that offer a rebuttal are there exactly while rebut would accept it", async () => {
    const { layout, artifact } = await blockedRound();
    const form = () => gateTimeline(loadContext(layout), RUN, GATE).can.rebut;
    // status, `review --wait` and the console's "waiting for"
    const offered = () => statusRow(loadContext(layout), RUN, GATE).waiting_for.includes("guild-bus rebut");
    expect(form()).toBe(true);
    expect(offered()).toBe(true);
    writeFileSync(artifact, "# Spec\n\nrevising...\n");
    expect(form()).toBe(false);
    expect(offered()).toBe(false);
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold", 1)).toMatchObject({ ok: false });
    writeFileSync(artifact, "# Spec\n");
    expect(form()).toBe(true);
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold", 1)).toEqual({ ok: true, round: 1 });
    expect(form()).toBe(false);
    expect(offered()).toBe(false);
  });

  it("an edit after the rebuttal gets a full round on the new bytes, not a ruling", async () => {
    const { layout, artifact, file } = await blockedRound();
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold")).toEqual({ ok: true, round: 1 });
    writeFileSync(artifact, "# Spec\n\nAdmin endpoints skip authentication.\n");
    await stepGate(loadContext(layout), RUN, GATE);
    const packet2 = readFileSync(file("packet-2.md"), "utf8");
    expect(packet2).toMatch(/^restart_reason: null$/m);
    expect(packet2).toMatch(/^counted_round: 2$/m);
    expect(packet2).not.toContain("Contested findings");
    expect(packet2).toContain("Admin endpoints skip authentication.");
  });
});

describe("rebut: a rebuttal too long to pass on", () => {
  it("is refused, naming the limit, never cut (it goes whole into the ruling packet); the longest allowed is written", async () => {
    const { layout, file } = await blockedRound();
    const long = "The finding does not hold. ".repeat(150_000); // about 4 MiB, as an MCP call or a file can send
    expect(await rebut(loadContext(layout), RUN, GATE, long)).toEqual({
      ok: false,
      error:
        `the rebuttal is ${long.length} bytes; a rebuttal holds at most ${MAX_NOTE_BYTES} bytes (64 KiB), as it goes whole into ` +
        "the ruling round's packet: shorten it (long material belongs in a project file the artifact names); nothing was written",
    });
    expect(existsSync(file("rebuttal-1.md"))).toBe(false);
    const longest = `${"x".repeat(MAX_NOTE_BYTES - 1)}\n`;
    expect(await rebut(loadContext(layout), RUN, GATE, longest)).toEqual({ ok: true, round: 1 });
    expect(readFileSync(file("rebuttal-1.md"), "utf8")).toBe(longest);
  });
});

describe("rebut: the limit holds for the file as written", () => {
  it("refuses one its redaction labels or closing newline take over the limit: the broker would move it aside", async () => {
    const { layout, file } = await blockedRound();
    // within the limit as given, over it as written: the broker reads the file, and would refuse what rebut accepted
    const secrets = "password=ab\n".repeat(Math.floor(MAX_NOTE_BYTES / 12));
    const bare = "x".repeat(MAX_NOTE_BYTES);
    for (const text of [secrets, bare]) {
      expect(await rebut(loadContext(layout), RUN, GATE, text)).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^the rebuttal is \d+ bytes; a rebuttal holds at most 65536 bytes .*\(as written: secrets redacted, a closing newline\); nothing was written$/,
        ),
      });
      expect(existsSync(file("rebuttal-1.md"))).toBe(false);
    }
    expect(await rebut(loadContext(layout), RUN, GATE, "password=ab\nthe finding does not hold")).toEqual({ ok: true, round: 1 });
    const s = readGate(layout, RUN, GATE);
    expect(s.problems).toEqual([]);
    expect(s.rebuttals.has(1)).toBe(true);
  });
});
