// What a round's reviewer said, as the author reads it: verdict, summary and each finding (title, severity, detail,
// evidence). The one reader for every face (MCP `findings`, the stop hook, `status --json`).
import type { BusContext } from "../bus/context.js";
import { readGate, resultBytes } from "../bus/gate-reader.js";
import { listedFindings } from "../core/findings.js";
import { openRound } from "../core/gate-queries.js";
import { parseReviewResult } from "../core/result-wire.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { type Answer, refuse, refusing } from "./answer.js";

export interface RoundFinding {
  title: string;
  severity?: string;
  detail?: string;
  evidence?: string;
}

export interface RoundFindings {
  run_id: string;
  gate: string;
  round: number;
  verdict: string;
  summary: string | null;
  reviewer_model: string | null;
  findings: RoundFinding[];
  /** Findings past the listed ones, counted only. */
  more: number;
  result_path: string;
}

/** The findings of `round` (default: the newest round that has a result). */
export function roundFindings(ctx: BusContext, run: string, gate: string, round?: number): Answer<RoundFindings> {
  return refusing(() => {
    const s = readGate(ctx.layout, assertRunId(run), assertGate(gate));
    if (!s.request) return refuse(`${run} ${gate}: no such gate`);
    const newest = [...s.results.keys()].filter((n) => n <= openRound(s)).sort((a, b) => b - a)[0];
    const n = round ?? newest;
    if (n === undefined || !s.results.has(n))
      return refuse(`${run} ${gate}: ${round === undefined ? "no round has a result yet" : `round ${round} has no result`}`);
    const bytes = resultBytes(s, n);
    if (!bytes.ok) return refuse(`result-${n}.json: ${bytes.reason}`);
    const parsed = parseReviewResult(bytes.text).result;
    if (!parsed) return refuse(`result-${n}.json is not a valid result`);
    const { findings, more } = listedFindings(parsed.findings ?? parsed.blocking_findings);
    const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);
    return {
      ok: true,
      run_id: s.runId,
      gate: s.gate,
      round: n,
      verdict: parsed.verdict,
      summary: text(parsed.summary),
      reviewer_model: text(parsed.reviewer_model) ?? text(s.packets.get(n)?.reviewer_model),
      findings: findings.map(({ fields: _fields, ...f }) => f),
      more,
      result_path: ctx.layout.rel(ctx.layout.gateFile(s.runId, s.gate, `result-${n}.json`)),
    };
  });
}
