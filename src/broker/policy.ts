// Resolves what a request asks for against the settings: whether review is required, the cap, the mode.
import type { Request, ReviewMode, Settings } from "../spec/schemas.js";

export const DEFAULT_CAP = 5;
export const MAX_CAP = 10;
export const DEFAULT_RESTART_CAP = 3;

export interface ResolvedPolicy {
  mode: ReviewMode;
  required: boolean;
  requiredBecause: string;
  cap: number;
  warnings: string[];
  restartCap: number;
}

export function resolvePolicy(request: Request, settings: Settings): ResolvedPolicy {
  const warnings: string[] = [];
  const asked = request.review ?? settings.review ?? "cross";
  const forced = request.risk === "high" ? "risk high" : settings.require_review ? "settings require_review" : null;
  const required = asked !== "off" || forced !== null;
  const mode: ReviewMode = asked === "off" && forced ? "cross" : asked;
  const requiredBecause = asked !== "off" ? `review=${asked}` : forced ? `${forced} (review=off overridden)` : "review=off";
  let cap = request.cap ?? settings.codex_cap ?? DEFAULT_CAP;
  if (cap > MAX_CAP) {
    warnings.push(`cap ${cap} clamped to ${MAX_CAP}`);
    cap = MAX_CAP;
  }
  return { mode, required, requiredBecause, cap, warnings, restartCap: settings.restart_cap ?? DEFAULT_RESTART_CAP };
}

/** Placeholder policy for a gate that has no request yet (decide() returns before using it). */
export const NO_REQUEST_POLICY: ResolvedPolicy = Object.freeze({
  mode: "cross", required: true, requiredBecause: "no request", cap: DEFAULT_CAP, warnings: [], restartCap: DEFAULT_RESTART_CAP,
}) as ResolvedPolicy;
