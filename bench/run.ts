// npm run bench: medians and percentiles over repeated runs, each figure with its baseline measured in the same run.
// Results go to bench/results.json and are printed as a table. Run it on a quiet machine; it spawns real workers.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Layout } from "../src/layout.js";
import { RESULT_WIRE } from "../src/result-reader.js";
import { deliver } from "../src/store/deliver.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = path.join(REPO, "bin", "guild-bus.js");
const quick = process.argv.includes("--quick");

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
  writeFileSync(result, JSON.stringify({ packet_id: "p", artifact_sha256_reviewed: "0".repeat(64), verdict: "satisfied", blocking_findings: [] }));
  const baseline: number[] = [];
  const verify: number[] = [];
  for (let i = 0; i < runs; i++) {
    // interleaved so both see the same machine noise
    baseline.push(timeCommand([process.execPath, "-e", "0"]));
    verify.push(timeCommand([process.execPath, BIN, "verify-gate-pass", "--result", result, "--artifact", artifact, "--packet-id", "p"]));
  }
  rmSync(dir, { recursive: true, force: true });
  return { runs, node_e0_median_ms: ms(median(baseline)), verify_gate_pass_median_ms: ms(median(verify)), ratio: ms(median(verify) / median(baseline)), goal: "<= 1.5" };
}

function startWorkers(root: string, kinds: string[], poll: boolean): ChildProcess[] {
  return kinds.map((kind) =>
    spawn(process.execPath, [BIN, "worker", kind, "--root", root, ...(poll ? ["--poll"] : [])], { stdio: ["ignore", "ignore", "ignore"] }),
  );
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise((r) => { c.once("exit", r); c.kill("SIGTERM"); })));
}

async function waitForFile(file: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await sleep(0.5);
  }
  return performance.now();
}

/**
 * Bus overhead per round on one gate: a result is delivered (as a reviewer would), the verifier verifies it, and
 * the broker delivers the next action. A stale sha makes every result end in a restart packet, so each round's
 * next action is a file we can time without a reviewer in the loop.
 */
async function roundOverhead(rounds: number, poll: boolean) {
  const root = mkdtempSync(path.join(tmpdir(), "guild-bus-bench-"));
  const layout = new Layout(root);
  mkdirSync(layout.runs, { recursive: true });
  writeFileSync(layout.settings, JSON.stringify({ restart_cap: 50 }));
  writeFileSync(path.join(root, "a.md"), "# artifact\n");
  const workers = startWorkers(root, ["broker", "verifier"], poll);
  const r = spawnSync(process.execPath, [BIN, "review", "a.md", "--gate", "G-spec", "--author", "claude", "--reviewer", "manual", "--run-id", "bench", "--root", root]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  const gateFile = (name: string) => layout.gateFile("bench", "G-spec", name);
  const samples: number[] = [];
  try {
    await waitForFile(gateFile("packet-1.md"));
    for (let n = 1; n <= rounds; n++) {
      const packet = readFileSync(gateFile(`packet-${n}.md`), "utf8");
      const packetId = /packet_id: (.+)/.exec(packet)![1]!.trim();
      const body = JSON.stringify({ schema_version: RESULT_WIRE, packet_id: packetId, artifact_sha256_reviewed: "f".repeat(64), verdict: "satisfied", blocking_findings: [] });
      const t0 = performance.now();
      deliver(gateFile(`result-${n}.json`), body, { guildDir: layout.guild });
      const t1 = await waitForFile(gateFile(`packet-${n + 1}.md`));
      samples.push(t1 - t0);
    }
  } finally {
    await stopWorkers(workers);
    rmSync(root, { recursive: true, force: true });
  }
  return { mode: poll ? "poll" : "watch", rounds, p50_ms: ms(percentile(samples, 50)), p99_ms: ms(percentile(samples, 99)), max_ms: ms(Math.max(...samples)) };
}

async function main(): Promise<void> {
  const results = {
    measured_at: new Date().toISOString(),
    machine: { host: hostname(), cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}` },
    cold_start: coldStart(quick ? 5 : 30),
    round_overhead: [await roundOverhead(quick ? 5 : 40, false), await roundOverhead(quick ? 3 : 15, true)],
  };
  writeFileSync(path.join(REPO, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");
  const c = results.cold_start;
  console.log(`machine: ${results.machine.cpus} × ${results.machine.cpu_model}, ${results.machine.memory_gib} GiB, node ${results.machine.node}`);
  console.table([{ figure: "verify-gate-pass cold start", value: `${c.verify_gate_pass_median_ms} ms`, baseline: `node -e 0: ${c.node_e0_median_ms} ms`, ratio: c.ratio, goal: c.goal }]);
  console.table(results.round_overhead.map((o) => ({ figure: `round overhead (${o.mode})`, rounds: o.rounds, p50_ms: o.p50_ms, p99_ms: o.p99_ms, max_ms: o.max_ms })));
}

await main();
