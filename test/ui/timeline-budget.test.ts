// A gate page diffs each round's artifact against the round before; a gate of many packets that each embed a large,
// different artifact (a hostile drop) would hold the console's one process for as long as all the diffs take. The
// page has a budget: the newest rounds are compared first, older ones say they were not.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha.js";
import { loadContext } from "../../src/bus/context.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { packetText } from "../../src/core/broker-plan.js";
import { parsePacket } from "../../src/core/packet.js";
import { gateReads } from "../../src/workers/gate-reads.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const PACKETS = 6;
const LINES = 60_000;

describe("a gate page of many large, different artifacts", () => {
  it("compares the newest rounds within the page's budget and says the older ones were not compared", async () => {
    const { layout, file } = await gateWithPacket("many-diffs");
    const ctx = loadContext(layout);
    const first = parsePacket(readFileSync(file("packet-1.md"), "utf8")).front!;
    // each packet as the broker writes one: a packet that is not the broker's is no round of the page
    for (let round = 2; round <= PACKETS; round++) {
      const artifact = Array.from({ length: LINES }, (_, i) => `${round}:${i}:${(i * 7919 + round * 104729) % 1000003}`).join("\n") + "\n";
      const front = {
        ...first,
        round,
        counted_round: round,
        packet_id: first.packet_id.replace(/-r1$/, `-r${round}`),
        artifact_sha256: sha256Hex(artifact),
      };
      const s = readGate(layout, "many-diffs", GATE);
      writeFileSync(file(`packet-${round}.md`), packetText(s, front, artifact, { settings: ctx.settings, reads: gateReads(ctx, s) }));
    }
    const rounds = gateTimeline(ctx, "many-diffs", GATE).rounds;
    expect(rounds.map((r) => r.round)).toEqual([1, 2, 3, 4, 5, 6]);
    const notes = rounds.map((r) => (r.diff && "note" in r.diff ? r.diff.note : r.diff ? "lines" : null));
    expect(notes[PACKETS - 1]).not.toMatch(/not compared/); // the newest round's diff was tried
    expect(notes[1]).toMatch(/not compared: this page spent its time/); // the oldest ones were not
  });
});
