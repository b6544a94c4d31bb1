// What makes a packet the broker's (SPEC §13, §15): it embeds the bytes its front matter names, and a round that keeps
// its reviewer copies the previous packet's reviewer exactly. A planted packet that says otherwise is no round's: the
// reader leaves it out, and the broker moves it aside, before a reviewer is paid for it or a verdict binds it.
import type { Failure, Family, PacketFrontMatter, QuorumRule, Request, Settings } from "../spec/schemas.js";
import { familyMapsProblem, type HostFamilyMaps, issuedFamilyMaps, type MapsFile, type RecordedMaps, type RecordsMaps } from "./family.js";
import { openRound } from "./gate-queries.js";
import { keepsIndependence, reviewerOf } from "./independence.js";
import { embeddedArtifact } from "./packet-body.js";
import { dispatchedByBus, isNightmare } from "./adapter-kinds.js";
import { packetId } from "./packet.js";
import { pinnedReviewer } from "./policy.js";
import { sha256Hex } from "./sha.js";
import { authorIdentity, declaredModel } from "./selection.js";
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
  request: Pick<Request, "author_host" | "author_model" | "artifact_path" | "stop" | "difficulty" | "quorum">,
  member: string | null,
): string | null {
  const model = declaredModel(request);
  if (packet.author_host !== request.author_host || packet.author_model !== model)
    return `its author (${packet.author_host}, model ${packet.author_model}) is not request.json's (${request.author_host}, ${model})`;
  if (packet.artifact_path !== request.artifact_path)
    return `its artifact ${packet.artifact_path} is not request.json's (${request.artifact_path})`;
  const id = packetId(packet.run_id, packet.gate, packet.round, member);
  if (packet.packet_id !== id) return `its packet_id ${packet.packet_id} is not this slot's (${id})`;
  return policyProblem(packet, request);
}

const rule = (q: QuorumRule | null | undefined) =>
  q ? `${q.need}/${q.of}${q.families ? ` of ${[...q.families].sort().join(",")}` : ""}` : "none";

/** The fields a round shares, which decide() and reverify read from the round's first packet (`roundPacket`). */
const ROUND_WIDE = ["counted_round", "cap", "restart_of", "restart_reason", "stop", "difficulty", "quorum"] as const;

/**
 * Why a quorum round's packets cannot speak for it, or null: the broker issues every member from one plan, so they
 * share every round-wide field, and a quorum round has no packet of its own. A planted member that disagrees (another
 * rule, cap or restart) would otherwise decide how the round is judged whenever it sorts first.
 */
export function quorumRoundProblem(own: PacketFrontMatter | undefined, members: PacketFrontMatter[]): string | null {
  if (!members.length) return null;
  if (own) return `round ${own.round} has a packet of its own and quorum members' packets: no packet speaks for it`;
  const wide = (p: PacketFrontMatter) => ROUND_WIDE.map((k) => (k === "quorum" ? rule(p.quorum) : (p[k] ?? null)));
  const first = wide(members[0]!);
  const differ = ROUND_WIDE.filter((_, i) => members.some((m) => wide(m)[i] !== first[i]));
  return differ.length ? `round ${members[0]!.round}'s quorum members' packets disagree on ${differ.join(", ")}` : null;
}

/** Why a packet does not keep the stop policy, difficulty or quorum rule request.json fixed (every round keeps them), or null. */
function policyProblem(packet: PacketFrontMatter, request: Pick<Request, "stop" | "difficulty" | "quorum">): string | null {
  if (request.stop !== undefined && (packet.stop ?? "verdict") !== request.stop)
    return `its stop policy ${packet.stop ?? "verdict"} is not the one request.json asks for (${request.stop})`;
  if (request.difficulty !== undefined && (packet.difficulty ?? "medium") !== request.difficulty)
    return `its difficulty ${packet.difficulty ?? "medium"} is not the one request.json asks for (${request.difficulty})`;
  if (request.quorum !== undefined && rule(packet.quorum) !== rule(request.quorum))
    return `its quorum rule (${rule(packet.quorum)}) is not the one request.json asks for (${rule(request.quorum)})`;
  return null;
}

/**
 * Why a packet is not one the broker issues for this gate, as far as request.json (which never changes) and the
 * reviewers a person must name tell, or null. A round is judged under the policy its packet was issued with, so a
 * settings edit re-judges nothing; but a stop policy, difficulty or quorum the request fixed must be the packet's, and
 * a strong round answered from outside the bus (manual, external: no delivery key binds its answer) must go to a
 * reviewer a person named — the pinned one for manual (a human is never auto-selected), an external provider settings
 * configure. A planted packet that sends a strong round to anyone's dropped answer passes nothing (SPEC §15). Without
 * `settings`, only what request.json fixes: the reviewer was checked while the round was open (`reverify`).
 */
