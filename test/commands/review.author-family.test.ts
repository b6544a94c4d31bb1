// The author's family decides who may review (SPEC §12). A declared model that contradicts its host's family is
// ambiguous: the request still goes in, with a warning that says why the gate can pass only weakly.
import { mkdirSync, writeFileSync } from "node:fs";
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
  });
});
