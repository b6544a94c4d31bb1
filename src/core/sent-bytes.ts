// The artifact bytes a round's packet sent: what its reviewer saw, and what a force-pass of that round passes
// (SPEC §17), whatever the artifact holds by the time a human decides.
import type { PacketFrontMatter } from "../spec/schemas.js";
import type { ArtifactView } from "./artifact-view.js";

/** The shas a force-passed outcome binds: the packet's (no raw sha in packets written before it was recorded). */
export function sentShas(packet: PacketFrontMatter): { artifact_sha256: string; artifact_raw_sha256: string | null } {
  return { artifact_sha256: packet.artifact_sha256, artifact_raw_sha256: packet.artifact_raw_sha256 ?? null };
}

/** Whether the artifact now holds other bytes than the packet sent (scrubbed, or raw where the packet recorded it). */
export function changedSinceSent(packet: PacketFrontMatter, now: ArtifactView): boolean {
  if (!now.ok) return false;
  return now.sha !== packet.artifact_sha256 || (packet.artifact_raw_sha256 !== undefined && now.rawSha !== packet.artifact_raw_sha256);
}
