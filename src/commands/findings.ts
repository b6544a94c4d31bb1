// What a round's reviewer said, as the author reads it: verdict, summary and each finding (severity, title, detail,
// evidence), scrubbed as the trail is (results may come from foreign writers). The one reader for every face:
// `status` (last_round), the MCP `findings` and `wait` tools, the stop hook.
import type { BusContext } from "../bus/context.js";
import { readGate } from "../bus/gate-reader.js";
import { listedFindings } from "../core/findings.js";
import { openRound } from "../core/gate-queries.js";
import type { GateSnapshot } from "../core/snapshot.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { gateReads } from "../workers/gate-reads.js";
import { type Answer, refuse, refusing } from "./answer.js";

export interface RoundFinding {
  severity: string | null;
  title: string;
  detail: string | null;
  evidence: string | null;
}

export interface RoundFindings {
  round: number;
  verdict: string;
  summary: string | null;
  reviewer_model: string | null;
  findings: RoundFinding[];
  /** Findings past the listed ones, counted only. */
  more: number;
  result_path: string;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);

/** One finding as a line of text (the stop hook's block reason, the MCP wait answer). */
export const findingLine = (f: RoundFinding): string => `- [${f.severity ?? "finding"}] ${f.title}${f.detail ? `: ${f.detail}` : ""}`;

/** Round `round`'s result as the author reads it, or null when it has none that parses. */
export function findingsOf(ctx: BusContext, s: GateSnapshot, round: number): RoundFindings | null {
  const result = gateReads(ctx, s).result(round);
  if (!result) return null;
  const { findings, more } = listedFindings(result.findings ?? result.blocking_findings);
  return {
    round,
    verdict: result.verdict,
    summary: text(result.summary),
    reviewer_model: text(result.reviewer_model) ?? text(s.packets.get(round)?.reviewer_model),
    findings: findings.map((f) => ({
      severity: f.severity ?? null,
      title: f.title,
      detail: f.detail ?? null,
      evidence: f.evidence ?? null,
    })),
    more,
    result_path: ctx.layout.rel(ctx.layout.gateFile(s.runId, s.gate, `result-${round}.json`)),
  };
}

/** The findings of `round` (default: the newest round that has a result). */
export function roundFindings(
  ctx: BusContext,
  run: string,
  gate: string,
  round?: number,
): Answer<RoundFindings & { run_id: string; gate: string }> {
  return refusing(() => {
    const s = readGate(ctx.layout, assertRunId(run), assertGate(gate));
    if (!s.request) return refuse(`${run} ${gate}: no such gate`);
    const newest = [...s.results.keys()].filter((n) => n <= openRound(s)).sort((a, b) => b - a)[0];
    const n = round ?? newest;
    if (n === undefined || !s.results.has(n))
      return refuse(`${run} ${gate}: ${round === undefined ? "no round has a result yet" : `round ${round} has no result`}`);
    const found = findingsOf(ctx, s, n);
    return found ? { ok: true, run_id: s.runId, gate: s.gate, ...found } : refuse(`result-${n}.json is not a readable result`);
  });
}
