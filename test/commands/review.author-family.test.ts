// The author's family decides who may review (SPEC §12). A declared model that contradicts its host's family is
// ambiguous: the request still goes in, with a warning that says why the gate can pass only weakly.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
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
});
