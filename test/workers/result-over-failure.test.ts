// A reviewer stalled past its claim's stale time still delivers its result, while the worker that took the claim over
// delivers failure-<n>.json ("a previous dispatch ended without a result"), before or after it. The result proves
// the failure wrong: every reader settles the pair the same way, so the round is judged on its verdict and the
// failure is moved aside, instead of a needless no_verdict escalation (and a second paid review on retry).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { failureRecord } from "../../src/core/dispatch-plan.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { deliverResult } from "../../src/workers/deliver-result.js";
import { resultRefusal } from "../../src/core/result-slot.js";
import { envelopeFor, normalizeBound } from "../../src/core/normalize.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** A gate whose round 1 ended with a failure of `kind` (the takeover's no_verdict by default). */
async function failed(run: string, kind: "no_verdict" | "malformed" = "no_verdict") {
  const g = await gateWithPacket(run);
  const P = readGate(g.layout, run, GATE).packets.get(1)!;
  const failure = failureRecord(
    P,
    {
      kind,
      reason: "a previous dispatch (attempt-1.json) ended without a result; not dispatching a paid review twice",
      attempts: [],
      at: new Date().toISOString(),
    },
    {},
  );
  g.drop("failure-1.json", JSON.stringify(failure, null, 2) + "\n");
  const ctx = loadContext(g.layout);
  const rejected = () => {
    const dir = path.join(g.layout.gateDir(run, GATE), "rejected");
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".reason.json")) : [];
  };
  return { ...g, ctx, rejected };
}

/** A failed round 1, then the stalled holder's result: valid, or for another packet. */
async function raced(run: string, result: "valid" | "another packet") {
  const g = await failed(run);
  if (result === "valid") g.dropResult();
  else
    g.drop(
      "result-1.json",
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: "G-spec-elsewhere-r1",
        artifact_sha256_reviewed: g.field("artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      }),
    );
  return g;
}

describe("a result and a failure in one round", () => {
  it("the result counts: verified and judged, the failure moved aside as superseded, no escalation", async () => {
    const { ctx, layout, file, rejected } = await raced("raced", "valid");
    const before = readGate(layout, "raced", GATE);
    expect(before.failures.has(1)).toBe(false);
    expect(before.results.has(1)).toBe(true);

    await stepGate(ctx, "raced", GATE); // the result is not verified yet: the broker waits for the verifier
    expect(existsSync(file("escalation-1.json"))).toBe(false);
    expect(existsSync(file("failure-1.json"))).toBe(true);

    await verifyGate(ctx, "raced", GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(true);
    await stepGate(ctx, "raced", GATE);

    expect(existsSync(file("escalation-1.json"))).toBe(false);
    expect(existsSync(file("failure-1.json"))).toBe(false);
    const reasons = rejected().map((f) => JSON.parse(readFileSync(path.join(layout.gateDir("raced", GATE), "rejected", f), "utf8")));
    expect(reasons).toEqual([
      expect.objectContaining({ file: "failure-1.json", reason: expect.stringMatching(/^superseded: result-1\.json/) }),
    ]);
    const after = readGate(layout, "raced", GATE);
    expect(after.problems).toEqual([]);
    expect(after.outcome?.status).toBe("satisfied");
  });

  it("a result the verifier refuses proves nothing: it is moved aside and the failure ends the round", async () => {
    const { ctx, layout, file } = await raced("refused", "another packet");
    await verifyGate(ctx, "refused", GATE, () => undefined);
    expect(existsSync(file("result-1.json"))).toBe(false);
    expect(readGate(layout, "refused", GATE).failures.get(1)?.kind).toBe("no_verdict");
    await stepGate(ctx, "refused", GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "no_verdict" });
  });

  it("the stalled holder's own delivery is not refused for a failure the broker has not acted on", async () => {
    const { ctx, layout, file } = await failed("holder");
    const P = readGate(layout, "holder", GATE).packets.get(1)!;
    const answer = normalizeBound(
      "```json\n" + JSON.stringify({ verdict: "satisfied", findings: [], blocking_findings: [] }) + "\n```",
      envelopeFor(P, "manual", { requested: "gpt-5", declared: false }),
    );
    if (!answer.ok) throw new Error(answer.reasons.join("; "));
    expect(resultRefusal(readGate(layout, "holder", GATE), 1)).toBeNull();
    const delivered = await deliverResult(ctx, P, answer.result);
    expect(delivered).toMatchObject({ ok: true });
    expect(existsSync(file("result-1.json"))).toBe(true);
    // once the broker acted on it, the failure stands for every writer
    const acted = await failed("holder-acted");
    await stepGate(acted.ctx, "holder-acted", GATE);
    expect(resultRefusal(readGate(acted.layout, "holder-acted", GATE), 1)).toMatch(/^late: round 1 already waits for a human decision/);
  });

  it("a failure the broker acted on (its escalation) stands: a result landing after it is refused", async () => {
    const { ctx, layout, file, dropResult, rejected } = await failed("acted");
    await stepGate(ctx, "acted", GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "no_verdict" });
    dropResult();
    expect(readGate(layout, "acted", GATE).failures.get(1)?.kind).toBe("no_verdict");
    await verifyGate(ctx, "acted", GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(false);
    expect(existsSync(file("result-1.json"))).toBe(false);
    expect(existsSync(file("failure-1.json"))).toBe(true);
    expect(rejected()).toEqual([expect.stringMatching(/^result-1\.json\./)]);
  });

  it("a late result in a closed round hides nothing: the round restarted for its failure keeps it", async () => {
    const { ctx, layout, file, dropResult } = await failed("closed", "malformed");
    await stepGate(ctx, "closed", GATE);
    expect(existsSync(file("packet-2.md"))).toBe(true);
    dropResult();
    // the malformed-twice rule reads the failure of the round restarted (SPEC §14)
    expect(readGate(layout, "closed", GATE).failures.get(1)?.kind).toBe("malformed");
  });
});
