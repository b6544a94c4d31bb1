// `check --require-files GATE=GLOB` ties a requirement to the files in the tree (SPEC §25): a gate name alone passes
// while any run of that gate passed, so a file added without a review went through CI.
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { checkGates, checkJson } from "../../src/commands/check.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { requestReview } from "../../src/commands/review.js";
import { tempRoot } from "../helpers/tmp.js";

/** A project whose docs/spec.md passed G-spec. */
async function passedSpec() {
  const { layout, dropResult } = await gateWithPacket("r1");
  dropResult();
  await verifyGate(loadContext(layout), "r1", GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(layout), "r1", GATE);
  const check = (...requireFiles: string[]) => checkGates(loadContext(layout), { require: [], requireFiles });
  return { layout, check };
}

describe("check --require-files", () => {
  it("passes when every matched file passed its gate; a file added unreviewed fails by name, as a link to one does", async () => {
    const { layout, check } = await passedSpec();
    const passed = await check(`${GATE}=docs/*.md`);
    expect(passed).toMatchObject({ ok: true, passed: true, unreviewed: [] });
    // "independence strong" rests on the word of whoever answered the manual round: the line says whose word it is
    expect(passed.ok && passed.lines[0]).toMatch(
      /^PASS r1 G-spec docs\/spec\.md: satisfied .*; reviewer model declared by whoever answered the manual round \(unverified\)$/,
    );
    // the gate name alone still passes: any run of G-spec passed
    expect(await checkGates(loadContext(layout), { require: [GATE] })).toMatchObject({ ok: true, passed: true });

    writeFileSync(path.join(layout.root, "docs", "spec2.md"), "# Unreviewed\n");
    mkdirSync(path.join(layout.root, "drafts"));
    writeFileSync(path.join(layout.root, "drafts", "x.md"), "# Draft\n");
    symlinkSync("../drafts/x.md", path.join(layout.root, "docs", "linked.md"));
    const judged = await check(`${GATE}=docs/**/*.md`);
    expect(judged).toMatchObject({ ok: true, passed: false });
    if (!judged.ok) throw new Error(judged.error);
    expect(checkJson(judged).unreviewed).toEqual([
      { gate: GATE, pattern: "docs/**/*.md", path: "docs/linked.md" },
      { gate: GATE, pattern: "docs/**/*.md", path: "docs/spec2.md" },
    ]);
    expect(judged.lines).toContain(
      `FAIL ${GATE} docs/spec2.md: required by ${GATE}=docs/**/*.md, but no run reviewed this file at this gate`,
    );
    // a file reviewed at another gate is not reviewed at this one
    expect(await check("G-plan=docs/spec.md")).toMatchObject({
      ok: true,
      passed: false,
      unreviewed: [{ gate: "G-plan", path: "docs/spec.md" }],
    });
  });

  it("a request that spells its artifact another way (./docs/spec.md) reviewed that file: one path, one file", async () => {
    const root = tempRoot("guild-bus-spelt-");
    mkdirSync(path.join(root, "docs"));
    writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
    const layout = new Layout(root);
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "r1" }),
    ).toMatchObject({
      ok: true,
    });
    // written by another tool, before the broker read it
    const file = layout.gateFile("r1", GATE, "request.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), artifact_path: "./docs//spec.md" }));
    await stepGate(loadContext(layout), "r1", GATE);
    const packet = readFileSync(layout.gateFile("r1", GATE, "packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
    const result = { schema_version: "review_result.v1", verdict: "satisfied", blocking_findings: [], reviewer_model: "gpt-5" };
    writeFileSync(
      layout.gateFile("r1", GATE, "result-1.json"),
      JSON.stringify({ ...result, packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256") }),
    );
    await verifyGate(loadContext(layout), "r1", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "r1", GATE);
    expect(readGate(layout, "r1", GATE).outcome).toMatchObject({ status: "satisfied" });
    expect(await checkGates(loadContext(layout), { require: [], requireFiles: [`${GATE}=docs/*.md`] })).toMatchObject({
      ok: true,
      passed: true,
      unreviewed: [],
    });
  });

  it("a glob that matches no file fails (a misspelt one must not require nothing); a malformed or outside one is refused", async () => {
    const { check } = await passedSpec();
    const none = await check(`${GATE}=doc/*.md`);
    expect(none).toMatchObject({ ok: true, passed: false, unreviewed: [{ gate: GATE, pattern: "doc/*.md", path: null }] });
    expect(none.ok && none.lines).toContainEqual(expect.stringMatching(/^FAIL G-spec=doc\/\*\.md: no file in the tree matches it/));
    expect(await check("docs/*.md")).toEqual({ ok: false, error: expect.stringMatching(/expected GATE=GLOB/) });
    expect(await check("G-nosuch=docs/*.md")).toEqual({ ok: false, error: expect.stringMatching(/invalid gate/) });
    expect(await check(`${GATE}=../*.md`)).toEqual({ ok: false, error: expect.stringMatching(/inside the project/) });
    expect(await check(`${GATE}=/etc/*`)).toEqual({ ok: false, error: expect.stringMatching(/inside the project/) });
  });

  it("never counts the bus's own files, git's or installed packages", async () => {
    const { layout, check } = await passedSpec();
    for (const dir of [".git", "node_modules/x", "docs/node_modules"]) {
      mkdirSync(path.join(layout.root, dir), { recursive: true });
      writeFileSync(path.join(layout.root, dir, "n.md"), "# not an artifact\n");
    }
    // a nested project's bus (a monorepo package with its own .guild/)
    mkdirSync(path.join(layout.root, "pkg", ".guild", "runs"), { recursive: true });
    writeFileSync(path.join(layout.root, "pkg", ".guild", "runs", "trail.md"), "# another bus's state\n");
    expect(await check(`${GATE}=**/spec.md`)).toMatchObject({ ok: true, passed: true });
    const all = await check(`${GATE}=**/*.md`);
    expect(all.ok && all.unreviewed.map((u) => u.path)).toEqual([]);
    // nor is it an artifact: one rule for what a glob requires and what may be reviewed
    expect(
      await requestReview(layout, {
        artifact: "pkg/.guild/runs/trail.md",
        gate: "G-plan",
        author: "claude",
        reviewer: "manual",
        runId: "r2",
      }),
    ).toEqual({ ok: false, error: expect.stringContaining("is the bus's own state") });
  });

  it("a .guild linked to a directory of the project: that directory is the bus's state, neither required nor an artifact", async () => {
    const { layout, check } = await passedSpec();
    renameSync(layout.guild, path.join(layout.root, "bus"));
    symlinkSync("bus", layout.guild); // the bus root the project chose (SPEC §2)
    const all = await check(`${GATE}=**/*.md`);
    expect(all).toMatchObject({ ok: true, passed: true });
    expect(all.ok && all.unreviewed.map((u) => u.path)).toEqual([]);
    for (const artifact of ["bus/runs/r1/review/G-spec/packet-1.md", ".guild/runs/r1/review/G-spec/packet-1.md"])
      expect(await requestReview(layout, { artifact, gate: "G-plan", author: "claude", reviewer: "manual", runId: "r2" })).toEqual({
        ok: false,
        error: expect.stringContaining("is the bus's own state"),
      });
  });
});
