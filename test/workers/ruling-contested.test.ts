// A ruling round rules on every blocker of the round the author contests: one the reviewer listed only among its
// findings (severity blocking) is contested too, and a ruling that withdraws only the other leaves the gate closed.
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { rebut } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** Round 1 answered with `found` (verdict issues), the author contested it, and the broker issued the ruling round 2. */
async function contested(run: string, found: Record<string, unknown>) {
  const g = await gateWithPacket(run, { difficulty: "hard" });
  const ctx = loadContext(g.layout);
  const verify = () => verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
  g.dropResult({ verdict: "issues", ...found });
  await verify();
  await stepGate(ctx, run, GATE);
  expect(await rebut(ctx, run, GATE, "Not a defect.")).toMatchObject({ ok: true });
  await stepGate(ctx, run, GATE);
  /** The reviewer's satisfied answer to the ruling round with these rulings, verified and acted on. */
  const answer = async (rulings: unknown[]) => {
    g.dropResult({ rulings }, 2);
    await verify();
    await stepGate(ctx, run, GATE);
  };
  return { ...g, ctx, ruling: readFileSync(g.file("packet-2.md"), "utf8"), answer };
}

describe("a ruling round", () => {
  it("lists and counts a blocker given only among the findings", async () => {
    const run = "ruling-severe";
    const g = await contested(run, {
      blocking_findings: [{ severity: "blocking", title: "Style nit A" }],
      findings: [{ severity: "blocking", title: "Auth bypass B" }],
    });
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ blocking_count: 2 });
    expect(g.ruling).toContain("### Finding 1: Style nit A");
    expect(g.ruling).toContain("### Finding 2: Auth bypass B");
    // the reviewer withdraws A and says nothing of B: B stands, the gate does not pass
    await g.answer([{ finding: "Style nit A", ruling: "withdrawn" }]);
    expect(JSON.parse(readFileSync(g.file("verdict-2.json"), "utf8"))).toMatchObject({ rulings: { upheld: 1, withdrawn: 1 } });
    expect(viewGate(g.ctx, run, GATE).snapshot.outcome?.status).not.toBe("satisfied");
  });

  it("once passed, no longer checks as passed when the findings it ruled on cannot be read any more", async () => {
    const run = "ruling-unread";
    const g = await contested(run, { blocking_findings: [{ severity: "blocking", title: "Auth bypass B" }] });
    await g.answer([{ finding: "Auth bypass B", ruling: "withdrawn" }]);
    expect(viewGate(g.ctx, run, GATE).snapshot.outcome?.status).toBe("satisfied");
    const check = () => checkGates(loadContext(g.layout), { require: [GATE] });
    expect(await check()).toMatchObject({ ok: true, passed: true });
    rmSync(g.file("result-1.json"));
    expect(await check()).toMatchObject({ ok: true, passed: false });
  });
});
