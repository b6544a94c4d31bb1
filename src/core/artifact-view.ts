// The artifact as the core sees it (SPEC §10): its scrubbed text and shas, or why it cannot be reviewed now.
import type { EscalationReason } from "../spec/schemas.js";

/** Why the artifact cannot be reviewed now; each is an escalation reason (SPEC §14). */
export type ArtifactProblem = Extract<EscalationReason, "artifact_missing" | "artifact_too_large" | "artifact_not_text" | "scrub_failed">;

/**
 * changedAtMs: when the file (or a link to it) last changed, whatever its bytes (its ctime, which no writer can set
 * back): a nightmare reviewer reads the file itself, so a write after its packet was sent means it may have read
 * other bytes (SPEC §21.2). Absent when not known.
 */
export type ArtifactState =
  | { ok: true; text: string; sha: string; rawSha: string; changedAtMs?: number; redacted?: number }
  /** transient: the system failed the read (EIO, EMFILE…), not the file; the same read may work in a moment. */
  | { ok: false; problem: ArtifactProblem; detail: string; transient?: true };

/** What a decision needs of the artifact: its shas, not its text. */
export type ArtifactView =
  | { ok: true; sha: string; rawSha: string; changedAtMs?: number; redacted?: number }
  | { ok: false; problem: ArtifactProblem; detail: string };

/**
 * How many spans of the artifact the scrubber replaced: the reviewer sees `[REDACTED:…]` in their place, and a pass
 * covers those bytes unseen (SPEC §7). Said where a person reads a gate (status, check), never hidden behind a pass.
 */
export function redactedNote(artifact: ArtifactView): string | null {
  const n = artifact.ok ? (artifact.redacted ?? 0) : 0;
  return n > 0 ? `${n} span${n === 1 ? "" : "s"} of the artifact redacted before review: the reviewer saw [REDACTED:…] there` : null;
}
