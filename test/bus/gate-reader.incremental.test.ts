// A worker's read of a long gate (readGateToAct) takes closed rounds' stats from its previous read (gate-stats.ts):
// what it must still see at once, what it sees by the next sweep, and what every other read sees at once.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readGate, readGateToAct } from "../../src/bus/gate-reader.js";
import { SWEEP_MS } from "../../src/bus/gate-stats.js";
import { Layout } from "../../src/bus/layout.js";
import { sha256Hex } from "../../src/core/sha.js";
import { GATE, outcome, packet, packetFile, request, RUN, verdict } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

const ROUNDS = 6;

/** A gate whose rounds 1..ROUNDS-1 each got a verified result with issues, and round ROUNDS is open. */
function longGate() {
  const layout = new Layout(tempRoot("guild-bus-incremental-"));
  const dir = layout.gateDir(RUN, GATE);
  mkdirSync(path.join(dir, ".verified"), { recursive: true });
  const put = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
  put("request.json", JSON.stringify(request()));
  for (let round = 1; round <= ROUNDS; round++) {
    put(`packet-${round}.md`, packetFile(packet(round)));
    if (round === ROUNDS) break;
    const result = `{"result": "round ${round}"}\n`;
    put(`result-${round}.json`, result);
    put(`.verified/result-${round}.json`, result);
    put(`verdict-${round}.json`, JSON.stringify(verdict(round, "issues", { result_sha256: sha256Hex(Buffer.from(result)) })));
  }
  return { layout, dir, put };
}

afterEach(() => vi.useRealTimers());

describe("a worker's read of a long gate", () => {
  it("sees a closed round's result changed in place after verification by the next sweep; other reads see it at once", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, put } = longGate();
    expect(readGateToAct(layout, RUN, GATE).verdicts.size).toBe(ROUNDS - 1);
    put("result-1.json", '{"result": "rewritten"}\n');
    vi.advanceTimersByTime(SWEEP_MS);
    const worker = readGateToAct(layout, RUN, GATE);
    expect(worker.brokenSeals.get(1)).toMatch(/result-1\.json changed after verification/);
    expect(worker.verdicts.has(1)).toBe(false);
    put("result-2.json", '{"result": "rewritten"}\n');
    expect(readGate(layout, RUN, GATE).brokenSeals.get(2)).toMatch(/result-2\.json changed after verification/);
  });

  it("sees a closed round's seal removed by the next sweep", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, dir } = longGate();
    readGateToAct(layout, RUN, GATE);
    rmSync(path.join(dir, ".verified", "result-2.json"));
    vi.advanceTimersByTime(SWEEP_MS);
    const worker = readGateToAct(layout, RUN, GATE);
    expect(worker.verdicts.has(2)).toBe(false);
    expect(worker.problems).toContainEqual(
      expect.objectContaining({
        file: "verdict-2.json",
        reason: "verdict the verifier did not seal: its seal .verified/result-2.json is missing (removed, or never written)",
      }),
    );
  });

  it("sees at once a new file at a closed round, a removed one, and every change at the open round and the one before", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, dir, put } = longGate();
    readGateToAct(layout, RUN, GATE);
    put("result-2.json.partial", "junk");
    rmSync(path.join(dir, "verdict-3.json"));
    put(`result-${ROUNDS - 1}.json`, '{"result": "rewritten"}\n');
    put(`result-${ROUNDS}.json`, '{"result": "open round"}\n');
    const worker = readGateToAct(layout, RUN, GATE); // no time has passed: no sweep
    expect(worker.problems.map((p) => p.file)).toContain("result-2.json.partial");
    expect(worker.verdicts.has(3)).toBe(false);
    expect(worker.brokenSeals.get(ROUNDS - 1)).toMatch(/changed after verification/);
    expect(worker.results.has(ROUNDS)).toBe(true);
  });

  it("sees at once a seal and verdict that arrive for a closed round that had none", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, dir, put } = longGate();
    const sealed = readFileSync(path.join(dir, ".verified", "result-2.json"), "utf8");
    const bound = readFileSync(path.join(dir, "verdict-2.json"), "utf8");
    rmSync(path.join(dir, ".verified", "result-2.json"));
    rmSync(path.join(dir, "verdict-2.json"));
    expect(readGateToAct(layout, RUN, GATE).verdicts.has(2)).toBe(false);
    put(".verified/result-2.json", sealed);
    put("verdict-2.json", bound);
    const worker = readGateToAct(layout, RUN, GATE);
    expect(worker.problems).toEqual([]);
    expect(worker.verdicts.has(2)).toBe(true);
  });

  it("keeps stat-ing the open round when a junk packet name claims a later one", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, put } = longGate();
    put(`result-${ROUNDS}.json`, '{"result": "open round"}\n');
    readGateToAct(layout, RUN, GATE);
    put(`packet-${ROUNDS + 2}.md`, "junk");
    readGateToAct(layout, RUN, GATE);
    const rewritten = '{"result": "the open round, written again in place"}\n';
    put(`result-${ROUNDS}.json`, rewritten);
    expect(readGateToAct(layout, RUN, GATE).results.get(ROUNDS)?.size).toBe(Buffer.byteLength(rewritten));
  });

  it("stats every file again when the gate has ended and is read once more", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { layout, put } = longGate();
    put("result-6.json", '{"result": "round 6"}\n');
    put("outcome.json", JSON.stringify(outcome("stopped", ROUNDS)));
    const ended = readGateToAct(layout, RUN, GATE);
    expect(ended.problems).toEqual([]);
    expect(ended.outcome).not.toBeNull();
    put("result-1.json", '{"result": "rewritten"}\n');
    expect(readGateToAct(layout, RUN, GATE).brokenSeals.get(1)).toMatch(/changed after verification/);
  });
});
