// A force-pass passes the bytes its escalated round sent (SPEC §17): an artifact edited after the round, before the
// human decided, is not what the human passed, so the outcome binds the round's bytes and `check` fails on the edit.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { decideEscalation } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";

const RUN = "forced";
const GATE = "G-spec";

describe("a force-pass decided after the artifact was edited", () => {
  it("binds the bytes the escalated round sent; check fails on the edited tree and passes once they are back", async () => {
    const root = tempRoot();
    const spec = path.join(root, "docs", "spec.md");
    mkdirSync(path.dirname(spec));
    writeFileSync(spec, "# Spec\n");
    const layout = new Layout(root);
    const request = { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: RUN, cap: 1 };
    expect(await requestReview(layout, request)).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), RUN, GATE);
    const file = (name: string) => layout.gateFile(RUN, GATE, name);
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(readFileSync(file("packet-1.md"), "utf8"))![1]!;
    const blocking = [{ severity: "blocking", title: "the cache bound is unstated" }];
    const result = { packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256"), verdict: "issues" };
    writeFileSync(file("result-1.json"), JSON.stringify({ ...result, blocking_findings: blocking, reviewer_model: "gpt-5" }));
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), RUN, GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });

    writeFileSync(spec, "# Spec\n\nA paragraph no reviewer saw.\n");
    expect(await decideEscalation(loadContext(layout), RUN, GATE, { choice: "force-pass", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), RUN, GATE);
    const outcome = JSON.parse(readFileSync(file("outcome.json"), "utf8"));
    expect(outcome).toMatchObject({ status: "force_passed", artifact_sha256: field("artifact_sha256") });
    const check = () => checkGates(loadContext(layout), { runId: RUN, require: [GATE], allowForcePass: true });
    expect(await check()).toMatchObject({ ok: true, passed: false });
    expect(await check()).toMatchObject({ lines: [expect.stringMatching(/^FAIL .*the artifact changed since the outcome/)] });
    writeFileSync(spec, "# Spec\n");
    expect(await check()).toMatchObject({ ok: true, passed: true });
    expect(await check()).toMatchObject({ gates: [{ reason: "force_passed at round 1, by a human decision, artifact unchanged" }] });
  });
});
