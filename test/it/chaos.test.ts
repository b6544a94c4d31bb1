// Crash loop: many gates under scripted reviewers while a chaos driver SIGKILLs random workers (broker, verifier,
// command, manual), the reviewer children the command workers spawn, and the author's own CLI calls (resubmit,
// respond, decide) at random moments, and restarts the workers. Some gates need a resubmit (the first review finds a
// TBD, the test revises the artifact as the author), some are answered by a human (`respond` or a response drop),
// a few are left waiting for the author on purpose. Then an audit: every gate terminal or waiting with a reason, no
// lost, torn or stray file, no round with both a result and a failure, no round dispatched twice, no staging orphan
// after the janitor, seals, trail and outcome consistent with the files, every satisfied outcome re-derives.
// Two more scenarios: workers of every kind started at the same instant (exactly-once), and a command worker frozen
// (SIGSTOP) mid-dispatch past its claim's stale time, then woken (fencing).
// `npm test` runs a bounded version; `npm run soak` (GUILD_BUS_SOAK=1) runs 200 gates and a longer chaos phase.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { Layout, parseRoundFile } from "../../src/bus/layout.js";
import { FAMILY_MAPS_RE } from "../../src/core/family.js";
import { sha256Hex } from "../../src/core/sha.js";
import { sweepStaging } from "../../src/bus/janitor.js";
import { loadContext } from "../../src/bus/context.js";
import { BIN, makeProject, type Project, received, SCRIPTED, scriptedProvider, stopChild } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

const SOAK = process.env.GUILD_BUS_SOAK === "1";
const GATES = SOAK ? 200 : 50;
const CHAOS_MS = SOAK ? 120_000 : 15_000;
const RACE_GATES = SOAK ? 40 : 12;
const GATE = "G-spec";
const TBD_SPEC = "# Spec\n\n- criteria: TBD\n";
const REVISED_SPEC = "# Spec\n\n- criteria: p95 latency under 200 ms on the reference load\n";

