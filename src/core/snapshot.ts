// A gate directory as the core sees it: every valid file parsed, every problem listed (bus/gate-reader.ts reads it).
import type * as z from "zod/mini";
import type {
  Attempt,
  Decision,
  Escalation,
  Failure,
  FamilyMaps,
  Outcome,
  PacketFrontMatter,
  Request,
  VerdictFile,
} from "../spec/schemas.js";
import { packetMember } from "./slot-file.js";

/** Directories the bus itself keeps in a gate directory. */
export const BUS_DIRS: ReadonlySet<string> = new Set(["rejected", ".claims", ".verified"]);

/** A foreign writer that writes in place gets this long to finish before its invalid file is quarantined. */
export const FOREIGN_GRACE_MS = 10_000;

export interface Problem {
  file: string;
  reason: string;
  mtimeMs: number;
  /** The system failed the read (EIO, EMFILE…), not the file: the snapshot is incomplete, so no worker acts on it. */
  fault?: true;
  /** A path the bus writes is unusable (a symlinked `rejected/`, a directory at `trail.md`): a human must remove it. */
  blocks?: true;
  /** The open round's packet is not the broker's (workers/issued-packets.ts): no worker acts on its round's files. */
  unissued?: true;
  /** Kept where it is for the person who settles its round (a review may have been paid for it): never moved aside. */
  kept?: true;
}

/** A problem as a person reads it: the file (the gate directory for ".") and why it cannot be used. */
export function problemText(p: Problem): string {
  return `${p.file === "." ? "the gate directory" : p.file} — ${p.reason}`;
}

/** Why a gate has no request: none is there, or the request.json there cannot be used (and why). */
export function noRequestText(s: Pick<GateSnapshot, "problems">): string {
  const unusable = s.problems.find((p) => p.file === "request.json");
  return unusable ? problemText(unusable) : "no request.json";
}

/** A file as the gate read saw it: its mtime and size, and its version for the parse cache (bus/parse-cache.ts). */
export interface SeenFile {
  mtimeMs: number;
  size: number;
  version: string;
}

/**
 * One reviewer's files, by round: a gate's own (`packet-<n>.md`, …) or, in a quorum gate, one member's
 * (`packet-<n>.<provider>.md`, …; SPEC §26).
 */
export interface ReviewSlots {
  packets: Map<number, PacketFrontMatter>;
  attempts: Map<number, z.infer<typeof Attempt>>;
  results: Map<number, SeenFile>;
  responses: Map<number, SeenFile>;
  failures: Map<number, Failure>;
  verdicts: Map<number, VerdictFile>;
  /**
   * Rounds whose result is no longer the bytes the verifier sealed in `.verified/result-<n>.json` before it wrote
   * the verdict: changed, replaced or removed after verification. Such a round can never pass (SPEC §15).
   */
  brokenSeals: Map<number, string>;
  /** Rounds whose reviewer left a memory-<n>.md (hard and nightmare difficulty); read when a packet is built. */
  memories: Set<number>;
}

export interface GateSnapshot extends ReviewSlots {
  runId: string;
  gate: string;
  dir: string;
  request: Request | null;
  /** A quorum gate's reviewers, by provider id: each one's files of every round (SPEC §26). */
  members: Map<string, ReviewSlots>;
  /** null for the gate itself; a provider id for one quorum member's view (memberView): its slots, the gate's rest. */
  member: string | null;
  /** The family-maps-<sha>.json files whose bytes are the sha their name binds, by that sha (SPEC §7). */
  familyMaps: Map<string, FamilyMaps>;
  resubmits: Set<number>;
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

export function emptySlots(): ReviewSlots {
  return {
    packets: new Map(),
    attempts: new Map(),
    results: new Map(),
    responses: new Map(),
    failures: new Map(),
    verdicts: new Map(),
    brokenSeals: new Map(),
    memories: new Set(),
  };
}

export function emptySnapshot(runId: string, gate: string, dir: string): GateSnapshot {
  return {
    runId,
    gate,
    dir,
    request: null,
    ...emptySlots(),
    members: new Map(),
    member: null,
    familyMaps: new Map(),
    resubmits: new Set(),
    rebuttals: new Set(),
    escalations: new Map(),
    decisions: new Map(),
    outcome: null,
    rejected: [],
    problems: [],
    fingerprint: "",
  };
}

/** One quorum member's view of the gate: its files in the reviewer slots, everything else the gate's. */
export function memberView(s: GateSnapshot, provider: string): GateSnapshot {
  return { ...s, ...(s.members.get(provider) ?? emptySlots()), member: provider };
}

/** Every reviewer's view of the gate: the gate itself, then each quorum member's. */
export function reviewerViews(s: GateSnapshot): GateSnapshot[] {
  return [s, ...[...s.members.keys()].sort().map((m) => memberView(s, m))];
}

/** The gate as a read would find it once this packet is delivered, if nothing else changed meanwhile. */
export function withPacket(s: GateSnapshot, front: PacketFrontMatter): GateSnapshot {
  const member = packetMember(front);
  if (member === null) return { ...s, packets: new Map(s.packets).set(front.round, front) };
  const slots = s.members.get(member) ?? emptySlots();
  return { ...s, members: new Map(s.members).set(member, { ...slots, packets: new Map(slots.packets).set(front.round, front) }) };
}
