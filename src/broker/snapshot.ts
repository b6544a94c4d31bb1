// A snapshot of one gate directory: every file parsed and validated, problems listed. Reading only.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { GATE_FILES, type Layout, parseRoundFile } from "../layout.js";
import {
  Attempt, Decision, describeIssues, Escalation, Failure, Outcome, type PacketFrontMatter, Request, Resubmit, VerdictFile,
} from "../spec/schemas.js";
import { parsePacket } from "./packet-format.js";

export interface GateSnapshot {
  runId: string;
  gate: string;
  dir: string;
  request: Request | null;
  packets: Map<number, PacketFrontMatter>;
  attempts: Map<number, z.infer<typeof Attempt>>;
  results: Map<number, { mtimeMs: number }>;
  responses: Map<number, { mtimeMs: number }>;
  failures: Map<number, Failure>;
  verdicts: Map<number, VerdictFile>;
  resubmits: Set<number>;
  escalations: Map<number, Escalation>;
  decisions: Map<number, Decision>;
  outcome: Outcome | null;
  rejected: string[];
  /** Files present but unreadable or invalid, with the reason. */
  problems: Array<{ file: string; reason: string }>;
  /** Cheap change detector: sorted names with sizes. */
  fingerprint: string;
}

export function emptySnapshot(runId: string, gate: string, dir: string): GateSnapshot {
  return {
    runId, gate, dir, request: null, packets: new Map(), attempts: new Map(), results: new Map(), responses: new Map(),
    failures: new Map(), verdicts: new Map(), resubmits: new Set(), escalations: new Map(), decisions: new Map(),
    outcome: null, rejected: [], problems: [], fingerprint: "",
  };
}

function readJson<T>(file: string, schema: z.ZodType<T>): { value: T | null; reason?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return { value: null, reason: (error as NodeJS.ErrnoException).code ? `unreadable: ${(error as Error).message}` : "not valid JSON" };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { value: parsed.data } : { value: null, reason: describeIssues(parsed.error).join("; ") };
}

export function readGate(layout: Layout, runId: string, gate: string): GateSnapshot {
  const dir = layout.gateDir(runId, gate);
  const snap = emptySnapshot(runId, gate, dir);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return snap;
  }
  const prints: string[] = [];
  const take = <T>(name: string, schema: z.ZodType<T>, expect: (v: T) => boolean, put: (v: T) => void) => {
    const { value, reason } = readJson(path.join(dir, name), schema);
    if (value === null) snap.problems.push({ file: name, reason: reason ?? "invalid" });
    else if (!expect(value)) snap.problems.push({ file: name, reason: "names another run, gate or round" });
    else put(value);
  };
  const same = (v: { run_id: string; gate: string }) => v.run_id === runId && v.gate === gate;
  for (const name of names) {
    let st;
    try {
      st = statSync(path.join(dir, name));
    } catch {
      continue;
    }
    if (name !== GATE_FILES.trail) prints.push(`${name}:${st.size}`);
    if (name === "rejected" && st.isDirectory()) {
      try {
        snap.rejected = readdirSync(path.join(dir, name)).filter((n) => !n.endsWith(".reason.json")).sort();
      } catch {
        // listing is best-effort
      }
      continue;
    }
    if (!st.isFile()) continue;
    if (name === GATE_FILES.request) take(name, Request, same, (v) => (snap.request = v));
    else if (name === GATE_FILES.outcome) take(name, Outcome, same, (v) => (snap.outcome = v));
    else {
      const parsed = parseRoundFile(name);
      if (!parsed) continue;
      const { kind, round } = parsed;
      const atRound = (v: { round: number }) => v.round === round;
      switch (kind) {
        case "packet": {
          let text = "";
          try {
            text = readFileSync(path.join(dir, name), "utf8");
          } catch (error) {
            snap.problems.push({ file: name, reason: `unreadable: ${(error as Error).message}` });
            break;
          }
          const { front, problems } = parsePacket(text);
          if (!front) snap.problems.push({ file: name, reason: problems.join("; ") });
          else if (front.round !== round || front.run_id !== runId || front.gate !== gate) snap.problems.push({ file: name, reason: "front matter names another run, gate or round" });
          else snap.packets.set(round, front);
          break;
        }
        case "attempt": take(name, Attempt, (v) => same(v) && atRound(v), (v) => snap.attempts.set(round, v)); break;
        case "result": snap.results.set(round, { mtimeMs: st.mtimeMs }); break;
        case "response": snap.responses.set(round, { mtimeMs: st.mtimeMs }); break;
        case "failure": take(name, Failure, (v) => same(v) && atRound(v), (v) => snap.failures.set(round, v)); break;
        case "verdict": take(name, VerdictFile, (v) => same(v) && atRound(v), (v) => snap.verdicts.set(round, v)); break;
        case "resubmit": take(name, Resubmit, (v) => same(v) && v.after_round === round, () => snap.resubmits.add(round)); break;
        case "escalation": take(name, Escalation, (v) => same(v) && atRound(v), (v) => snap.escalations.set(round, v)); break;
        case "decision": take(name, Decision, (v) => same(v) && atRound(v), (v) => snap.decisions.set(round, v)); break;
      }
    }
  }
  snap.fingerprint = prints.join("|");
  return snap;
}
