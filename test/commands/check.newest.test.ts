// `check` without --run judges the newest run of each gate and artifact (SPEC §17): newest in time, whatever offset a
// request's timestamp was written with, so a newer run that has not passed cannot hide behind an older pass.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { checkGates } from "../../src/commands/check.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("check: the newest run of an artifact", () => {
  it("is the latest in time, not in spelling: a newer run written with an offset is the one checked", async () => {
    const { layout, dropResult } = await gateWithPacket("older");
    dropResult();
    await verifyGate(loadContext(layout), "older", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "older", GATE);
    const check = () => checkGates(loadContext(layout), { require: [GATE] });
    expect(check()).toMatchObject({ ok: true, passed: true });
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "newer" }),
    ).toMatchObject({ ok: true });
    // an hour after the older run, written at UTC-05:00: as text it sorts before the older run's UTC time
    const file = layout.gateFile("newer", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    const hourLater = new Date(Date.parse(request.requested_at) + 3_600_000 - 5 * 3_600_000).toISOString().replace("Z", "-05:00");
    writeFileSync(file, JSON.stringify({ ...request, requested_at: hourLater }));
    const after = check();
    expect(after).toMatchObject({ ok: true, passed: false });
    expect(after.ok && after.gates.map((g) => g.run_id)).toEqual(["newer"]);
  });
});
