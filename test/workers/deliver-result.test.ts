// The one way a result enters a gate scrubs it: the built-in patterns, the project's own, and the providers' API keys
// by value (an endpoint that echoes the key it was sent must not commit it to result-<n>.json, trail.md or status).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { deliverResult } from "../../src/workers/deliver-result.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import type { PacketFrontMatter } from "../../src/spec/schemas.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const KEY_ENV = "GUILD_BUS_TEST_GATEWAY_KEY";
afterEach(() => delete process.env[KEY_ENV]);

/** Deliver, as a reviewer worker does, an answer with `summary` and one finding titled `title` for round 1 of a gate. */
async function delivered(run: string, answer: { title: string; summary?: string }, settings?: object) {
  const { layout, file, field } = await gateWithPacket(run);
  if (settings) writeFileSync(layout.settings, JSON.stringify(settings));
  const packet = readGate(layout, run, GATE).packets.get(1) as PacketFrontMatter;
  const delivery = await deliverResult(loadContext(layout), packet, {
    schema_version: "review_result.v1",
    packet_id: field("packet_id"),
    artifact_sha256_reviewed: field("artifact_sha256"),
    verdict: "issues",
    ...(answer.summary === undefined ? {} : { summary: answer.summary }),
    findings: [{ severity: "high", title: answer.title, detail: "d" }],
    blocking_findings: [],
    round: 1,
    reviewer_host: "http",
    reviewer_model: "gpt-5",
  });
  expect(delivery).toMatchObject({ ok: true, status: "delivered" });
  return readFileSync(file("result-1.json"), "utf8");
}

describe("deliverResult", () => {
  it("replaces a provider's API key, read from its api_key_env, wherever the answer quotes it", async () => {
    const key = "corp-gateway-key-alpha-bravo-7"; // no shape a built-in pattern knows
    process.env[KEY_ENV] = key;
    const written = await delivered(
      "echoed-key",
      { title: `key ${key} echoed`, summary: `the request carried Authorization: Bearer ${key}` },
      { providers: { gw: { adapter: "http", base_url: "http://127.0.0.1:1", api_key_env: KEY_ENV } } },
    );
    expect(written).not.toContain(key);
    expect(written).toContain("Bearer [REDACTED:token]");
  });

  it("writes a reviewer's C1 and bidirectional controls as escapes: cat shows them, a reader gets the same text", async () => {
    const title = "rewrite \u009b2J the screen \u202eevil\u2066";
    const written = await delivered("controls", { title });
    for (const control of ["\u009b", "\u202e", "\u2066"]) expect(written).not.toContain(control);
    expect(written).toContain("\\u009b2J");
    expect(JSON.parse(written).findings[0].title).toBe(title);
  });
});

describe("a paid answer its round no longer takes", () => {
  it("is kept in rejected/ with why when the reviewer worker delivers it; a person's answer (respond) is only refused", async () => {
    const run = "late-answer";
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    const packet = readGate(g.layout, run, GATE).packets.get(1) as PacketFrontMatter;
    g.dropResult(); // the round took another answer first, and the gate ended
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("outcome.json"))).toBe(true);
    const answer = {
      schema_version: "review_result.v1" as const,
      packet_id: g.field("packet_id"),
      artifact_sha256_reviewed: g.field("artifact_sha256"),
      verdict: "issues" as const,
      findings: [],
      blocking_findings: [{ severity: "blocking" as const, title: "the late block" }],
      round: 1,
      reviewer_host: "http",
      reviewer_model: "gpt-5",
    };
    const dir = path.join(g.layout.gateDir(run, GATE), "rejected");
    expect(await deliverResult(ctx, packet, answer)).toMatchObject({ ok: false });
    expect(existsSync(dir)).toBe(false);
    const kept = await deliverResult(ctx, packet, answer, { keepRefused: true });
    expect(kept).toMatchObject({ ok: false, keptAs: expect.stringMatching(/^result-1\.json\./) });
    const name = (kept as { keptAs: string }).keptAs;
    expect(readFileSync(path.join(dir, name), "utf8")).toContain("the late block");
    expect(JSON.parse(readFileSync(path.join(dir, `${name}.reason.json`), "utf8"))).toMatchObject({
      file: "result-1.json",
      reason: expect.stringMatching(/^not delivered: /),
    });
  });
});

describe("a delivery tried again after its first try landed", () => {
  it("is the same answer delivered, not a refused one, once the gate ended on it (a fault after the link, EIO on fsync)", async () => {
    const run = "landed-then-ended";
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    const packet = readGate(g.layout, run, GATE).packets.get(1) as PacketFrontMatter;
    const answer = {
      schema_version: "review_result.v1" as const,
      packet_id: g.field("packet_id"),
      artifact_sha256_reviewed: g.field("artifact_sha256"),
      verdict: "satisfied" as const,
      findings: [],
      blocking_findings: [],
      round: 1,
      reviewer_host: "http",
      reviewer_model: "gpt-5",
    };
    expect(await deliverResult(ctx, packet, answer, { keepRefused: true })).toMatchObject({ ok: true, status: "delivered" });
    // the workers go on from the landed file while its writer waits to try again
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("outcome.json"))).toBe(true);
    expect(await deliverResult(ctx, packet, answer, { keepRefused: true })).toMatchObject({ ok: true, status: "identical" });
    expect(existsSync(path.join(g.layout.gateDir(run, GATE), "rejected"))).toBe(false);
  });
});
