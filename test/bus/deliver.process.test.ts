// deliver() and replace() in real processes: SIGKILLed mid-loop, and racing for one final name.
// The children run the built dist/ (see helpers/deliver-child.mjs); it is rebuilt here when older than src/.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha.js";
import { parseStagingName } from "../../src/bus/deliver.js";
import { sweepStaging } from "../../src/bus/janitor.js";
import { payloadFor } from "../helpers/deliver-child.mjs";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const child = path.join(repo, "test", "helpers", "deliver-child.mjs");
const payload = payloadFor as (name: string, size: number) => Buffer;
const expectedSha = new Map<string, string>();
const shaOf = (name: string, size: number) => {
  if (!expectedSha.has(name)) expectedSha.set(name, sha256Hex(payload(name, size)));
  return expectedSha.get(name)!;
};

/** Make the directories first, as a worker's deliveries find them: a worker's write makes no .guild, nor the directory
 * of a file outside it (only a command does, SPEC §4). */
function madeDirs(...dirs: string[]): void {
  for (const dir of dirs) mkdirSync(dir);
}

beforeAll(() => {
  const sources = ["src/core/sha.ts", "src/bus/fsops.ts", "src/bus/deliver.ts", "src/bus/replace.ts"];
  const stale = () =>
    sources.filter((src) => {
      const built = path.join(repo, "dist", src.replace(/\.ts$/, ".js"));
      return !existsSync(built) || statSync(built).mtimeMs < statSync(path.join(repo, src)).mtimeMs;
    });
  if (stale().length === 0) return;
  // tsc emits despite type errors elsewhere in the tree; what matters is that these files are fresh.
  const tsc = spawnSync(process.execPath, [path.join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(stale(), `dist/ not rebuilt:\n${tsc.stdout}${tsc.stderr}`).toEqual([]);
}, scaled(120_000));

interface Running {
  proc: ChildProcessWithoutNullStreams;
  lines: Interface;
  next(): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Running {
  const proc = spawn(process.execPath, [child, ...args], { cwd: repo });
  const lines = createInterface({ input: proc.stdout });
  const queue: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  lines.on("line", (line) => (waiting.length ? waiting.shift()!(line) : queue.push(line)));
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => proc.on("close", (code, signal) => resolve({ code, signal })), // after stdout is drained
  );
  const next = () =>
    new Promise<string>((resolve, reject) => {
      if (queue.length) return resolve(queue.shift()!);
      waiting.push(resolve);
      void exited.then(() => setTimeout(() => reject(new Error(`child exited: ${stderr}`)), 50));
    });
  return { proc, lines, next, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("deliver: SIGKILL at random points", () => {
  const COUNT = 200;
  const SIZE = 64 * 1024;
  const TRIALS = 36;

  /** Every final present is whole and correct, nothing else is in outDir; returns the names found. */
  function checkFinals(outDir: string): string[] {
    const names = existsSync(outDir) ? readdirSync(outDir) : [];
    for (const name of names) {
      expect(name, `unexpected file in ${outDir}`).toMatch(/^f-\d+\.bin$/);
      expect(Number(name.slice(2, -4))).toBeLessThan(COUNT);
      const bytes = readFileSync(path.join(outDir, name));
      expect(bytes.length, `${name} torn`).toBe(SIZE);
      expect(sha256Hex(bytes), `${name} corrupt`).toBe(shaOf(name, SIZE));
    }
    return names;
  }

  it(
    `leaves only whole finals, and the janitor reclaims the dead pid's staging (${TRIALS} kills)`,
    async () => {
      const root = tempRoot();
      const guildDir = path.join(root, ".guild");
      madeDirs(guildDir, ...["full", ...Array.from({ length: TRIALS }, (_, t) => t)].map((t) => path.join(root, `out-${t}`)));

      // One uninterrupted run: it works at all, and how long a full loop takes here.
      const full = start(["loop", guildDir, path.join(root, "out-full"), String(COUNT), String(SIZE)]);
      expect(await full.next()).toBe("ready");
      const t1 = Date.now();
      expect(await full.exited).toEqual({ code: 0, signal: null });
      const loopMs = Date.now() - t1;

      expect(checkFinals(path.join(root, "out-full"))).toHaveLength(COUNT);
      expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
      const window = Math.min(loopMs, 400);

      let orphansReclaimed = 0;
      let killedMidway = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const outDir = path.join(root, `out-${trial}`);
        const run = start(["loop", guildDir, outDir, String(COUNT), String(SIZE)]);
        const acked: number[] = [];
        run.lines.on("line", (l) => l.startsWith("ok ") && acked.push(Number(l.slice(3))));
        expect(await run.next()).toBe("ready");
        await sleep(Math.random() * window);
        run.proc.kill("SIGKILL");
        const exit = await run.exited;
        if (exit.signal === "SIGKILL") killedMidway++;

        const present = checkFinals(outDir);
        // A delivery that returned is on disk; the one in flight may or may not be.
        for (const i of acked) expect(present, `trial ${trial}: acked f-${i}.bin missing`).toContain(`f-${i}.bin`);
        expect(present.length - acked.length).toBeLessThanOrEqual(1);

        const staged = readdirSync(path.join(guildDir, "tmp"));
        for (const n of staged) expect(parseStagingName(n)?.pid, n).toBe(run.proc.pid);
        // Default maxAge (an hour): these are reclaimed because their owner is dead, not because they are old.
        const report = sweepStaging(guildDir);
        expect(report.removed.sort()).toEqual(staged.sort());
        expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
        expect(checkFinals(outDir)).toEqual(present);
        orphansReclaimed += report.removed.length;
      }
      // Otherwise the kills all landed outside deliveries and proved nothing.
      expect(killedMidway).toBeGreaterThanOrEqual(TRIALS / 2);
      expect(orphansReclaimed).toBeGreaterThan(0);
      // Earlier trials' finals are untouched by later janitor runs.
      expect(checkFinals(path.join(root, "out-full"))).toHaveLength(COUNT);
    },
    scaled(60_000),
  );
});

describe("replace: SIGKILL at random points", () => {
  // 1 MiB views: the staging file exists for a third of the loop (at 64 KiB the directory fsync after the
  // rename dominates and few kills would land while a temp file exists).
  const COUNT = 50;
  const SIZE = 1024 * 1024;
  const TRIALS = 24;

  it(
    `the view's directory holds only the whole old or new view, and the janitor reclaims the staging (${TRIALS} kills)`,
    async () => {
      const root = tempRoot();
      const guildDir = path.join(root, ".guild");
      madeDirs(guildDir, ...["full", ...Array.from({ length: TRIALS }, (_, t) => `gate-${t}`)].map((d) => path.join(root, d)));
      const shaOfVersion = new Map(Array.from({ length: COUNT }, (_, i) => [sha256Hex(payload(`v-${i}`, SIZE)), i]));

      const full = start(["replace", guildDir, path.join(root, "full", "trail.md"), String(COUNT), String(SIZE)]);
      expect(await full.next()).toBe("ready");
      const t1 = Date.now();
      expect(await full.exited).toEqual({ code: 0, signal: null });
      const window = Math.min(Date.now() - t1, 400);
      expect(shaOfVersion.get(sha256Hex(readFileSync(path.join(root, "full", "trail.md"))))).toBe(COUNT - 1);

      let killedMidway = 0;
      let orphansReclaimed = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const viewDir = path.join(root, `gate-${trial}`);
        const run = start(["replace", guildDir, path.join(viewDir, "trail.md"), String(COUNT), String(SIZE)]);
        let acked = -1;
        run.lines.on("line", (l) => l.startsWith("ok ") && (acked = Number(l.slice(3))));
        expect(await run.next()).toBe("ready");
        await sleep(Math.random() * window);
        run.proc.kill("SIGKILL");
        if ((await run.exited).signal === "SIGKILL") killedMidway++;

        const names = readdirSync(viewDir);
        expect(
          names.filter((n) => n !== "trail.md"),
          `trial ${trial}: left beside the view`,
        ).toEqual([]);
        if (names.length) {
          // The last acknowledged version, or the one whose rename happened just before the kill.
          const version = shaOfVersion.get(sha256Hex(readFileSync(path.join(viewDir, "trail.md"))));
          expect([acked, acked + 1], `trial ${trial}: view is torn or stale`).toContain(version);
        } else expect(acked, `trial ${trial}: an acknowledged view is missing`).toBe(-1);

        const staged = readdirSync(path.join(guildDir, "tmp"));
        for (const n of staged) expect(parseStagingName(n)?.pid, n).toBe(run.proc.pid);
        const report = sweepStaging(guildDir);
        expect(report.removed.sort()).toEqual(staged.sort());
        orphansReclaimed += report.removed.length;
      }
      expect(killedMidway).toBeGreaterThanOrEqual(TRIALS / 2);
      expect(orphansReclaimed).toBeGreaterThan(0);
    },
    scaled(60_000),
  );
});

describe("deliver: processes racing for one final name", () => {
  const N = 8;
  const SIZE = 64 * 1024;

  it(
    `exactly one of ${N} wins; the others see conflict (different bytes) or identical (same bytes)`,
    async () => {
      const root = tempRoot();
      const guildDir = path.join(root, ".guild");
      madeDirs(guildDir, path.join(root, "artifacts"));
      const children = Array.from({ length: N }, () => start(["race", guildDir]));
      try {
        for (const c of children) expect(await c.next()).toBe("ready");
        const rounds: Array<(i: number) => string> = [
          ...Array.from({ length: 8 }, () => (i: number) => `writer-${i}`), // all different
          ...Array.from({ length: 3 }, () => () => "same"), // all identical
          ...Array.from({ length: 3 }, () => (i: number) => `half-${i % 2}`), // two camps
        ];
        for (const [r, textOf] of rounds.entries()) {
          const final = path.join(root, "artifacts", `round-${r}.bin`);
          // Start them in a shuffled order, so no child is always first off the mark.
          const order = children.map((_, i) => i).sort(() => Math.random() - 0.5);
          for (const i of order) children[i]!.proc.stdin.write(JSON.stringify({ final, text: textOf(i), size: SIZE }) + "\n");
          const results = await Promise.all(children.map((c) => c.next().then((l) => JSON.parse(l))));

          const delivered = results.flatMap((res, i) => (res.status === "delivered" ? [i] : []));
          expect(delivered, `round ${r}: ${JSON.stringify(results)}`).toHaveLength(1);
          const w = delivered[0]!;
          const winnerBytes = payload(textOf(w), SIZE);
          expect(readFileSync(final).equals(winnerBytes), `round ${r}: final is the winner's`).toBe(true);
          for (const [i, res] of results.entries()) {
            if (i === w) continue;
            if (textOf(i) === textOf(w)) {
              expect(res, `round ${r}, child ${i}`).toMatchObject({ status: "identical", path: final });
            } else {
              expect(res, `round ${r}, child ${i}`).toMatchObject({ status: "conflict", existingSha256: sha256Hex(winnerBytes) });
            }
          }
          expect(readdirSync(path.dirname(final)).filter((n) => n.startsWith(`round-${r}`))).toEqual([`round-${r}.bin`]);
        }
        expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
      } finally {
        for (const c of children) c.proc.stdin.end();
        await Promise.all(children.map((c) => c.exited));
      }
    },
    scaled(60_000),
  );
});
