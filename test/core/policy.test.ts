// resolvePolicy: whether review is required, in which mode, and the cap in force.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CAP, DEFAULT_RESTART_CAP, MAX_CAP, NO_REQUEST_POLICY, resolvePolicy } from "../../src/core/policy.js";
import type { Settings } from "../../src/spec/schemas.js";
import { request } from "../helpers/snapshots.js";

describe("resolvePolicy: cap", () => {
  it("request cap > settings codex_cap > default 5", () => {
    expect(resolvePolicy(request({ cap: 2 }), { codex_cap: 7 }).cap).toBe(2);
    expect(resolvePolicy(request(), { codex_cap: 7 }).cap).toBe(7);
    expect(resolvePolicy(request(), {}).cap).toBe(DEFAULT_CAP);
    expect(DEFAULT_CAP).toBe(5);
  });

  it("settings max_rounds is the round cap; codex_cap is its older name, and max_rounds wins when both are set", () => {
    expect(resolvePolicy(request(), { max_rounds: 3 }).cap).toBe(3);
    expect(resolvePolicy(request(), { max_rounds: 3, codex_cap: 7 }).cap).toBe(3);
    expect(resolvePolicy(request({ cap: 2 }), { max_rounds: 3 }).cap).toBe(2);
  });

  it("clamped to 10 with a warning, from either source; 10 itself is not a warning", () => {
    expect(MAX_CAP).toBe(10);
    expect(resolvePolicy(request({ cap: 12 }), {})).toMatchObject({ cap: 10, warnings: ["cap 12 clamped to 10"] });
    expect(resolvePolicy(request(), { codex_cap: 40 })).toMatchObject({ cap: 10, warnings: ["cap 40 clamped to 10"] });
    expect(resolvePolicy(request({ cap: 10 }), {})).toMatchObject({ cap: 10, warnings: [] });
  });

  it("a request cap under the limit wins even when settings would be clamped", () => {
    expect(resolvePolicy(request({ cap: 3 }), { codex_cap: 99 })).toMatchObject({ cap: 3, warnings: [] });
  });

  it("the resolved cap is always within 1..10 (property)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
        (asked, configured) => {
          const p = resolvePolicy(
            request(asked === undefined ? {} : { cap: asked }),
            configured === undefined ? {} : { codex_cap: configured },
          );
          const wanted = asked ?? configured ?? 5;
          expect(p.cap).toBe(Math.min(wanted, 10));
          expect(p.warnings.length).toBe(wanted > 10 ? 1 : 0);
        },
      ),
    );
  });

  it("restart cap: settings.restart_cap, else the default 3", () => {
    expect(resolvePolicy(request(), {}).restartCap).toBe(DEFAULT_RESTART_CAP);
    expect(DEFAULT_RESTART_CAP).toBe(3);
    expect(resolvePolicy(request(), { restart_cap: 7 }).restartCap).toBe(7);
  });
});

describe("resolvePolicy: required and mode", () => {
  const cases: Array<[string, Parameters<typeof request>[0], Settings, { mode: string; required: boolean; requiredBecause: string }]> = [
    ["default is cross", {}, {}, { mode: "cross", required: true, requiredBecause: "review=cross" }],
    [
      "settings review applies when the request has none",
      {},
      { review: "local" },
      { mode: "local", required: true, requiredBecause: "review=local" },
    ],
    [
      "the request's review beats settings",
      { review: "cross" },
      { review: "off" },
      { mode: "cross", required: true, requiredBecause: "review=cross" },
    ],
    ["review=off → not required", { review: "off" }, {}, { mode: "off", required: false, requiredBecause: "review=off" }],
    ["settings review=off → not required", {}, { review: "off" }, { mode: "off", required: false, requiredBecause: "review=off" }],
    [
      "review=off + risk high → required, cross",
      { review: "off", risk: "high" },
      {},
      { mode: "cross", required: true, requiredBecause: "risk high (review=off overridden)" },
    ],
    [
      "review=off + require_review → required, cross",
      { review: "off" },
      { require_review: true },
      { mode: "cross", required: true, requiredBecause: "settings require_review (review=off overridden)" },
    ],
    [
      "risk high is named before require_review",
      { review: "off", risk: "high" },
      { require_review: true },
      { mode: "cross", required: true, requiredBecause: "risk high (review=off overridden)" },
    ],
    [
      "review=off + risk medium → still not required",
      { review: "off", risk: "medium" },
      {},
      { mode: "off", required: false, requiredBecause: "review=off" },
    ],
    [
      "review=off + require_review false → not required",
      { review: "off" },
      { require_review: false },
      { mode: "off", required: false, requiredBecause: "review=off" },
    ],
  ];
  it.each(cases)("%s", (_name, req, settings, expected) => {
    expect(resolvePolicy(request(req), settings)).toMatchObject(expected);
  });

  it("not required only when review=off and nothing forces it (property)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom("cross" as const, "local" as const, "off" as const), { nil: undefined }),
        fc.option(fc.constantFrom("cross" as const, "local" as const, "off" as const), { nil: undefined }),
        fc.option(fc.constantFrom("low" as const, "medium" as const, "high" as const), { nil: undefined }),
        fc.option(fc.boolean(), { nil: undefined }),
        (review, settingsReview, risk, requireReview) => {
          const p = resolvePolicy(request({ ...(review ? { review } : {}), ...(risk ? { risk } : {}) }), {
            ...(settingsReview ? { review: settingsReview } : {}),
            ...(requireReview !== undefined ? { require_review: requireReview } : {}),
          });
          const asked = review ?? settingsReview ?? "cross";
          expect(p.required).toBe(asked !== "off" || risk === "high" || requireReview === true);
          expect(p.mode === "off").toBe(!p.required);
        },
      ),
    );
  });

  it("the no-request placeholder is required, default cap, frozen", () => {
    expect(NO_REQUEST_POLICY).toMatchObject({ required: true, cap: 5, restartCap: 3 });
    expect(Object.isFrozen(NO_REQUEST_POLICY)).toBe(true);
  });
});
