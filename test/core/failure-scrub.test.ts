// A failure's reason (failure-<n>.json, then the escalation and trail.md) is outside text: a reviewer's stderr, an
// endpoint's page. It carries nothing the project's patterns or the providers' keys name (SPEC §9).
import { describe, expect, it } from "vitest";
import { tail } from "../../src/adapters/child.js";
import { attemptRecord, failureRecord } from "../../src/core/dispatch-plan.js";
import { receivedScrubOptions, scrubOptions } from "../../src/core/scrub.js";
import { ProviderConfig, Settings } from "../../src/spec/schemas.js";
import { packet } from "../helpers/snapshots.js";

const KEY = "k7Qm-Zp3X-wR9t-Lb2V-hN6c-Yd4F";
const settings = Settings.parse({
  secrets_policy: { redaction_patterns: ["ACME-\\d+-SECRET"] },
  providers: { ds: { adapter: "http", model: "m", base_url: "http://127.0.0.1:1/v1", api_key_env: "DS_KEY" } },
});
const options = receivedScrubOptions(settings, { DS_KEY: KEY });

describe("failure and attempt reasons", () => {
  it("redact the project's patterns and each provider's key by value", () => {
    const said = `exited with 1: key ${KEY} rejected (account ACME-482913-SECRET locked)`;
    const failure = failureRecord(packet(1), { kind: "no_verdict", reason: said, attempts: [], at: new Date().toISOString() }, options);
    const attempt = attemptRecord({
      provider: "ds",
      config: ProviderConfig.parse(settings.providers!.ds),
      pair: { model: "m", effort: null },
      tier: "regular",
      outcome: { kind: "ambiguous", reason: said },
      scrub: options,
    });
    for (const text of [failure.reason, attempt.reason!]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain("482913");
      expect(text).toContain("[REDACTED:custom]");
    }
  });

  it("the artifact's scrub is the same in every process: provider keys, read from the environment, are not part of it", () => {
    expect(scrubOptions(settings)).toEqual({ customPatterns: ["ACME-\\d+-SECRET"] });
    expect(options.literals).toEqual([KEY]);
  });

  it("a child's last words keep no piece of a secret the cut splits (the patterns apply to the reason later)", () => {
    const stderr = `account ACME-${"4".repeat(20)}-SECRET locked ${"x ".repeat(300)}`;
    const kept = tail(stderr, stderr.length - 19); // the cut falls 20 characters in: inside the secret
    expect(kept.startsWith("…")).toBe(true);
    expect(kept).not.toContain("-SECRET");
    expect(kept).not.toContain("44");
  });
});
