// A quorum round's members are issued one a step, so a round can be issued across a broker restart and a settings edit.
// The members issued later keep the round-wide fields of those before (SPEC §26): members that disagree void the round.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { tempRoot } from "../helpers/tmp.js";

describe("a quorum round issued across a settings edit", () => {
  it("issues its later members with the cap of the first, so the round stands", async () => {
    const root = tempRoot("guild-bus-quorum-issue-");
    mkdirSync(path.join(root, "docs"), { recursive: true });
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    const provider = (model: string) => ({ adapter: "command", model, argv: [process.execPath, "-e", "0"] });
    const settings = (extra: object) =>
      writeFileSync(
        path.join(root, ".guild", "settings.json"),
        JSON.stringify({ providers: { gpt: provider("gpt-5"), gem: provider("gemini-2.5-pro") }, ...extra }),
      );
    settings({});
    writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
    const layout = new Layout(root);
    const asked = { artifact: "docs/plan.md", gate: "G-plan", author: "claude", runId: "qc", quorum: { need: 2, of: 2 } };
    expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), "qc", "G-plan");
    const dir = layout.gateDir("qc", "G-plan");
    const packets = readdirSync(dir).filter((f) => f.startsWith("packet-"));
    expect(packets).toHaveLength(2);
    rmSync(path.join(dir, packets[1]!)); // what a broker stopped after its first member leaves
    settings({ max_rounds: 3 });
    await stepGate(loadContext(layout), "qc", "G-plan");
    const s = readGate(layout, "qc", "G-plan");
    expect(s.problems).toEqual([]);
    expect(
      [...s.members]
        .filter(([, m]) => m.packets.has(1))
        .map(([id]) => id)
        .sort(),
    ).toEqual(["gem", "gpt"]);
  });
});
