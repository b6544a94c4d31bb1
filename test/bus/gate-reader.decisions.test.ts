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
  const escalationAt = new Date(Date.now() - 5000).toISOString();
  const escalationText = JSON.stringify({ ...escalation(1, "cap_hit", ["force-pass", "rework"]), at: escalationAt });
  put("escalation-1.json", escalationText);
  const answers = (value: unknown) => {
    put("decision-1.json", value);
    return readGate(layout, RUN, GATE).decisions.has(1);
  };
  const reason = () => readGate(layout, RUN, GATE).problems.find((p) => p.file === "decision-1.json")?.reason;
  return { answers, escalationSha: sha256Hex(escalationText), layout, escalationAt, reason };
}

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe("decisions", () => {
  it("one naming the escalation's bytes answers it, within the clock skew allowed between machines", () => {
    const { answers, escalationSha } = cappedGate();
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: escalationSha, at: inMinutes(2) })).toBe(true);
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: "e".repeat(64), at: inMinutes(0) })).toBe(false);
    // the schema's pattern takes hex in either case: a foreign tool's upper-case digest names the same bytes
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: escalationSha.toUpperCase(), at: inMinutes(0) })).toBe(true);
    // the bytes it names order it: a local time without a zone (Python's utcnow().isoformat()) does not refuse it
    const local = inMinutes(0).replace(/Z$/, "");
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: escalationSha, at: local })).toBe(true);
  });

  it("one naming the escalation's bytes but dated past the skew allowed says how far ahead, and what to do", () => {
    const { answers, escalationSha, reason } = cappedGate();
    expect(answers({ ...decision(1, "force-pass"), escalation_sha256: escalationSha, at: inMinutes(7) })).toBe(false);
    // before: "decision dated …, in the future", while `decide` on that machine had said "decision recorded"
    expect(reason()).toMatch(/7 min ahead of the clock of the worker that read it, .* set the clock of the machine that decided right/);
  });

  it("one naming no escalation answers only if dated after it and not ahead of this clock", () => {
    const { answers } = cappedGate();
    expect(answers({ ...decision(1, "rework"), at: inMinutes(0) })).toBe(true);
    // dropped ahead: dated a minute on, it would have answered an escalation written meanwhile
    expect(answers({ ...decision(1, "rework"), at: inMinutes(1) })).toBe(false);
    expect(answers({ ...decision(1, "rework"), at: "2000-01-01T00:00:00.000Z" })).toBe(false);
  });

  it("one naming no escalation is compared at its own precision, and a refusal gives both times and the fix", () => {
    const { answers, escalationAt, reason } = cappedGate();
    const second = escalationAt.slice(0, 19);
    // written to the second (Python strftime, Go RFC3339) in the escalation's own second: not earlier than it
    expect(answers({ ...decision(1, "rework"), at: `${second}Z` })).toBe(true);
    expect(answers({ ...decision(1, "rework"), at: `${escalationAt.slice(0, 16)}Z` })).toBe(true);
    expect(answers({ ...decision(1, "rework"), at: `${second},9Z` })).toBe(true); // ISO-8601's comma decimal
    expect(answers({ ...decision(1, "rework"), at: `${second}.999+00:00` })).toBe(true);
    const earlier = new Date(Date.parse(escalationAt) - 1000).toISOString().slice(0, 19);
    expect(answers({ ...decision(1, "rework"), at: `${earlier}Z` })).toBe(false);
    expect(reason()).toBe(
      `decision dated ${earlier}Z predates the escalation it would answer (dated ${escalationAt}; ` +
        "name the escalation instead: add escalation_sha256, the sha256 of the escalation-1.json bytes)",
    );
    // no zone: whose local time it is cannot be known, so it is refused, saying so
    expect(answers({ ...decision(1, "rework"), at: `${second}` })).toBe(false);
    expect(reason()).toBe(
      `decision dated "${second}", which is an ISO-8601 time without a zone (add Z or ±hh:mm) ` +
        "(name the escalation instead: add escalation_sha256, the sha256 of the escalation-1.json bytes)",
    );
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

  it("one whose fields do not belong to its choice answers nothing: a rework naming an extension is refused, by name", () => {
    const { answers, escalationSha, reason } = cappedGate();
    expect(answers({ ...decision(1, "rework"), extend_by: 2, escalation_sha256: escalationSha, at: inMinutes(0) })).toBe(false);
    expect(reason()).toMatch(/extend_by: belongs to choice "extend-cap" only/);
    // a choice of no branch is named as an unknown choice, as before the schema had branches
    expect(answers({ ...decision(1, "rework"), choice: "skip", escalation_sha256: escalationSha, at: inMinutes(0) })).toBe(false);
    expect(reason()).toMatch(/choice: Invalid option: expected one of "force-pass"\|"extend-cap"\|/);
  });
});
