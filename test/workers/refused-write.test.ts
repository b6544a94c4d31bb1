// A write the system refuses (EACCES, EROFS, ENOSPC…) or fails past the quick retries (EIO) when a reviewer worker delivers its
// in the worker's hand and a later pass delivers it — never a new dispatch, never a no_verdict naming its own attempt.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { type Held, reviewGate } from "../../src/workers/reviewer.js";
import type { ReviewerAdapter } from "../../src/adapters/types.js";
import { tempRoot } from "../helpers/tmp.js";
import { ReadFault } from "../../src/core/read-fault.js";
import { Peers, peersDir } from "../../src/runtime/peers.js";
import { waitTool } from "../../src/mcp/wait-tool.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

// deliveries to a name in `refused` fail as a write the system refused
// and, while `readOnly.on`, access(W_OK) says the tree is mounted read-only
// and the next `failing.times` deliveries to `failing.name` fail with the system fault `failing.code`
const { refused, readOnly, failing } = vi.hoisted(() => ({
  refused: new Map<string, string>(),
  readOnly: { on: false },
  failing: { name: "", code: "", times: 0 },
}));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const accessSync = ((file: string, mode?: number) => {
    if (readOnly.on) throw Object.assign(new Error(`EROFS: read-only file system, access '${file}'`), { code: "EROFS" });
    return real.accessSync(file, mode);
  }) as typeof real.accessSync;
  return { ...real, accessSync, default: { ...real, accessSync } };
});
vi.mock("../../src/bus/deliver.js", async (original) => {
  const real = await original<typeof import("../../src/bus/deliver.js")>();
  const deliver: typeof real.deliver = (finalPath, bytes, options) => {
    if (failing.times > 0 && path.basename(finalPath) === failing.name) {
      failing.times--;
      // a read the system failed on the way (the gate, the artifact): what readGate and its callers throw
      if (failing.code === "ReadFault") return Promise.reject(new ReadFault(`the gate cannot be read for now: EIO, read '${finalPath}'`));
      const error = Object.assign(new Error(`${failing.code}: i/o error, fsync '${finalPath}'`), { code: failing.code, syscall: "fsync" });
      return Promise.reject(error);
    }
    const code = refused.get(path.basename(finalPath));
    if (code) return Promise.reject(Object.assign(new Error(`${code}: refused, link '${finalPath}'`), { code, syscall: "link" }));
    return real.deliver(finalPath, bytes, options);
  };
  return { ...real, deliver };
});

afterEach(() => {
  failing.times = 0;
  refused.clear();
  readOnly.on = false;
});

const GATE = "G-spec";

/** `shortages`: the first dispatches find the system unable to start the reviewer (nothing ran, nothing paid). */
async function commandGate(run: string, shortages = 0) {
  const root = tempRoot(`guild-bus-${run}-`);
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  writeFileSync(
    path.join(root, ".guild", "settings.json"),
    JSON.stringify({ providers: { rev: { adapter: "command", model: "gpt-5", argv: [process.execPath, "-e", "0"] } }, reviewer: "rev" }),
  );
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: run })).toMatchObject({ ok: true });
  await stepGate(loadContext(layout), run, GATE);
  const file = (name: string) => layout.gateFile(run, GATE, name);
  const packet = readFileSync(file("packet-1.md"), "utf8");
  const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
  let paid = 0;
  const adapter: ReviewerAdapter = {
    dispatch: async () => {
      if (shortages-- > 0) return { kind: "not-run", reason: "cannot start node: EMFILE spawn node EMFILE", shortage: "EMFILE" };
      paid++;
      const result = {
        schema_version: "review_result.v1",
        packet_id: field("packet_id"),
        artifact_sha256_reviewed: field("artifact_sha256"),
        verdict: "satisfied",
        summary: "ok",
        reviewer_model: "gpt-5",
        findings: [],
        blocking_findings: [],
      };
      return { kind: "output", text: "```review_result.v1\n" + JSON.stringify(result) + "\n```\n" };
    },
  };
  const held = new Map<string, Held>();
  const logs: string[] = [];
  // `kept`: the worker's hand (another worker of the kind has its own)
  const pass = (kept = held) =>
    reviewGate(
      loadContext(layout),
      run,
      GATE,
      { serves: ["command"], adapters: { command: adapter }, log: (m) => logs.push(m), held: kept },
      new AbortController().signal,
    );
  return { layout, file, pass, held, logs, paid: () => paid };
}

