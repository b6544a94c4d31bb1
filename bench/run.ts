// npm run bench: medians and percentiles over repeated runs, each figure with its baseline measured in the same run.
// Results go to bench/results.json and are printed as a table. Run it on a quiet machine; it spawns real workers.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, cpus, totalmem } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Layout } from "../src/bus/layout.js";
import { RESULT_WIRE } from "../src/spec/constants.js";
import { deliver } from "../src/bus/deliver.js";
import { requestReview } from "../src/commands/review.js";
import { stepGate } from "../src/workers/broker.js";
import { decideEscalation } from "../src/commands/author.js";
import { loadContext } from "../src/bus/context.js";
import { sha256Hex } from "../src/core/sha.js";
import { Outcome } from "../src/spec/schemas.js";
import { brokersFigure, printBrokers } from "./brokers.js";
import { durableDeliveries, echoFloor, relayFloor } from "./floors.js";
import {
  BIN,
  REPO,
  freshProject,
  load1,
  median,
  ms,
  packetField,
  percentile,
  profile,
  removeTemp,
  requested,
  startWorkers,
  stopAll,
  stopWorkers,
  tempDir,
  tracked,
} from "./harness.js";
import { throughput } from "./throughput.js";
import { uiFigures } from "./ui.js";
import { waitForFile, waitForFirst } from "./watch.js";

const USAGE = `usage: node dist/bench/run.js [--quick] [one figure alone: --throughput N | --brokers 1,2,4 [--throughput N]
  | --rounds N | --cli RUNS | --history FINISHED_RUNS | --ui]
With no figure named, every figure is measured (hours with the 100,000-run history) and bench/results.json is written.`;

