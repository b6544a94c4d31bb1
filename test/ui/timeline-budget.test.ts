// A gate page diffs each round's artifact against the round before; a gate of many packets that each embed a large,
// different artifact (a hostile drop) would hold the console's one process for as long as all the diffs take. The
// page has a budget: the newest rounds are compared first, older ones say they were not.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha.js";
import { loadContext } from "../../src/bus/context.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const PACKETS = 6;
const LINES = 60_000;

describe("a gate page of many large, different artifacts", () => {
  it("compares the newest rounds within the page's budget and says the older ones were not compared", async () => {
    const { layout, file, field } = await gateWithPacket("many-diffs");
    const first = readFileSync(file("packet-1.md"), "utf8");
    const id = field("packet_id");
    for (let round = 2; round <= PACKETS; round++) {
      const artifact = Array.from({ length: LINES }, (_, i) => `${round}:${i}:${(i * 7919 + round * 104729) % 1000003}`).join("\n");
      writeFileSync(
        file(`packet-${round}.md`),
        first
          .replace(/^round: 1$/m, `round: ${round}`)
          .replace(/^counted_round: 1$/m, `counted_round: ${round}`)
          .replaceAll(id, id.replace(/-r1$/, `-r${round}`))
          .replace(/^artifact_sha256: .*$/m, `artifact_sha256: ${sha256Hex(`${artifact}\n`)}`)
          .replace("# Spec\n", `${artifact}\n`),
      );
    }
    const rounds = gateTimeline(loadContext(layout), "many-diffs", GATE).rounds;
    expect(rounds.map((r) => r.round)).toEqual([1, 2, 3, 4, 5, 6]);
    const notes = rounds.map((r) => (r.diff && "note" in r.diff ? r.diff.note : r.diff ? "lines" : null));
    expect(notes[PACKETS - 1]).not.toMatch(/not compared/); // the newest round's diff was tried
    expect(notes[1]).toMatch(/not compared: this page spent its time/); // the oldest ones were not
  });
});
