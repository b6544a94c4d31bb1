// Integration (issue #15, SPEC §18): .guild/finished-runs.log lets real workers skip finished runs at start, and is
// only a hint — work that arrives in a run the log calls finished is still found (at once when `review` says so,
// within the sweep otherwise), and a stale, garbled or deleted log never hides an active gate from a fresh start.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { makeProject, type Project, scriptedProvider, startBus, stopChild } from "../helpers/bus.js";
import { until } from "../helpers/clients.js";
import { waitSeconds } from "../helpers/machine.js";

const GATE = "G-spec";

/** Each worker kind keeps its own log: a broker that handled a late drop has not done the verifier's part. */
const KINDS = ["broker", "verifier", "command"];

function logFile(p: Project, kind: string): string {
  return path.join(p.root, ".guild", "finished-runs", `${kind}.log`);
}

function logText(p: Project, kind: string): string {
  return existsSync(logFile(p, kind)) ? readFileSync(logFile(p, kind), "utf8") : "";
}

/** Every kind's log says these runs finished (with review/'s mtime: a line this version writes). */
function sealedEverywhere(p: Project, runs: string[]): boolean {
  return KINDS.every((kind) => runs.every((r) => new RegExp(`^\\+${r}\\treview=`, "m").test(logText(p, kind))));
}

function review(p: Project, runId: string, gate: string, wait: boolean) {
  const args = ["review", "docs/spec.md", "--gate", gate, "--author", "claude", "--run-id", runId];
  const r = p.cli(wait ? [...args, "--wait", "--json", "--timeout", waitSeconds(60)] : args);
  expect(r.code, r.stderr + p.logs.join("").slice(-4000)).toBe(0);
}

/** A request put in place by hand (no `review`, so no line in the log says the run carries work again). */
function dropRequest(p: Project, runId: string, from: string, gate: string): void {
  const request = JSON.parse(readFileSync(path.join(p.gateDir(runId, from), "request.json"), "utf8"));
  mkdirSync(p.gateDir(runId, gate), { recursive: true });
  writeFileSync(path.join(p.gateDir(runId, gate), "request.json"), JSON.stringify({ ...request, gate }));
}

function quarantined(p: Project, runId: string, name: string): boolean {
  const dir = path.join(p.gateDir(runId, GATE), "rejected");
  return existsSync(dir) && readdirSync(dir).some((n) => n.startsWith(`${name}.`) && !n.endsWith(".reason.json"));
}

const satisfied = (p: Project, runId: string, gate: string) =>
  p.waitFor(runId, gate, (f) => f.includes("outcome.json"), `${runId}/${gate} outcome`);

/** Runs r0 and r1 reviewed to satisfied by real workers, which then stop with both runs in the log. */
async function finishedProject(): Promise<Project> {
  const p = makeProject();
  p.settings({
    providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5-scripted", { sequence: Array(12).fill("satisfied") }) },
  });
  p.write("docs/spec.md", "# Spec\n\n## Acceptance criteria\n- exports finish within 2 s\n");
  const bus = startBus(p);
  review(p, "r0", GATE, true);
  review(p, "r1", GATE, true);
  await until("both runs in every kind's log", () => sealedEverywhere(p, ["r0", "r1"]));
  await stopAll(bus);
  return p;
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => stopChild(c)));
}

/** Fresh workers, once each has looked at every run (the first sweep after its start). */
async function freshBus(p: Project): Promise<ChildProcess[]> {
  const before = p.logs.join("").split("every run looked at since start").length;
  const bus = startBus(p);
  await until("every worker's first sweep", () => p.logs.join("").split("every run looked at since start").length >= before + bus.length);
  return bus;
}

describe("finished history (integration, real workers)", () => {
  it("a fresh start finds what changed in finished runs while no worker ran, through a stale or garbled log line", async () => {
    const p = await finishedProject();
    dropRequest(p, "r0", GATE, "G-plan"); // a new gate in a run the log calls finished
    writeFileSync(path.join(p.gateDir("r1", GATE), "result-2.json"), "{}"); // a late result in a finished gate
    review(p, "r2", GATE, false); // active runs the log wrongly calls finished: a stale line, a garbled one
    review(p, "r3", GATE, false);
    for (const kind of KINDS) appendFileSync(logFile(p, kind), "+r2\treview=1\tG-spec=2\n+r3\treview=1\tG-sp\n");
    await freshBus(p);
    await satisfied(p, "r0", "G-plan");
    await satisfied(p, "r2", GATE);
    await satisfied(p, "r3", GATE);
    await until("the late result quarantined, as without the log", () => quarantined(p, "r1", "result-2.json"));
    expect(p.readJson("r1", GATE, "outcome.json")).toMatchObject({ status: "satisfied" });
  });

  it("running workers that skipped a finished run find a hand-made drop in it within the sweep, and a review into it", async () => {
    const p = await finishedProject();
    await freshBus(p); // r0 and r1 were in the log at start: these workers never scanned them
    dropRequest(p, "r1", GATE, "G-plan");
    writeFileSync(path.join(p.gateDir("r1", GATE), "result-2.json"), "{}");
    await satisfied(p, "r1", "G-plan");
    await until("the late result quarantined", () => quarantined(p, "r1", "result-2.json"), 20_000).catch((e) => {
      console.log(p.logs.join("").slice(-6000), p.files("r1", GATE), logText(p, "verifier"));
      throw e;
    });
    review(p, "r0", "G-plan", true); // its `-r0` line: the next quick pass rescans r0
    expect(p.readJson("r0", "G-plan", "outcome.json")).toMatchObject({ status: "satisfied" });
  });

  it("a deleted log: a fresh start still finds the active gate, and the workers write the log again", async () => {
    const p = await finishedProject();
    rmSync(path.join(p.root, ".guild", "finished-runs"), { recursive: true });
    dropRequest(p, "r1", GATE, "G-plan");
    await freshBus(p);
    await satisfied(p, "r1", "G-plan");
    await until("the logs rebuilt", () => sealedEverywhere(p, ["r0", "r1"]));
    for (const kind of KINDS) expect(logText(p, kind)).toMatch(/^\+r1\t.*G-plan=/m);
  });
});
