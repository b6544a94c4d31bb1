// The console's gate table keeps up with what `status` says: an ended pass whose artifact is edited afterwards (a file
// outside .guild/, so no watcher event) stops showing as holding, and shows as holding again once the edit is undone;
// so does one whose result or seal is rewritten in place (no name comes or goes, so no gate directory's mtime moves).
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { GateBoard } from "../../src/ui/board.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { stepGate } from "../../src/workers/broker.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";
import { viewGate } from "../../src/commands/gate-view.js";

let board: GateBoard | undefined;
afterEach(async () => {
  await board?.stop();
  board = undefined;
});

/** Waits, generously (a loaded machine), until the row of `run` says what `want` checks. */
async function rowSays(run: string, want: (waitingFor: string) => boolean): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = board!.list().find((r) => r.run === run);
    if (row && want(row.waitingFor)) return row.waitingFor;
    if (Date.now() > deadline) throw new Error(`row still says ${JSON.stringify(row?.waitingFor)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the console's gate table", () => {
  it("an ended pass whose artifact is edited says the pass no longer holds, and holds again when the edit is undone", async () => {
    const run = "board-pass";
    const { layout, artifact, dropResult } = await gateWithPacket(run);
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    board = new GateBoard({ root: layout.root, poll: false });
    const pushed: string[] = [];
    board.subscribe((e) => e.kind === "row" && pushed.push(e.row.waitingFor));
    await board.start(loadContext(layout));
    await rowSays(run, (w) => w.startsWith("nothing"));
    const original = readFileSync(artifact, "utf8");
    writeFileSync(artifact, "# Spec\n\nedited after the pass\n");
    await rowSays(run, (w) => w.startsWith("the author: the gate has ended, but the artifact changed since"));
    expect(pushed.at(-1)).toMatch(/^the author: the gate has ended/); // open pages are told, not only a reload
    writeFileSync(artifact, original);
    await rowSays(run, (w) => w.startsWith("nothing"));
  });

  it("an ended pass whose result or seal is rewritten in place shows as unproven, as status says, not as a pass", async () => {
    for (const name of ["result-1.json", ".verified/result-1.json"]) {
      const run = `board-inplace-${name.startsWith(".") ? "seal" : "result"}`;
      const { layout, file, dropResult } = await gateWithPacket(run);
      dropResult();
      await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
      await stepGate(loadContext(layout), run, GATE);
      board = new GateBoard({ root: layout.root, poll: false, reconcileMs: 100, fullScanMs: 200 });
      await board.start(loadContext(layout));
      await rowSays(run, (w) => w.startsWith("nothing"));
      // one byte of the verified bytes changed, in place: the same names, the same size
      const bytes = readFileSync(file(name));
      bytes[bytes.indexOf('"satisfied"') + 1]! ^= 0x20;
      writeFileSync(file(name), bytes);
      expect(viewGate(loadContext(layout), run, GATE).output.status, name).toBe("unproven");
      await rowSays(run, (w) => w === "human");
      expect(board.list().find((r) => r.run === run)?.status, name).toBe("unproven");
      await board.stop();
      board = undefined;
    }
  });
});
