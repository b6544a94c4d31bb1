// Reading a quorum gate (SPEC §2, §26): member files are parsed into their member's slots, a member packet must be
// one (its reviewer, its rule), and a member's verdict counts only for the bytes its own seal holds.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { Layout, parseRoundFile } from "../../src/bus/layout.js";
import { packetId } from "../../src/core/packet.js";
import { sha256Hex } from "../../src/core/sha.js";
import type { QuorumRule } from "../../src/spec/schemas.js";
import { GATE, packet, packetFile, request, RUN, verdict } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

const RULE: QuorumRule = { need: 2, of: 2 };

describe("member file names", () => {
  it("parse with the member after the round; the plain names keep member null; junk is no round file", () => {
    expect(parseRoundFile("result-3.json")).toEqual({ kind: "result", round: 3, member: null });
    expect(parseRoundFile("result-3.gpt.json")).toEqual({ kind: "result", round: 3, member: "gpt" });
    expect(parseRoundFile("packet-12.gpt-5.mini.md")).toEqual({ kind: "packet", round: 12, member: "gpt-5.mini" });
    // every provider id settings allow is a member name, dots and all (a packet the reader refused would be re-issued forever)
    expect(parseRoundFile("packet-1.gpt..mini.md")).toEqual({ kind: "packet", round: 1, member: "gpt..mini" });
    for (const junk of ["packet-3.gpt.json", "result-0.gpt.json", "escalation-2.gpt.json", "result-3.GPT.json", "result-3..json"])
      expect(parseRoundFile(junk), junk).toBeNull();
  });
});