/** The flags, strictly: an unknown or misspelt one must not start the full bench. */
function benchArgs() {
  try {
    const { values } = parseArgs({
      options: {
        quick: { type: "boolean" },
        ui: { type: "boolean" },
        help: { type: "boolean" },
        throughput: { type: "string" },
        brokers: { type: "string" },
        rounds: { type: "string" },
        cli: { type: "string" },
        history: { type: "string" },
      },
    });
    const count = (flag: keyof typeof values) => {
      const v = values[flag];
      if (v === undefined) return null;
      if (typeof v !== "string" || !/^[1-9]\d*$/.test(v)) throw new Error(`--${flag} takes a positive whole number, not ${String(v)}`);
      return Number(v);
    };
    const brokers = values.brokers?.split(",").map(Number) ?? null;
    if (brokers?.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--brokers takes counts like 1,2,4, not ${values.brokers}`);
    const figures = { throughput: count("throughput"), rounds: count("rounds"), cli: count("cli"), history: count("history") };
    return { help: values.help ?? false, quick: values.quick ?? false, ui: values.ui ?? false, brokers, ...figures };
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const args = benchArgs();
const quick = args.quick;
/** `--throughput N`: only that figure, with N gates (for profiling the workers); nothing is written to results.json. */
const throughputOnly = args.throughput;

function timeCommand(argv: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
  if (r.error) throw r.error;
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** verify-gate-pass on its passing path: a result bound to the artifact's real sha, satisfied, no blockers. */
function passingGate(dir: string): string[] {
  const artifact = path.join(dir, "a.md");
  writeFileSync(artifact, "# artifact\n");
  const result = path.join(dir, "r.json");
  const sha = sha256Hex(readFileSync(artifact));
  writeFileSync(result, JSON.stringify({ packet_id: "p", artifact_sha256_reviewed: sha, verdict: "satisfied", blocking_findings: [] }));
  const argv = [process.execPath, BIN, "verify-gate-pass", "--result", result, "--artifact", artifact, "--packet-id", "p"];
  const check = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`bench set-up: verify-gate-pass did not pass (exit ${check.status}): ${check.stdout}`);
  return argv;
}

/** A project with one gate whose first packet is out (a request, the broker's packet and trail): what `status` reads
 * in a project in use, where the empty tree reads nothing. */
async function projectWithGate(): Promise<string> {
  const { root, layout } = freshProject();
  requested(await requestReview(layout, { artifact: "a.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: "cold-1" }));
  await stepGate(loadContext(layout), "cold-1", "G-spec");
  return root;
}

/** Each command's cold start against `node -e 0`, interleaved so all see the same machine noise. */
async function coldStart(runs: number) {
  const dir = tempDir();
  mkdirSync(path.join(dir, ".guild", "runs"), { recursive: true });
  const inUse = await projectWithGate();
  const commands: Record<string, string[]> = {
    "verify-gate-pass (passing)": passingGate(dir),
    "--help": [process.execPath, BIN, "--help"],
    status: [process.execPath, BIN, "status", "--root", dir],
    "status (one gate)": [process.execPath, BIN, "status", "--root", inUse],
    family: [process.execPath, BIN, "family", "gpt-5"],
    providers: [process.execPath, BIN, "providers", "--root", dir],
    check: [process.execPath, BIN, "check", "--root", dir],
  };
  const baseline: number[] = [];
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, [] as number[]]));
  const load = load1();
  for (let i = 0; i < runs; i++) {
    baseline.push(timeCommand([process.execPath, "-e", "0"]));
    for (const [name, argv] of Object.entries(commands)) times[name]!.push(timeCommand(argv));
  }
  removeTemp(dir);
  removeTemp(inUse);
  const floor = median(baseline);
  return {
    runs,
    load1: load,
    node_e0_median_ms: ms(floor),
    commands: Object.entries(times).map(([command, t]) => ({ command, median_ms: ms(median(t)), ratio: ms(median(t) / floor) })),
    goal: "<= 1.5",
  };
}

/**
 * Bus overhead per round on one gate: a result is delivered (as a reviewer would), the verifier verifies it, and
 * the broker delivers the next action. The author edits the artifact while each round is out, so each result (naming
 * the bytes its packet sent) ends in an artifact_changed restart: each round's next action is a file we can time
 * without a reviewer or an author in the loop. (A result naming bytes no packet sent is the reviewer's mistake, which
 * a person takes over after two in a row, SPEC §15.)
 */
/** `pool`, when given, also receives each round's time from the second round on (the history figure pools its chains). */
async function roundOverhead(rounds: number, poll: boolean, existingRoot?: string, afterFirstSweep = false, pool?: number[]) {
  const root = existingRoot ?? freshProject().root;
  const layout = new Layout(root);
  writeFileSync(layout.settings, JSON.stringify({ restart_cap: 50 }));
  const run = `bench-${Date.now()}`;
  // afterFirstSweep: the steady state, once both workers have looked at every run on disk since they started
  let swept = 0;
  let sweptAll = () => {};
  const spawned = performance.now();
  const bothSwept = new Promise<void>((resolve) => (sweptAll = resolve));
  const workers = startWorkers(root, ["broker", "verifier"], poll, (line) => {
    if (line.includes("every run looked at since start") && ++swept === 2) sweptAll();
  });
  if (afterFirstSweep) await bothSwept;
  requested(await requestReview(layout, { artifact: "a.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: run }));
  const gateFile = (name: string) => layout.gateFile(run, "G-spec", name);
  const samples: number[] = [];
  let escalated = 0;
  let firstPacketMs: number;
  try {
    await waitForFile(gateFile("packet-1.md"));
    firstPacketMs = performance.now() - spawned;
    for (let n = 1; n <= rounds; n++) {
      const packet = readFileSync(gateFile(`packet-${n}.md`), "utf8");
      writeFileSync(path.join(root, "a.md"), `# artifact\n\nrevision ${n}\n`);
      const body = JSON.stringify({
        schema_version: RESULT_WIRE,
        packet_id: packetField(packet, "packet_id"),
        artifact_sha256_reviewed: packetField(packet, "artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
      });
      const t0 = performance.now();
      await deliver(gateFile(`result-${n}.json`), body, { guildDir: layout.guild });
      const next = gateFile(`packet-${n + 1}.md`);
      const { at, file } = await waitForFirst([next, gateFile(`escalation-${n}.json`)]);
      if (file === next) samples.push(at - t0);
      else {
        // restart_cap_hit after 50 restarts in a row: a human's retry carries the chain on; that round is not timed
        requested(await decideEscalation(loadContext(layout), run, "G-spec", { choice: "retry", decidedBy: "bench", round: n }));
        await waitForFile(next);
        escalated++;
      }
    }
  } finally {
    await stopWorkers(workers);
    // on a history tree, the chain's gate (open, 100 rounds) goes too: the next chain's fresh workers would have to
    // look at it at start, which is work on an active gate, not the cost of finished history being measured
    removeTemp(existingRoot ? layout.runDir(run) : root);
  }
  pool?.push(...samples.slice(1));
  return {
    mode: poll ? "poll" : "watch",
    load1: load1(),
    rounds,
    // rounds that hit restart_cap and went on after a retry decision, left out of the figures
    rounds_through_escalation: escalated,
    p50_ms: ms(percentile(samples, 50)),
    p99_ms: ms(percentile(samples, 99)),
    // the first round is each fresh worker's warm-up (code run for the first time), in an empty tree as well
    p99_after_first_ms: ms(percentile(samples.slice(1), 99)),
    max_ms: ms(Math.max(...samples)),
    // from the workers' spawn to the first packet of the request made as they start: work on disk found at start
    first_packet_ms: ms(firstPacketMs),
    // flat along the chain? the first ten rounds against the last ten
    p50_first10_ms: ms(percentile(samples.slice(0, 10), 50)),
    p50_last10_ms: ms(percentile(samples.slice(-10), 50)),
  };
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** A valid outcome.json for G-spec of `runId` (checked against the schema once). */
function finishedOutcome(runId: string): string {
  const text = JSON.stringify({
    schema_version: "guild_bus.outcome.v1",
    run_id: runId,
    gate: "G-spec",
    status: "satisfied",
    author_host: "claude",
    author_family: "anthropic",
    reviewer_host: "codex",
    reviewer_model: "gpt-5",
    reviewer_family: "openai",
    independence: "strong",
    rounds: 1,
    final_round: 1,
    artifact_sha256: null,
    reason: "satisfied",
    trail_path: "trail.md",
    at: "2026-01-01T00:00:00.000Z",
  });
  if (!checkedOutcome) Outcome.parse(JSON.parse(text));
  checkedOutcome = true;
  return text;
}
let checkedOutcome = false;

/** History scaling: a tree with many finished runs, against an empty one, measured in the same run. */
/** Chains run for each phase of the history figure (empty tree, during the first sweep, after it). */
const ROUND_RUNS = 3;
/** Rounds of each such chain: its p99 is then one of its worst three or four rounds, not the worst one or two. */
const HISTORY_ROUNDS = 300;
type Chain = Awaited<ReturnType<typeof roundOverhead>>;
type Percentiles = Pick<Chain, "p50_ms" | "p99_ms" | "p99_after_first_ms" | "first_packet_ms">;

async function history(finishedRuns: number, rounds: number, print = false) {
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
      ["outcome.json", finishedOutcome(`h${i}`)], // a valid outcome: the run is finished, as in a real history
      ["trail.md", "# trail\n"],
    ]) {
      writeFileSync(path.join(dir, name!), text!);
    }
  }
  const seeded = (performance.now() - t0) / 1000;
  // Each worker kind the rounds use walks the seeded tree once with no log (it scans every run and writes
  // .guild/finished-runs/<kind>.log): the one-time cost of a history from before the log, reported on its own.
  const t1 = performance.now();
  const primed = await Promise.all(["broker", "verifier"].map((kind) => workerStart(root, kind)));
  const priming = (performance.now() - t1) / 1000;
  await stopWorkers(primed.map((p) => p.child));
  const emptyRoot = freshProject().root;
  const starts: number[] = [];
  const emptyStarts: number[] = [];
  const walks: number[] = [];
  const emptyWalks: number[] = [];
  let rss = NaN;
  for (let i = 0; i < 5; i++) {
    const e = await workerStart(emptyRoot); // interleaved with the history tree: same machine noise
    await stopWorkers([e.child]);
    emptyStarts.push(e.ms);
    emptyWalks.push(e.walkedMs);
    const h = await workerStart(root);
    starts.push(h.ms);
    walks.push(h.walkedMs);
    rss = Math.max(Number.isNaN(rss) ? 0 : rss, rssMb(h.child.pid!));
    await stopWorkers([h.child]);
  }
  removeTemp(emptyRoot);
  // p99 of one chain is one of its few worst rounds, and a disk or a neighbour stalls an empty tree's
  // rounds as often: each phase is run ROUND_RUNS times, interleaved, and its medians are compared; the rounds of a
  // phase's chains are also pooled (without each chain's first), for a p99 that is not one round's stall
  const phases = { empty: [] as Chain[], loaded: [] as Chain[], settled: [] as Chain[] };
  const pooled = { empty: [] as number[], loaded: [] as number[] };
  for (let i = 0; i < ROUND_RUNS; i++) {
    phases.empty.push(await roundOverhead(rounds, false, undefined, false, pooled.empty));
    // fresh workers: their first sweep runs during the rounds
    phases.loaded.push(await roundOverhead(rounds, false, root, false, pooled.loaded));
    phases.settled.push(await roundOverhead(rounds, false, root, true)); // the steady state: after both first sweeps
  }
  const pooledP99 = { empty: ms(percentile(pooled.empty, 99)), loaded: ms(percentile(pooled.loaded, 99)) };
  const [empty, loaded, settled] = [phases.empty, phases.loaded, phases.settled].map((runs) => ({
    p50_ms: ms(median(runs.map((r) => r.p50_ms))),
    p99_ms: ms(median(runs.map((r) => r.p99_ms))),
    p99_after_first_ms: ms(median(runs.map((r) => r.p99_after_first_ms))),
    first_packet_ms: ms(median(runs.map((r) => r.first_packet_ms))),
  })) as [Percentiles, Percentiles, Percentiles];
  const result = {
    load1: load1(),
    finished_runs: finishedRuns,
    seed_s: ms(seeded),
    priming_s: ms(priming),
    worker_start_median_ms: ms(median(starts)),
    worker_start_empty_median_ms: ms(median(emptyStarts)),
    worker_start_ratio: ms(median(starts) / median(emptyStarts)),
    worker_start_ratio_goal: 1.2,
    first_sweep_median_ms: ms(median(walks)),
    first_sweep_empty_median_ms: ms(median(emptyWalks)),
    broker_rss_mb: rss,
    rss_goal_mb: 120,
    round_p50_empty_ms: empty.p50_ms,
    round_p50_history_ms: loaded.p50_ms,
    ratio: ms(loaded.p50_ms / empty.p50_ms),
    round_p99_empty_ms: empty.p99_ms,
    round_p99_history_ms: loaded.p99_ms,
    ratio_p99: ms(loaded.p99_ms / empty.p99_ms),
    round_p99_after_first_empty_ms: empty.p99_after_first_ms,
    round_p99_after_first_history_ms: loaded.p99_after_first_ms,
    ratio_p99_after_first: ms(loaded.p99_after_first_ms / empty.p99_after_first_ms),
    pooled_rounds: pooled.loaded.length,
    round_p99_pooled_empty_ms: pooledP99.empty,
    round_p99_pooled_history_ms: pooledP99.loaded,
    ratio_p99_pooled: ms(pooledP99.loaded / pooledP99.empty),
    first_packet_empty_ms: empty.first_packet_ms,
    first_packet_history_ms: loaded.first_packet_ms,
    first_packet_ratio: ms(loaded.first_packet_ms / empty.first_packet_ms),
    round_p50_settled_ms: settled.p50_ms,
    round_p99_settled_ms: settled.p99_ms,
    ratio_settled: ms(settled.p50_ms / empty.p50_ms),
    ratio_p99_settled: ms(settled.p99_ms / empty.p99_ms),
    ratio_goal: 1.3,
  };
  if (print) printHistory(result); // before the tree is removed: that can take minutes on a busy disk
  removeTemp(root);
  return result;
}

