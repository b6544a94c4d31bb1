// One gate in-process: a request for the manual reviewer, its first packet issued by the broker, and a result for it
// dropped the way a foreign writer does (written elsewhere, renamed in) — for tests of one worker step at a time.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { ARTIFACT_SETTLE_MS } from "../../src/bus/artifact.js";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { resubmit } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import type { Difficulty } from "../../src/spec/schemas.js";
import { stepGate } from "../../src/workers/broker.js";
import { sha256Hex } from "../../src/core/sha.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { forgedPassingVerdict } from "./forged.js";
import { tempRoot } from "./tmp.js";

export const GATE = "G-spec";

export async function gateWithPacket(
  run: string,
  {
    text = "# Spec\n",
    settings,
    ...o
  }: {
    difficulty?: Difficulty;
    cap?: number;
    text?: string;
    humanCheckpoint?: boolean;
    settings?: Record<string, unknown>;
    /** the reviewer the request pins (the manual one unless said) */
    reviewer?: string;
  } = {},
) {
  const root = tempRoot(`guild-bus-${run}-`);
  mkdirSync(path.join(root, "docs"), { recursive: true });
  if (settings) {
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify(settings));
  }
  const artifact = path.join(root, "docs", "spec.md");
  writeFileSync(artifact, text);
  const layout = new Layout(root);
  expect(
    await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: run, ...o }),
  ).toMatchObject({
    ok: true,
  });
  await stepGate(loadContext(layout), run, GATE);
  const file = (name: string) => layout.gateFile(run, GATE, name);
  const packet = readFileSync(file("packet-1.md"), "utf8");
  const fieldOf = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(text)![1]!.replace(/^"|"$/g, "");
  const field = (name: string) => fieldOf(packet, name);
  const drop = (name: string, text: string) => {
    writeFileSync(path.join(root, "drop.tmp"), text);
    renameSync(path.join(root, "drop.tmp"), file(name));
  };
  /** A result for round `round` (1 unless said), bound to its packet and artifact: satisfied unless `over` says otherwise. */
  const dropResult = (over: Record<string, unknown> = {}, round = 1) => {
    const sent = round === 1 ? packet : readFileSync(file(`packet-${round}.md`), "utf8");
    drop(
      `result-${round}.json`,
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: fieldOf(sent, "packet_id"),
        artifact_sha256_reviewed: fieldOf(sent, "artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
        ...over,
      }),
    );
  };
  /** Round 1's dropped result sealed under a passing verdict the verifier never wrote (its copy kept as the verifier
   * keeps one): what a stray writer can plant to make the broker judge a pass. */
  const sealForgedPass = () => {
    const result = readFileSync(file("result-1.json"));
    mkdirSync(file(".verified"), { recursive: true });
    drop(".verified/result-1.json", result.toString("utf8"));
    const forged = forgedPassingVerdict({
      run,
      gate: GATE,
      round: 1,
      packetId: field("packet_id"),
      packetSha: sha256Hex(readFileSync(file("packet-1.md"))),
      resultSha: sha256Hex(result),
      artifactSha: field("artifact_sha256"),
    });
    drop("verdict-1.json", JSON.stringify(forged));
  };
  return { root, layout, artifact, file, field, drop, dropResult, sealForgedPass };
}

/** A gate the broker escalated `stalled` at round 1: findings, then a resubmit of the unchanged artifact. */
export async function stalledAtUnchangedResubmit(run: string) {
  const g = await gateWithPacket(run);
  const ctx = loadContext(g.layout);
  g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
  await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(ctx, run, GATE);
  expect(await resubmit(ctx, run, GATE)).toMatchObject({ ok: true });
  await stepGate(ctx, run, GATE);
  expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "stalled" });
  return { g, ctx };
}

/** A gate whose artifact went away before its first result: round 1 escalated `artifact_missing` (retry, rework). */
export async function artifactMissingEscalation(run: string) {
  const g = await gateWithPacket(run);
  const ctx = loadContext(g.layout);
  rmSync(g.artifact);
  goneAWhile(g.artifact);
  g.dropResult();
  await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(ctx, run, GATE);
  return { ...g, ctx };
}

/** The file's directory last changed well before now: the file is taken as gone, not as being replaced by a save. */
export function goneAWhile(file: string): void {
  const past = (Date.now() - 10 * ARTIFACT_SETTLE_MS) / 1000;
  utimesSync(path.dirname(file), past, past);
}

/** A stray escalation-1.json that no reader takes for the broker's: the broker moves it aside and the pass ends the gate. */
export async function strayMovedAside(g: { layout: Layout; file: (name: string) => string }, run: string): Promise<void> {
  const ctx = loadContext(g.layout);
  expect(viewGate(ctx, run, GATE).snapshot.problems).toContainEqual(
    expect.objectContaining({ file: "escalation-1.json", reason: expect.stringMatching(/^not the broker's: /) }),
  );
  await stepGate(ctx, run, GATE);
  expect(existsSync(g.file("escalation-1.json"))).toBe(false);
  expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied" });
}
