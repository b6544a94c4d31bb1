// A quorum round's members are dispatched side by side by one reviewer worker. A member whose reviewer the system cannot
// start ends its pass early (kept in hand), but the pass ends only with every member's dispatch: a worker told to drain
// waits for the handlers in flight, and a paid review still running in a pass that had already ended was not waited for.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { type Held, reviewGate } from "../../src/workers/reviewer.js";
import type { ReviewerAdapter } from "../../src/adapters/types.js";
import { passingAnswer } from "../helpers/answers.js";
import { tempRoot } from "../helpers/tmp.js";

describe("a quorum pass with a member the system cannot start", () => {
  it("ends only once the other member's paid dispatch has ended and its answer is delivered", async () => {
    const root = tempRoot("guild-bus-quorum-slots-");
    mkdirSync(path.join(root, "docs"), { recursive: true });
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    const provider = (model: string) => ({ adapter: "command", model, argv: [process.execPath, "-e", "0"] });
    writeFileSync(
      path.join(root, ".guild", "settings.json"),
      JSON.stringify({ providers: { gpt: provider("gpt-5"), gem: provider("gemini-2.5-pro") } }),
    );
    writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
    const layout = new Layout(root);
    const asked = { artifact: "docs/plan.md", gate: "G-plan", author: "claude", runId: "qs", quorum: { need: 2, of: 2 } };
    expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), "qs", "G-plan");

    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let started!: () => void;
    const gemStarted = new Promise<void>((resolve) => (started = resolve));
    const adapter: ReviewerAdapter = {
      dispatch: async (input) => {
        if (input.providerId === "gpt") return { kind: "not-run", reason: "cannot start node: EMFILE", shortage: "EMFILE" };
        started();
        await answered; // a paid review under way
        return passingAnswer(input.front, "gemini-2.5-pro");
      },
    };
    const held = new Map<string, Held>();
    let settled = false;
    const pass = reviewGate(
      loadContext(layout),
      "qs",
      "G-plan",
      { serves: ["command"], adapters: { command: adapter }, log: () => {}, held },
      new AbortController().signal,
    ).finally(() => (settled = true));
    pass.catch(() => {}); // looked at below
    await gemStarted;
    // the short member has ended its part: kept in hand, its claim released
    const gptLock = layout.gateFile("qs", "G-plan", path.join(".claims", "review-1.gpt.lock"));
    for (const deadline = performance.now() + 20_000; (held.size === 0 || existsSync(gptLock)) && performance.now() < deadline;)
      await new Promise((r) => setTimeout(r, 10));
    expect(held.size).toBe(1);
    expect(existsSync(gptLock)).toBe(false);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false); // the gem member's paid review is still in flight: the pass has not ended
    answer();
    await expect(pass).rejects.toMatchObject({ code: "EMFILE" });
    expect(existsSync(layout.gateFile("qs", "G-plan", "result-1.gem.json"))).toBe(true);
  });
});
