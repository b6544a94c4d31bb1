// A run or gate that does not exist is said the same way by every command that names one: never "not waiting for the
// author", never a packet "not addressed to the manual reviewer", never an empty check.
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { decideEscalation, rebut, respond, resubmit } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { gateStatuses } from "../../src/commands/status.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("a run or gate that does not exist", () => {
  it("is refused by name by status, check and every author command", async () => {
    const { layout } = await gateWithPacket("here");
    const ctx = loadContext(layout);
    const answers = (run: string, gate: string) => [
      gateStatuses(ctx, { run, gate }),
      resubmit(ctx, run, gate),
      rebut(ctx, run, gate, "no"),
      decideEscalation(ctx, run, gate, { choice: "retry", decidedBy: "me" }),
      respond(ctx, run, gate, { read: async () => "x", reviewerModel: "gpt-5" }),
    ];
    for (const answer of await Promise.all(answers("nosuch", GATE)))
      expect(answer).toEqual({ ok: false, error: "no run nosuch under .guild/runs" });
    for (const answer of await Promise.all(answers("here", "G-plan")))
      expect(answer).toEqual({ ok: false, error: "run here has no gate G-plan (its gates: G-spec)" });
    expect(await checkGates(ctx, { runId: "nosuch", require: [] })).toEqual({ ok: false, error: "no run nosuch under .guild/runs" });
  });
});
