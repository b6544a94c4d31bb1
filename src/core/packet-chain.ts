// What makes a packet the broker's (SPEC §13, §15): it embeds the bytes its front matter names, and a round that keeps
// its reviewer copies the previous packet's reviewer exactly. A planted packet that says otherwise is no round's: the
// reader leaves it out, and the broker moves it aside, before a reviewer is paid for it or a verdict binds it.
import type { Failure, PacketFrontMatter } from "../spec/schemas.js";
import { embeddedArtifact } from "./packet-body.js";
import { isNightmare } from "./adapter-kinds.js";
import { sha256Hex } from "./sha.js";

export type ReviewerFields = Pick<
  PacketFrontMatter,
  "reviewer_provider" | "reviewer_adapter" | "reviewer_model" | "reviewer_family" | "independence" | "selection_status" | "selection_reason"
>;

export function reviewerFields(p: ReviewerFields): ReviewerFields {
  const { reviewer_provider, reviewer_adapter, reviewer_model, reviewer_family, independence, selection_status, selection_reason } = p;
  return { reviewer_provider, reviewer_adapter, reviewer_model, reviewer_family, independence, selection_status, selection_reason };
}

/** Why a packet's body does not carry the artifact its front matter names (a nightmare packet names its path), or null. */
export function embeddingProblem(front: PacketFrontMatter, body: string): string | null {
  if (isNightmare(front)) return body.includes(`\`${front.artifact_path}\``) ? null : "the packet does not name its artifact's path";
  const text = embeddedArtifact(body);
  if (text === null) return "the packet embeds no artifact";
  // the fence ends a line: an artifact without a final newline is embedded with one
  if (sha256Hex(text) === front.artifact_sha256 || sha256Hex(text.slice(0, -1)) === front.artifact_sha256) return null;
  return `the artifact it embeds is not the bytes its front matter names (artifact_sha256 ${front.artifact_sha256})`;
}

/**
 * Why packet n (n > 1, not a quorum member's) cannot follow packet n - 1, or null. Only two restarts select a reviewer
 * afresh: a degraded one, after round n - 1's reviewer was unavailable, and a copilot pass's finalizer; every other
 * round keeps round n - 1's reviewer, field for field.
 */
export function successionProblem(
  packet: PacketFrontMatter,
  previous: PacketFrontMatter | undefined,
  previousFailure: Pick<Failure, "kind"> | undefined,
): string | null {
  if (!previous) return `no packet-${packet.round - 1}.md precedes it`;
  if (packet.restart_reason === "degraded")
    return previousFailure?.kind === "unavailable"
      ? null
      : `a degraded restart, but round ${packet.round - 1}'s reviewer was not unavailable`;
  if (packet.restart_reason === "finalizer")
    return previous.reviewer_adapter === "copilot" && packet.reviewer_adapter !== "copilot"
      ? null
      : `a finalizer round confirms a copilot pass, by another reviewer than copilot`;
  const kept = reviewerFields(previous);
  const changed = (Object.keys(kept) as Array<keyof ReviewerFields>).filter((k) => packet[k] !== kept[k]);
  return changed.length ? `round ${packet.round} keeps round ${packet.round - 1}'s reviewer, but its ${changed.join(", ")} differ` : null;
}
