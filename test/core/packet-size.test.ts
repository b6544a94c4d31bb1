// A packet over the gate-file limit is never written (readers refuse such a file unread, SPEC §5): the broker
// escalates artifact_too_large instead. The bus's own bounds (a 2 MiB artifact, 64 KiB rebuttals and notes, cut memory
// and findings) keep every packet under it, so only the rule itself can be shown: here, with an artifact read past them.
import { describe, expect, it } from "vitest";
import { planStep } from "../../src/core/broker-plan.js";
import { MAX_FILE_BYTES } from "../../src/spec/constants.js";
import { Escalation } from "../../src/spec/schemas.js";
import { AT, context, gate, RAW_SHA, SHA_A } from "../helpers/snapshots.js";

describe("a packet over the gate-file limit", () => {
  it("is never written: the broker escalates artifact_too_large, naming the size", () => {
    const g = gate();
    const text = "A line of the specification.\n".repeat(Math.ceil(MAX_FILE_BYTES / 29) + 1);
    const read = () => ({ ok: true as const, text, sha: SHA_A, rawSha: RAW_SHA });
    const step = planStep(g.s, {
      settings: {},
      policy: context().policy,
      codexSkip: { blocked: false, enforcement: "warn" },
      reads: {
        artifact: read,
        artifactNow: read,
        result: () => null,
        resultBytes: () => ({ ok: false, reason: "none" }),
        text: () => "",
        decisions: () => new Map(),
        rejected: () => [],
      },
      providers: [], // none: the round falls to the manual reviewer
      now: AT,
      trailPath: "trail.md",
    });
    expect(step).toMatchObject({ type: "write", name: "escalation-0.json" });
    if (step.type !== "write") return;
    expect(Escalation.parse(JSON.parse(step.text))).toMatchObject({
      reason: "artifact_too_large",
      detail: expect.stringMatching(/^packet-1\.md would be \d+ bytes, over the 4194304-byte limit for a gate file/),
    });
  });
});