/**
 * A worker's start: until it logs that it is watching (it takes new work from then on), and until it logs that its
 * first sweep has looked at every run (work already on disk is found by then). The worker is left running.
 */
async function workerStart(root: string, kind = "broker"): Promise<{ ms: number; walkedMs: number; child: ChildProcess }> {
  const started = performance.now();
  const argv = [...profile, BIN, "worker", kind, "--root", root];
  const child = tracked(spawn(process.execPath, argv, { stdio: ["ignore", "ignore", "pipe"] }));
  let watching = NaN;
  let text = "";
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${kind} worker exited (${code}) before its first sweep: ${text.slice(-2000)}`)));
    child.stderr!.on("data", (b: Buffer) => {
      text += String(b);
      if (Number.isNaN(watching) && text.includes("worker watching")) watching = performance.now() - started;
      if (text.includes("every run looked at since start")) resolve();
    });
  });
  child.removeAllListeners("exit");
  return { ms: watching, walkedMs: performance.now() - started, child };
}

/** The review console over 1,000 runs that each went through two rounds (the throughput set-up, kept). */
async function consoleFigures(gates: number) {
  const { root, lost } = await throughput(gates, { keep: true, bursts: 1 });
  try {
    if (lost) throw new Error(`console bench set-up: ${lost} gates did not finish`);
    return await uiFigures(root!, BIN, gates, { median, p95: (v) => percentile(v, 95) });
  } finally {
    removeTemp(root!);
  }
}

function printColdStart(c: Awaited<ReturnType<typeof coldStart>>): void {
  console.table(
    c.commands.map((r) => ({
      figure: `${r.command} cold start (median of ${c.runs})`,
      value: `${r.median_ms} ms`,
      floor: `node -e 0: ${c.node_e0_median_ms} ms`,
      ratio: r.ratio,
      goal: c.goal,
      load1: c.load1,
    })),
  );
}

type HistoryFigures = Awaited<ReturnType<typeof history>>;

function printHistory(h: HistoryFigures): void {
  const row = (figure: string, value: string, ratio: number | string, goal: string) => ({ figure, value, ratio, goal, load1: h.load1 });
  console.table([
    row(
      `worker start to watching, ${h.finished_runs} finished runs vs empty tree (medians of 5)`,
      `${h.worker_start_median_ms} / ${h.worker_start_empty_median_ms} ms`,
      h.worker_start_ratio,
      `<= ${h.worker_start_ratio_goal}`,
    ),
    row(
      "worker start to its first sweep done (every run looked at), history vs empty",
      `${h.first_sweep_median_ms} / ${h.first_sweep_empty_median_ms} ms`,
      "",
      "bounded (SPEC §18)",
    ),
    row("seeding; first walk of broker + verifier with no log (writes it)", `${h.seed_s} s; ${h.priming_s} s`, "", "once"),
    row("broker RSS with that history, after its first sweep", `${h.broker_rss_mb} MB`, "", `<= ${h.rss_goal_mb} MB`),
    row(
      `round p50, history vs empty (medians of ${ROUND_RUNS} interleaved chains)`,
      `${h.round_p50_history_ms} / ${h.round_p50_empty_ms} ms`,
      h.ratio,
      `<= ${h.ratio_goal}`,
    ),
    row(
      `round p99, history vs empty (medians of ${ROUND_RUNS})`,
      `${h.round_p99_history_ms} / ${h.round_p99_empty_ms} ms`,
      h.ratio_p99,
      `<= ${h.ratio_goal}`,
    ),
    row(
      `round p99 from the second round on (the first is a fresh worker's warm-up), history vs empty`,
      `${h.round_p99_after_first_history_ms} / ${h.round_p99_after_first_empty_ms} ms`,
      h.ratio_p99_after_first,
      "shown",
    ),
    row(
      `round p99 over the ${h.pooled_rounds} rounds of all ${ROUND_RUNS} chains, each chain's first left out, history vs empty`,
      `${h.round_p99_pooled_history_ms} / ${h.round_p99_pooled_empty_ms} ms`,
      h.ratio_p99_pooled,
      "shown",
    ),
    row(
      "workers spawned to the first packet of a request made as they start, history vs empty",
      `${h.first_packet_history_ms} / ${h.first_packet_empty_ms} ms`,
      h.first_packet_ratio,
      "shown",
    ),
    row(
      `after both first sweeps: round p50, p99 vs empty (medians of ${ROUND_RUNS})`,
      `${h.round_p50_settled_ms} / ${h.round_p99_settled_ms} ms`,
      `${h.ratio_settled} / ${h.ratio_p99_settled}`,
      `<= ${h.ratio_goal}`,
    ),
  ]);
}

