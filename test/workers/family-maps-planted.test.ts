// A file planted at the name of the family-maps file the broker is about to write (its sha is the settings' maps, so
// anyone can compute it) must not hold the gate for good: the broker moves it aside once its grace period has passed,
// as any invalid drop of a name it writes, and issues the packet under the maps as they are.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { requestReview } from "../../src/commands/review.js";
import { familyMapsFile, familyMapsFor } from "../../src/core/family.js";
import { stepGate } from "../../src/workers/broker.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";

describe("a planted family-maps file", () => {
  it.each(["other bytes", "a symlink", "a directory"])("holding %s is moved aside and the packet issued", async (kind) => {
    const run = `maps-planted-${kind.replace(/ /g, "-")}`;
    const root = tempRoot(`guild-bus-${run}-`);
    mkdirSync(path.join(root, "docs"), { recursive: true });
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ foreign_grace_ms: 0 }));
    writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
    const layout = new Layout(root);
    const request = { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: run };
    expect(await requestReview(layout, request)).toMatchObject({ ok: true });
    const ctx = loadContext(layout);
    const maps = familyMapsFile(familyMapsFor("claude", ctx.settings));
    const planted = layout.gateFile(run, GATE, maps.name);
    if (kind === "other bytes") writeFileSync(planted, JSON.stringify({ family_aliases: { "gpt-5": "anthropic" }, host_families: {} }));
    if (kind === "a symlink") {
      writeFileSync(path.join(root, "elsewhere.json"), maps.text);
      symlinkSync(path.join(root, "elsewhere.json"), planted);
    }
    if (kind === "a directory") mkdirSync(planted);
    await stepGate(ctx, run, GATE);
    const s = readGate(layout, run, GATE);
    expect(s.packets.get(1)?.family_maps_sha256).toBe(maps.sha);
    expect(readFileSync(planted, "utf8")).toBe(maps.text);
    expect(s.problems.filter((p) => p.file === maps.name)).toEqual([]);
  });
});
