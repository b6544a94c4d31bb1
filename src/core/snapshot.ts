// A gate directory as the core sees it: every valid file parsed, every problem listed (bus/gate-reader.ts reads it).
import type { z } from "zod";
import type { Attempt, Decision, Escalation, Failure, Outcome, PacketFrontMatter, Request, VerdictFile } from "../spec/schemas.js";

/** Directories the bus itself keeps in a gate directory. */
export const BUS_DIRS: ReadonlySet<string> = new Set(["rejected", ".claims", ".verified"]);

/** A foreign writer that writes in place gets this long to finish before its invalid file is quarantined. */
export const FOREIGN_GRACE_MS = 10_000;

export interface Problem {
  file: string;
  reason: string;
  mtimeMs: number;
}

export interface GateSnapshot {
  runId: string;
  gate: string;
  dir: string;
  request: Request | null;
  packets: Map<number, PacketFrontMatter>;
  attempts: Map<number, z.infer<typeof Attempt>>;
  results: Map<number, { mtimeMs: number; size: number }>;
  responses: Map<number, { mtimeMs: number; size: number }>;
  failures: Map<number, Failure>;
  verdicts: Map<number, VerdictFile>;
  /**
   * Rounds whose result is no longer the bytes the verifier sealed in `.verified/result-<n>.json` before it wrote
   * the verdict: changed, replaced or removed after verification. Such a round can never pass (SPEC §15).
   */
  brokenSeals: Map<number, string>;
  resubmits: Set<number>;
  /** Rounds whose reviewer left a memory-<n>.md (hard and nightmare difficulty); read when a packet is built. */
  memories: Set<number>;
  /** Rounds the author contested with rebuttal-<n>.md; read when the ruling packet is built. */
  rebuttals: Set<number>;
  escalations: Map<number, Escalation>;
  decisions: Map<number, Decision>;
  outcome: Outcome | null;
  /** Files moved to rejected/, with the reason recorded beside each. */
  rejected: Array<{ file: string; reason: string }>;
  /** Files present but unreadable or invalid, with the reason. */
  problems: Problem[];
  /** Cheap change detector: sorted names with sizes. */
  fingerprint: string;
}

export function emptySnapshot(runId: string, gate: string, dir: string): GateSnapshot {
  return {
    runId,
    gate,
    dir,
    request: null,
    packets: new Map(),
    attempts: new Map(),
    results: new Map(),
    responses: new Map(),
    failures: new Map(),
    verdicts: new Map(),
    brokenSeals: new Map(),
    resubmits: new Set(),
    memories: new Set(),
    rebuttals: new Set(),
    escalations: new Map(),
    decisions: new Map(),
    outcome: null,
    rejected: [],
    problems: [],
    fingerprint: "",
  };
}
