import { describe, expect, it } from "vitest";
import { evaluateGatePass } from "../../src/core/gate-pass.js";
import { sha256Hex } from "../../src/core/sha.js";

const artifact = Buffer.from("# Spec\nThe widget shall frobnicate.\n");
const sha = sha256Hex(artifact);
const good = { packet_id: "G-spec-run1-r1", artifact_sha256_reviewed: sha, verdict: "satisfied", blocking_findings: [] };
const run = (result: object | string | null, opts: { packetId?: string; forcePass?: boolean } = {}) =>
  evaluateGatePass({
    resultRaw: result === null ? null : typeof result === "string" ? result : JSON.stringify(result),
    artifactBytes: artifact,
    packetId: "packetId" in opts ? opts.packetId : "G-spec-run1-r1",
    forcePass: opts.forcePass,
  });

describe("gate-pass: five checksum-bound conditions", () => {
  it("passes only when all five hold", () => {
    const r = run(good);
    expect(r).toEqual({
      pass: true,
      conditions: { parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: true },
      recomputed_sha256: sha,
      reasons: [],
    });
  });

  it("fails on each condition alone, with a reason for it", () => {
    const cases: Array<[string, object, keyof ReturnType<typeof run>["conditions"], RegExp]> = [
      ["packet", { ...good, packet_id: "other" }, "packet_id_match", /packet_id mismatch/],
      [
        "sha",
        { ...good, artifact_sha256_reviewed: "0".repeat(64) },
        "sha256_match",
        /artifact changed since its packet, or the result did not copy/,
      ],
      ["verdict", { ...good, verdict: "issues" }, "satisfied", /not "satisfied"/],
      ["blockers", { ...good, blocking_findings: [{ severity: "blocking", title: "x" }] }, "no_blockers", /1 blocking/],
    ];
    for (const [, result, condition, reason] of cases) {
      const r = run(result);
      expect(r.pass).toBe(false);
      const failing = Object.entries(r.conditions)
        .filter(([, v]) => !v)
        .map(([k]) => k);
      expect(failing).toEqual([condition]);
      expect(r.reasons).toHaveLength(1);
      expect(r.reasons[0]).toMatch(reason);
    }
  });

  it("reports every failing condition together", () => {
    const r = run({ ...good, packet_id: "x", artifact_sha256_reviewed: "ab", verdict: "issues", blocking_findings: [1, 2] });
    expect(r.conditions).toEqual({ parses: true, packet_id_match: false, sha256_match: false, satisfied: false, no_blockers: false });
    expect(r.reasons).toHaveLength(4);
  });

  it("a missing result fails every condition except a forced verdict", () => {
    expect(run(null)).toMatchObject({ pass: false, reasons: ["result file unreadable"], conditions: { parses: false, satisfied: false } });
    expect(run(null, { forcePass: true }).conditions.satisfied).toBe(true);
    expect(run(null, { forcePass: true }).pass).toBe(false);
  });

  it("an unparseable result lists every parse problem", () => {
    const r = run({ verdict: "" });
    expect(r.conditions.parses).toBe(false);
    expect(r.reasons).toEqual([
      "parse: missing required field: packet_id",
      "parse: missing required field: artifact_sha256_reviewed",
      "parse: verdict: must be a non-blank string",
      "parse: missing required field: blocking_findings",
    ]);
    expect(run("not json").reasons).toEqual(["parse: result is not valid JSON"]);
    expect(run("[]").reasons).toEqual(["parse: result is not a JSON object"]);
  });

  it("compares sha256 case-insensitively and hashes exactly the given bytes", () => {
    expect(run({ ...good, artifact_sha256_reviewed: sha.toUpperCase() }).pass).toBe(true);
    const other = evaluateGatePass({
      resultRaw: JSON.stringify(good),
      artifactBytes: Buffer.concat([artifact, Buffer.from(" ")]),
      packetId: good.packet_id,
    });
    expect(other.conditions.sha256_match).toBe(false);
  });

  it("force-pass relaxes only the verdict", () => {
    expect(run({ ...good, verdict: "issues" }, { forcePass: true }).pass).toBe(true);
    expect(run({ ...good, blocking_findings: [{}] }, { forcePass: true }).pass).toBe(false);
    expect(run({ ...good, artifact_sha256_reviewed: "1".repeat(64) }, { forcePass: true }).pass).toBe(false);
    expect(run({ ...good, packet_id: "nope" }, { forcePass: true }).pass).toBe(false);
  });

  it("without a packet id the packet condition holds vacuously (Guild-compatible)", () => {
    expect(run({ ...good, packet_id: "anything" }, { packetId: undefined }).conditions.packet_id_match).toBe(true);
  });

  it("only the exact string 'satisfied' satisfies", () => {
    for (const verdict of ["Satisfied", "SATISFIED", "satisfied ", "pass"]) {
      expect(run({ ...good, verdict }).conditions.satisfied).toBe(false);
    }
  });

  it("a satisfied result whose findings hold a blocking item fails no_blockers (§11: an extension of Guild's gate)", () => {
    // as a reader sees it: full-width, or with a character drawn as nothing inside (a foreign writer's result file)
    const unseen = ["\uff22\uff2c\uff2f\uff23\uff2b\uff29\uff2e\uff27", "block\u200bing", "block\ufe0fing", "\u1160blocking"];
    for (const severity of ["blocking", "BLOCKING", " Blocking ", ...unseen]) {
      const r = run({
        ...good,
        findings: [
          { severity: "info", title: "nit" },
          { severity, title: "no rollback" },
        ],
      });
      expect(r.pass).toBe(false);
      expect(r.conditions).toEqual({ parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: false });
      expect(r.reasons).toEqual(["findings holds 1 item(s) of severity blocking, though blocking_findings is empty"]);
    }
    // items of other severities, or of no recognisable shape, are not blockers (the lenient reader does not inspect them)
    expect(run({ ...good, findings: [{ severity: "high", title: "x" }, "blocking", null, 3, { severity: ["blocking"] }] }).pass).toBe(true);
    // a lone finding in place of the list is refused, as the answer reader refuses it (§9): never passed over
    expect(run({ ...good, findings: { severity: "blocking" } })).toMatchObject({
      pass: false,
      conditions: { parses: false },
      reasons: ['parse: findings: must be an array (got {"severity":"blocking"})'],
    });
    // both at once: one reason, the blocking_findings count
    expect(
      run({ ...good, findings: [{ severity: "blocking", title: "x" }], blocking_findings: [{ severity: "blocking", title: "x" }] }).reasons,
    ).toEqual(["1 blocking finding(s) remain"]);
  });

  it("a result with a repeated key does not parse, naming the key: the last verdict never wins (§8.1)", () => {
    const raw = JSON.stringify({ ...good, verdict: "issues", blocking_findings: [{ severity: "blocking", title: "x" }] }).replace(
      /}$/,
      ',"verdict":"satisfied","blocking_findings":[]}',
    );
    const r = run(raw);
    expect(r.pass).toBe(false);
    expect(r.conditions).toEqual({ parses: false, packet_id_match: false, sha256_match: false, satisfied: false, no_blockers: false });
    expect(r.reasons).toEqual([
      'parse: result is not valid JSON: duplicate key "verdict", "blocking_findings" (each key may appear once per object)',
    ]);
  });

  it("a result nested 100 000 levels deep does not parse, and does not overflow the stack", () => {
    const raw = JSON.stringify(good).replace(/}$/, `,"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(run(raw).reasons).toEqual(["parse: result is not valid JSON: nested deeper than 64 levels"]);
  });
});
