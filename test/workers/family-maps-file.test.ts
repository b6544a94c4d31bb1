// A packet's family maps live in a gate file of their own, bound by sha (SPEC §7 `family_maps_sha256`): the reviewer,
// who is sent the packet, never sees the project's aliases; a missing or edited maps file the broker cannot write again
// fails closed (one it can, the round waits for); equal maps are one file per gate; a packet of the previous build,
// with its maps inline, is still judged under them.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { resubmit } from "../../src/commands/author.js";
import { statusRow } from "../../src/commands/status.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const ALIAS = "codename-falcon-7"; // a model name the project would not show a reviewer
const settings = { family_aliases: { [ALIAS]: "openai" } };
type Gate = Awaited<ReturnType<typeof gateWithPacket>>;

const mapsFiles = (g: Gate) => readdirSync(g.file(".")).filter((n) => n.startsWith("family-maps-"));
const verify = (g: Gate, run: string) => verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);

describe("family-maps-<sha>.json", () => {
  it("keeps the project's aliases out of the packet a reviewer is sent; the packet binds the file by sha", async () => {
    const g = await gateWithPacket("maps-hidden", { settings });
    const packet = readFileSync(g.file("packet-1.md"), "utf8");
    expect(packet).not.toContain(ALIAS);
    expect(packet).not.toMatch(/^family_maps:/m);
    const [name] = mapsFiles(g);
    expect(name).toBe(`family-maps-${g.field("family_maps_sha256")}.json`);
    expect(JSON.parse(readFileSync(g.file(name!), "utf8"))).toEqual({ family_aliases: { [ALIAS]: "openai" }, host_families: {} });
  });

  it("is one file per gate across rounds while the settings keep the maps", async () => {
    const run = "maps-one-file";
    const g = await gateWithPacket(run, { settings });
    const ctx = loadContext(g.layout);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verify(g, run);
    await stepGate(ctx, run, GATE);
    writeFileSync(g.artifact, "# Spec\n\nfixed\n");
    expect(await resubmit(ctx, run, GATE)).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).packets.has(2)).toBe(true);
    expect(mapsFiles(g)).toHaveLength(1);
  });

  it.each([
    ["missing", (g: Gate, name: string) => rmSync(g.file(name))],
    // the author's host now of the reviewer's family... claimed in an edited file: its bytes no longer hash to its name
    [
      "edited",
      (g: Gate, name: string) =>
        writeFileSync(g.file(name), JSON.stringify({ family_aliases: { "gpt-5": "anthropic" }, host_families: {} })),
    ],
  ])("fails closed when %s, other maps now: a violation sealed with the reason, a pass that never re-derives", async (what, tamper) => {
    const run = `maps-${what}`;
    const g = await gateWithPacket(run, { settings });
    tamper(g, mapsFiles(g)[0]!);
    // the broker cannot write the file again: the maps the settings give now are others
    writeFileSync(path.join(g.root, ".guild", "settings.json"), JSON.stringify({ family_aliases: { "codename-falcon-8": "openai" } }));
    g.dropResult();
    await verify(g, run);
    const verdict = JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"));
    expect(verdict.independence_violation).toBe(true);
    expect(verdict.gate_pass.reasons.join("\n")).toContain("is missing or is not the bytes it binds");
    const ctx = loadContext(g.layout);
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).outcome?.independence).not.toBe("strong");
    const row = statusRow(ctx, run, GATE, true);
    expect(row.status).not.toBe("satisfied");
    expect(JSON.stringify(row)).toContain("family maps it was issued under");
  });

  it("missing while the settings still give its maps: the answer waits for the broker to write it again, then passes strong", async () => {
    const run = "maps-restored";
    const g = await gateWithPacket(run, { settings });
    const [name] = mapsFiles(g);
    const bytes = readFileSync(g.file(name!), "utf8");
    rmSync(g.file(name!));
    g.dropResult();
    await verify(g, run);
    expect(existsSync(g.file("verdict-1.json"))).toBe(false);
    await stepGate(loadContext(g.layout), run, GATE);
    expect(readFileSync(g.file(name!), "utf8")).toBe(bytes);
    await verify(g, run);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: false });
  });

  it("still judges a packet of the previous build under the maps it records inline", async () => {
    const run = "maps-inline";
    const g = await gateWithPacket(run);
    const inline = readFileSync(g.file("packet-1.md"), "utf8").replace(
      /^family_maps_sha256: .*$/m,
      'family_maps: {"family_aliases":{"acme-1":"openai"},"host_families":{}}',
    );
    g.drop("packet-1.md", inline);
    g.dropResult({ reviewer_model: "acme-1" }); // of no family the settings know: only the inline alias names one
    await verify(g, run);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ reviewer_family: "openai" });
  });
});
