// npm run bench: medians and percentiles over repeated runs, each figure with its baseline measured in the same run.
// Results go to bench/results.json and are printed as a table. Run it on a quiet machine; it spawns real workers.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Layout } from "../src/bus/layout.js";
import { RESULT_WIRE } from "../src/spec/constants.js";
import { deliver } from "../src/bus/deliver.js";
import type { Answer } from "../src/commands/answer.js";
import { requestReview } from "../src/commands/review.js";
import { uiFigures } from "./ui.js";

function requested(answer: Answer<unknown>): void {
  if (!answer.ok) throw new Error(`bench set-up: ${answer.error}`);
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = path.join(REPO, "bin", "guild-bus.js");
const quick = process.argv.includes("--quick");
/** `--throughput N`: only that figure, with N gates (for profiling the workers); nothing is written to results.json. */
const throughputOnly = process.argv.includes("--throughput") ? Number(process.argv[process.argv.indexOf("--throughput") + 1]) : null;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}
const median = (v: number[]) => percentile(v, 50);
const ms = (n: number) => Math.round(n * 100) / 100;

function timeCommand(argv: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
  if (r.error) throw r.error;
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function coldStart(runs: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "guild-bus-bench-"));
  const artifact = path.join(dir, "a.md");
  writeFileSync(artifact, "# artifact\n");
  const result = path.join(dir, "r.json");
  writeFileSync(
    result,
    JSON.stringify({ packet_id: "p", artifact_sha256_reviewed: "0".repeat(64), verdict: "satisfied", blocking_findings: [] }),
  );
  const baseline: number[] = [];
  const verify: number[] = [];
  for (let i = 0; i < runs; i++) {
    // interleaved so both see the same machine noise
    baseline.push(timeCommand([process.execPath, "-e", "0"]));
    verify.push(timeCommand([process.execPath, BIN, "verify-gate-pass", "--result", result, "--artifact", artifact, "--packet-id", "p"]));
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    runs,
    node_e0_median_ms: ms(median(baseline)),
    verify_gate_pass_median_ms: ms(median(verify)),
    ratio: ms(median(verify) / median(baseline)),
    goal: "<= 1.5",
  };
}

function workerArgs(root: string, poll: boolean): string[] {
  return ["--root", root, ...(poll ? ["--poll"] : [])];
}

/** BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops (node refuses --cpu-prof in NODE_OPTIONS). */
const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

function startWorkers(root: string, kinds: string[], poll: boolean): ChildProcess[] {
  return kinds.map((kind) =>
    spawn(process.execPath, [...profile, BIN, "worker", kind, ...workerArgs(root, poll)], { stdio: ["ignore", "ignore", "ignore"] }),
  );
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((r) => {
          c.once("exit", r);
          c.kill("SIGTERM");
        }),
    ),
  );
}

async function waitForFile(file: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await sleep(0.5);
  }
  return performance.now();
}

function freshProject(): { root: string; layout: Layout } {
  const root = mkdtempSync(path.join(tmpdir(), "guild-bus-bench-"));
  const layout = new Layout(root);
  mkdirSync(layout.runs, { recursive: true });
  writeFileSync(path.join(root, "a.md"), "# artifact\n");
  return { root, layout };
}

const packetField = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(text)![1]!.trim();

/**
 * Bus overhead per round on one gate: a result is delivered (as a reviewer would), the verifier verifies it, and
 * the broker delivers the next action. A stale sha makes every result end in a restart packet, so each round's
 * next action is a file we can time without a reviewer in the loop.
 */
