// Integration: a person resets a project under running workers — deletes .guild, or one run — while a worker is between
// its read of a gate and its write there. The worker makes nothing again (SPEC §4): it says so once, forgets the gate
// and goes on; only a command (a new `review`) starts a run, and .guild, again. A stand-in codex whose --version answers
// only once the test has removed the directory holds a real broker in that window.
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { makeProject, type Project } from "../helpers/bus.js";
import { withEnv } from "../helpers/cli-review.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

/** Wait until `check` holds (generous deadline: CI is loaded). */
async function until(what: string, check: () => boolean, p: Project, timeoutMs = scaled(30_000)): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await sleep(100))
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}\nlogs:\n${p.logs.join("").slice(-4000)}`);
}

/** `rm -rf dir`, once: false when a file was written into it meanwhile (ENOTEMPTY), to be run again. */
function rmRf(dir: string): boolean {
  try {
    rmSync(dir, { recursive: true, force: true });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY") throw error;
    return false;
  }
}

/** A stand-in codex on PATH: its --version marks `probing`, then answers once `go` exists. */
function heldCodex() {
  const bin = tempRoot("guild-bus-standin-");
  const [probing, go] = [path.join(bin, "probing"), path.join(bin, "go")];
  const standin = path.join(bin, "codex");
  writeFileSync(
    standin,
    [
      "#!/usr/bin/env node",
      'const fs = require("node:fs");',
      'if (process.argv[2] !== "--version") process.exit(2);',
      `fs.writeFileSync(${JSON.stringify(probing)}, "");`,
      `const go = ${JSON.stringify(go)};`,
      'const t = setInterval(() => fs.existsSync(go) && (clearInterval(t), console.log("codex-cli 0.0.0-standin")), 50);',
    ].join("\n"),
  );
  chmodSync(standin, 0o755);
  return {
    env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CODEX_API_KEY: "sk-standin-for-tests" },
    probing: () => existsSync(probing),
    release: () => writeFileSync(go, ""),
  };
}

describe("a project reset under a running worker (integration)", () => {
  it.each([
    [".guild", (p: Project) => path.join(p.root, ".guild")],
    ["the run's directory", (p: Project) => path.join(p.root, ".guild", "runs", "r1")],
  ])(
    "%s removed between the broker's read and its packet: nothing comes back, said once; a new review is served",
    async (_what, removed) => {
      const p = makeProject();
      const codex = heldCodex();
      p.settings({ reviewer: "cx", providers: { cx: { adapter: "codex", model: "gpt-5" } } });
      p.write("docs/spec.md", "# Spec\n\n- exports finish within 2 s\n");
      const broker = p.startWorker("broker", [], codex.env);
      const review = (run: string) =>
        withEnv(codex.env, () => p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", run]));
      expect(review("r1").code).toBe(0);
      await until("the broker probes codex for r1's packet", codex.probing, p, scaled(60_000));
      rmSync(removed(p), { recursive: true, force: true });
      codex.release();

      const forgotten =
        /r1\/G-spec: removed while this worker wrote to it \(.* is gone; nothing is made again there\); forgotten, not retried/;
      await until("the broker says it forgot r1/G-spec", () => forgotten.test(p.logs.join("")), p);
      expect(existsSync(removed(p)), "the removed directory stays removed").toBe(false);
      expect(existsSync(p.gateDir("r1", "G-spec"))).toBe(false);

      // a command may start a run, and .guild with it: the broker, still running, serves it
      expect(review("r2").code).toBe(0);
      await p.waitFor(
        "r2",
        "G-spec",
        (f) => f.includes("packet-1.md") || f.some((n) => n.startsWith("escalation-")),
        "r2's round",
        scaled(60_000),
      );
      expect(broker.exitCode).toBeNull();
      expect(existsSync(p.gateDir("r1", "G-spec")), "r1 is not made again meanwhile").toBe(false);
      const said = p.logs.join("");
      expect(said.match(new RegExp(forgotten.source, "g"))).toHaveLength(1);
      expect(said).not.toMatch(/r1\/G-spec: .*next try in/);
    },
    scaled(180_000),
  );

  it.each([[false], [true]])(
    "a worker started while .guild is gone (poll: %s) makes nothing, says so each time it goes, and serves what a review makes again",
    async (poll) => {
      const p = makeProject({ poll });
      p.write("docs/spec.md", "# Spec\n\n- exports finish within 2 s\n");
      const guild = path.join(p.root, ".guild");
      rmSync(guild, { recursive: true, force: true }); // a reset before `up` restarted its workers
      const broker = p.startWorker("broker");
      const gone = /\.guild\/runs is not there \(no review yet, or \.guild was removed\): this worker makes nothing/g;
      const saidGone = () => p.logs.join("").match(gone)?.length ?? 0;
      await until("the broker watches", () => /broker worker watching/.test(p.logs.join("")), p);
      expect(existsSync(guild), "a worker starts no project").toBe(false);
      await until("the broker says .guild/runs is not there", () => saidGone() === 1, p);

      const served = async (run: string) => {
        expect(p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", run]).code).toBe(0);
        await p.waitFor(run, "G-spec", (f) => f.includes("packet-1.md"), `${run}'s round`, scaled(60_000));
      };
      await served("r1");
      // removed again under the running worker, `rm -rf` run again while a write it had under way lands (rmSync's own
      // retries only retry the emptied directory's rmdir)
      await until("the removal succeeds", () => rmRf(guild), p);
      await until("the broker says it is gone again", () => saidGone() === 2, p);
      expect(existsSync(guild)).toBe(false);
      await served("r2");
      expect(existsSync(p.gateDir("r1", "G-spec")), "r1 is not made again").toBe(false);
      expect(broker.exitCode).toBeNull();
      expect(saidGone(), "said once each time, never again while it is gone").toBe(2);
      expect(p.logs.join("")).not.toMatch(/next try in|failed/);
    },
    scaled(180_000),
  );
});
