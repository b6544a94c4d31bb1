// A worker moves aside only the version of a file it judged (SPEC §5): between its look and its move, another worker
// may move that file first and a valid one take the name (a reviewer worker's paid answer once a planted one is gone,
// a person's answer again). The valid file must stay, for the next look to judge.
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { rejectFile } from "../../src/bus/reject.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

let duringReason: (() => void) | undefined;
vi.mock("../../src/bus/deliver.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/bus/deliver.js")>();
  return {
    ...real,
    deliver: async (...args: Parameters<typeof real.deliver>) => {
      const result = await real.deliver(...args);
      if (args[0].endsWith(".reason.json") && duringReason) {
        const swap = duringReason;
        duringReason = undefined;
        swap();
      }
      return result;
    },
  };
});

describe("moving a file aside", () => {
  it("leaves a valid result that took the name after the verifier judged the one before it", async () => {
    const run = "reject-judged";
    const g = await gateWithPacket(run);
    g.dropResult({ packet_id: "G-spec-someone-else-r1" }); // refused: names another packet
    duringReason = () => {
      // another verifier moved the refused result first, and the answer the round waited for was delivered
      renameSync(g.file("result-1.json"), path.join(g.root, "moved-by-another-verifier.json"));
      g.dropResult();
    };
    const ctx = loadContext(g.layout);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(duringReason).toBeUndefined();
    expect(JSON.parse(readFileSync(g.file("result-1.json"), "utf8")).packet_id).toBe(g.field("packet_id"));
    const rejected = existsSync(g.file("rejected")) ? readdirSync(g.file("rejected")) : [];
    expect(rejected.filter((n) => n.startsWith("result-1.json"))).toEqual([]);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(existsSync(g.file("verdict-1.json"))).toBe(true);
  });

  it("still moves the version it judged", async () => {
    const run = "reject-same";
    const g = await gateWithPacket(run);
    g.dropResult({ packet_id: "G-spec-someone-else-r1" });
    const bytes = readFileSync(g.file("result-1.json"));
    expect(
      await rejectFile(path.dirname(g.file("result-1.json")), "result-1.json", "test", { guildDir: g.layout.guild, scrub: {} }, { bytes }),
    ).not.toBeNull();
    expect(existsSync(g.file("result-1.json"))).toBe(false);
  });
});
