// What makes a packet the broker's (SPEC §13, §15): it embeds the bytes its front matter names, and a round that keeps
// its reviewer copies the previous packet's reviewer exactly. A planted packet that says otherwise is no round's: the
// reader leaves it out, and the broker moves it aside, before a reviewer is paid for it or a verdict binds it.
import type { Failure, Family, PacketFrontMatter, QuorumRule, Request, Settings } from "../spec/schemas.js";
import type { AdapterKind } from "../spec/constants.js";
import { embeddedArtifact } from "./packet-body.js";
import { CLI_KINDS, isNightmare } from "./adapter-kinds.js";
import { packetId } from "./packet.js";
import { MANUAL_PROVIDER, type ResolvedPolicy } from "./policy.js";
import { sha256Hex } from "./sha.js";
import { authorIdentity } from "./selection.js";
import type { GateSnapshot } from "./snapshot.js";

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
 * Why a packet does not carry what the broker copies into every packet from request.json and the slot it fills, or
 * null: the author (another one could claim a family the reviewer is not of), the artifact's path and the packet id.
 */
export function requestProblem(
  packet: PacketFrontMatter,
  request: Pick<Request, "author_host" | "author_model" | "artifact_path">,
  member: string | null,
): string | null {
  const model = request.author_model?.trim() || null;
  if (packet.author_host !== request.author_host || packet.author_model !== model)
    return (
      `its author (${packet.author_host}, model ${packet.author_model}) ` + `is not request.json's (${request.author_host}, model ${model})`
    );
  if (packet.artifact_path !== request.artifact_path)
    return `its artifact ${packet.artifact_path} is not request.json's (${request.artifact_path})`;
  const id = packetId(packet.run_id, packet.gate, packet.round, member);
  return packet.packet_id === id ? null : `its packet_id ${packet.packet_id} is not this slot's (${id})`;
}

/**
 * Why a packet is not one the broker issues for this gate as its policy and settings are now, or null: the stop
 * policy, difficulty and quorum rule the gate resolves to, and a reviewer settings configure (same adapter and model),
 * or a CLI the bus finds on PATH unconfigured, or the built-in human reviewer. Asked of a round before its pass counts:
 * a planted packet naming another reviewer, rule or policy passes nothing (SPEC §15).
 */
export function issueProblem(packet: PacketFrontMatter, policy: ResolvedPolicy, settings: Settings): string | null {
  const stop = packet.stop ?? "verdict";
  const difficulty = packet.difficulty ?? "medium";
  if (stop !== policy.stop) return `its stop policy ${stop} is not the gate's (${policy.stop})`;
  if (difficulty !== policy.difficulty) return `its difficulty ${difficulty} is not the gate's (${policy.difficulty})`;
  const rule = (q: QuorumRule | null | undefined) =>
    q ? `${q.need}/${q.of}${q.families ? ` of ${[...q.families].sort().join(",")}` : ""}` : "none";
  if (rule(packet.quorum) !== rule(policy.quorum))
    return `its quorum rule (${rule(packet.quorum)}) is not the gate's (${rule(policy.quorum)})`;
  const id = packet.reviewer_provider;
  const configured = settings.providers?.[id];
  const known = configured
    ? configured.adapter === packet.reviewer_adapter && (configured.model ?? null) === packet.reviewer_model
    : id === MANUAL_PROVIDER
      ? packet.reviewer_adapter === "manual" && packet.reviewer_model === null
      : CLI_KINDS.includes(id as AdapterKind) && packet.reviewer_adapter === id && packet.reviewer_model === null;
  return known
    ? null
    : `its reviewer ${id} (adapter ${packet.reviewer_adapter}, model ${packet.reviewer_model}) is not a provider settings configure ` +
        "so, a CLI found on PATH or the built-in manual reviewer";
}

/**
 * The author's family a packet's round is judged against: the packet's, only while request.json's author is of that
 * family under the settings now; else unknown, which no review is independent of (SPEC §12). A packet that claims
 * another family than its author's cannot make a same-family review strong.
 */
export function judgedAuthorFamily(
  packet: Pick<PacketFrontMatter, "author_family">,
  request: GateSnapshot["request"],
  settings: Settings,
): Family {
  return request && authorIdentity(request, settings).family === packet.author_family ? packet.author_family : "unknown";
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
