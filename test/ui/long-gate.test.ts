// A gate of months has dozens of rounds, each with findings, prose and a diff: its page showed them all in full (50
// heavy rounds made 16 MB built in the console's one process). The newest rounds are shown in full, the older ones in
// brief with a link to every round in full.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { packetText } from "../../src/core/broker-plan.js";
import { parsePacket } from "../../src/core/packet.js";
import { FULL_ROUNDS, gatePage } from "../../src/ui/pages.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { gateReads } from "../../src/workers/gate-reads.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("the page of a gate with many rounds", () => {
  it("shows the newest rounds in full, older ones in brief, their findings counted; every round in full on asking", async () => {
    const { layout, file, artifact, dropResult } = await gateWithPacket("long", { difficulty: "hard" });
    const old = { severity: "blocking", title: "Round one's finding", detail: "a detail only round 1 has" };
    dropResult({ verdict: "issues", findings: [old], blocking_findings: [old] });
    const ctx = loadContext(layout);
    const first = parsePacket(readFileSync(file("packet-1.md"), "utf8")).front!;
    writeFileSync(file("rebuttal-1.md"), "Round one's finding is answered in section 2.\n");
    const last = FULL_ROUNDS + 2;
    for (let round = 2; round <= last; round++) {
      // round 3 rules on round 1's contested findings: round 1 is shown in brief
      const ruling = round === 3 ? { counted_round: 1, restart_of: 1, restart_reason: "ruling" as const } : { counted_round: round };
      const front = { ...first, round, ...ruling, packet_id: first.packet_id.replace(/-r1$/, `-r${round}`) };
      const s = readGate(layout, "long", GATE);
      writeFileSync(
        file(`packet-${round}.md`),
        packetText(s, front, readFileSync(artifact, "utf8"), { settings: ctx.settings, reads: gateReads(ctx, s) }),
      );
      // the ruling round's answer, before the later packets that list it as an earlier round's: round 1's finding withdrawn
      if (round === 3)
        dropResult({ verdict: "satisfied", blocking_findings: [], rulings: [{ finding: old.title, ruling: "withdrawn" }] }, 3);
    }
    const page = (allRounds: boolean) =>
      String(
        gatePage({ root: layout.root, base: "/b", readOnly: true, csrf: "c", seq: 0 }, gateTimeline(ctx, "long", GATE), null, undefined, {
          allRounds,
        }),
      );
    const shown = page(false);
    expect(shown).toContain('<section class="round brief" id="round-1">');
    expect(shown).toContain('<section class="round brief" id="round-2">');
    expect(shown).toContain('<section class="round" id="round-3">');
    expect(shown).toContain(`<section class="round" id="round-${last}">`);
    expect(shown).toMatch(/1 finding\b/);
    expect(shown).not.toContain("a detail only round 1 has");
    expect(shown).toContain('Rounds 1–2 are shown in brief: <a href="/b/gate/long/G-spec?all=1">show every round in full</a>');
    // a ruling's link to the round it rules on lands on that round in full: the brief one here has no findings to read
    expect(shown).toContain('rulings on the findings of <a href="/b/gate/long/G-spec?all=1#round-1">round 1</a>');
    const all = page(true);
    expect(all).toContain('<section class="round" id="round-1">');
    expect(all).toContain("a detail only round 1 has");
    expect(all).not.toContain("shown in brief");
    expect(all).toContain('rulings on the findings of <a href="#round-1">round 1</a>');
  });
});
