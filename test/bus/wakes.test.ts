// Which file events wake which worker (SPEC §18): the broker hears of a result or response only once another worker
// moved it aside, since its arrival gives the broker nothing to do before the verdict (or result) that follows.
import { describe, expect, it } from "vitest";
import { wakes } from "../../src/bus/layout.js";

describe("wakes", () => {
  const present = () => false;
  const gone = () => true;

  it("a result or response that arrives wakes the worker that reads it, not the broker; one that is gone wakes the broker", () => {
    expect(wakes("verifier", "result-2.json", present)).toBe(true);
    expect(wakes("broker", "result-2.json", present)).toBe(false);
    expect(wakes("broker", "result-2.json", gone)).toBe(true);
    expect(wakes("broker", "result-2.gpt.json", gone)).toBe(true); // a quorum member's
    expect(wakes("manual", "response-1.md", present)).toBe(true);
    expect(wakes("broker", "response-1.md", present)).toBe(false);
    expect(wakes("broker", "response-1.md", gone)).toBe(true);
  });

  it("asks whether the file is gone only where that decides (it costs an lstat per event)", () => {
    let asked = 0;
    const counting = () => (asked++, true);
    expect(wakes("verifier", "result-1.json", counting)).toBe(true);
    expect(wakes("broker", "verdict-1.json", counting)).toBe(true);
    expect(wakes("verifier", "packet-1.md", counting)).toBe(false);
    expect(asked).toBe(0);
  });

  it("the broker wakes on the files that change its plan, not on its packets and escalations; an outcome wakes everyone", () => {
    for (const name of ["request.json", "verdict-1.json", "failure-1.json", "resubmit-1.json", "decision-1.json", "rebuttal-1.md"])
      expect(wakes("broker", name, present), name).toBe(true);
    for (const name of ["packet-2.md", "escalation-1.json", "attempt-1.json", "memory-1.md"])
      expect(wakes("broker", name, gone), name).toBe(false);
    for (const worker of ["broker", "verifier", "manual"]) expect(wakes(worker, "outcome.json", present), worker).toBe(true);
    expect(wakes("broker", "not-a-bus-file.txt", present)).toBe(true); // a stray name: the broker reports it
    expect(wakes("command", "packet-2.md", present)).toBe(true); // reviewer workers wake on every file
  });
});
