// A verifier killed between its seal's link and the removal of the seal's staging name leaves a seal with two names,
// and readers refuse a verdict bound to such a seal (one of its names could change its bytes). The next verifier
// finds the same bytes sealed: it removes the spent staging name before its verdict lands, so the round goes on
// instead of failing closed with its genuine result moved aside.
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stagingName } from "../../src/bus/deliver.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const RUN = "crash";

describe("verifier: a seal left with two names by a verifier that died", () => {
  it("verifies the round: the spent staging name goes, the verdict binds the seal, the result stays", async () => {
    const { layout, file, dropResult } = await gateWithPacket(RUN);
    dropResult();
    // what a verifier killed after link() and before unlink() of its staging file leaves behind
    const seal = file(".verified/result-1.json");
    const tmp = path.join(layout.guild, "tmp");
    mkdirSync(tmp, { recursive: true });
    mkdirSync(path.dirname(seal), { recursive: true });
    const spent = path.join(tmp, stagingName(seal, 999_999));
    writeFileSync(spent, readFileSync(file("result-1.json")));
    linkSync(spent, seal);
    // another delivery's staging file, not linked to the seal, is none of its business
    const unrelated = path.join(tmp, stagingName(file("verdict-9.json"), 999_998));
    writeFileSync(unrelated, "{}");

    await verifyGate(loadContext(layout), RUN, GATE, () => undefined);

    const s = readGate(layout, RUN, GATE);
    expect([...s.brokenSeals.values()]).toEqual([]);
    expect(s.verdicts.get(1)?.result_verdict).toBe("satisfied");
    expect(s.results.has(1)).toBe(true);
    expect(lstatSync(seal).nlink).toBe(1);
    expect(readdirSync(tmp)).toEqual([path.basename(unrelated)]);
  });

  it("a second name outside the staging directory is kept: readers still refuse the seal", async () => {
    const { layout, file, dropResult } = await gateWithPacket(`${RUN}-linked`);
    dropResult();
    const seal = file(".verified/result-1.json");
    mkdirSync(path.dirname(seal), { recursive: true });
    linkSync(file("result-1.json"), seal); // someone linked the result itself in as its seal

    await verifyGate(loadContext(layout), `${RUN}-linked`, GATE, () => undefined);

    const s = readGate(layout, `${RUN}-linked`, GATE);
    expect(lstatSync(seal).nlink).toBe(2);
    expect(s.verdicts.has(1)).toBe(false);
    expect(s.brokenSeals.get(1)).toMatch(/2 names/);
  });
});
