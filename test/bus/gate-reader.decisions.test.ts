// Which decision answers an escalation (SPEC §5): one naming the escalation's bytes, or one dated after it and not
// ahead of this clock. A decision dropped before its escalation exists answers nothing, whatever date it claims.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { Layout, movesAside } from "../../src/bus/layout.js";
import { sha256Hex } from "../../src/core/sha.js";
import { decision, escalation, GATE, packet, packetFile, request, RUN } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

function cappedGate() {
  const layout = new Layout(tempRoot("guild-bus-decisions-"));
  const dir = layout.gateDir(RUN, GATE);
  mkdirSync(dir, { recursive: true });
  const put = (name: string, value: unknown) =>
    writeFileSync(path.join(dir, name), typeof value === "string" ? value : JSON.stringify(value));
  put("request.json", request());
  put("packet-1.md", packetFile(packet(1)));
  const escalationText = JSON.stringify({ ...escalation(1, "cap_hit", ["force-pass", "rework"]), at: new Date().toISOString() });
  put("escalation-1.json", escalationText);
  const answers = (value: unknown) => {
    put("decision-1.json", value);
    return readGate(layout, RUN, GATE).decisions.has(1);
  };
  return { answers, escalationSha: sha256Hex(escalationText), layout };
}

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe("decisions", () => {
  it("one naming the escalation's bytes answers it, within the clock skew allowed between machines", () => {
    const { answers, escalationSha } = cappedGate();
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: escalationSha, at: inMinutes(2) })).toBe(true);
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: "e".repeat(64), at: inMinutes(0) })).toBe(false);
  });

  it("one naming no escalation answers only if dated after it and not ahead of this clock", () => {
    const { answers } = cappedGate();
    expect(answers({ ...decision(1, "rework"), at: inMinutes(0) })).toBe(true);
    // dropped ahead: dated a minute on, it would have answered an escalation written meanwhile
    expect(answers({ ...decision(1, "rework"), at: inMinutes(1) })).toBe(false);
    expect(answers({ ...decision(1, "rework"), at: "2000-01-01T00:00:00.000Z" })).toBe(false);
  });

  it("one choosing what the escalation does not offer is a problem the broker moves aside, so the slot is free", () => {
    const { answers, escalationSha, layout } = cappedGate();
    expect(answers({ ...decision(1, "extend-cap", 2), escalation_sha256: escalationSha, at: inMinutes(0) })).toBe(false);
    expect(readGate(layout, RUN, GATE).problems).toContainEqual(
      expect.objectContaining({
        file: "decision-1.json",
        reason: "decision chooses extend-cap, which the escalation does not offer (force-pass, rework)",
      }),
    );
    expect(movesAside("broker", "decision-1.json")).toBe(true);
  });
});
