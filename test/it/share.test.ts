// Several brokers and verifiers on one tree split the gates (SPEC §18, "Several workers of a kind"): each gate's
// events are one live peer's to act on, so two brokers do not both deliver every packet; a broker killed with -9 has
// its share taken over by the other, and every gate still ends.
import { describe, expect, it } from "vitest";
import { makeProject, type Project, scriptedProvider } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";
import { until } from "../helpers/clients.js";

const SPEC = "# Spec\n\n## Acceptance criteria\n- exports finish within 2 s\n";
const GATES = 16; // the split depends on the workers' pids: with 16 gates one broker gets none 2 times in 65,536

function review(p: Project, run: string): void {
  const r = p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", run]);
  expect(r.code, r.stderr).toBe(0);
}

/** The gates (run ids) a worker's log says it delivered a packet or an outcome for. */
function delivered(p: Project, pid: number | undefined): Set<string> {
  const runs = new Set<string>();
  for (const chunk of p.logs)
    for (const m of chunk.matchAll(new RegExp(`\\[broker ${pid}\\] (s\\d+-\\d+)/G-spec: (packet-\\d+\\.md issued|outcome)`, "g")))
      runs.add(m[1]!);
  return runs;
}

describe("several brokers and verifiers on one tree (integration, real workers)", () => {
  it("split the gates between them, and one left alone after a kill -9 ends every gate", async () => {
    const p = makeProject();
    p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5-scripted", { default: { do: "satisfied" } }) } });
    p.write("docs/spec.md", SPEC);
    const [a, b] = [p.startWorker("broker"), p.startWorker("broker")];
    p.startWorker("verifier");
    p.startWorker("verifier");
    p.startWorker("command");
    await until(
      "both brokers and both verifiers see two of their kind",
      () =>
        p.logs.join("").match(/2 broker worker\(s\) share/g)?.length === 2 &&
        p.logs.join("").match(/2 verifier worker\(s\) share/g)?.length === 2,
      scaled(30_000),
    );
    const first = Array.from({ length: GATES }, (_, i) => `s1-${i}`);
    for (const run of first) review(p, run);
    for (const run of first) expect(await p.waitState(run, "G-spec", ["done"], scaled(60_000))).toMatchObject({ status: "satisfied" });
    // the workers' log lines reach this process only while it waits (p.cli blocks it)
    const logged = (runs: string[]) => runs.every((run) => delivered(p, a!.pid).has(run) || delivered(p, b!.pid).has(run));
    await until("every gate's deliveries in the logs", () => logged(first), scaled(30_000));
    const [byA, byB] = [delivered(p, a!.pid), delivered(p, b!.pid)];
    expect(byA.size, p.logs.join("").slice(-3000)).toBeGreaterThan(0);
    expect(byB.size, p.logs.join("").slice(-3000)).toBeGreaterThan(0);
    expect([...byA].filter((run) => byB.has(run))).toEqual([]); // no gate's packets went through both
    expect(p.logs.join("")).not.toMatch(/another broker already delivered/);

    a!.kill("SIGKILL");
    const second = Array.from({ length: GATES }, (_, i) => `s2-${i}`);
    for (const run of second) review(p, run);
    for (const run of second) expect(await p.waitState(run, "G-spec", ["done"], scaled(60_000))).toMatchObject({ status: "satisfied" });
    await until("the second gates' deliveries in the logs", () => second.every((run) => delivered(p, b!.pid).has(run)), scaled(30_000));
  });
});