/** A deterministic random source, so a failing run can be replayed from its seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

interface CliRun {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** A CLI call that runs beside everything else (and can be killed): `p.cli` blocks the test process. */
function cliAsync(p: Project, args: string[]): CliRun {
  const child = spawn(process.execPath, [BIN, ...args, "--root", p.root], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b: Buffer) => (stdout += b));
  child.stderr!.on("data", (b: Buffer) => (stderr += b));
  const watchdog = setTimeout(() => child.kill("SIGKILL"), scaled(90_000));
  const exited = new Promise<Awaited<CliRun["exited"]>>((resolve) =>
    child.once("close", (code, signal) => {
      clearTimeout(watchdog);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, exited };
}

/** Run fn over items, at most `limit` at once. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function waitUntil<T>(probe: () => T | null | undefined | false, what: string, timeoutMs: number, stepMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

/** The state letter of /proc/<pid>/stat (R, S, Z, T, …), or null when the process is gone. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

function isScriptedReviewer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1] === SCRIPTED;
  } catch {
    return false;
  }
}

/** Live scripted-reviewer processes of this project (found by their command line, no shell), with their packet. */
function reviewerChildren(root: string): Array<{ pid: number; packetId: string }> {
  const found: Array<{ pid: number; packetId: string }> = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv[1] !== SCRIPTED || !argv[2]?.startsWith(root + path.sep)) continue;
      const state = procState(Number(name));
      if (state === null || state === "Z") continue;
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      const packetId = env.find((e) => e.startsWith("GUILD_BUS_PACKET_ID="))?.slice("GUILD_BUS_PACKET_ID=".length) ?? "?";
      found.push({ pid: Number(name), packetId });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * How many times each packet id reached a scripted reviewer (its log keeps a copy of every packet received). A
 * receipt naming no packet was cut short (its reviewer worker was killed while writing the packet to the child's
 * stdin): it must be the start of a packet on disk, and it is not counted, since which packet it began cannot be told.
 */
function dispatchCounts(root: string, providers: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  const packets = packetTexts(root);
  for (const provider of providers) {
    for (const text of received(root, provider)) {
      const id = /^packet_id: (.+)$/m.exec(text)?.[1]?.trim();
      if (id === undefined) {
        expect(
          packets.some((packet) => packet.length > text.length && packet.startsWith(text)),
          `a receipt names no packet and begins none: ${JSON.stringify(text.slice(0, 300))}`,
        ).toBe(true);
        continue;
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** Every packet-<n>.md under the project's runs. */
function packetTexts(root: string): string[] {
  const runs = path.join(root, ".guild", "runs");
  return readdirSync(runs).flatMap((run) => {
    const review = path.join(runs, run, "review");
    if (!existsSync(review)) return [];
    return readdirSync(review).flatMap((gate) =>
      readdirSync(path.join(review, gate))
        .filter((name) => /^packet-\d+\.md$/.test(name))
        .map((name) => readFileSync(path.join(review, gate, name), "utf8")),
    );
  });
}

const REJECTED_RE = /^(?:request\.json|outcome\.json|[a-z]+-\d+\.(?:json|md))\.\d{4}-\d{2}-\d{2}T[\d-]+Z\.\d+(?:\.reason\.json)?$/;

/** Names in a gate directory that the bus does not define (SPEC §3): anything a torn or killed writer left. */
function strayFiles(dir: string): string[] {
  const stray: string[] = [];
  for (const name of readdirSync(dir)) {
    const st = lstatSync(path.join(dir, name));
    if (name === "rejected" || name === ".claims" || name === ".verified") {
      if (!st.isDirectory()) {
        stray.push(`${name} (not a directory)`);
        continue;
      }
      const inner = readdirSync(path.join(dir, name));
      for (const n of inner) {
        const ok =
          name === ".verified"
            ? /^result-[1-9]\d*\.json$/.test(n) && lstatSync(path.join(dir, name, n)).isFile()
            : name === ".claims"
              ? /^review-[1-9]\d*\.lock$/.test(n) && lstatSync(path.join(dir, name, n)).isDirectory()
              : REJECTED_RE.test(n);
        if (!ok) stray.push(`${name}/${n}`);
      }
      // a moved file always has its reason beside it (the reason is written first)
      if (name === "rejected")
        for (const n of inner)
          if (!n.endsWith(".reason.json") && !inner.includes(`${n}.reason.json`)) stray.push(`${name}/${n} (no reason)`);
      continue;
    }
    // a family-maps file is the broker's only while it is the bytes its name binds (SPEC §7)
    const maps = FAMILY_MAPS_RE.exec(name);
    const bus =
      name === "request.json" ||
      name === "outcome.json" ||
      name === "trail.md" ||
      parseRoundFile(name) !== null ||
      (maps !== null && st.isFile() && sha256Hex(readFileSync(path.join(dir, name))) === maps[1]);
    if (!bus || !st.isFile()) stray.push(name);
  }
  return stray;
}

/** Names in a run directory other than run.json, events.jsonl and review/<gate>. */
function strayRunFiles(layout: Layout, run: string): string[] {
  const dir = layout.runDir(run);
  const stray = readdirSync(dir).filter((n) => !["run.json", "events.jsonl", "review"].includes(n));
  return [
    ...stray,
    ...readdirSync(path.join(dir, "review"))
      .filter((n) => n !== GATE)
      .map((n) => `review/${n}`),
  ];
}

/** The run's events; none before a round of it has ended (a gate waiting on its first verdict's author). */
function events(layout: Layout, run: string): Array<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(layout.events(run), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The (run, round) a packet id names: `G-spec-<run>-r<n>`. */
function packetRound(packetId: string): { run: string; round: number } | null {
  const m = /^G-spec-(.+)-r(\d+)$/.exec(packetId);
  return m ? { run: m[1]!, round: Number(m[2]) } : null;
}

/** A human's answer: the findings while the artifact still says TBD, else a sign-off. */
function humanAnswer(artifactText: string): string {
  if (/\bTBD\b/.test(artifactText)) {
    const finding = { severity: "blocking", title: "Acceptance criteria left as TBD", detail: "state a measurable criterion" };
    return (
      "```review_result.v1\n" +
      JSON.stringify({ verdict: "issues", summary: "one blocking finding", findings: [finding], blocking_findings: [finding] }, null, 2) +
      "\n```\n"
    );
  }
  return "The criteria are measurable and complete.\n\n## SATISFIED\n";
}

type Kind = "plain" | "revise" | "manual" | "walkaway";

interface GateCase {
  run: string;
  kind: Kind;
  artifact: string;
}

/** The request flags of a case: `revise` and `walkaway` gates go to the by-content reviewer, `manual` to a human. */
/** `count` gates named `<prefix><i>` of the kinds `kindOf` picks, each requested through the CLI (4 at a time). */
async function requestGates(p: Project, count: number, prefix: string, kindOf: (i: number) => Kind): Promise<GateCase[]> {
  const gates: GateCase[] = Array.from({ length: count }, (_, i) => {
    const kind = kindOf(i);
    const run = `${prefix}${i}`;
    const artifact = kind === "plain" ? "docs/spec.md" : `docs/${run}.md`;
    if (kind !== "plain") p.write(artifact, TBD_SPEC);
    return { run, kind, artifact };
  });
  await pool(gates, 4, async (g) => {
    const r = await cliAsync(p, reviewArgs(g)).exited;
    expect(r.code, `review ${g.run}: ${r.stderr}`).toBe(0);
  });
  return gates;
}

function reviewArgs(g: GateCase): string[] {
  const pin = g.kind === "manual" ? ["--reviewer", "manual"] : g.kind === "plain" ? [] : ["--reviewer", "gpt-rev"];
  return ["review", g.artifact, "--gate", GATE, "--author", "claude", "--run-id", g.run, ...pin];
}

describe("crash loop under chaos (integration)", () => {
  it(
    `${GATES} gates while workers, reviewer children and author CLI calls are SIGKILLed at random`,
    { timeout: SOAK ? 1_800_000 : 420_000 },
    async () => {
      const seed = Number(process.env.GUILD_BUS_CHAOS_SEED ?? Date.now() % 100_000);
      // one stream for the chaos driver, one for the author's kills: each replays from the seed on its own
      const random = rng(seed);
      const authorRandom = rng(seed * 7919 + 17);
      const started = Date.now();
      const p = makeProject();
      const layout = new Layout(p.root);
      // gpt: slow enough that kills land mid-dispatch, fast enough to finish. gpt-rev answers by content: a TBD in the
      // artifact is a blocking finding, so those gates need the author to revise and resubmit.
      p.settings({
        providers: {
          gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "slow-satisfied", slow_ms: 300 }),
          "gpt-rev": scriptedProvider(p.root, "gpt-rev", "gpt-5-scripted", { default: "by-content" }),
        },
        foreign_grace_ms: 1000,
      });
      p.write("docs/spec.md", "# Spec\n\n- criteria\n");
      mkdirSync(path.join(p.root, "answers"));
      const kindOf = (i: number): Kind =>
        i % 20 === 3 ? "walkaway" : i % 10 === 3 || i % 10 === 7 ? "revise" : i % 10 === 5 ? "manual" : "plain";
      // every request is in before the workers start: the chaos then lands on all the gates at once, at every stage
      const gates = await requestGates(p, GATES, "c", kindOf);
      const requestsMs = Date.now() - started;
      const kinds = ["broker", "verifier", "command", "manual", "broker", "verifier", "command"];
      const workers: ChildProcess[] = kinds.map((k) => p.startWorker(k));

      // ---- the author (and the human reviewer) act through the CLI, beside the chaos
      const inflight = new Map<string, Promise<void>>();
      const cliCalls: CliRun[] = [];
      const cliKills: Record<string, number> = { resubmit: 0, respond: 0, decide: 0 };
      const actions: Record<string, number> = { resubmit: 0, respond: 0, decide: 0, drop: 0, revise: 0 };
      const answerAfterKill: string[] = [];
      let chaos = true;
      const cliMs: number[] = [];
      /** The last refusal of a call of ours per gate (a stale view is refused and retried; shown if a gate gets stuck). */
      const lastRefusal = new Map<string, string>();
      const typicalCliMs = () => (cliMs.length ? [...cliMs].sort((a, b) => a - b)[cliMs.length >> 1]! : 1000);
      const runCli = async (g: GateCase, args: string[], target: string) => {
        actions[args[0]!]!++;
        const call = cliAsync(p, args);
        cliCalls.push(call);
        let timer: NodeJS.Timeout | undefined;
        // kill some mid-flight (every one until a kill has landed), at any point of a call's life: up to a little more
        // than a typical call lasts here
        const landedSoFar = Object.values(cliKills).reduce((a, b) => a + b, 0);
        if (chaos && (landedSoFar === 0 || authorRandom() < 0.5))
          timer = setTimeout(() => call.child.kill("SIGKILL"), authorRandom() * 1.2 * typicalCliMs());
        const t0 = Date.now();
        const r = await call.exited;
        clearTimeout(timer);
        if (r.signal === null) cliMs.push(Date.now() - t0);
        if (r.code !== 0 && r.signal === null) lastRefusal.set(g.run, `${args.join(" ")}: ${r.stderr.trim().slice(-300)}`);
        if (r.signal === "SIGKILL") {
          cliKills[args[0]!]!++;
          // killed mid-flight: its file is there whole or not at all, never torn under the bus name
          const torn = readGate(layout, g.run, GATE).problems.filter((pr) => pr.file === target || pr.file.startsWith("memory-"));
          if (torn.length) answerAfterKill.push(`${g.run}: ${args[0]} killed left ${JSON.stringify(torn)}`);
        }
      };
      const authorStep = (g: GateCase, ctx: ReturnType<typeof loadContext>): Promise<void> | null => {
        const v = viewGate(ctx, g.run, GATE);
        const s = v.snapshot;
        const R = v.decision.round;
        if (s.outcome) return null;
        if (v.decision.state === "awaiting_decision") {
          const esc = s.escalations.get(R)!;
          const choice = esc.options.includes("retry") ? "retry" : "force-pass";
          return runCli(g, ["decide", g.run, GATE, choice, "--round", String(R)], `decision-${R}.json`);
        }
        if (v.decision.state === "awaiting_author") {
          if (g.kind === "walkaway") return null; // this author never revises: the gate waits, and says why
          const file = path.join(p.root, g.artifact);
          if (/\bTBD\b/.test(readFileSync(file, "utf8"))) {
            writeFileSync(file, REVISED_SPEC);
            actions.revise!++;
          }
          return runCli(g, ["resubmit", g.run, GATE], `resubmit-${R}.json`);
        }
        const open = Math.max(0, ...s.packets.keys());
        const P = s.packets.get(open);
        if (g.kind !== "manual" || !P || P.reviewer_adapter !== "manual") return null;
        if (s.results.has(open) || s.failures.has(open) || s.escalations.has(open) || s.responses.has(open)) return null;
        const answer = humanAnswer(readFileSync(path.join(p.root, g.artifact), "utf8"));
        const answerFile = path.join(p.root, "answers", `${g.run}-${open}.md`);
        if ((open + Number(g.run.slice(1))) % 2 === 0) {
          writeFileSync(answerFile, answer);
          return runCli(
            g,
            ["respond", g.run, GATE, "--round", String(open), "--reviewer-model", "gpt-5", "--file", answerFile],
            `result-${open}.json`,
          );
        }
        // the other way a human answers: a response file written elsewhere and linked into place (the manual worker's)
        const staged = `${answerFile}.${process.pid}.${Date.now()}`;
        writeFileSync(staged, `Reviewer-Model: gpt-5\n${answer}`);
        try {
          linkSync(staged, path.join(s.dir, `response-${open}.md`));
          actions.drop!++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        } finally {
          unlinkSync(staged); // no second name for the response outside the gate
        }
        return null;
      };
      // a gate is looked at again only once its directory changed (every delivery adds a name) or a call of ours ended
      const seen = new Map<string, number>();
      const authorPass = () => {
        const ctx = loadContext(layout);
        for (const g of gates) {
          if (inflight.size >= 4) return;
          if (inflight.has(g.run)) continue;
          let mtime = -1;
          try {
            mtime = statSync(p.gateDir(g.run, GATE)).mtimeMs;
          } catch {
            // no request yet
          }
          if (seen.get(g.run) === mtime) continue;
          const step = authorStep(g, ctx);
          if (!step) seen.set(g.run, mtime);
          else {
            seen.delete(g.run);
            inflight.set(
              g.run,
              step.finally(() => inflight.delete(g.run)),
            );
          }
        }
      };
      const settled = () => {
        const ctx = loadContext(layout);
        return gates.every((g) => {
          const v = viewGate(ctx, g.run, GATE);
          return g.kind === "walkaway" ? v.decision.state === "awaiting_author" : v.decision.state === "done";
        });
      };

      // ---- chaos, beside the author: every cycle kills each kind of target once, in a seeded order
      const kills: Record<string, number> = { broker: 0, verifier: 0, command: 0, manual: 0 };
      const childKills: Array<{ pid: number; packetId: string }> = [];
      const targets = ["child", "broker", "verifier", "command", "manual"];
      // CHAOS_MS of kills, longer while a kind of kill has not landed yet (on a loaded machine the workers take long
      // to start, and few reviewers may run in the first seconds); then the gates settle, with nothing killed
      const until = Date.now() + CHAOS_MS;
      const chaosCap = until + 4 * CHAOS_MS;
      /** How a killed reviewer child's round ended, from the files: its failure, a result, or nothing yet. */
      const childKillEnd = (c: { packetId: string }): string => {
        const at = packetRound(c.packetId);
        if (!at) return "not a packet of this test";
        try {
          const s = readGate(layout, at.run, GATE);
          const failure = s.failures.get(at.round);
          return failure ? `${failure.kind}: ${failure.reason}` : s.results.has(at.round) ? "a result" : "open";
        } catch (error) {
          return `unreadable now (${(error as Error).message})`;
        }
      };
      // a child kill counts once its round recorded it (a worker killed in that window hands the round to a takeover,
      // which cannot know how the child ended): until then the chaos goes on, up to its cap
      const childKillLanded = (c: { packetId: string }) => /^no_verdict: .*SIGKILL/s.test(childKillEnd(c));
      const everyKindLanded = () =>
        childKills.some(childKillLanded) && Object.values(kills).every((n) => n > 0) && Object.values(cliKills).some((n) => n > 0);
      let settleDeadline = Infinity;
      const killOne = async (target: string): Promise<boolean> => {
        if (target === "child") {
          // a reviewer process the command worker spawned (its own process group): kill it, not the worker
          // a scripted reviewer may live only a few ms: look for one for up to 2 s rather than once per cycle
          let children = reviewerChildren(p.root);
          for (const lookUntil = Date.now() + 2_000; !children.length && Date.now() < lookUntil; children = reviewerChildren(p.root))
            await sleep(20);
          const victim = children.length ? children[Math.floor(random() * children.length)]! : null;
          // still that reviewer (same command line), and alive (sleeping, or running on a loaded machine), not an
          // exited child waiting to be reaped; one that ends between the scan and the kill is simply not counted
          const state = victim && procState(victim.pid);
          if (!victim || (state !== "S" && state !== "R") || !isScriptedReviewer(victim.pid)) return false;
          try {
            process.kill(victim.pid, "SIGKILL");
          } catch {
            return false;
          }
          childKills.push(victim);
          return true;
        }
        const slots = kinds.flatMap((k, i) => (k === target ? [i] : []));
        const i = slots[Math.floor(random() * slots.length)]!;
        await stopChild(workers[i]!, "SIGKILL");
        kills[target]!++;
        await sleep(random() * 300);
        workers[i] = p.startWorker(kinds[i]!);
        return true;
      };
      const driver = (async () => {
        let bag: string[] = [];
        for (;;) {
          await sleep(200 + random() * 600);
          if (Date.now() >= until && (everyKindLanded() || Date.now() >= chaosCap)) break;
          if (!bag.length) bag = [...targets].sort(() => random() - 0.5);
          const target = bag.shift()!;
          if (!(await killOne(target))) bag.push(target); // no reviewer running right now: later in this cycle
        }
      })().finally(() => {
        chaos = false;
        settleDeadline = Date.now() + (SOAK ? 600_000 : 150_000);
      });
      let driverError: unknown = null;
      driver.catch((error: unknown) => void (driverError = error));
      try {
        for (;;) {
          if (driverError) throw driverError;
          authorPass();
          if (!chaos && inflight.size === 0 && settled()) break;
          if (Date.now() > settleDeadline) {
            const ctx = loadContext(layout);
            const stuck = gates.map((g) => viewGate(ctx, g.run, GATE).output).filter((o) => o.state !== "done");
            const refusals = stuck
              .slice(0, 5)
              .map((o) => lastRefusal.get(o.run_id))
              .filter(Boolean);
            throw new Error(
              `seed ${seed}: gates not settled: ${JSON.stringify(stuck.slice(0, 5))}\n` +
                `last refusals: ${refusals.join("\n")}\n${p.logs.join("").slice(-3000)}`,
            );
          }
          await sleep(250);
        }
      } finally {
        await driver.catch(() => undefined);
        await Promise.allSettled(
          cliCalls.map((c) => (c.child.exitCode === null && c.child.signalCode === null ? (c.child.kill("SIGKILL"), c.exited) : c.exited)),
        );
      }
      const settledMs = Date.now() - started;
      for (const w of workers) await stopChild(w);

      // ---- audit
      const where = `seed ${seed}`;
      expect(answerAfterKill, `${where}: a killed CLI call left a torn file`).toEqual([]);
      const dispatches = dispatchCounts(p.root, ["gpt", "gpt-rev"]);
      for (const [id, n] of dispatches) expect(n, `${where}: ${id} dispatched ${n} times`).toBe(1);
      const ctx = loadContext(layout);
      const satisfied: GateCase[] = [];
      for (const g of gates) {
        const v = viewGate(ctx, g.run, GATE);
        const s = v.snapshot;
        const run = g.run;
        expect(s.problems, `${where}: ${run} has invalid or torn files`).toEqual([]);
        expect(strayFiles(s.dir), `${where}: ${run}: stray files in the gate directory`).toEqual([]);
        expect(strayRunFiles(layout, run), `${where}: ${run}: stray files in the run directory`).toEqual([]);
        expect([...s.brokenSeals.values()], `${where}: ${run}: broken seals`).toEqual([]);
        // terminal, or waiting with a stated reason
        if (g.kind === "walkaway") {
          expect(s.outcome, `${where}: ${run} should still wait for its author`).toBeNull();
          expect(v.output.state).toBe("awaiting_author");
          expect(v.output.waiting_for).toMatch(/author/);
          expect(v.output.detail.trim(), `${where}: ${run} waits without a reason`).not.toBe("");
        } else {
          expect(s.outcome?.status, `${where}: ${run} (${g.kind}) outcome`).toBe("satisfied");
          satisfied.push(g);
        }
        const packets = [...s.packets.keys()].sort((a, b) => a - b);
        expect(packets, `${run}: rounds are 1..n`).toEqual(packets.map((_, i) => i + 1));
        for (const r of packets) {
          const P = s.packets.get(r)!;
          const ended = s.verdicts.has(r) || s.failures.has(r) || s.escalations.has(r);
          expect(ended || r === s.outcome?.final_round, `${run} round ${r} never ended`).toBe(true);
          // on disk, not in the view (which leaves out a failure its round's result proves wrong): one ending per round
          const onDisk = (kind: string) => existsSync(path.join(s.dir, `${kind}-${r}.json`));
          expect(onDisk("result") && onDisk("failure"), `${where}: ${run} round ${r} has both a result and a failure`).toBe(false);
          if (s.results.has(r)) {
            const bytes = readFileSync(path.join(s.dir, `result-${r}.json`));
            expect(JSON.parse(bytes.toString("utf8")).packet_id).toBe(P.packet_id);
            // a command reviewer's result comes from exactly one dispatch of that packet
            if (P.reviewer_adapter === "command") expect(dispatches.get(P.packet_id), `${where}: ${P.packet_id} has a result`).toBe(1);
          }
          if (s.verdicts.has(r))
            expect(readFileSync(path.join(s.dir, ".verified", `result-${r}.json`)), `${run} round ${r}: seal`).toEqual(
              readFileSync(path.join(s.dir, `result-${r}.json`)),
            );
          if (s.attempts.has(r)) expect(P.reviewer_adapter).toBe("command");
          if (!s.attempts.has(r))
            expect(dispatches.get(P.packet_id) ?? 0, `${where}: ${P.packet_id} dispatched without an attempt`).toBe(0);
          if (s.responses.has(r)) {
            // every response dropped for the manual worker became that round's result, once
            expect(s.results.has(r), `${where}: ${run} response-${r}.md never became a result`).toBe(true);
            expect(JSON.parse(readFileSync(path.join(s.dir, `result-${r}.json`), "utf8")).normalized_from).toBe("manual");
          }
        }
        if (g.kind === "revise" || g.kind === "manual") {
          expect(s.resubmits.size, `${run}: a ${g.kind} gate passes only after a resubmit`).toBeGreaterThan(0);
          const final = s.packets.get(s.outcome!.final_round)!;
          expect(final.reviewer_provider).toBe(g.kind === "manual" ? "manual" : "gpt-rev");
        }
        expect(
          s.rejected.filter((r) => /^response-/.test(r.file)),
          `${where}: ${run}: a human's answer was refused`,
        ).toEqual([]);
        const trail = readFileSync(path.join(s.dir, "trail.md"), "utf8");
        if (s.outcome) expect(trail, `${run}: trail disagrees with outcome.json`).toContain(`- status: ${s.outcome.status}`);
        else expect(trail, `${run}: trail of an open gate`).toContain("- open: awaiting_author");
        for (const r of packets) expect(trail, `${run}: trail misses round ${r}`).toContain(`## Round ${r}`);
        // telemetry is best-effort: a broker killed between delivery and event leaves none, never two
        const ev = events(layout, run);
        expect(ev.filter((e) => e.event === "review_outcome").length, `${run}: at most one outcome event`).toBeLessThanOrEqual(1);
        for (const r of packets)
          expect(
            ev.filter((e) => e.event === "codex_review_round" && e.round_number === r).length,
            `${run}: round ${r} ended twice`,
          ).toBeLessThanOrEqual(1);
      }

      // every satisfied outcome re-derives from its files: once for all gates, and gate by gate for the resubmitted ones
      const all = p.cli(["status", "--verify", "--json"]);
      expect(all.code, `${where}: status --verify: ${all.stdout.slice(0, 2000)}`).toBe(0);
      const rows = JSON.parse(all.stdout).gates as Array<{ run_id: string; status: string; verify?: { ok: boolean; problems: string[] } }>;
      for (const g of satisfied)
        expect(rows.find((r) => r.run_id === g.run)?.verify, `${where}: ${g.run} re-derives`).toEqual({ ok: true, problems: [] });
      await pool(
        satisfied.filter((g) => g.kind !== "plain"),
        4,
        async (g) => {
          const r = await cliAsync(p, ["status", g.run, GATE, "--verify"]).exited;
          expect(r.code, `${where}: status ${g.run} ${GATE} --verify: ${r.stdout}`).toBe(0);
        },
      );

      // the reviewer children that were killed: each such round ended without a result, and was never dispatched again
      let landed = 0;
      for (const c of childKills) {
        const at = packetRound(c.packetId);
        expect(at, `packet id ${c.packetId}`).not.toBeNull();
        const s = readGate(layout, at!.run, GATE);
        expect(dispatches.get(c.packetId) ?? 0, `${where}: killed reviewer of ${c.packetId}`).toBeLessThanOrEqual(1);
        const failure = s.failures.get(at!.round);
        if (failure && /SIGKILL/.test(failure.reason)) {
          landed++;
          expect(failure.kind).toBe("no_verdict");
          expect(s.results.has(at!.round), `${where}: ${c.packetId}: killed reviewer yet a result`).toBe(false);
          expect(s.packets.get(at!.round + 1)?.restart_reason, `${where}: ${c.packetId}: the retry is a new round`).toBe("retry");
        }
      }

      sweepStaging(layout.guild);
      expect(readdirSync(path.join(layout.guild, "tmp")), `${where}: staging orphans after the janitor`).toEqual([]);
      // a writer killed between link() and unlink() left its staging as a second name; the janitor removed it
      for (const g of gates) {
        const dir = p.gateDir(g.run, GATE);
        for (const name of readdirSync(dir)) {
          const st = lstatSync(path.join(dir, name));
          if (st.isFile()) expect(st.nlink, `${where}: ${g.run}/${name} still has a second name`).toBe(1);
        }
      }
      for (const k of Object.keys(kills)) expect(kills[k], `${where}: ${k} workers killed`).toBeGreaterThan(0);
      expect(childKills.length, `${where}: reviewer children killed`).toBeGreaterThan(0);
      expect(
        landed,
        `${where}: a killed reviewer child ended its round no_verdict (` +
          `${childKills.map((c) => `${c.packetId}: ${childKillEnd(c)}`).join("; ")})`,
      ).toBeGreaterThan(0);
      expect(
        Object.values(cliKills).reduce((a, b) => a + b, 0),
        `${where}: author CLI calls killed mid-flight`,
      ).toBeGreaterThan(0);
      console.log(
        `chaos ${where}: requests ${requestsMs} ms, settled ${settledMs} ms; worker kills ${JSON.stringify(kills)}, ` +
          `reviewer children ${childKills.length} (${landed} ended no_verdict), ` +
          `CLI kills ${JSON.stringify(cliKills)}, actions ${JSON.stringify(actions)}`,
      );
    },
  );

  it(
    `${RACE_GATES} gates, three brokers, verifiers and command workers started at the same instant: ` +
      "every round dispatched once, every file delivered once",
    { timeout: SOAK ? 900_000 : 240_000 },
    async () => {
      const started = Date.now();
      const p = makeProject();
      const layout = new Layout(p.root);
      p.settings({
        providers: {
          gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "slow-satisfied", slow_ms: 200 }),
          "gpt-rev": scriptedProvider(p.root, "gpt-rev", "gpt-5-scripted", { default: "by-content" }),
        },
      });
      p.write("docs/spec.md", "# Spec\n\n- criteria\n");
      // the whole batch is waiting before any worker exists
      const gates = await requestGates(p, RACE_GATES, "x", (i) => (i % 3 === 1 ? "revise" : "plain"));
      // all nine at once. Claims go stale only after 15 s here: a takeover (a no_verdict, a human's retry) cannot hide
      // a double dispatch, and every round must end with its one result
      const workers = ["broker", "verifier", "command"]
        .flatMap((k) => [k, k, k])
        .map((k) => p.startWorker(k, ["--claim-stale-ms", "15000"]));
      const deadline = Date.now() + (SOAK ? 600_000 : 150_000);
      for (;;) {
        const ctx = loadContext(layout);
        const views = gates.map((g) => ({ g, v: viewGate(ctx, g.run, GATE) }));
        const escalated = views
          .filter(({ v }) => v.decision.state === "awaiting_decision")
          .map(({ v }) => `${v.output.run_id}: ${v.output.detail}`);
        expect(escalated, "no round of the race ends without a verdict").toEqual([]);
        const authors = views.filter(({ v }) => v.decision.state === "awaiting_author").map(({ g }) => g);
        await pool(authors, 4, async (g) => {
          writeFileSync(path.join(p.root, g.artifact), REVISED_SPEC);
          const r = await cliAsync(p, ["resubmit", g.run, GATE]).exited;
          expect(r.code, `resubmit ${g.run}: ${r.stderr}`).toBe(0);
        });
        if (views.every(({ v }) => v.decision.state === "done")) break;
        if (Date.now() > deadline)
          throw new Error(
            `race: gates not done: ${JSON.stringify(
              views
                .filter(({ v }) => v.decision.state !== "done")
                .map(({ v }) => v.output)
                .slice(0, 4),
            )}\n${p.logs.join("").slice(-3000)}`,
          );
        await sleep(250);
      }
      for (const w of workers) await stopChild(w);
      // stopChild escalates to SIGKILL after 5 s: such a worker may have died with a staging file of its own
      const hardStopped = workers.filter((w) => w.signalCode === "SIGKILL").length;

      const dispatches = dispatchCounts(p.root, ["gpt", "gpt-rev"]);
      let rounds = 0;
      for (const g of gates) {
        const s = readGate(layout, g.run, GATE);
        expect(s.problems, `${g.run}: conflicts or torn files left behind`).toEqual([]);
        expect(s.rejected, `${g.run}: nothing is moved aside when every writer is a bus worker`).toEqual([]);
        expect(strayFiles(s.dir), `${g.run}: stray files`).toEqual([]);
        expect(s.outcome?.status, g.run).toBe("satisfied");
        expect(s.failures.size + s.escalations.size, `${g.run}: failures or escalations`).toBe(0);
        const packets = [...s.packets.keys()].sort((a, b) => a - b);
        expect(packets, g.run).toEqual(g.kind === "revise" ? [1, 2] : [1]);
        for (const r of packets) {
          rounds++;
          const id = s.packets.get(r)!.packet_id;
          expect(dispatches.get(id), `${id}: dispatched exactly once`).toBe(1);
          expect(s.attempts.has(r) && s.results.has(r) && s.verdicts.has(r), `${g.run} round ${r}: attempt, result and verdict`).toBe(true);
        }
        // one link per file: no writer left a second name (a staging file) behind, nothing was written twice
        for (const name of readdirSync(s.dir)) {
          const st = lstatSync(path.join(s.dir, name));
          if (st.isFile()) expect(st.nlink, `${g.run}/${name} links`).toBe(1);
        }
        // one event per delivery: a broker appends only for a file it delivered itself, so a double delivery shows here
        const ev = events(layout, g.run);
        for (const r of packets)
          expect(ev.filter((e) => e.event === "codex_review_round" && e.round_number === r).length, `${g.run}: round ${r} ended once`).toBe(
            1,
          );
        expect(ev.filter((e) => e.event === "review_outcome").length, `${g.run}: one outcome event`).toBe(1);
        expect(ev.filter((e) => e.event === "review_escalation").length, g.run).toBe(0);
      }
      expect(
        [...dispatches.values()].reduce((a, b) => a + b, 0),
        "every dispatch was of a packet of these gates",
      ).toBe(rounds);
      // every writer removed its own staging: nothing for the janitor
      if (hardStopped) sweepStaging(layout.guild);
      expect(readdirSync(path.join(layout.guild, "tmp")), "staging files left by racing writers").toEqual([]);
      const verify = p.cli(["status", "--verify"]);
      expect(verify.code, verify.stdout.slice(0, 2000)).toBe(0);
      console.log(`race: ${gates.length} gates, ${rounds} rounds, nine workers, ${Date.now() - started} ms`);
    },
  );

  it(
    "a command worker frozen (SIGSTOP) mid-dispatch past its claim's stale time still delivers its paid answer when it wakes",
    { timeout: scaled(240_000) },
    async () => {
      const started = Date.now();
      const p = makeProject();
      const layout = new Layout(p.root);
      // the first review takes 5 s: long enough to freeze its worker mid-dispatch past the 2 s claim stale time
      p.settings({
        providers: {
          gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { sequence: ["slow-satisfied"], default: "satisfied", slow_ms: 5000 }),
        },
      });
      p.write("docs/spec.md", "# Spec\n\n- criteria\n");
      const workers = [p.startWorker("broker"), p.startWorker("verifier"), p.startWorker("command"), p.startWorker("command")];
      const run = "frozen";
      expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", run]).code).toBe(0);
      await p.waitFor(run, GATE, (f) => f.includes("attempt-1.json"), "attempt-1.json", scaled(90_000));
      const attempt = p.readJson<{ packet_id: string; worker: { pid: number } }>(run, GATE, "attempt-1.json");
      const frozen = workers.find((w) => w.pid === attempt.worker.pid)!;
      expect(frozen, "attempt-1.json names one of the two command workers").toBeDefined();
      const child = await waitUntil(
        () => reviewerChildren(p.root).find((c) => c.packetId === attempt.packet_id),
        "the reviewer child of round 1",
        30_000,
        50,
      );
      // frozen only once the reviewer has the whole packet (it logs it after reading stdin to the end): a worker
      // frozen before it finished writing stdin would keep its reviewer waiting, not reviewing
      const log = path.join(p.root, "received-gpt");
      const hasRead = () => {
        try {
          return readdirSync(log).some((n) => n.endsWith(`-${child.pid}.md`));
        } catch {
          return false;
        }
      };
      await waitUntil(hasRead, "the reviewer to read its packet", 30_000, 20);
      const dir = p.gateDir(run, GATE);
      const before = new Map<string, Buffer>();
      // the broker is frozen too, so that it cannot act on the takeover's failure before the woken worker delivers
      // (once it has, the failure stands and the answer is only kept aside: test/workers/result-over-failure.test.ts)
      const broker = workers[0]!;
      process.kill(broker.pid!, "SIGSTOP");
      process.kill(frozen.pid!, "SIGSTOP");
      try {
        await waitUntil(() => procState(frozen.pid!) === "T", "the worker to stop", 10_000, 20);
        // the other worker finds the claim stale (no refresh for 2 s) and an attempt without a result: the attempt rule
        const files = await p.waitFor(
          run,
          GATE,
          (f) => f.includes("failure-1.json") || f.includes("result-1.json"),
          "the takeover of round 1",
          scaled(60_000),
        );
        expect(files, "the frozen worker delivered before it was frozen").not.toContain("result-1.json");
        const failure = p.readJson<{ kind: string; reason: string }>(run, GATE, "failure-1.json");
        expect(failure.kind).toBe("no_verdict");
        expect(failure.reason, "the failure names the frozen worker's attempt").toContain(`pid ${frozen.pid}`);
        // the frozen worker's reviewer finished meanwhile: it exited with its answer in the pipe, not yet reaped
        await waitUntil(() => ["Z", null].includes(procState(child.pid)), "the frozen worker's reviewer to finish", scaled(30_000));
        for (const name of readdirSync(dir))
          if (lstatSync(path.join(dir, name)).isFile() && name !== "trail.md") before.set(name, readFileSync(path.join(dir, name)));
        // woken, it reaps its reviewer and delivers the complete answer it holds: the result proves the failure wrong
        process.kill(frozen.pid!, "SIGCONT");
        await p.waitFor(run, GATE, (f) => f.includes("verdict-1.json"), "the woken worker's answer verified", scaled(60_000));
      } finally {
        process.kill(frozen.pid!, "SIGCONT");
        process.kill(broker.pid!, "SIGCONT");
      }
      await p.waitState(run, GATE, ["done"], scaled(90_000));
      for (const w of workers) await stopChild(w); // a graceful stop waits for every handler, the woken one's included

      const s = readGate(layout, run, GATE);
      expect(s.problems).toEqual([]);
      // the takeover's failure is moved aside as superseded: the round has one ending, its verified answer
      expect(s.rejected).toEqual([
        expect.objectContaining({ file: expect.stringMatching(/^failure-1\.json\./), reason: expect.stringMatching(/^superseded: /) }),
      ]);
      expect(strayFiles(s.dir)).toEqual([]);
      for (const [name, bytes] of before)
        if (name !== "failure-1.json") expect(readFileSync(path.join(dir, name)), `${name} was overwritten`).toEqual(bytes);
      expect(s.outcome).toMatchObject({ status: "satisfied", final_round: 1 });
      const dispatches = dispatchCounts(p.root, ["gpt"]);
      expect(Object.fromEntries(dispatches), "one paid dispatch, and no second for a retry").toEqual({ [s.packets.get(1)!.packet_id]: 1 });
      const verify = p.cli(["status", run, GATE, "--verify"]);
      expect(verify.code, verify.stdout).toBe(0);
      console.log(`freeze: worker ${frozen.pid} frozen through the takeover of round 1 delivered on waking; ${Date.now() - started} ms`);
    },
  );
});
