// Schemas are built on their first use (src/spec/schemas.ts), so a command that reads no such file never builds them. A
// schema whose first use is a parse, or a read of its shape, must judge exactly as one built when the module loaded.
import { beforeEach, describe, expect, it, vi } from "vitest";

/** The schema module loaded afresh: nothing in it has been built yet. */
const freshSchemas = () => import("../../src/spec/schemas.js");

describe("schemas built on first use", () => {
  beforeEach(() => vi.resetModules());

  it("settings: a parse as the first use still refuses a bad value, with the path and message it always gave", async () => {
    const { Settings } = await freshSchemas();
    const bad = Settings.safeParse({ max_rounds: 0 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ["max_rounds"], message: expect.stringMatching(/>=\s*1/) });
    expect(Settings.safeParse({ max_rounds: 3, reviewer: "auto" })).toMatchObject({ success: true, data: { max_rounds: 3 } });
  });

  it("settings: the shape read first (the unknown-key check) names every key, and a provider entry is still checked", async () => {
    const { ProviderConfig, Settings } = await freshSchemas();
    expect(Object.keys(Settings.shape)).toEqual(expect.arrayContaining(["max_rounds", "providers", "gate_quorum"]));
    expect(Object.keys(ProviderConfig.shape)).toEqual(expect.arrayContaining(["adapter", "argv", "copilot_profiles"]));
    const bad = Settings.safeParse({ providers: { mine: { adapter: "telepathy" } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["providers", "mine", "adapter"]);
    // defaults still apply to a provider entry built on first use
    expect(Settings.parse({ providers: { mine: { adapter: "command", argv: ["x"] } } }).providers!.mine).toMatchObject({
      input: "stdin",
      selectable: true,
    });
  });

  it("a finding and a ruling: first used by a parse, or inside a result, they refuse what they refused", async () => {
    const { Finding, ReviewResultLenient, Ruling } = await freshSchemas();
    expect(Finding.safeParse({ severity: "blocking", title: "  " }).success).toBe(false);
    expect(Finding.safeParse({ severity: "urgent", title: "t" }).success).toBe(false);
    expect(Finding.safeParse({ severity: "high", title: "t", extra: 1 })).toMatchObject({ success: true, data: { extra: 1 } });
    const result = { packet_id: "p", artifact_sha256_reviewed: "s", verdict: "issues", blocking_findings: [] };
    const wrongRuling = ReviewResultLenient.safeParse({ ...result, rulings: [{ finding: "f1", ruling: "maybe" }] });
    expect(wrongRuling.success).toBe(false);
    expect(wrongRuling.error!.issues[0]!.path).toEqual(["rulings", 0, "ruling"]);
    expect(Ruling.safeParse({ finding: "", ruling: "upheld" }).success).toBe(false);
    expect(Ruling.safeParse({ finding: "f1", ruling: "withdrawn" }).success).toBe(true);
  });
});
