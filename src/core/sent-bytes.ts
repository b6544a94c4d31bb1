// The artifact bytes a round's packet sent: what its reviewer saw, and what a force-pass of that round passes
// (SPEC §17), whatever the artifact holds by the time a human decides.
import type { Outcome, PacketFrontMatter } from "../spec/schemas.js";
import type { ArtifactView } from "./artifact-view.js";
import { roundPacket } from "./gate-queries.js";
import type { GateSnapshot } from "./snapshot.js";

/** The shas a force-passed outcome binds: the packet's (no raw sha in packets written before it was recorded). */
export function sentShas(packet: PacketFrontMatter): { artifact_sha256: string; artifact_raw_sha256: string | null } {
  return { artifact_sha256: packet.artifact_sha256, artifact_raw_sha256: packet.artifact_raw_sha256 ?? null };
}

/** The artifact bytes a packet sent or an outcome binds: scrubbed, and raw where it was recorded. */
type BoundShas = { artifact_sha256: string | null; artifact_raw_sha256?: string | null };

/** Whether the artifact now holds the bound bytes (scrubbed, and raw where recorded); null while it cannot be read. */
export function holdsBoundBytes(bound: BoundShas, now: ArtifactView): boolean | null {
  if (!now.ok) return null;
  return now.sha === bound.artifact_sha256 && ((bound.artifact_raw_sha256 ?? null) === null || now.rawSha === bound.artifact_raw_sha256);
}

/** Whether the artifact now holds other bytes than the packet sent (false while it cannot be read). */
export function changedSinceSent(packet: PacketFrontMatter, now: ArtifactView): boolean {
  return holdsBoundBytes(sentShas(packet), now) === false;
}

/** Why an outcome that passed (satisfied, force_passed) no longer passes the artifact as it is now; null while it does. */
export function passNoLongerHolds(outcome: Outcome, now: ArtifactView): string | null {
  if (outcome.status !== "satisfied" && outcome.status !== "force_passed") return null;
  const holds = holdsBoundBytes(outcome, now);
  if (holds) return null;
  if (holds === null) return "the artifact cannot be read now, so the bytes it passed cannot be checked: `check` fails it";
  // the very bytes passed, scrubbed to others now: the settings moved, not the artifact (as `check` says, SPEC §17)
  if (rescrubbed(outcome, now))
    return (
      "the redaction settings changed since the gate passed the artifact (its raw bytes are the ones passed, but they " +
      "scrub to other bytes now): `check` fails it; restore the settings, or request a new review"
    );
  return "the artifact changed since the gate passed it: `check` fails it; request a new review of these bytes";
}

/** Whether the artifact's raw bytes are the bound ones while its scrubbed bytes are not (the redaction settings changed). */
export function rescrubbed(bound: BoundShas, now: ArtifactView): boolean {
  return (
    now.ok && now.sha !== bound.artifact_sha256 && (bound.artifact_raw_sha256 ?? null) !== null && now.rawSha === bound.artifact_raw_sha256
  );
}

/**
 * The artifact as an ended gate's final round sent it (its shas): a pass is judged at the bytes it passed once the
 * artifact has moved on, so a pass of bytes edited since still says so, and an outcome that names other bytes does not.
 */
export function sentArtifact(s: GateSnapshot): ArtifactView {
  const o = s.outcome;
  const packet = o ? roundPacket(s, o.final_round) : undefined;
  if (!o || !packet) return { ok: false, problem: "artifact_missing", detail: `round ${o?.final_round ?? 0} has no valid packet` };
  const sent = sentShas(packet);
  return { ok: true, sha: sent.artifact_sha256, rawSha: sent.artifact_raw_sha256 ?? o.artifact_raw_sha256 ?? "" };
}
