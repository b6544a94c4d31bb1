// Property (bus-spec/SPEC.md §5, §11, §15): whatever the interleaving of results delivered and replaced, junk verdicts
// dropped, artifact edits, and broker and verifier passes (a worker that is killed and restarted is one that skips
// passes and then runs again: they keep no state but the files), no gate ends `satisfied` unless, when its outcome
// is written, the artifact on disk is the bytes the verdict verified and the result on disk is the bytes it bound.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readArtifact } from "../../src/bus/artifact.js";
import { stepGate } from "../../src/workers/broker.js";
import { requestReview } from "../../src/commands/review.js";
import { Layout } from "../../src/bus/layout.js";
import { sha256Hex } from "../../src/core/sha.js";
import { loadContext } from "../../src/bus/context.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";
import { forgedPassingVerdict } from "../helpers/forged.js";

const GATE = "G-spec";
const RUN = "prop";
const TEXTS = ["# Spec\n\nv1\n", "# Spec\n\nv2 edited\n", "# Spec\n\nv3 edited again\n"];

type Step =
  | { do: "result"; verdict: "satisfied" | "issues"; stale: boolean }
  | { do: "replace"; verdict: "satisfied" | "issues"; previous: boolean }
  | { do: "remove-result"; previous: boolean }
  | { do: "junk-verdict"; kind: "json" | "other-packet" | "unbound" }
  | { do: "edit"; text: number }
  | { do: "broker" }
  | { do: "verifier" }
  | { do: "resubmit" }
  | { do: "decide-retry" };

// Weighted so that about one run in five ends satisfied: the property is about those.
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      do: fc.constant("result" as const),
      verdict: fc.constantFrom("satisfied" as const, "satisfied" as const, "issues" as const),
      stale: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      do: fc.constant("replace" as const),
      verdict: fc.constantFrom("satisfied" as const, "issues" as const),
      previous: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ do: fc.constant("remove-result" as const), previous: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      do: fc.constant("junk-verdict" as const),
      kind: fc.constantFrom("json" as const, "other-packet" as const, "unbound" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ do: fc.constant("edit" as const), text: fc.integer({ min: 0, max: TEXTS.length - 1 }) }) },
  { weight: 5, arbitrary: fc.constant({ do: "broker" as const }) },
  { weight: 5, arbitrary: fc.constant({ do: "verifier" as const }) },
  { weight: 2, arbitrary: fc.constant({ do: "resubmit" as const }) },
  { weight: 2, arbitrary: fc.constant({ do: "decide-retry" as const }) },
);

function field(text: string, name: string): string | null {
  return new RegExp(`^${name}: (.+)$`, "m").exec(text)?.[1]?.replace(/^"|"$/g, "") ?? null;
}

