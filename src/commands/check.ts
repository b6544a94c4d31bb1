// `guild-bus check`: for CI and git hooks, re-derive from the files that each gate passed for the artifact bytes now
// in the tree — the outcome, the five conditions of its round (reverify), and strong independence unless allowed
// weak. Files are evidence, not a verdict: an outcome that does not re-derive fails like a missing one.
import type { BusContext } from "../bus/context.js";
import { settingsRefusal } from "../bus/settings-file.js";
import { listGates } from "../bus/gate-list.js";
import { assertGate, assertRunId, InvalidIdError } from "../spec/ids.js";
import { type Answer, refuse, refusing } from "./answer.js";
import type { CheckedGate, JudgeOptions } from "./check-judge.js";
import { assertGateExists } from "./gate-exists.js";
import { lineSafe } from "../core/terminal-safe.js";

export interface CheckOptions extends JudgeOptions {
  runId?: string;
  /** Only these gate names (default: every gate). */
  gates?: string[];
  /** Gate names that must be among the checked gates and pass. */
  require: string[];
  /** `GATE=GLOB`: every file of the tree the glob matches must be the artifact of a checked gate of that name that passes. */
  requireFiles?: string[];
}

/** A run or gate directory the bus refuses (a link in its place): it may hold the newest run, so it fails the check. */
export interface UnjudgedEntry {
  path: string;
  reason: string;
}

/** A file a `--require-files` glob matches that no checked gate of its gate name reviewed (`path` null: the glob
 * matched no file, and a misspelt glob must not require nothing). */
export interface UnreviewedFile {
  gate: string;
  pattern: string;
  path: string | null;
}

export type CheckResult = Answer<{
  passed: boolean;
  gates: CheckedGate[];
  missing: string[];
  unreviewed: UnreviewedFile[];
  unjudged: UnjudgedEntry[];
  lines: string[];
}>;

/** What `check --json` prints: every reason the check failed has its field, so a reader of the JSON alone never sees
 * each gate passed, nothing missing, and `passed: false` with no why. */
export function checkJson(r: Extract<CheckResult, { ok: true }>) {
  return { passed: r.passed, gates: r.gates, missing: r.missing, unreviewed: r.unreviewed, unjudged: r.unjudged };
}

/** `GATE=GLOB` split and checked; a malformed one is refused before anything is judged. */
function fileRequirement(spec: string): { gate: string; pattern: string } {
  const at = spec.indexOf("=");
  if (at < 0) throw new InvalidIdError("file requirement (expected GATE=GLOB, e.g. G-spec=docs/specs/*.md)", spec);
  return { gate: assertGate(spec.slice(0, at).trim()), pattern: spec.slice(at + 1) };
}

/** The files each requirement's glob matches that no checked gate of its name has as its artifact. */
async function unreviewedFiles(
  ctx: BusContext,
  required: Array<{ gate: string; pattern: string }>,
  gates: CheckedGate[],
): Promise<UnreviewedFile[]> {
  if (!required.length) return [];
  const { projectFiles } = await import("../bus/tree-files.js"); // the glob's modules: only for a check that needs them
  return required.flatMap(({ gate, pattern }): UnreviewedFile[] => {
    const files = projectFiles(ctx.layout, pattern);
    if (!files.length) return [{ gate, pattern, path: null }];
    const reviewed = (g: CheckedGate, f: string) => g.artifact_path !== null && ctx.layout.projectPath(g.artifact_path) === f;
    return files.filter((f) => !gates.some((g) => g.gate === gate && reviewed(g, f))).map((path) => ({ gate, pattern, path }));
  });
}

export function checkGates(ctx: BusContext, o: CheckOptions): Promise<CheckResult> {
  return refusing(async (): Promise<CheckResult> => {
    // a verdict for CI is never reached on settings the project did not write: a key dropped for one bad value (or a
    // file that does not parse) leaves defaults in its place, which may pass what the project's settings fail. The
    // CLI refused them before it got here; every other face (the MCP tool) is refused here, the same way
    const refusal = settingsRefusal(ctx.layout, ctx.settingsProblems);
    if (refusal) return refuse(`${refusal}; no gate was judged — fix the settings first`);
    const runId = o.runId === undefined ? undefined : assertRunId(o.runId);
    if (runId !== undefined) assertGateExists(ctx.layout, runId);
    const byFile = (o.requireFiles ?? []).map(fileRequirement);
    const wanted = new Set<string>([...(o.gates ?? []), ...o.require, ...byFile.map((r) => r.gate)].map((g) => assertGate(g)));
    const listing = listGates(ctx.layout, runId);
    // a run or gate of a valid name the workers refuse (a link, say) cannot be judged: it could hold the newest run
    const unjudged = listing.ignored.filter((i) => i.hides && (i.hides.gate === undefined || !wanted.size || wanted.has(i.hides.gate)));
    const listed = listing.gates.filter((r) => !wanted.size || wanted.has(r.gate));
    // the judging (the gate reader, the schemas, the packet proof) is loaded only when there is a gate to judge
    const gates = listed.length ? (await import("./check-judge.js")).judgeGates(ctx, listed, runId, o) : [];
    const missing = o.require.filter((g) => !gates.some((c) => c.gate === g));
    const unreviewed = await unreviewedFiles(ctx, byFile, gates);
    const inRun = runId ? ` ${runId}` : "";
    const lines = [
      // one line per gate: an artifact path or reason from a planted file cannot print a PASS line of its own
      ...gates.map((g) => lineSafe(`${g.passed ? "PASS" : "FAIL"} ${g.run_id} ${g.gate} ${g.artifact_path ?? "-"}: ${g.reason}`)),
      ...missing.map((g) => `FAIL ${g}: required, but no run${inRun} has this gate`),
      ...unreviewed.map((u) =>
        lineSafe(
          u.path === null
            ? `FAIL ${u.gate}=${u.pattern}: no file in the tree matches it (a misspelt pattern would require nothing)`
            : `FAIL ${u.gate} ${u.path}: required by ${u.gate}=${u.pattern}, but no run${inRun} reviewed this file at this gate`,
        ),
      ),
      ...unjudged.map((i) => lineSafe(`FAIL ${i.path}: cannot be judged (${i.reason}); move it aside or make it a directory`)),
    ];
    if (!lines.length) lines.push("FAIL no gates to check under .guild/runs");
    const passed = gates.length > 0 && !missing.length && !unreviewed.length && !unjudged.length && gates.every((g) => g.passed);
    return { ok: true, passed, gates, missing, unreviewed, unjudged: unjudged.map((i) => ({ path: i.path, reason: i.reason })), lines };
  });
}