async function main(): Promise<void> {
  if (args.help) {
    console.log(USAGE);
    return;
  }
  if (args.ui) {
    console.table([await consoleFigures(1000)]);
    return;
  }
  const brokerCounts = args.brokers;
  if (brokerCounts !== null) {
    printBrokers(await brokersFigure(brokerCounts, throughputOnly ?? (quick ? 100 : 500), quick));
    return;
  }
  if (throughputOnly !== null) {
    const figure = await throughput(throughputOnly);
    console.table([figure]);
    console.log("CPU ms per round:", figure.cpu_ms_per_round);
    console.log("first burst (workers just started):", figure.first_burst);
    return;
  }
  const roundsOnly = args.rounds;
  if (roundsOnly !== null) {
    const figure = { echo: await echoFloor(20), relay: await relayFloor(20), watch: await roundOverhead(roundsOnly, false) };
    console.log(JSON.stringify(figure, null, 1));
    return;
  }
  if (args.cli !== null) {
    printColdStart(await coldStart(args.cli));
    return;
  }
  const historyOnly = args.history;
  if (historyOnly !== null) {
    await history(historyOnly, quick ? 5 : HISTORY_ROUNDS, true);
    return;
  }
  const results = {
    measured_at: new Date().toISOString(),
    load1_at_start: load1(),
    machine: {
      host: hostname(),
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    cold_start: await coldStart(quick ? 5 : 30),
    echo_floor: await echoFloor(quick ? 10 : 60),
    relay_floor: await relayFloor(quick ? 10 : 60),
    round_overhead: [await roundOverhead(quick ? 5 : 100, false), await roundOverhead(quick ? 3 : 15, true)],
    delivery_floor: await durableDeliveries(quick ? 200 : 2000),
    throughput: await throughput(quick ? 50 : 500),
    brokers: await brokersFigure(quick ? [1, 2] : [1, 2, 4], quick ? 50 : 500, quick),
    history: await history(quick ? 1000 : 100_000, quick ? 5 : HISTORY_ROUNDS), // the 100,000 finished runs
    ui: await consoleFigures(quick ? 100 : 1000),
  };
  writeFileSync(path.join(REPO, "bench", "results.json"), JSON.stringify(results, null, 2) + "\n");
  console.log(
    `machine: ${results.machine.cpus} × ${results.machine.cpu_model}, ${results.machine.memory_gib} GiB, node ${results.machine.node}; ` +
      `1-minute load average at the start: ${results.load1_at_start}`,
  );
  printColdStart(results.cold_start);
  const f = results.echo_floor;
  const r = results.relay_floor;
  console.table(
    results.round_overhead.map((o) => ({
      figure: `round overhead (${o.mode}, ${o.rounds} rounds)`,
      p50_ms: o.p50_ms,
      p99_ms: o.p99_ms,
      floor: `echo p50 ${f.p50_ms}, p99 ${f.p99_ms} ms (load ${f.load1})`,
      ratio_p50: ms(o.p50_ms / f.p50_ms),
      ratio_p99: ms(o.p99_ms / f.p99_ms),
      // three deliveries and two wake-ups, no bus logic: the part of the ratio the shape of a round sets
      "relay floor p50 (ratio)": `${r.p50_ms} ms (${ms(o.p50_ms / r.p50_ms)})`,
      "p50 rounds 1-10 / last 10": `${o.p50_first10_ms} / ${o.p50_last10_ms} ms`,
      goal: o.mode === "watch" ? "p50 <= 2x floor, flat" : "",
      load1: o.load1,
    })),
  );
  const t = results.throughput;
  const d = results.delivery_floor;
  console.table([
    {
      figure: `throughput (${t.gates} gates × 2 rounds, workers warm)`,
      value: `${t.rounds_per_s} rounds/s in ${t.elapsed_s} s, lost ${t.lost}, duplicate rounds ${t.duplicates}`,
      floor: `${d.per_s} durable deliveries/s (load ${d.load1})`,
      ratio: ms(t.rounds_per_s / d.per_s),
      goal: t.goal,
      load1: t.load1,
    },
    ...(t.first_burst
      ? [
          {
            figure: "throughput, the first burst after the workers started",
            value: `${t.first_burst.rounds_per_s} rounds/s, round p99 ${t.first_burst.round_p99_ms} ms`,
            floor: "",
            ratio: ms(t.first_burst.rounds_per_s / d.per_s),
            goal: "",
            load1: t.first_burst.load1,
          },
        ]
      : []),
  ]);
  printBrokers(results.brokers);
  printHistory(results.history);
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

// a figure that fails stops its workers before the exit removes their trees
await main().finally(stopAll);
