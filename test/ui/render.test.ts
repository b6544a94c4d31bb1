// What the console puts on a page from hostile files: Markdown without raw HTML or live script links, a bounded diff,
// and the table's filter.
import { describe, expect, it } from "vitest";
import { artifactDiff } from "../../src/ui/diff.js";
import { renderMarkdown } from "../../src/ui/markdown.js";
import { rowMatches } from "../../src/ui/pages.js";
import { searchable } from "../../src/ui/rows.js";

describe("renderMarkdown", () => {
  it("escapes raw HTML, renders no image, and keeps only http, https and mailto links", () => {
    const out = renderMarkdown(
      "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n" +
        "[a](javascript:alert(3)) [b](JAVASCRIPT:alert(4)) [c](data:text/html,x) " +
        "[d](vbscript:x) [e](https://example.com/ok) [f](mailto:a@b.c)\n\n![i](https://example.com/p.png)\n\nhttps://example.com/bare <https://example.com/angle>",
    );
    expect(out).not.toMatch(/<script|<img|<[^>]*onerror|href="(javascript|data|vbscript)/i);
    expect(out).toContain("&lt;script&gt;");
    expect(out).toContain('<a href="https://example.com/ok">e</a>');
    expect(out).toContain('<a href="mailto:a@b.c">f</a>');
    expect(out).not.toContain('href="https://example.com/bare"'); // no autolinking
    expect(out).not.toContain('href="https://example.com/angle"');
  });
});

describe("artifactDiff", () => {
  it("marks added and removed lines and folds long unchanged runs", () => {
    const same = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const lines = artifactDiff(`${same}\nold\n`, `${same}\nnew\n`)!;
    expect(lines.filter((l) => l.kind !== "same")).toEqual([
      { kind: "del", text: "old" },
      { kind: "add", text: "new" },
    ]);
    expect(lines.some((l) => /… 14 unchanged lines …/.test(l.text))).toBe(true);
    expect(lines.length).toBeLessThan(12);
  });

  it("gives up (null) rather than spend unbounded time on texts that share nothing", () => {
    const a = Array.from({ length: 6000 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 6000 }, (_, i) => `b${i}`).join("\n");
    expect(artifactDiff(a, b)).toBeNull();
  });
});

describe("rowMatches", () => {
  const row = searchable({
    run: "r1",
    gate: "G-plan",
    status: "cap_hit",
    state: "awaiting_decision",
    round: 1,
    cap: 1,
    reviewer: "gpt",
    model: "gpt-5",
    family: "openai",
    independence: "strong",
    waitingFor: "a human decision",
    requestedAt: null,
    requestedMs: null,
    actionable: true,
  });
  it("matches every word anywhere in the row, and the state filters", () => {
    expect(rowMatches(row, "GPT-5 cap_hit", "")).toBe(true);
    // every word the row shows (its independence, its round of the cap) and its state: the page's script searches the same
    expect(rowMatches(row, "strong 1/1 awaiting_decision", "")).toBe(true);
    expect(rowMatches(row, "gemini", "")).toBe(false);
    expect(rowMatches(row, "", "human")).toBe(true);
    expect(rowMatches(row, "", "done")).toBe(false);
    expect(rowMatches({ ...row, state: "done", actionable: false }, "", "open")).toBe(false);
  });
});
