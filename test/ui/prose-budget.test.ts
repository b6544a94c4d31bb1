// Reviewer prose on a gate page is Markdown, and markdown-it's time grows with the text: a result holding megabytes of
// `[` held the console's one process (every page, every live update) for seconds at each load of its gate. A page
// renders a bounded amount of it as Markdown, newest rounds first; the rest is shown, as plain text.
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { MAX_MARKDOWN_CHARS, markdownBudget, PAGE_MARKDOWN_CHARS } from "../../src/ui/markdown.js";
import { gatePage } from "../../src/ui/pages.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const page = async (run: string, layout: Parameters<typeof loadContext>[0]) =>
  String(
    await gatePage(
      { root: layout.root, base: "/b", readOnly: true, csrf: "c", seq: 0 },
      gateTimeline(loadContext(layout), run, GATE),
      null,
    ),
  );

describe("reviewer prose on a gate page", () => {
  it("renders a text longer than the limit, and any text past the page's budget, as plain text", () => {
    const budget = markdownBudget(30);
    expect(budget("**a**")).toContain("<strong>a</strong>");
    expect(budget("x".repeat(26))).toBeNull(); // 5 + 26 > 30: past the budget
    expect(budget("**b**")).toContain("<strong>b</strong>"); // 10 of 30 spent: still fits
    expect(markdownBudget()("[".repeat(MAX_MARKDOWN_CHARS + 1))).toBeNull();
  });

  it("a planted megabyte of `[` is shown as plain text, and the summary beside it still as Markdown", async () => {
    const { layout, dropResult } = await gateWithPacket("huge-prose");
    const planted = { severity: "blocking", title: "a finding", detail: `**planted** ${"[".repeat(1_000_000)}` };
    dropResult({ verdict: "issues", summary: "**short summary**", findings: [planted], blocking_findings: [planted] });
    const text = await page("huge-prose", layout);
    expect(text).toContain("<strong>short summary</strong>");
    expect(text).toContain(`<pre class="text">**planted** [[[`);
    expect(text).not.toContain("<strong>planted</strong>");
  });

  it("a round's many long findings spend the page's budget: the rest are plain text, none is left out", async () => {
    const { layout, dropResult } = await gateWithPacket("many-prose");
    const each = MAX_MARKDOWN_CHARS - 100;
    const findings = Array.from({ length: 20 }, (_, i) => ({
      severity: "blocking",
      title: `finding ${i}`,
      detail: `**bold ${i}** ${"x".repeat(each - 20)}`,
    }));
    dropResult({ verdict: "issues", findings, blocking_findings: findings });
    const text = await page("many-prose", layout);
    const rendered = findings.filter((_, i) => text.includes(`<strong>bold ${i}</strong>`)).length;
    const plain = findings.filter((_, i) => text.includes(`<pre class="text">**bold ${i}**`)).length;
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThanOrEqual(Math.floor(PAGE_MARKDOWN_CHARS / each));
    expect(rendered + plain).toBe(findings.length);
  });
});
