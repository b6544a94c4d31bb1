// A read the system fails (EIO, EMFILE…) is not the file's fault, and the same read works a moment later: no worker
// may turn one into a decision on disk — an escalation, a restart, a file moved aside, a verdict — or refuse a paid
// answer for it. The step throws ReadFault (the reconciler tries it again with backoff) and nothing is written.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { requestReview } from "../../src/commands/review.js";
import { ReadFault } from "../../src/core/read-fault.js";
import { stepGate } from "../../src/workers/broker.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { respond } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { deliverResult } from "../../src/workers/deliver-result.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { Layout } from "../../src/bus/layout.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";
import { ContextHolder } from "../../src/runtime/worker-options.js";
import { recordingRuntime } from "../helpers/runtime.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";
import type { PacketFrontMatter } from "../../src/spec/schemas.js";

// vi.mock factories run before this module's own lines: what they use is made in vi.hoisted
// open() of a file named in `failing`, lstat() of one named in `statFailing`, fail with EIO
const { failing, statFailing } = vi.hoisted(() => ({ failing: new Set<string>(), statFailing: new Set<string>() }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const eio = (call: string, file: unknown) => Object.assign(new Error(`EIO: i/o error, ${call} '${String(file)}'`), { code: "EIO" });
  const openSync = ((file: string, ...rest: unknown[]) => {
    if (failing.has(path.basename(String(file)))) throw eio("open", file);
    return (real.openSync as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof real.openSync;
  const lstatSync = ((file: string, ...rest: unknown[]) => {
    if (statFailing.has(path.basename(String(file)))) throw eio("lstat", file);
    return (real.lstatSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof real.lstatSync;
  return { ...real, openSync, lstatSync, default: { ...real, openSync, lstatSync } };
});

afterEach(() => {
  failing.clear();
  statFailing.clear();
});

/** The gate's files, rejected/ included: what a step that must write nothing is compared against. */
function files(dir: string): string[] {
  const rejected = path.join(dir, "rejected");
  return [...readdirSync(dir), ...(existsSync(rejected) ? readdirSync(rejected).map((f) => `rejected/${f}`) : [])].sort();
}

/** A new version of the file for every cache (same bytes, new mtime): the next look reads it again. */
function touch(file: string): void {
  const t = new Date(Date.now() + 1000);
  utimesSync(file, t, t);
}

describe("a read the system fails", () => {
  it("never ends or restarts a verified round: the broker's step throws, then passes once the read works", async () => {
    const { layout, file, dropResult } = await gateWithPacket("fault-pass");
    dropResult();
    await verifyGate(loadContext(layout), "fault-pass", GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(true);
    const dir = layout.gateDir("fault-pass", GATE);

    // the result cannot be hashed: it is not "removed after verification", and nothing is decided
    touch(file("result-1.json"));
    failing.add("result-1.json");
    const before = files(dir);
    await expect(stepGate(loadContext(layout), "fault-pass", GATE)).rejects.toThrow(ReadFault);
    expect(files(dir)).toEqual(before);

    // the packet cannot be read: it is not moved aside as invalid
    failing.clear();
    touch(file("packet-1.md"));
    failing.add("packet-1.md");
    await expect(stepGate(loadContext(layout), "fault-pass", GATE)).rejects.toThrow(/packet-1\.md.*EIO/);
    expect(files(dir)).toEqual(before);
    // status says why nothing moves, and who must look if it lasts
    expect(viewGate(loadContext(layout), "fault-pass", GATE).next).toMatchObject({
      waiting_on: expect.stringMatching(/^the system to read packet-1\.md again \(unreadable: .*EIO.*\); .* a person must check/),
      command: null,
    });

    // the artifact cannot be read: no escalation, no restart
    failing.clear();
    failing.add("spec.md");
    await expect(stepGate(loadContext(layout), "fault-pass", GATE)).rejects.toThrow(/artifact cannot be read for now/);
    expect(files(dir)).toEqual(before);

    failing.clear();
    await stepGate(loadContext(layout), "fault-pass", GATE);
    expect(JSON.parse(readFileSync(file("outcome.json"), "utf8"))).toMatchObject({ status: "satisfied" });
    expect(existsSync(file("packet-2.md"))).toBe(false);
  });

  it("never escalates a new gate whose artifact the system failed to read", async () => {
    const root = tempRoot("guild-bus-fault-new-");
    const layout = new Layout(root);
    const docs = path.join(root, "docs");
    mkdirSync(docs, { recursive: true });
    writeFileSync(path.join(docs, "spec.md"), "# Spec\n");
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "fault-new" }),
    ).toMatchObject({
      ok: true,
    });
    failing.add("spec.md");
    await expect(stepGate(loadContext(layout), "fault-new", GATE)).rejects.toThrow(ReadFault);
    expect(readdirSync(layout.gateDir("fault-new", GATE)).filter((f) => /^(escalation|packet|outcome)/.test(f))).toEqual([]);
    failing.clear();
    await stepGate(loadContext(layout), "fault-new", GATE);
    expect(existsSync(layout.gateFile("fault-new", GATE, "packet-1.md"))).toBe(true);
  });

  it("never rejects a result nor seals a verdict for it: the verifier tries again", async () => {
    const { layout, file, dropResult } = await gateWithPacket("fault-verify");
    dropResult();
    failing.add("result-1.json");
    await expect(verifyGate(loadContext(layout), "fault-verify", GATE, () => undefined)).rejects.toThrow(ReadFault);
    expect(existsSync(file("result-1.json"))).toBe(true);
    expect(existsSync(file("verdict-1.json"))).toBe(false);
    expect(existsSync(path.join(layout.gateDir("fault-verify", GATE), "rejected"))).toBe(false);
    failing.clear();
    await verifyGate(loadContext(layout), "fault-verify", GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(true);
  });

  it("never refuses a paid answer: a result whose gate could not be read whole is delivered, and verified later", async () => {
    const { layout, file, field } = await gateWithPacket("fault-deliver");
    const packet = readGate(layout, "fault-deliver", GATE).packets.get(1) as PacketFrontMatter;
    // the packet's file fails to read: a view without it would say "no packet-1.md was issued"
    touch(file("packet-1.md"));
    failing.add("packet-1.md");
    const delivery = await deliverResult(loadContext(layout), packet, {
      schema_version: "review_result.v1",
      packet_id: field("packet_id"),
      artifact_sha256_reviewed: field("artifact_sha256"),
      verdict: "satisfied",
      findings: [],
      blocking_findings: [],
      round: 1,
      reviewer_host: "codex",
      reviewer_model: "gpt-5",
    });
    expect(delivery).toMatchObject({ ok: true, status: "delivered" });
    failing.clear();
    await verifyGate(loadContext(layout), "fault-deliver", GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(true);
  });

  it("never swaps the project's settings for the defaults: the last ones read stay, and with none yet gates wait", async () => {
    const root = tempRoot("guild-bus-fault-settings-");
    const layout = new Layout(root);
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, JSON.stringify({ restart_cap: 7 }));
    const logged: string[] = [];
    const holder = new ContextHolder(layout, (m) => logged.push(m));
    failing.add("settings.json");
    expect(holder.reload().settings.restart_cap).toBe(7);
    expect(holder.forWork().settings.restart_cap).toBe(7);
    expect(logged.at(-1)).toMatch(/EIO.*keeping the settings read before/);

    const started = new ContextHolder(layout, () => undefined);
    expect(() => started.forWork()).toThrow(ReadFault);
    failing.clear();
    expect(started.reload().settings.restart_cap).toBe(7);
    expect(started.forWork().settings.restart_cap).toBe(7);

    // the codex-skip streak too: unread, it would stand for "no block"
    failing.add(path.basename(layout.codexSkipStreak));
    expect(() => new ContextHolder(layout, () => undefined).forWork()).toThrow(/cannot be read for now.*EIO/);
  });

  it("never stops a worker: a gate whose outcome the scan cannot stat is handled (and retried) as an active one", async () => {
    const root = tempRoot("guild-bus-fault-scan-");
    const gateDir = path.join(root, ".guild", "runs", "r1", "review", GATE);
    mkdirSync(gateDir, { recursive: true });
    writeFileSync(path.join(gateDir, "outcome.json"), "{}");
    statFailing.add("outcome.json");
    const { runtime, calls: handled } = recordingRuntime(root, { fullScanMs: 20 });
    await runtime.start();
    try {
      await until("the gate handled twice", () => handled.length >= 2);
    } finally {
      await runtime.stop();
    }
  });

  it("never lets a command act on defaults or a partial gate: respond and check refuse, and say to try again", async () => {
    const { layout, file } = await gateWithPacket("fault-commands");
    writeFileSync(layout.settings, JSON.stringify({ secrets_policy: { redaction_patterns: ["tok-[0-9]+"] } }));
    failing.add("settings.json");
    const answered = await respond(loadContext(layout), "fault-commands", GATE, {
      read: async () => "## SATISFIED\n\nkey tok-12345 looks fine\n",
      reviewerModel: "gpt-5",
    });
    expect(answered).toMatchObject({ ok: false, error: expect.stringMatching(/settings cannot be read for now.*EIO.*try again/) });
    expect(existsSync(file("result-1.json"))).toBe(false); // never written unscrubbed by the defaults
    failing.clear();

    touch(file("packet-1.md"));
    failing.add("packet-1.md");
    expect(await checkGates(loadContext(layout), { require: [] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/packet-1\.md.*EIO.*try again/),
    });
  });
});
