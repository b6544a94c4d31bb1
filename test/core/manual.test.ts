// A human reviewer's answer: `Reviewer-Model:` first line, family checks, then the same normalizer as every adapter.
import { describe, expect, it } from "vitest";
import { acceptManualResponse, manualInstructions } from "../../src/core/manual-answer.js";
import { ReviewResultStrict } from "../../src/spec/schemas.js";
import { packet, SHA_A } from "../helpers/snapshots.js";

const P = packet(2, { reviewer_provider: "manual", reviewer_adapter: "manual", reviewer_model: null, reviewer_family: "unknown" });
const review = (obj: object) => "```review_result.v1\n" + JSON.stringify(obj) + "\n```\n";
const issues = { verdict: "issues", findings: [{ severity: "blocking", title: "no rollback" }], blocking_findings: ["no rollback"] };

describe("acceptManualResponse", () => {
  it("first line Reviewer-Model, then a review block → a strict result from the manual path, family recorded", () => {
    const v = acceptManualResponse(`Reviewer-Model: gpt-5\n${review(issues)}`, P, {});
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.model).toBe("gpt-5");
    expect(v.result).toMatchObject({
      packet_id: P.packet_id,
      artifact_sha256_reviewed: SHA_A,
      verdict: "issues",
      round: 2,
      reviewer_host: "manual",
      reviewer_model: "gpt-5",
      reviewer_model_source: "declared",
      normalized_from: "manual",
      reviewer_family: "openai",
    });
    expect(v.result.blocking_findings).toEqual([{ severity: "blocking", title: "no rollback" }]);
    expect(ReviewResultStrict.safeParse(v.result).success).toBe(true);
  });

  it("the model line is case-insensitive, tolerates spaces, a BOM and CRLF", () => {
    const v = acceptManualResponse(`\uFEFF  reviewer-model:   gemini-2.5-pro  \r\nLooks right.\r\n## SATISFIED\r\n`, P, {});
    expect(v).toMatchObject({
      ok: true,
      model: "gemini-2.5-pro",
      result: { verdict: "satisfied", reviewer_family: "google", normalized_from: "manual" },
    });
  });

  it("a BOM before a review given with the model as a field (no model line) is read as the same review", () => {
    // an editor's "UTF-8 with BOM" save: the CLI's --file and the console's upload hand the text over as decoded
    for (const text of [`\uFEFF${JSON.stringify(issues)}\n`, `\uFEFF${review(issues)}`])
      expect(acceptManualResponse(text, P, {}, "gpt-5"), text).toMatchObject({ ok: true, result: { verdict: "issues" } });
  });

  it("the model line is taken only from the first line; the refusal advises what the sender can do, never a CLI flag", () => {
    const v = acceptManualResponse(`My review\nReviewer-Model: gpt-5\n## SATISFIED\n`, P, {});
    const firstLine = "the first line must be `Reviewer-Model: <exact-model-id>`";
    expect(v).toEqual({ ok: false, reason: `${firstLine} (the one on line 2 is not read: move it to the top)` });
    // a dropped response that begins with a blank line: the file is all the dropper has
    const blank = acceptManualResponse(`\n\nReviewer-Model: gpt-5\n## SATISFIED\n`, P, {});
    expect(blank).toEqual({ ok: false, reason: `${firstLine} (the one on line 3 is not read: remove the blank lines above it)` });
    expect(acceptManualResponse(`## SATISFIED\n`, P, {})).toEqual({ ok: false, reason: firstLine });
    // through respond (a blank reviewer model field, on any face): the field, or the line
    const field = acceptManualResponse(`## SATISFIED\n`, P, {}, "  ");
    expect(field).toEqual({
      ok: false,
      reason:
        "no reviewer model: name the exact model id that produced this review (the reviewer model field), " +
        "or make the review's first line `Reviewer-Model: <exact-model-id>`",
    });
    for (const r of [v, blank, field]) expect(r.ok ? "" : r.reason).not.toMatch(/--/);
  });

  it("an unknown family is rejected, naming the model", () => {
    const v = acceptManualResponse(`Reviewer-Model: my-local-thing\n## SATISFIED\n`, P, {});
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.reason).toMatch(/^reviewer model "my-local-thing" has no known family/);
  });

  it("the author's family is rejected, naming that family", () => {
    const v = acceptManualResponse(`Reviewer-Model: claude-opus-4\n## SATISFIED\n`, P, {});
    expect(v).toEqual({
      ok: false,
      reason:
        "reviewer model claude-opus-4 is anthropic, the author's family: " +
        "a same-family review cannot sign off; answer with a model of another family",
    });
  });

  it("family aliases from settings are honoured", () => {
    expect(acceptManualResponse(`Reviewer-Model: house-7b\n## SATISFIED\n`, P, { family_aliases: { "house-7b": "qwen" } })).toMatchObject({
      ok: true,
      result: { reviewer_family: "qwen" },
    });
  });

  it("--reviewer-model overrides the first line (which is then not part of the body)", () => {
    const v = acceptManualResponse(`Reviewer-Model: claude-opus-4\n## SATISFIED\n`, P, {}, "deepseek-r1");
    expect(v).toMatchObject({
      ok: true,
      model: "deepseek-r1",
      result: { reviewer_model: "deepseek-r1", reviewer_family: "deepseek", summary: "" },
    });
  });

  it("--reviewer-model alone (no model line) uses the whole text as the body", () => {
    const v = acceptManualResponse(review(issues), P, {}, "  gpt-5  ");
    expect(v).toMatchObject({ ok: true, model: "gpt-5", result: { verdict: "issues" } });
  });

  it("a blank override falls back to the first line", () => {
    expect(acceptManualResponse(`Reviewer-Model: gpt-5\n## SATISFIED\n`, P, {}, "  ")).toMatchObject({ ok: true, model: "gpt-5" });
  });

  it("the body goes through the normalizer: a malformed sentinel is refused with its reason", () => {
    const v = acceptManualResponse(`Reviewer-Model: gpt-5\n## SATISFIED\n- still missing rollback\n`, P, {});
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.reason).toBe(
      'the review could not be read: malformed termination: open findings after the sentinel: "- still missing rollback"',
    );
  });

  it("a reviewer-supplied packet_id is kept (the verifier refuses it), never rewritten to the open packet", () => {
    const v = acceptManualResponse(`Reviewer-Model: gpt-5\n${review({ ...issues, packet_id: "G-spec-run1-r1" })}`, P, {});
    expect(v).toMatchObject({ ok: true, result: { packet_id: "G-spec-run1-r1" } });
  });

  it("a model the answer names wins over the declared one (§8.2), and is checked the same way", () => {
    const same = acceptManualResponse(
      `Reviewer-Model: gpt-5\n${review({ ...issues, reviewer_model: "claude-opus-4-1", reviewer_family: "openai" })}`,
      P,
      {},
    );
    expect(same).toEqual({
      ok: false,
      reason:
        "the answer names its model: reviewer model claude-opus-4-1 is anthropic, the author's family: " +
        "a same-family review cannot sign off; answer with a model of another family",
    });
    const unknown = acceptManualResponse(review({ ...issues, reviewer_model: "house-model" }), P, {}, "gpt-5");
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.reason).toMatch(/^the answer names its model: reviewer model "house-model" has no known family/);
    const other = acceptManualResponse(
      `Reviewer-Model: gpt-5\n${review({ ...issues, reviewer_model: "gemini-2.5-pro", reviewer_family: "openai" })}`,
      P,
      {},
    );
    expect(other).toMatchObject({
      ok: true,
      model: "gemini-2.5-pro",
      result: { reviewer_model: "gemini-2.5-pro", reviewer_model_source: "reported", reviewer_family: "google" },
    });
  });

  it("a repeated key in the answer is refused as unreadable, naming the key (§8.1)", () => {
    const text = JSON.stringify(issues).replace(/}$/, ',"verdict":"satisfied"}');
    const v = acceptManualResponse(`Reviewer-Model: gpt-5\n\`\`\`review_result.v1\n${text}\n\`\`\`\n`, P, {});
    expect(v).toEqual({
      ok: false,
      reason: 'the review could not be read: fenced block is not valid JSON: duplicate key "verdict" (each key may appear once per object)',
    });
  });
});

describe("manualInstructions", () => {
  it("says where the packet is, how to answer, and which family is excluded", () => {
    const text = manualInstructions("/proj", P, ".guild/runs/run1/review/G-spec/packet-2.md");
    expect(text).toContain("run1 G-spec round 2");
    expect(text).toContain("read:   .guild/runs/run1/review/G-spec/packet-2.md");
    expect(text).toContain("guild-bus respond run1 G-spec --round 2 --reviewer-model <exact-model-id> --file <answer.md>");
    expect(text).toContain(".guild/runs/run1/review/G-spec/response-2.md");
    expect(text).toContain("a family other than anthropic");
  });
});