async function play(steps: Step[]): Promise<void> {
  const root = tempRoot("guild-bus-prop-");
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ foreign_grace_ms: 0 }));
  writeFileSync(path.join(root, "docs", "spec.md"), TEXTS[0]!);
  const layout = new Layout(root);
  expect(
    await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: RUN }),
  ).toMatchObject({
    ok: true,
  });
  const dir = layout.gateDir(RUN, GATE);
  const file = (name: string) => path.join(dir, name);
  const openRound = () => {
    let r = 0;
    while (existsSync(file(`packet-${r + 1}.md`))) r++;
    return r;
  };
  let serial = 0; // makes every written file distinct, deterministically (fast-check can replay and shrink)
  const put = (name: string, text: string) => {
    const tmp = path.join(root, `.tmp-${++serial}`);
    writeFileSync(tmp, text);
    renameSync(tmp, file(name)); // a foreign writer: write elsewhere, move into place (replacing whatever is there)
  };
  const result = (round: number, verdict: string, stale: boolean) => {
    const packet = readFileSync(file(`packet-${round}.md`), "utf8");
    const sha = stale ? sha256Hex("not the reviewed bytes") : field(packet, "artifact_sha256");
    const blocking = verdict === "issues" ? `[{"severity":"blocking","title":"t"}]` : "[]";
    return (
      `{"schema_version":"review_result.v1","packet_id":"${field(packet, "packet_id")}","artifact_sha256_reviewed":"${sha}",` +
      `"verdict":"${verdict}","blocking_findings":${blocking},"reviewer_model":"gpt-5","n":${++serial}}\n`
    );
  };
  /** Rounds whose result file was replaced or removed after the verifier sealed it. */
  const tampered = new Set<number>();
  let outcomeSeen = false;
  const quiet = () => {};
  for (const s of steps) {
    const ctx = loadContext(layout); // every pass reloads, as a restarted worker would
    const R = openRound();
    if (s.do === "broker") {
      await stepGate(ctx, RUN, GATE).catch(() => undefined);
      // after its own packet a step plans from memory: what it left must be what the files give
      const trail = existsSync(file("trail.md")) ? readFileSync(file("trail.md"), "utf8") : null;
      const ino = trail === null ? null : statSync(file("trail.md")).ino;
      const again = await stepGate(loadContext(layout), RUN, GATE).catch(() => null);
      if (again) {
        expect(again.delivered.map((d) => d.name)).toEqual([]);
        expect(readFileSync(file("trail.md"), "utf8")).toBe(trail);
        // and the same text is not written again (a finished gate's directory mtime must settle)
        expect(statSync(file("trail.md")).ino).toBe(ino);
      }
    } else if (s.do === "verifier") await verifyGate(ctx, RUN, GATE, quiet);
    else if (s.do === "edit") writeFileSync(path.join(root, "docs", "spec.md"), TEXTS[s.text]!);
    else if (R > 0) {
      if (s.do === "result" && !existsSync(file(`result-${R}.json`))) put(`result-${R}.json`, result(R, s.verdict, s.stale));
      if (s.do === "replace" || s.do === "remove-result") {
        const target = Math.max(1, R - (s.previous ? 1 : 0));
        if (existsSync(file(`result-${target}.json`))) {
          // tampering is replacing what the verifier verified (sealed); a result replaced before that is just a new answer
          if (existsSync(path.join(dir, ".verified", `result-${target}.json`))) tampered.add(target);
          if (s.do === "replace") put(`result-${target}.json`, result(target, s.verdict, false));
          else renameSync(file(`result-${target}.json`), path.join(root, `.gone-${++serial}`));
        }
      }
      if (s.do === "junk-verdict" && !existsSync(file(`verdict-${R}.json`))) {
        const packet = readFileSync(file(`packet-${R}.md`), "utf8");
        const forged = forgedPassingVerdict({
          run: RUN,
          gate: GATE,
          round: R,
          packetId: s.kind === "other-packet" ? "G-spec-elsewhere-r1" : field(packet, "packet_id"),
          resultSha: sha256Hex(`no such result ${++serial}`),
          artifactSha: field(packet, "artifact_sha256"),
        });
        put(`verdict-${R}.json`, s.kind === "json" ? "{ junk" : JSON.stringify(forged));
      }
      if (s.do === "resubmit" && !existsSync(file(`resubmit-${R}.json`))) {
        put(
          `resubmit-${R}.json`,
          JSON.stringify({
            schema_version: "guild_bus.resubmit.v1",
            run_id: RUN,
            gate: GATE,
            after_round: R,
            at: new Date().toISOString(),
          }),
        );
      }
      if (s.do === "decide-retry" && existsSync(file(`escalation-${R}.json`)) && !existsSync(file(`decision-${R}.json`))) {
        const esc = JSON.parse(readFileSync(file(`escalation-${R}.json`), "utf8")) as { options: string[] };
        if (esc.options.includes("retry"))
          put(
            `decision-${R}.json`,
            JSON.stringify({
              schema_version: "guild_bus.decision.v1",
              run_id: RUN,
              gate: GATE,
              round: R,
              choice: "retry",
              at: new Date().toISOString(),
            }),
          );
      }
    }
    if (!outcomeSeen && existsSync(file("outcome.json"))) {
      outcomeSeen = true;
      const outcome = JSON.parse(readFileSync(file("outcome.json"), "utf8")) as {
        status: string;
        satisfied_at_round?: number;
        artifact_sha256: string | null;
      };
      if (outcome.status !== "satisfied") continue;
      const n = outcome.satisfied_at_round!;
      const verdict = JSON.parse(readFileSync(file(`verdict-${n}.json`), "utf8")) as {
        result_sha256: string;
        gate_pass: { recomputed_sha256: string };
      };
      const artifact = readArtifact(layout, "docs/spec.md");
      // checked right after the step that wrote the outcome: nothing has touched the files since
      expect(artifact.ok && artifact.sha).toBe(verdict.gate_pass.recomputed_sha256);
      expect(outcome.artifact_sha256).toBe(verdict.gate_pass.recomputed_sha256);
      expect(sha256Hex(readFileSync(file(`result-${n}.json`)))).toBe(verdict.result_sha256);
      expect(JSON.parse(readFileSync(file(`result-${n}.json`), "utf8")).verdict).toBe("satisfied");
      expect(tampered.has(n), `round ${n} passed although its verified result was replaced or removed`).toBe(false);
    }
  }
}

describe("no false sign-off under any interleaving (property, SPEC §5 §11 §15)", () => {
  it("satisfied only for the verified bytes of an untouched result and the artifact as it is", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 80 }), play), { numRuns: 200 });
  }, 300_000);
});
