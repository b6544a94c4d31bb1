// The author's family decides who may review (SPEC §12). A declared model that contradicts its host's family is
// ambiguous: the request still goes in, with a warning that says why the gate can pass only weakly.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { issueProblem } from "../../src/core/packet-chain.js";
import { type PacketFrontMatter, Request, Settings } from "../../src/spec/schemas.js";
import { tempRoot } from "../helpers/tmp.js";

function project(): Layout {
  const root = tempRoot();
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  return new Layout(root);
}

describe("review: the author's declared model against its host", () => {
  it("warns when they name different families, and not when they agree", async () => {
    const ask = (author: string, authorModel: string) =>
      requestReview(project(), { artifact: "docs/spec.md", gate: "G-spec", author, authorModel, reviewer: "manual" });
    expect(await ask("claude-code", "gpt-5")).toMatchObject({
      ok: true,
      warnings: [
        expect.stringMatching(/^author family unknown: the declared model "gpt-5" is openai, but host "claude-code" is anthropic/),
      ],
    });
    expect(await ask("claude-code", "claude-opus-4-5")).toMatchObject({ ok: true, warnings: [] });
  });

  it("refuses a model name no packet should carry: longer than 200 characters, or more than one line", async () => {
    const ask = (authorModel: string) =>
      requestReview(project(), { artifact: "docs/spec.md", gate: "G-spec", author: "claude-code", authorModel, reviewer: "manual" });
    for (const model of ["x".repeat(201), "claude\nopus"])
      expect(await ask(model)).toEqual({ ok: false, error: expect.stringMatching(/^invalid input: author_model: must be one line/) });
    // outer spaces, as hosts send them, are trimmed, not refused
    const layout = project();
    const asked = await requestReview(layout, {
      artifact: "docs/spec.md",
      gate: "G-spec",
      author: "claude-code",
      authorModel: " claude-opus-4-5\n",
    });
    expect(asked).toMatchObject({ ok: true });
    const run = asked.ok ? asked.runId : "";
    expect(JSON.parse(readFileSync(layout.gateFile(run, "G-spec", "request.json"), "utf8"))).toMatchObject({
      author_model: "claude-opus-4-5",
    });
  });

  it("records the pin in force (settings.reviewer when the request names none): a later settings edit re-judges nothing", async () => {
    const layout = project();
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, JSON.stringify({ reviewer: "manual" }));
    const asked = await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude-code" });
    const run = asked.ok ? asked.runId : "";
    expect(JSON.parse(readFileSync(layout.gateFile(run, "G-spec", "request.json"), "utf8"))).toMatchObject({ reviewer: "manual" });
  });

  it("records the stop policy, difficulty and quorum in force: a packet that drops a settings default passes nothing", async () => {
    const layout = project();
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, JSON.stringify({ stop: "score", difficulty: "hard", gate_quorum: { "G-spec": { of: 3, need: 2 } } }));
    const asked = await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude-code" });
    const run = asked.ok ? asked.runId : "";
    const request = Request.parse(JSON.parse(readFileSync(layout.gateFile(run, "G-spec", "request.json"), "utf8")));
    expect(request).toMatchObject({ stop: "score", difficulty: "hard", quorum: { need: 2, of: 3 } });
    // what issueProblem holds a planted round-1 packet to: the request names every one of them now
    const planted = { stop: undefined, difficulty: undefined, quorum: undefined, independence: "weak" } as unknown as PacketFrontMatter;
    expect(issueProblem(planted, request, Settings.parse({}))).toMatch(/^its stop policy verdict is not the one request\.json asks for/);
    expect(issueProblem({ ...planted, stop: "score", difficulty: "hard" }, request, Settings.parse({}))).toMatch(
      /^its quorum rule \(none\)/,
    );
    // and a request asking nothing special records the defaults the broker applies
    const plain = project();
    const asked2 = await requestReview(plain, { artifact: "docs/spec.md", gate: "G-spec", author: "claude-code" });
    const run2 = asked2.ok ? asked2.runId : "";
    const recorded = JSON.parse(readFileSync(plain.gateFile(run2, "G-spec", "request.json"), "utf8"));
    expect(recorded).toMatchObject({ stop: "verdict", difficulty: "medium", review: "cross" });
    expect(recorded.quorum).toBeUndefined();
  });
});
