// The one reader of a foreign writer's time (SPEC §0): ISO-8601 extended, either decimal mark, a zone required.
import { describe, expect, it } from "vitest";
import { before, parseIsoTime } from "../../src/core/iso-time.js";

const at = (text: string) => parseIsoTime(text);

describe("parseIsoTime", () => {
  it("reads the instant and the precision it was written at", () => {
    expect(at("2026-12-05T15:07:03.052Z")).toEqual({ ms: Date.parse("2026-12-05T15:07:03.052Z"), precisionMs: 1 });
    expect(at("2026-12-05T15:07:03Z")).toEqual({ ms: Date.parse("2026-12-05T15:07:03Z"), precisionMs: 1000 });
    expect(at("2026-12-05T15:07:03,5Z")).toEqual({ ms: Date.parse("2026-12-05T15:07:03.500Z"), precisionMs: 100 });
    expect(at("2026-12-05T15:07:03.123456+00:00")).toEqual({ ms: Date.parse("2026-12-05T15:07:03.123Z"), precisionMs: 1 });
    expect(at("2026-12-05T15:07Z")).toEqual({ ms: Date.parse("2026-12-05T15:07:00Z"), precisionMs: 60_000 });
    expect(at("2026-12-05T20:37:03+05:30")).toEqual({ ms: Date.parse("2026-12-05T15:07:03Z"), precisionMs: 1000 });
    expect(at("2026-12-05T10:07:03-0500")).toEqual({ ms: Date.parse("2026-12-05T15:07:03Z"), precisionMs: 1000 });
  });

  it("refuses a time without a zone, and one that is no time, saying which", () => {
    expect(at("2026-12-05T15:07:03")).toEqual({ problem: "an ISO-8601 time without a zone (add Z or ±hh:mm)" });
    for (const text of ["2026-02-30T00:00:00Z", "2026-12-05T24:00:00Z", "2026-12-05T15:07:60Z", "2026-12-05T15:07:03+24:00"])
      expect(at(text), text).toEqual({ problem: "not a time (a field is out of range)" });
    for (const text of ["2026-12-05", "2026-12-05T15Z", "2026-12-05 15:07:03Z", "2026-12-05T15:07:03.Z", "yesterday"])
      expect("problem" in at(text), text).toBe(true);
  });

  it("compares at the first time's precision: a time cut short is not earlier", () => {
    const t = (text: string) => at(text) as { ms: number; precisionMs: number };
    const escalation = t("2026-12-05T15:07:03.052Z");
    expect(before(t("2026-12-05T15:07:03Z"), escalation)).toBe(false);
    expect(before(t("2026-12-05T15:07Z"), escalation)).toBe(false);
    expect(before(t("2026-12-05T15:07:03.0Z"), escalation)).toBe(false);
    expect(before(t("2026-12-05T15:07:03.05Z"), escalation)).toBe(false);
    expect(before(t("2026-12-05T15:07:03.051Z"), escalation)).toBe(true);
    expect(before(t("2026-12-05T15:07:02Z"), escalation)).toBe(true);
    expect(before(t("2026-12-05T15:06Z"), escalation)).toBe(true);
  });
});
