import { describe, expect, it } from "vitest";
import { ageMs } from "../../src/bus/age.js";

const T = Date.parse("2026-12-06T09:00:00Z");

describe("ageMs", () => {
  it("counts from the mtime on the wall clock", () => {
    expect(ageMs("a", { mtimeMs: T - 4000 }, T, 0)).toBe(4000);
  });

  it("counts a file dated in the future from when this process first saw it", () => {
    expect(ageMs("b", { mtimeMs: T + 3_600_000 }, T, 100)).toBe(0);
    expect(ageMs("b", { mtimeMs: T + 3_600_000 }, T + 7000, 7100)).toBe(7000);
  });

  it("keeps ageing when the wall clock steps back (NTP): a grace period still ends on time", () => {
    expect(ageMs("c", { mtimeMs: T }, T + 1000, 50)).toBe(1000);
    // an hour back; 11 s later by the monotonic clock
    expect(ageMs("c", { mtimeMs: T }, T - 3_600_000 + 11_000, 11_050)).toBe(11_000);
  });

  it("ages a new version of the file afresh", () => {
    expect(ageMs("d", { mtimeMs: T + 60_000, size: 1 }, T, 0)).toBe(0);
    expect(ageMs("d", { mtimeMs: T + 60_000, size: 2 }, T + 5000, 5000)).toBe(0);
  });
});