describe("a write the system refuses when a reviewer delivers", () => {
  for (const code of ["EACCES", "EROFS", "ENOSPC"]) {
    it(`keeps the paid answer (${code}) and delivers it once the write works, dispatching once`, async () => {
      const g = await commandGate(`refused-${code.toLowerCase()}`);
      refused.set("result-1.json", code);
      await expect(g.pass()).rejects.toMatchObject({ code });
      expect(g.paid()).toBe(1);
      expect(existsSync(g.file("attempt-1.json"))).toBe(true);
      expect(g.held.size).toBe(1);
      // still refused: tried again, no new dispatch, no failure naming its own attempt
      await expect(g.pass()).rejects.toMatchObject({ code });
      expect(existsSync(g.file("failure-1.json"))).toBe(false);
      refused.clear();
      await g.pass();
      expect(g.paid()).toBe(1);
      expect(existsSync(g.file("result-1.json"))).toBe(true);
      expect(existsSync(g.file("failure-1.json"))).toBe(false);
      expect(g.held.size).toBe(0);
    });
  }

  // EIO past its first try and three quick retries; a read the system failed on the way (ReadFault) is not retried at once
  for (const [code, times, why] of [
    ["EIO", 4, "a system fault (EIO) outlasts the quick retries"],
    ["ReadFault", 1, "a read the system failed (ReadFault) stops its delivery"],
  ] as const)
    it(`keeps the paid answer when ${why}, and delivers it on a later pass`, async () => {
      const g = await commandGate(`fault-${code.toLowerCase()}`);
      Object.assign(failing, { name: "result-1.json", code, times });
      await expect(g.pass()).rejects.toSatisfy((e) => (code === "EIO" ? (e as { code?: string }).code === "EIO" : e instanceof ReadFault));
      expect(g.held.size).toBe(1);
      await g.pass();
      expect(g.paid()).toBe(1);
      expect(existsSync(g.file("result-1.json"))).toBe(true);
      expect(existsSync(g.file("failure-1.json"))).toBe(false);
    });

  it("keeps the paid answer in rejected/ when another worker ended its round meanwhile (no_verdict), never drops it", async () => {
    const g = await commandGate("fault-takeover");
    Object.assign(failing, { name: "result-1.json", code: "EIO", times: 4 });
    await expect(g.pass()).rejects.toMatchObject({ code: "EIO" });
    expect(g.held.size).toBe(1);
    // another worker of the kind finds the attempt without a result: a person decides the round
    await g.pass(new Map());
    expect(JSON.parse(readFileSync(g.file("failure-1.json"), "utf8"))).toMatchObject({ kind: "no_verdict" });
    await stepGate(loadContext(g.layout), "fault-takeover", GATE); // the broker puts the round to a person
    expect(existsSync(g.file("escalation-1.json"))).toBe(true);
    await g.pass();
    expect(g.paid()).toBe(1);
    expect(existsSync(g.file("result-1.json"))).toBe(false);
    expect(g.held.size).toBe(0);
    const rejected = path.join(path.dirname(g.file("result-1.json")), "rejected");
    const kept = (existsSync(rejected) ? readdirSync(rejected) : []).filter((n) => n.startsWith("result-1.json"));
    expect(kept.map((n) => readFileSync(path.join(rejected, n), "utf8")).join("")).toMatch(/"verdict": "satisfied"/);
    expect(g.logs.join("\n")).toMatch(/result not delivered: .*kept as rejected\//);
  });

  it("delivers the paid answer over another worker's no_verdict the broker has not acted on yet (a result proves it wrong)", async () => {
    const g = await commandGate("fault-takeover-early");
    Object.assign(failing, { name: "result-1.json", code: "EIO", times: 4 });
    await expect(g.pass()).rejects.toMatchObject({ code: "EIO" });
    await g.pass(new Map());
    expect(existsSync(g.file("failure-1.json"))).toBe(true);
    await g.pass();
    expect(g.paid()).toBe(1);
    expect(g.held.size).toBe(0);
    expect(JSON.parse(readFileSync(g.file("result-1.json"), "utf8"))).toMatchObject({ verdict: "satisfied" });
  });

  it("a reviewer the system cannot start (EMFILE past the quick retries) is dispatched once it can: no failure, no person", async () => {
    const g = await commandGate("shortage", 2);
    await expect(g.pass()).rejects.toMatchObject({ code: "EMFILE" });
    await expect(g.pass()).rejects.toMatchObject({ code: "EMFILE" });
    expect(existsSync(g.file("failure-1.json"))).toBe(false);
    expect(g.held.size).toBe(1);
    await g.pass();
    expect(g.paid()).toBe(1);
    expect(existsSync(g.file("result-1.json"))).toBe(true);
    expect(existsSync(g.file("failure-1.json"))).toBe(false);
    expect(g.held.size).toBe(0);
  });

  it("a worker that died while it could not start the reviewer leaves the round to a person: no_verdict, nothing sent", async () => {
    const g = await commandGate("shortage-died", 1);
    await expect(g.pass()).rejects.toMatchObject({ code: "EMFILE" });
    g.held.clear(); // what a new process starts with
    await g.pass();
    expect(g.paid()).toBe(0);
    expect(JSON.parse(readFileSync(g.file("failure-1.json"), "utf8"))).toMatchObject({ kind: "no_verdict" });
  });

  it("with its failure slot refused too, delivers the answer in hand once the result slot takes it, never a failure", async () => {
    const g = await commandGate("refused-failure");
    refused.set("result-1.json", "EACCES");
    refused.set("failure-1.json", "EACCES");
    // nothing falls back to a failure: the answer is still the one in hand
    await expect(g.pass()).rejects.toMatchObject({ code: "EACCES" });
    refused.delete("result-1.json");
    await g.pass();
    expect(existsSync(g.file("result-1.json"))).toBe(true);
    expect(g.paid()).toBe(1);
  });

  it("a worker that died with the answer in hand (nothing held) leaves the round to a person: no_verdict, no new dispatch", async () => {
    const g = await commandGate("refused-died");
    refused.set("result-1.json", "EACCES");
    await expect(g.pass()).rejects.toMatchObject({ code: "EACCES" });
    refused.clear();
    g.held.clear(); // what a new process starts with
    await g.pass();
    expect(g.paid()).toBe(1);
    expect(JSON.parse(readFileSync(g.file("failure-1.json"), "utf8"))).toMatchObject({ kind: "no_verdict" });
  });

  it("status names the refused write, where, and what to fix", async () => {
    const g = await commandGate("refused-status");
    expect(viewGate(loadContext(g.layout), "refused-status", GATE).next.waiting_on).not.toMatch(/refused/);
    readOnly.on = true;
    const { waiting_on } = viewGate(loadContext(g.layout), "refused-status", GATE).next;
    expect(waiting_on).toMatch(/^a person: writes to \.guild\/runs\/refused-status\/review\/G-spec are refused \(EROFS\)/);
    expect(waiting_on).toMatch(/remount it read-write/);
  });

  it("the MCP wait tool tells the author model a person must act first, not to wait again (the workers run)", async () => {
    const g = await commandGate("refused-mcp");
    const worker = new Peers(g.layout, peersDir(g.layout, "command"));
    worker.beat();
    try {
      readOnly.on = true;
      const extra = { signal: new AbortController().signal, _meta: {}, sendNotification: async () => {} };
      const answer = (await waitTool(
        g.layout,
        { run_id: "refused-mcp", gate: GATE, timeout_seconds: 1 },
        extra as unknown as Parameters<typeof waitTool>[2],
      )) as CallToolResult;
      expect(answer.structuredContent).toMatchObject({ still_running: true, waiting: { person_first: true, command: null } });
      const text = (answer.content[0] as { text: string }).text;
      expect(text).toMatch(/waiting for a person: writes to .* are refused \(EROFS\)/);
      expect(text).toMatch(/A person must act first: tell the user what it waits for, then call wait again/);
    } finally {
      worker.leave();
    }
  });
});
