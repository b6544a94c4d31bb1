// A result the verifier's rules did not foresee (building its verdict throws) is moved aside with the reason, once:
// retried on every pass it would hold its gate in "verifying" for ever. A failure that is not the result's — reading
// or scrubbing the artifact (a redaction pattern past the stack, the disk) — is retried instead: a paid review is
// never thrown away for it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { verifyGate } from "../../src/workers/verifier.js";
import type { ArtifactState } from "../../src/core/artifact-view.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

// vi.mock factories run before this module's own lines: what they use is made in vi.hoisted
const { failures, artifactFailures, artifactAnswers, failingFirst } = vi.hoisted(() => ({
  failures: [] as Error[],
  artifactFailures: [] as Error[],
  artifactAnswers: [] as ArtifactState[],
  /** `fn`, except that a call throws the next failure queued, if any. */
  failingFirst:
    <A extends unknown[], R>(fn: (...args: A) => R, queue: Error[]) =>
    (...args: A): R => {
      const failure = queue.shift();
      if (failure) throw failure;
      return fn(...args);
    },
}));
vi.mock("../../src/bus/artifact.js", async (original) => {
  const real = await original<typeof import("../../src/bus/artifact.js")>();
  const read = failingFirst(real.readArtifact, artifactFailures);
  return { ...real, readArtifact: (...args: Parameters<typeof real.readArtifact>) => artifactAnswers.shift() ?? read(...args) };
});
vi.mock("../../src/core/score-gate.js", async (original) => {
  const real = await original<typeof import("../../src/core/score-gate.js")>();
  return { ...real, evaluateScoreGate: failingFirst(real.evaluateScoreGate, failures) };
});

const RUN = "unjudged";

describe("verifier: a result it cannot judge", () => {
  it("is rejected with the reason (a bug's TypeError), while an artifact that cannot be read now leaves it for the next pass", async () => {
    const { layout, file, dropResult } = await gateWithPacket(RUN);
    dropResult();

    for (const failure of [
      new RangeError("Maximum call stack size exceeded"),
      Object.assign(new Error("EIO: i/o error"), { code: "EIO" }),
    ]) {
      artifactFailures.push(failure);
      await expect(verifyGate(loadContext(layout), RUN, GATE, () => undefined)).rejects.toThrow(failure.message);
      expect(existsSync(file("result-1.json"))).toBe(true); // still there for the next pass
      expect(existsSync(path.join(layout.gateDir(RUN, GATE), "rejected"))).toBe(false);
    }

    // the system failed the read (EMFILE): the result waits for the next pass, no failing verdict is sealed for it
    artifactAnswers.push({ ok: false, problem: "artifact_missing", detail: "docs/spec.md: cannot open (EMFILE)", transient: true });
    await expect(verifyGate(loadContext(layout), RUN, GATE, () => undefined)).rejects.toThrow(/cannot be read for now.*EMFILE/);
    expect(existsSync(file("verdict-1.json"))).toBe(false);

    failures.push(new TypeError("Cannot convert object to primitive value"));
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(false);
    const rejected = path.join(layout.gateDir(RUN, GATE), "rejected");
    const reasons = readdirSync(rejected).filter((f) => f.endsWith(".reason.json"));
    expect(reasons).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(rejected, reasons[0]!), "utf8")).reason).toMatch(
      /the verifier cannot judge it: Cannot convert object to primitive value/,
    );
  });
});