describe("readGate on a quorum gate", () => {
  function gateDir() {
    const root = tempRoot("guild-bus-quorum-");
    const layout = new Layout(root);
    const dir = layout.gateDir(RUN, GATE);
    mkdirSync(path.join(dir, ".verified"), { recursive: true });
    const put = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
    put("request.json", JSON.stringify(request({ quorum: RULE })));
    const member = (round: number, provider: string, over = {}) =>
      packetFile(packet(round, { packet_id: packetId(RUN, GATE, round, provider), reviewer_provider: provider, quorum: RULE, ...over }));
    return { layout, dir, put, member };
  }

  it("puts each member's files in its own slots and keeps a verdict its own seal binds", () => {
    const { layout, put, member } = gateDir();
    put("packet-1.gpt.md", member(1, "gpt"));
    put("packet-1.gem.md", member(1, "gem"));
    const result = '{"result": "gpt round 1"}\n';
    put("result-1.gpt.json", result);
    put(".verified/result-1.gpt.json", result);
    put(
      "verdict-1.gpt.json",
      JSON.stringify(verdict(1, "pass", { packet_id: packetId(RUN, GATE, 1, "gpt"), result_sha256: sha256Hex(Buffer.from(result)) })),
    );
    const s = readGate(layout, RUN, GATE);
    expect(s.problems).toEqual([]);
    expect(s.packets.size).toBe(0);
    expect([...s.members.keys()].sort()).toEqual(["gem", "gpt"]);
    expect(s.members.get("gpt")!.verdicts.get(1)).toMatchObject({ packet_id: "G-spec-run1-r1+gpt" });
    expect(s.members.get("gem")!.results.size).toBe(0);
  });

  it("refuses a member packet for another reviewer or without the rule, a plain one with it; a changed result breaks the seal", () => {
    const { layout, put, member } = gateDir();
    put("packet-1.gpt.md", member(1, "gpt"));
    put("packet-1.gem.md", member(1, "gpt"));
    put("packet-1.ds.md", packetFile(packet(1, { packet_id: packetId(RUN, GATE, 1, "ds"), reviewer_provider: "ds" })));
    put("packet-2.md", packetFile(packet(2, { quorum: RULE })));
    put("result-1.gpt.json", '{"changed": true}\n');
    put(".verified/result-1.gpt.json", '{"sealed": true}\n');
    put(
      "verdict-1.gpt.json",
      JSON.stringify(
        verdict(1, "pass", { packet_id: packetId(RUN, GATE, 1, "gpt"), result_sha256: sha256Hex(Buffer.from('{"sealed": true}\n')) }),
      ),
    );
    const s = readGate(layout, RUN, GATE);
    const why = Object.fromEntries(s.problems.map((p) => [p.file, p.reason]));
    expect(why["packet-1.gem.md"]).toMatch(/not a quorum packet for reviewer gem/);
    expect(why["packet-1.ds.md"]).toMatch(/not a quorum packet for reviewer ds/);
    expect(why["packet-2.md"]).toMatch(/must name its reviewer/);
    expect(s.members.get("gpt")!.verdicts.size).toBe(0);
    expect(s.members.get("gpt")!.brokenSeals.get(1)).toMatch(/result-1\.gpt\.json changed after verification/);
  });

  it("a round whose member packets disagree on a round-wide field, or that also has a packet of its own, has no packet", () => {
    // a planted member that sorts first would otherwise set the cap, restart or rule the round is judged by
    const { layout, put, member } = gateDir();
    put("packet-1.gpt.md", member(1, "gpt"));
    put("packet-1.aaa.md", member(1, "aaa", { cap: 50 }));
    const s = readGate(layout, RUN, GATE);
    const why = Object.fromEntries(s.problems.map((p) => [p.file, p.reason]));
    expect(why["packet-1.aaa.md"]).toBe("round 1's quorum members' packets disagree on cap");
    expect(why["packet-1.gpt.md"]).toBe("round 1's quorum members' packets disagree on cap");
    expect([...s.members.values()].every((m) => m.packets.size === 0)).toBe(true);
    // a request.json a foreign tool wrote without the rule: the packets are the only word on it
    const other = gateDir();
    other.put("request.json", JSON.stringify(request()));
    other.put("packet-1.gpt.md", other.member(1, "gpt"));
    other.put("packet-1.md", packetFile(packet(1)));
    const t = readGate(other.layout, RUN, GATE);
    expect(t.problems.map((p) => p.file).sort()).toEqual(["packet-1.gpt.md", "packet-1.md"]);
    expect(t.problems[0]!.reason).toMatch(/^round 1 has a packet of its own and quorum members' packets/);
  });

  it("a member packet of a round no packet precedes is no round's: a far round number cannot become the open round", () => {
    const { layout, put, member } = gateDir();
    put("packet-1.gpt.md", member(1, "gpt"));
    put("packet-1.gem.md", member(1, "gem"));
    put("packet-2.gpt.md", member(2, "gpt"));
    put("packet-999999999.gpt.md", member(999999999, "gpt"));
    put("packet-999999999.gem.md", member(999999999, "gem"));
    const s = readGate(layout, RUN, GATE);
    expect(s.problems.map((p) => [p.file, p.reason])).toEqual([
      ["packet-999999999.gem.md", "no packet of round 999999998 precedes it"],
      ["packet-999999999.gpt.md", "no packet of round 999999998 precedes it"],
    ]);
    expect([...s.members.get("gpt")!.packets.keys()]).toEqual([1, 2]);
  });
});

describe("a failure that ends a dispatched member's part", () => {
  const attempt = (provider: string, keys: { end?: string } = {}) =>
    JSON.stringify({
      schema_version: "guild_bus.attempt.v1",
      run_id: RUN,
      gate: GATE,
      round: 1,
      packet_id: packetId(RUN, GATE, 1, provider),
      provider,
      worker: { host: "h", pid: 1 },
      started_at: "2026-01-01T00:00:00Z",
      delivery_key_sha256: sha256Hex("delivery"),
      ...(keys.end === undefined ? {} : { end_key_sha256: sha256Hex(keys.end) }),
    });
  const failure = (provider: string, kind: string, endKey?: string) =>
    JSON.stringify({
      schema_version: "guild_bus.failure.v1",
      run_id: RUN,
      gate: GATE,
      round: 1,
      packet_id: packetId(RUN, GATE, 1, provider),
      kind,
      reason: "the reviewer is unavailable",
      ...(endKey === undefined ? {} : { end_key: endKey }),
      at: "2026-01-01T00:00:01Z",
    });
  function gate() {
    const root = tempRoot("guild-bus-quorum-");
    const layout = new Layout(root);
    const dir = layout.gateDir(RUN, GATE);
    mkdirSync(dir, { recursive: true });
    const put = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
    put("request.json", JSON.stringify(request({ quorum: RULE })));
    for (const provider of ["gpt", "gem"])
      put(
        `packet-1.${provider}.md`,
        packetFile(packet(1, { packet_id: packetId(RUN, GATE, 1, provider), reviewer_provider: provider, quorum: RULE })),
      );
    return { layout, put };
  }

  it("counts only with the end key its worker's attempt recorded: a dropped one does not silence the member", () => {
    const { layout, put } = gate();
    put("attempt-1.gem.json", attempt("gem", { end: "the end key" }));
    put("failure-1.gem.json", failure("gem", "unavailable"));
    let s = readGate(layout, RUN, GATE);
    expect(s.members.get("gem")!.failures.size).toBe(0);
    expect(s.problems).toEqual([
      expect.objectContaining({ file: "failure-1.gem.json", reason: expect.stringContaining("its end key is missing or wrong") }),
    ]);
    put("failure-1.gem.json", failure("gem", "malformed", "another key"));
    expect(readGate(layout, RUN, GATE).members.get("gem")!.failures.size).toBe(0);
    put("failure-1.gem.json", failure("gem", "unavailable", "the end key"));
    s = readGate(layout, RUN, GATE);
    expect(s.problems).toEqual([]);
    expect(s.members.get("gem")!.failures.get(1)).toMatchObject({ kind: "unavailable" });
  });

  it("without a dispatch of its packet recorded, with its end key, is nobody's; no_verdict (a person decides) is taken", () => {
    const { layout, put } = gate();
    put("failure-1.gpt.json", failure("gpt", "unavailable"));
    expect(readGate(layout, RUN, GATE).problems).toEqual([
      expect.objectContaining({ file: "failure-1.gpt.json", reason: expect.stringContaining("no dispatch was recorded") }),
    ]);
    put("failure-1.gpt.json", failure("gpt", "no_verdict"));
    // an attempt without an end key (dropped with the failure, or from a bus before end keys) proves no dispatch
    put("attempt-1.gem.json", attempt("gem"));
    put("failure-1.gem.json", failure("gem", "unavailable"));
    let s = readGate(layout, RUN, GATE);
    expect(s.members.get("gpt")!.failures.get(1)).toMatchObject({ kind: "no_verdict" });
    expect(s.members.get("gem")!.failures.size).toBe(0);
    expect(s.problems).toEqual([
      expect.objectContaining({ file: "failure-1.gem.json", reason: expect.stringContaining("is not a dispatch of this packet") }),
    ]);
    // nor one recorded for another packet, whatever key it holds
    put("attempt-1.gem.json", JSON.stringify({ ...JSON.parse(attempt("gem", { end: "k" })), packet_id: packetId(RUN, GATE, 1, "gpt") }));
    put("failure-1.gem.json", failure("gem", "unavailable", "k"));
    s = readGate(layout, RUN, GATE);
    expect(s.members.get("gem")!.failures.size).toBe(0);
  });
});
