// The floors the bus is compared with, measured in the same run as the figure beside them.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deliver } from "../src/bus/deliver.js";
import { load1, ms, percentile, removeTemp, stopWorkers, tempDir, tracked } from "./harness.js";
import { waitForFile } from "./watch.js";

/**
 * The floor for a round: a second process (bench/echo.ts) watches a directory with fs.watch and answers each durable
 * `ping-<n>` with a durable `pong-<n>`; this process times ping delivered → pong seen, the same two-process,
 * fs.watch + fsync + link path a round takes, with no bus logic in it.
 */
export const echoFloor = (rounds: number) => relayed(rounds, [["ping", "pong"]]);

/**
 * The shape of a bus round with no bus logic in it: a durable `ping-<n>` (the result) answered by a second process
 * with a durable `mid-<n>` (the verdict), answered by a third with a durable `pong-<n>` (the next packet). A round
 * of the bus takes these three deliveries and two wake-ups at least, whatever its workers compute.
 */
export const relayFloor = (rounds: number) =>
  relayed(rounds, [
    ["ping", "mid"],
    ["mid", "pong"],
  ]);

async function relayed(rounds: number, hops: Array<[string, string]>) {
  const root = tempDir();
  const dir = path.join(root, "echo");
  mkdirSync(dir);
  const guildDir = path.join(root, ".guild");
  mkdirSync(guildDir); // as a worker's delivery finds it: only a command makes .guild (SPEC §4)
  const echo = path.join(path.dirname(fileURLToPath(import.meta.url)), "echo.js");
  const children = hops.map(([from, to]) => tracked(spawn(process.execPath, [echo, dir, guildDir, from, to], { stdio: "ignore" })));
  const samples: number[] = [];
  try {
    for (const [from] of hops) await waitForFile(path.join(dir, `ready-${from}`));
    for (let n = 1; n <= rounds; n++) {
      const t0 = performance.now();
      await deliver(path.join(dir, `ping-${n}`), `ping ${n}\n`, { guildDir });
      samples.push((await waitForFile(path.join(dir, `pong-${n}`))) - t0);
    }
  } finally {
    await stopWorkers(children);
    removeTemp(root);
  }
  return { load1: load1(), rounds, p50_ms: ms(percentile(samples, 50)), p99_ms: ms(percentile(samples, 99)) };
}

/** The floor for throughput: durable deliveries per second from one process into many directories. */
export async function durableDeliveries(count: number) {
  const root = tempDir();
  const guildDir = path.join(root, ".guild");
  // as a worker's deliveries find them (only a command makes .guild or a gate, SPEC §4)
  for (const dir of [guildDir, ...Array.from({ length: 100 }, (_, i) => path.join(root, `d${i}`))]) mkdirSync(dir);
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await deliver(path.join(root, `d${i % 100}`, `f-${i}`), `delivery ${i}\n`, { guildDir });
  const perSecond = count / ((performance.now() - t0) / 1000);
  removeTemp(root);
  return { load1: load1(), count, per_s: ms(perSecond) };
}
