// A result the verifier's rules did not foresee (building its verdict throws) is moved aside with the reason, once:
// retried on every pass it would hold its gate in "verifying" for ever. A disk error is retried instead.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const failures: Error[] = [];
vi.mock("../../src/core/score-gate.js", async (original) => {
  const real = await original<typeof import("../../src/core/score-gate.js")>();
  return {
    ...real,
    evaluateScoreGate: (...args: Parameters<typeof real.evaluateScoreGate>) => {
      const failure = failures.shift();
      if (failure) throw failure;
      return real.evaluateScoreGate(...args);
    },
  };
});

const RUN = "unjudged";

describe("verifier: a result it cannot judge", () => {
  it("is rejected with the reason (a bug's TypeError), while a disk error leaves it for the next pass", async () => {
    const { layout, file, dropResult } = await gateWithPacket(RUN);
    dropResult();

    failures.push(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
    await expect(verifyGate(loadContext(layout), RUN, GATE, () => undefined)).rejects.toThrow(/EIO/);
    expect(existsSync(file("result-1.json"))).toBe(true); // still there for the next pass

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
