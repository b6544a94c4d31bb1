// Resolves what a request asks for against the settings: whether review is required, the cap, the mode, and the
// auto-review-loop modes (stop policy, difficulty, human checkpoint) with the reason a request cannot be served.
import { CLI_KINDS, FILE_READING_KINDS, isCliKind, readsFiles } from "./adapter-kinds.js";
import { didYouMean } from "./suggest.js";
import type { Difficulty, QuorumRule, Request, ReviewMode, Settings, StopPolicy } from "../spec/schemas.js";
import { quorumProblem } from "../spec/quorum-rule.js";
import { UNPRINTABLE } from "../spec/text-classes.js";
import { EVERY_LANE } from "../spec/ids.js";

export const MANUAL_PROVIDER = "manual";

export const DEFAULT_CAP = 5;
/** ARIS's MAX_ROUNDS: the default cap under the score stop policy. */
const DEFAULT_SCORE_CAP = 4;
export const MAX_CAP = 10;
export const DEFAULT_RESTART_CAP = 3;

export interface ResolvedPolicy {
  mode: ReviewMode;
  required: boolean;
  requiredBecause: string;
  cap: number;
  warnings: string[];
  restartCap: number;
  stop: StopPolicy;
  difficulty: Difficulty;
  humanCheckpoint: boolean;
  /** Escalate a loop that stopped making progress as `stalled` (§14.1). */
  stallDetection: boolean;
  /** A quorum gate's rule (SPEC §26): the request's, else settings.gate_quorum's; null for one reviewer a round. */
  quorum: QuorumRule | null;
  /** Why this request cannot be served as asked (the broker escalates request_refused before round 1); null if it can. */
  refusal: string | null;
}

/** A per-gate setting: the gate's own entry, else the G-lane entry for any lane gate. */
export function perGate<T>(record: Record<string, T> | undefined, gate: string): T | undefined {
  if (!record) return undefined;
  return record[gate] ?? (gate.startsWith(`${EVERY_LANE}:`) ? record[EVERY_LANE] : undefined);
}

/** The quorum a gate asks for: the request's rule, else its settings entry with need and of filled in. */
export function gateQuorum(request: Pick<Request, "quorum" | "gate">, settings: Settings): QuorumRule | null {
  if (request.quorum) return request.quorum;
  const entry = perGate(settings.gate_quorum, request.gate);
  if (!entry) return null;
  const named = entry.families?.length ?? 0;
  const need = entry.need ?? (named || entry.of || 1);
  return { need, of: entry.of ?? Math.max(need, named), ...(entry.families ? { families: entry.families } : {}) };
}

/** A reviewer name (a pin, a weak reviewer, a fallback) that names nothing the broker could select, and why; else null. */
export function unknownReviewer(id: string, settings: Settings): string | null {
  const known = ["auto", MANUAL_PROVIDER, ...CLI_KINDS, ...Object.keys(settings.providers ?? {})];
  if (known.includes(id)) return null;
  const choices = [...new Set(known)].join(", ");
  return `reviewer ${JSON.stringify(id)} is not a configured provider${didYouMean(id, known)}; choose one of: ${choices}`;
}

/** The provider a request pins (request, then settings), or null for auto. */
export function pinnedReviewer(request: Pick<Request, "reviewer">, settings: Settings): string | null {
  if (request.reviewer && request.reviewer !== "auto") return request.reviewer;
  return settings.reviewer && settings.reviewer !== "auto" ? settings.reviewer : null;
}

/** A project-relative name a request cannot carry, judged on the name alone (before any file is looked for). */
export function pathRefusal(paths: readonly string[]): string | null {
  for (const p of paths) {
    const drive = /^[A-Za-z]:/.exec(p)?.[0];
    // `c:notes.md` is a path on drive C (Windows reads it so), never a project path
    if (drive)
      return (
        `path ${JSON.stringify(p)} starts with a drive letter (${drive}), so it is not a project path: ` +
        `name it relative to the project root, without the drive (a file at the root whose own name starts with "${drive}" ` +
        "must be renamed or moved into a folder)"
      );
    if (!staysInside(p)) return `path ${JSON.stringify(p)} is not inside the project`;
    if (UNNAMEABLE.test(p))
      return `path ${JSON.stringify(p)} has a control, format, line-separator or backtick character: a packet cannot name it safely`;
  }
  return null;
}

/**
 * What a request cannot get, knowable from the request and the settings alone: nightmare needs a reviewer that
 * reads the repository itself, so a pinned manual, command or http reviewer is refused (ARIS refuses
 * nightmare + manual); and listed paths must stay inside the project.
 */