async function roundOverhead(rounds: number, poll: boolean, root = freshProject().root) {
  const layout = new Layout(root);
  writeFileSync(layout.settings, JSON.stringify({ restart_cap: 50 }));
  const run = `bench-${Date.now()}`;
  const workers = startWorkers(root, ["broker", "verifier"], poll);
  requested(requestReview(layout, { artifact: "a.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: run }));
  const gateFile = (name: string) => layout.gateFile(run, "G-spec", name);
  const samples: number[] = [];
  try {
    await waitForFile(gateFile("packet-1.md"));
    for (let n = 1; n <= rounds; n++) {
      const packetId = packetField(readFileSync(gateFile(`packet-${n}.md`), "utf8"), "packet_id");
      const body = JSON.stringify({
        schema_version: RESULT_WIRE,
        packet_id: packetId,
        artifact_sha256_reviewed: "f".repeat(64),
        verdict: "satisfied",
        blocking_findings: [],
      });
      const t0 = performance.now();
      deliver(gateFile(`result-${n}.json`), body, { guildDir: layout.guild });
      samples.push((await waitForFile(gateFile(`packet-${n + 1}.md`))) - t0);
    }
  } finally {
    await stopWorkers(workers);
  }
  return {
    mode: poll ? "poll" : "watch",
    rounds,
    p50_ms: ms(percentile(samples, 50)),
    p99_ms: ms(percentile(samples, 99)),
    max_ms: ms(Math.max(...samples)),
  };
}

/**
 * Throughput: many gates at once, two rounds each (issues, then satisfied after the author resubmits). This
 * process is the instant reviewer and the author; the broker and the verifier are real worker processes.
 */
async function throughput(gates: number, keep = false) {
  const { root, layout } = freshProject();
  const workers = startWorkers(root, ["broker", "verifier"], false);
  await sleep(500);
  const runs = Array.from({ length: gates }, (_, i) => `t${i}`);
  const t0 = performance.now();
  for (const run of runs)
    requested(requestReview(layout, { artifact: "a.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: run }));
  const open = new Set(runs);
  const deadline = Date.now() + 300_000;
  const opts = { guildDir: layout.guild, durable: true };
  while (open.size && Date.now() < deadline) {
    for (const run of [...open]) {
      const dir = layout.gateDir(run, "G-spec");
      const names = new Set(readdirSync(dir));
      if (names.has("outcome.json")) {
        open.delete(run);
        continue;
      }
      for (const n of [1, 2]) {
        if (names.has(`packet-${n}.md`) && !names.has(`result-${n}.json`)) {
          const packet = readFileSync(path.join(dir, `packet-${n}.md`), "utf8");
          const blocking = n === 1 ? [{ severity: "blocking", title: "instant reviewer: revise once" }] : [];
          deliver(
            path.join(dir, `result-${n}.json`),
            JSON.stringify({
              schema_version: RESULT_WIRE,
              packet_id: packetField(packet, "packet_id"),
              artifact_sha256_reviewed: packetField(packet, "artifact_sha256"),
              verdict: n === 1 ? "issues" : "satisfied",
              findings: blocking,
              blocking_findings: blocking,
              round: n,
              reviewer_host: "bench",
              reviewer_model: "gpt-bench",
            }),
            opts,
          );
        }
      }
      if (names.has("verdict-1.json") && !names.has("resubmit-1.json") && !names.has("packet-2.md")) {
        deliver(
          path.join(dir, "resubmit-1.json"),
          JSON.stringify({
            schema_version: "guild_bus.resubmit.v1",
            run_id: run,
            gate: "G-spec",
            after_round: 1,
            at: new Date().toISOString(),
          }),
          opts,
        );
      }
    }
    await sleep(10);
  }
  const elapsed = (performance.now() - t0) / 1000;
  await stopWorkers(workers);
  if (!keep) rmSync(root, { recursive: true, force: true });
  return {
    ...(keep ? { root } : {}),
    gates,
    rounds: gates * 2,
    elapsed_s: ms(elapsed),
    rounds_per_s: ms((gates * 2 - open.size * 2) / elapsed),
    lost: open.size,
    goal: ">= 100 rounds/s, lost 0",
  };
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** History scaling: a tree with many finished runs, against an empty one, measured in the same run. */
async function history(finishedRuns: number, rounds: number) {
  const { root, layout } = freshProject();
  const t0 = performance.now();
  for (let i = 0; i < finishedRuns; i++) {
    const dir = layout.gateDir(`h${i}`, "G-spec");
    mkdirSync(dir, { recursive: true });
    writeFileSync(layout.runMeta(`h${i}`), `{"schema_version":"guild_bus.run.v1","run_id":"h${i}","created_at":"2026-01-01T00:00:00Z"}\n`);
    for (const [name, text] of [
      ["request.json", "{}"],
      ["packet-1.md", "---\n---\n"],
      ["result-1.json", "{}"],
      ["verdict-1.json", "{}"],
      ["outcome.json", "{}"],
      ["trail.md", "# trail\n"],
    ]) {
      writeFileSync(path.join(dir, name!), text!);
    }
  }
  const seeded = (performance.now() - t0) / 1000;
  const starts: number[] = [];
  let rss = NaN;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, "worker", "broker", "--root", root], { stdio: ["ignore", "ignore", "pipe"] });
    await new Promise<void>((resolve) => child.stderr!.on("data", (b: Buffer) => String(b).includes("worker watching") && resolve()));
    starts.push(performance.now() - started);
    await sleep(1000);
    rss = Math.max(Number.isNaN(rss) ? 0 : rss, rssMb(child.pid!));
    await stopWorkers([child]);
  }
  const empty = await roundOverhead(rounds, false);
  const loaded = await roundOverhead(rounds, false, root);
  rmSync(root, { recursive: true, force: true });
  return {
    finished_runs: finishedRuns,
    seed_s: ms(seeded),
    worker_start_median_ms: ms(median(starts)),
    worker_start_goal_ms: 1000,
    broker_rss_mb: rss,
    rss_goal_mb: 120,
    round_p50_empty_ms: empty.p50_ms,
    round_p50_history_ms: loaded.p50_ms,
    ratio: ms(loaded.p50_ms / empty.p50_ms),
    ratio_goal: 1.3,
  };
}

/** The review console over 1,000 runs that each went through two rounds (the throughput set-up, kept). */
async function consoleFigures(gates: number) {
  const { root, lost } = await throughput(gates, true);
  try {
    if (lost) throw new Error(`console bench set-up: ${lost} gates did not finish`);
    return await uiFigures(root!, BIN, gates, { median, p95: (v) => percentile(v, 95) });
  } finally {
    rmSync(root!, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv.includes("--ui")) {
    console.table([await consoleFigures(1000)]);
    return;
  }
  if (throughputOnly !== null) {
    console.table([await throughput(throughputOnly)]);
    return;
  }
  const results = {
    measured_at: new Date().toISOString(),
    machine: {
      host: hostname(),
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    cold_start: coldStart(quick ? 5 : 30),
    round_overhead: [await roundOverhead(quick ? 5 : 40, false), await roundOverhead(quick ? 3 : 15, true)],
    throughput: await throughput(quick ? 50 : 500),
    history: await history(quick ? 1000 : 10_000, quick ? 5 : 30),
    ui: await consoleFigures(1000),
  };
  writeFileSync(path.join(REPO, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");
  const c = results.cold_start;
  console.log(
    `machine: ${results.machine.cpus} × ${results.machine.cpu_model}, ${results.machine.memory_gib} GiB, node ${results.machine.node}`,
  );
  console.table([
    {
      figure: "verify-gate-pass cold start",
      value: `${c.verify_gate_pass_median_ms} ms`,
      baseline: `node -e 0: ${c.node_e0_median_ms} ms`,
      ratio: c.ratio,
      goal: c.goal,
    },
  ]);
  console.table(
    results.round_overhead.map((o) => ({
      figure: `round overhead (${o.mode})`,
      rounds: o.rounds,
      p50_ms: o.p50_ms,
      p99_ms: o.p99_ms,
      max_ms: o.max_ms,
    })),
  );
  const t = results.throughput;
  console.table([
    {
      figure: `throughput (${t.gates} gates × 2 rounds)`,
      rounds_per_s: t.rounds_per_s,
      elapsed_s: t.elapsed_s,
      lost: t.lost,
      goal: t.goal,
    },
  ]);
  const h = results.history;
  console.table([
    {
      figure: `worker start, ${h.finished_runs} finished runs`,
      value: `${h.worker_start_median_ms} ms`,
      goal: `<= ${h.worker_start_goal_ms} ms`,
    },
    { figure: "broker RSS with that history", value: `${h.broker_rss_mb} MB`, goal: `<= ${h.rss_goal_mb} MB` },
    {
      figure: "round p50, history vs empty",
      value: `${h.round_p50_history_ms} / ${h.round_p50_empty_ms} ms = ${h.ratio}`,
      goal: `<= ${h.ratio_goal}`,
    },
  ]);
  const u = results.ui;
  console.table([
    {
      figure: `guild-bus ui: URL printed / table filled, ${u.gates} runs`,
      value: `${u.ready_ms} / ${u.table_filled_ms} ms (list answered in ${u.list_while_filling_ms} ms while filling)`,
      goal: "",
    },
    {
      figure: "gate list answered (first / median / p95)",
      value: `${u.list_first_ms} / ${u.list_median_ms} / ${u.list_p95_ms} ms, ${u.list_kib} KiB`,
      goal: "",
    },
    {
      figure: "gate list first contentful paint, chromium (median / max of 10; the same page with no rows)",
      value:
        u.first_paint_median_ms === null
          ? "no chromium"
          : `${u.first_paint_median_ms} / ${u.first_paint_max_ms} ms (no rows: ${u.first_paint_no_rows_median_ms} ms)`,
      goal: `<= ${u.first_paint_goal_ms} ms`,
    },
    { figure: "gate timeline answered (median)", value: `${u.timeline_median_ms} ms`, goal: "" },
    { figure: "console RSS", value: `${u.rss_mb} MB`, goal: `<= ${u.rss_goal_mb} MB` },
  ]);
}

await main();
