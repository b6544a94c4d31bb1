// The console's gate row says what `status` says of the same files: who reviews the open round (a quorum's every
// member, not "-"), and which request is the newest (read as `check` reads a time, SPEC §0).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { statusRow } from "../../src/commands/status.js";
import { gateRow, newestFirst } from "../../src/ui/rows.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { gatePage } from "../../src/ui/pages.js";
import { decideEscalation } from "../../src/commands/author.js";
import { stepGate } from "../../src/workers/broker.js";
import { tempRoot } from "../helpers/tmp.js";
import { artifactMissingEscalation, GATE, gateWithPacket } from "../helpers/one-gate.js";

function project() {
  const root = tempRoot("guild-bus-rows-agree-");
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const provider = (model: string) => ({ adapter: "command", model, argv: [process.execPath, "-e", "0"] });
  const providers = { gpt: provider("gpt-5"), gem: provider("gemini-2.5-pro") };
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ providers }));
  writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
  return new Layout(root);
}

describe("the console's row and status agree", () => {
  it("name every reviewer of an open quorum round, with their families", async () => {
    const layout = project();
    const asked = { artifact: "docs/plan.md", gate: "G-plan", author: "claude", runId: "q", quorum: { need: 2, of: 2 } };
    expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), "q", "G-plan");
    const ctx = loadContext(layout);
    const status = statusRow(ctx, "q", "G-plan");
    const { row } = gateRow(ctx, "q", "G-plan");
    expect(status.reviewer_model).toBe("gemini-2.5-pro + gpt-5");
    expect(row.model).toBe(status.reviewer_model);
    expect(row.family).toBe("google + openai");
    // each member's section on the gate page: a link to round 1 lands on the first, no id is given twice
    const page = String(
      gatePage({ root: layout.root, base: "/b", readOnly: true, csrf: "c", seq: 0 }, gateTimeline(ctx, "q", "G-plan"), null),
    );
    const ids = [...page.matchAll(/<section class="round[^"]*" id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(["round-1", "round-1-2"]);
  });

  it("order requests by the time they name, whatever offset it was written with", async () => {
    const layout = project();
    for (const runId of ["earlier", "later"])
      expect(await requestReview(layout, { artifact: "docs/plan.md", gate: "G-plan", author: "claude", runId })).toMatchObject({
        ok: true,
      });
    // "later" an hour after "earlier", written at UTC-05:00: as text it sorts first
    const file = layout.gateFile("later", "G-plan", "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    const at = Date.parse(request.requested_at) + 3_600_000;
    writeFileSync(file, JSON.stringify({ ...request, requested_at: new Date(at - 5 * 3_600_000).toISOString().replace("Z", "-05:00") }));
    const ctx = loadContext(layout);
    const rows = ["earlier", "later"].map((run) => gateRow(ctx, run, "G-plan").row);
    expect(rows.sort(newestFirst).map((r) => r.run)).toEqual(["later", "earlier"]);
    expect(rows.find((r) => r.run === "later")?.requestedMs).toBe(at);
  });

  it("list a gate as waiting for a person only while status says a person must answer it", async () => {
    const { layout, drop, dropResult } = await gateWithPacket("manual");
    const both = () => {
      const ctx = loadContext(layout);
      return { next: statusRow(ctx, "manual", GATE).next, row: gateRow(ctx, "manual", GATE).row };
    };
    let { next, row } = both();
    const respondForm = () => gateTimeline(loadContext(layout), "manual", GATE).can.respond;
    expect(next.waiting_on).toBe("a person (the manual reviewer)");
    expect(row.actionable).toBe(true);
    expect(respondForm()).toBe(true);
    // a response is in: the manual worker's to turn into a result, not a person's to answer again
    drop("response-1.md", "Reviewer-Model: gpt-5\n\n## SATISFIED\n");
    ({ next, row } = both());
    expect(next.waiting_on).toMatch(/^the manual worker/);
    expect(row.actionable).toBe(false);
    expect(respondForm()).toBe(false);
    // a result is in: the verifier's
    dropResult();
    ({ next, row } = both());
    expect(next.waiting_on).toMatch(/^the verifier/);
    expect(row.actionable).toBe(false);
  });

  it("offer the author's forms only where the next step is the author's resubmit (a retry waiting for its file: none)", async () => {
    const run = "artifact-away";
    const { ctx, ...g } = await artifactMissingEscalation(run);
    expect(await decideEscalation(ctx, run, GATE, { choice: "retry", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(statusRow(ctx, run, GATE).next).toMatchObject({ waiting_on: expect.stringMatching(/restore it/), command: null });
    expect(gateTimeline(ctx, run, GATE).can).toMatchObject({ resubmit: false, rebut: false });
    writeFileSync(g.artifact, "# Spec\n");
  });
});