export function requestRefusal(
  request: Pick<Request, "reviewer" | "paths"> & Partial<Pick<Request, "artifact_path">>,
  settings: Settings,
  difficulty: Difficulty,
): string | null {
  const named = pathRefusal([...(request.artifact_path === undefined ? [] : [request.artifact_path]), ...(request.paths ?? [])]);
  if (named) return named;
  if (difficulty !== "nightmare") return null;
  const pin = pinnedReviewer(request, settings);
  if (!pin) return null;
  const adapter = settings.providers?.[pin]?.adapter ?? (pin === MANUAL_PROVIDER ? "manual" : isCliKind(pin) ? pin : null);
  if (adapter === null || readsFiles(adapter)) return null;
  return (
    `difficulty nightmare requires direct repository access and is not compatible with reviewer ${pin} (adapter ${adapter}); ` +
    `use difficulty hard, or a file-reading reviewer (${FILE_READING_KINDS.join(", ")})`
  );
}

/** The review a request gets: the mode asked (request, then settings), `cross` when a high risk or settings force one. */
export function reviewMode(
  request: Pick<Request, "review" | "risk">,
  settings: Settings,
): Pick<ResolvedPolicy, "mode" | "required" | "requiredBecause"> {
  const asked = request.review ?? settings.review ?? "cross";
  const forced = request.risk === "high" ? "risk high" : settings.require_review ? "settings require_review" : null;
  const required = asked !== "off" || forced !== null;
  const mode: ReviewMode = asked === "off" && forced ? "cross" : asked;
  const requiredBecause = asked !== "off" ? `review=${asked}` : forced ? `${forced} (review=off overridden)` : "review=off";
  return { mode, required, requiredBecause };
}

export function resolvePolicy(request: Request, settings: Settings): ResolvedPolicy {
  const warnings: string[] = [];
  const { mode, required, requiredBecause } = reviewMode(request, settings);
  const stop = request.stop ?? settings.stop ?? "verdict";
  const quorum = gateQuorum(request, settings);
  const difficulty = request.difficulty ?? settings.difficulty ?? "medium";
  let cap = request.cap ?? settings.max_rounds ?? settings.codex_cap ?? (stop === "score" ? DEFAULT_SCORE_CAP : DEFAULT_CAP);
  if (cap > MAX_CAP) {
    warnings.push(`cap ${cap} clamped to ${MAX_CAP}`);
    cap = MAX_CAP;
  }
  return {
    mode,
    required,
    requiredBecause,
    cap,
    warnings,
    // recorded in request.json since it was requested (a gate from before: the settings now)
    restartCap: request.restart_cap ?? settings.restart_cap ?? DEFAULT_RESTART_CAP,
    stop,
    difficulty,
    humanCheckpoint: request.human_checkpoint ?? settings.human_checkpoint ?? false,
    stallDetection: request.stall_detection ?? settings.stall_detection ?? true,
    quorum,
    refusal: quorumRefusal(quorum, request, settings) ?? requestRefusal(request, settings, difficulty),
  };
}

/** Placeholder policy for a gate that has no request yet (decide() returns before using it). */
export const NO_REQUEST_POLICY: ResolvedPolicy = Object.freeze({
  mode: "cross",
  required: true,
  requiredBecause: "no request",
  cap: DEFAULT_CAP,
  warnings: [],
  restartCap: DEFAULT_RESTART_CAP,
  stop: "verdict",
  difficulty: "medium",
  humanCheckpoint: false,
  stallDetection: true,
  quorum: null,
  refusal: null,
}) as ResolvedPolicy;

/**
 * What a quorum cannot be asked with: an incoherent rule (one assembled from settings; the request's own was refused
 * when it was parsed), a pinned reviewer (a quorum selects its reviewers), or local review (a quorum is cross-family).
 */
export function quorumRefusal(quorum: QuorumRule | null, request: Pick<Request, "reviewer" | "review">, settings: Settings): string | null {
  if (!quorum) return null;
  const rule = `quorum ${quorum.need}/${quorum.of}`;
  const problem = quorumProblem(quorum);
  if (problem) return `${rule}: ${problem}`;
  const pin = pinnedReviewer(request, settings);
  if (pin) return `${rule} selects its own reviewers of distinct families; reviewer ${pin} is pinned (ask for reviewer auto)`;
  if ((request.review ?? settings.review) === "local") return `${rule} is a cross-family review; review local cannot serve it`;
  return null;
}

/** Characters a path cannot have: packets name paths in backticks on one line, and people read them on terminals. */
const UNNAMEABLE = new RegExp(`[${UNPRINTABLE}\`]`, "u"); // the request schema's rule too (Zl, Zp end a line)

/** Whether a project-relative path stays inside the project: not absolute, and no `..` climbs above where it starts. */
function staysInside(p: string): boolean {
  if (/^(?:[\\/]|[A-Za-z]:)/.test(p)) return false;
  let depth = 0;
  for (const part of p.split(/[\\/]+/)) {
    if (part === "..") depth--;
    else if (part !== "." && part !== "") depth++;
    if (depth < 0) return false;
  }
  return true;
}
