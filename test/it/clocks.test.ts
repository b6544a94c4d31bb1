// Machines sharing one tree whose clocks disagree: a worker's clock is shifted by a preload (test/helpers/clock-skew.cjs).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN, makeProject, received, REPO, scriptedProvider, stopChild } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

const GATE = "G-spec";
const PRELOAD = `--import ${pathToFileURL(path.join(REPO, "test", "helpers", "clock-skew.mjs")).href}`;
const skewed = (ms: number) => ({ NODE_OPTIONS: PRELOAD, GUILD_TEST_CLOCK_SKEW_MS: String(ms) });
/** A clock a test steps while the process runs: the offset (ms) written to the returned file. */
function steppable(root: string): { env: NodeJS.ProcessEnv; step: (ms: number) => void } {
  const file = path.join(root, "clock-offset");
  writeFileSync(file, "0");
  return { env: { NODE_OPTIONS: PRELOAD, GUILD_TEST_CLOCK_SKEW_FILE: file }, step: (ms) => writeFileSync(file, String(ms)) };
}
const STEP_BACK = -3_600_000;

describe("clocks that disagree", () => {
  it("a reviewer worker whose clock is an hour ahead or behind never takes another's live claim", async () => {
    const p = makeProject();
    // the review outlasts the 2 s claim stale time several times over: only the holder's refreshes keep its claim
    const plan = { default: "slow-satisfied", slow_ms: scaled(8000) };
    // a reviewer timeout well past the review: the round must end on its answer, however slow the machine
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", plan, { timeout_ms: plan.slow_ms + 60_000 }) } });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    p.startWorker("broker");
    p.startWorker("verifier");
    p.startWorker("command");
    expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", "skew"]).code).toBe(0);
    await p.waitFor("skew", GATE, (f) => f.includes("attempt-1.json"), "the first worker's dispatch");
    // before: the one ahead took the claim as stale at once, the one behind re-dated it "from the future" (so its
    // holder gave it up); either way the live dispatch was killed and the round ended no_verdict for a person
    p.startWorker("command", [], skewed(3_600_000));
    p.startWorker("command", [], skewed(-3_600_000));
    const s = await p.waitState("skew", GATE, ["done", "awaiting_decision"], scaled(90_000));
    expect(s.status, s.detail as string).toBe("satisfied");
    expect(p.files("skew", GATE)).not.toContain("failure-1.json");
    expect(received(p.root, "gpt"), "one paid dispatch").toHaveLength(1);
  });

  it("a worker whose clock steps back an hour still does what only time moves: a dead holder's claim is taken", async () => {
    const p = makeProject();
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "hang" }) } });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    p.startWorker("broker");
    p.startWorker("verifier");
    const holder = p.startWorker("command");
    expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", "back"]).code).toBe(0);
    await p.waitFor("back", GATE, (f) => f.includes("attempt-1.json"), "the first worker's dispatch");
    // its claim stays, and nothing lands in the gate any more: only time can end the round. Reaped before the next
    // worker starts, whose janitor then ends the dead worker's hanging reviewer
    await stopChild(holder, "SIGKILL");
    const clock = steppable(p.root);
    const worker = p.startWorker("command", [], clock.env);
    await waitForLog(p.logs, `command:${worker.pid} `, "watching");
    // before: the full-scan look compared wall times, so none came for an hour and the round waited for nobody
    clock.step(STEP_BACK);
    await p.waitFor("back", GATE, (f) => f.includes("failure-1.json"), "the takeover of the dead holder's claim", scaled(60_000));
    expect(p.readJson("back", GATE, "failure-1.json")).toMatchObject({ kind: "no_verdict" });
  });

  it("`wait --timeout` ends on time when the clock steps back an hour while it waits", async () => {
    const p = makeProject();
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "hang" }) } });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", "wait"]).code).toBe(0);
    const clock = steppable(p.root);
    const wait = spawn(process.execPath, [BIN, "wait", "wait", GATE, "--timeout", "3", "--root", p.root], {
      env: { ...process.env, ...clock.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => wait.once("exit", (code) => resolve(code)));
    let said = "";
    const waiting = new Promise<void>((resolve) => wait.stderr!.on("data", (b: Buffer) => (said += b) && resolve()));
    await waiting; // it has started timing
    clock.step(STEP_BACK);
    const deadline = setTimeout(() => wait.kill("SIGKILL"), scaled(60_000));
    const code = await exited;
    clearTimeout(deadline);
    expect(code, `before: it waited an hour more; said:\n${said}`).toBe(6);
  });
});

async function waitForLog(logs: string[], tag: string, words: string): Promise<void> {
  const deadline = Date.now() + scaled(30_000);
  while (!logs.some((l) => l.startsWith(tag) && l.includes(words))) {
    if (Date.now() > deadline) throw new Error(`no "${words}" from ${tag}:\n${logs.join("").slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
