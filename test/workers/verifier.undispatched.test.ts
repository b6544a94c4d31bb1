// A round the bus dispatches takes only its reviewer worker's answer (SPEC §15): a result dropped in its slot before
// any dispatch is moved aside with the reason, never verified. Once verified it would be the only result the round
// could ever have, and the paid reviewer's own answer would be refused.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { sealFile } from "../../src/core/slot-file.js";
import { detected } from "../helpers/detected.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";

/** A gate whose round 1 went to hx (http, which the bus dispatches), and a result for it that no worker delivered. */
async function undispatched(run: string) {
  const root = tempRoot("guild-bus-undispatched-");
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const provider = { adapter: "http", model: "gpt-5", base_url: "http://127.0.0.1:9/v1", api_key_env: "HX_KEY" };
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ providers: { hx: provider } }));
  writeFileSync(path.join(root, "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  expect(await requestReview(layout, { artifact: "spec.md", gate: GATE, author: "claude", runId: run })).toMatchObject({ ok: true });
  await stepGate(loadContext(layout), run, GATE, { providers: async () => [detected({ id: "hx", adapter: "http" })] });
  const file = (name: string) => layout.gateFile(run, GATE, name);
  const packet = readFileSync(file("packet-1.md"), "utf8");
  expect(packet).toMatch(/^reviewer_adapter: "?http"?$/m);
  const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
  const result = {
    schema_version: "review_result.v1",
    packet_id: field("packet_id"),
    artifact_sha256_reviewed: field("artifact_sha256"),
    verdict: "satisfied",
    blocking_findings: [],
    reviewer_model: "gpt-5",
  };
  const verify = () => verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
  return { layout, file, packet, result, verify };
}

describe("a result for a round the bus dispatches", () => {
  it("is moved aside, not verified, when no dispatch of its packet was recorded", async () => {
    const run = "run-undispatched";
    const { layout, file, result, verify } = await undispatched(run);
    writeFileSync(file("result-1.json"), JSON.stringify(result));
    await verify();
    expect(existsSync(file("verdict-1.json"))).toBe(false);
    expect(existsSync(file("result-1.json"))).toBe(false);
    const rejected = path.join(layout.gateDir(run, GATE), "rejected");
    const reasons = readdirSync(rejected).filter((f) => f.endsWith(".reason.json"));
    expect(reasons).toHaveLength(1);
    expect(readFileSync(path.join(rejected, reasons[0]!), "utf8")).toMatch(/no dispatch was recorded/);
  });

  it("is not sealed as found when its packet is not the broker's: the seal is kept for its reviewer worker's answer", async () => {
    const run = "run-undispatched-unissued";
    const { file, packet, result, verify } = await undispatched(run);
    writeFileSync(file("packet-1.md"), `${packet}\nAn edit: this packet is no longer the one the broker issued.\n`);
    writeFileSync(file("result-1.json"), JSON.stringify(result));
    await verify();
    expect(existsSync(file("result-1.json"))).toBe(true); // kept for the person who settles the round
    expect(existsSync(file(sealFile(1, null)))).toBe(false);
  });
});