export function issueProblem(packet: PacketFrontMatter, request: Request, settings: Settings | null): string | null {
  const unkept = policyProblem(packet, request);
  if (unkept || !settings) return unkept;
  if (packet.independence !== "strong" || dispatchedByBus(packet.reviewer_adapter)) return null;
  const id = packet.reviewer_provider;
  const named =
    packet.reviewer_adapter === "manual"
      ? pinnedReviewer(request, settings) === id
      : settings.providers?.[id]?.adapter === packet.reviewer_adapter;
  return named
    ? null
    : `a strong round answered from outside the bus (adapter ${packet.reviewer_adapter}) by ${id}, ` +
        (packet.reviewer_adapter === "manual" ? "a reviewer nobody pinned" : "which settings do not configure so");
}

/** Maps a packet binds but the gate does not hold as written: its author is of no known family under them (fail closed). */
const UNREADABLE_MAPS: HostFamilyMaps = Object.freeze({});

/** Whether a packet recorded the maps its round was issued under (this build or the previous one). */
export function recordsFamilyMaps(packet: RecordsMaps): boolean {
  return packet.family_maps_sha256 !== undefined || packet.family_maps !== undefined;
}

/**
 * The open round's packets (the gate's, or each quorum member's) whose family-maps file the gate does not hold (SPEC
 * §7), with why, and the file to write again when the maps the broker writes for the packet under `settings` now hash
 * to the sha it binds (the very bytes it was issued with); null when they are other maps now (no reviewer is sent it).
 */
export function lostFamilyMaps(
  s: GateSnapshot,
  settings: HostFamilyMaps,
): Array<{ member: string | null; packet: PacketFrontMatter; why: string; restore: MapsFile | null }> {
  const R = openRound(s);
  return [[null, s] as const, ...s.members].flatMap(([member, slot]) => {
    const packet = slot.packets.get(R);
    const why = packet ? familyMapsProblem(packet, s.familyMaps) : null;
    if (!packet || why === null) return [];
    const now = s.request ? issuedFamilyMaps(s.request.author_host, settings) : null;
    return [{ member, packet, why, restore: now?.sha === packet.family_maps_sha256 ? now : null }];
  });
}

/**
 * The maps a packet's round is classified under (SPEC §7 `family_maps_sha256`): those it recorded when it was issued,
 * so a settings edit since re-judges neither the broker's judgement of its pass nor the evidence for its escalations;
 * maps it binds that the gate does not hold (`familyMapsProblem`) class its author with no family, so nothing it
 * answers is independent; a packet of an earlier build recorded none, and is classified under the settings.
 */
export function familyMaps(packet: RecordsMaps, settings: HostFamilyMaps, recorded: RecordedMaps): HostFamilyMaps {
  if (packet.family_maps_sha256 !== undefined) return recorded.get(packet.family_maps_sha256) ?? UNREADABLE_MAPS;
  return packet.family_maps ?? settings;
}

/**
 * The maps a round's independence must hold under: those its packet was issued with (`familyMaps`), and, unless only
 * the broker's own judgement is asked, the settings now too (fail closed: a report of a pass never counts a review the
 * project's settings class with the author's family, nor one a recorded map alone makes independent).
 */
export function judgedMaps(packet: RecordsMaps, settings: HostFamilyMaps, issuedOnly: boolean, recorded: RecordedMaps): HostFamilyMaps[] {
  const issued = familyMaps(packet, settings, recorded);
  return issuedOnly || issued === settings ? [issued] : [issued, settings];
}

/**
 * The author's family a packet's round is judged against under `maps`: the packet's, only while request.json's author
 * is of that family under them; else unknown, which no review is independent of (SPEC §12). A packet that claims
 * another family than its author's cannot make a same-family review strong.
 */
export function judgedAuthorFamily(
  packet: Pick<PacketFrontMatter, "author_family">,
  request: GateSnapshot["request"],
  maps: HostFamilyMaps,
): Family {
  return request && maps !== UNREADABLE_MAPS && authorIdentity(request, maps).family === packet.author_family
    ? packet.author_family
    : "unknown";
}

/**
 * Who answered packet P (the model its result names, of the family the maps P was issued with give it) and whether
 * that breaks P's promise, as the verifier seals it: a violation under those maps or under the settings now (fail
 * closed: neither a map a planted packet records nor a settings edit alone makes a review by the author's family
 * strong). Sealed in the verdict, the answer stays whatever the settings say later; `violatedUnder`, the first maps
 * that break it (undefined: no violation).
 */
export function sealedReviewer(
  result: Record<string, unknown>,
  packet: PacketFrontMatter,
  request: GateSnapshot["request"],
  settings: HostFamilyMaps,
  recorded: RecordedMaps,
): { model: string | null; family: Family; violatedUnder: HostFamilyMaps | undefined } {
  const breaks = (maps: HostFamilyMaps) =>
    !keepsIndependence(
      { ...packet, author_family: judgedAuthorFamily(packet, request, maps) },
      reviewerOf(result, packet, maps.family_aliases).family,
    );
  const { model, family } = reviewerOf(result, packet, familyMaps(packet, settings, recorded).family_aliases);
  return { model, family, violatedUnder: judgedMaps(packet, settings, false, recorded).find(breaks) };
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
