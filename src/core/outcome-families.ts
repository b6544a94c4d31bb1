// Who outcome.json says the families were (SPEC §6): one judgement, the one its `independence` was decided under, so
// the record never names families that would have earned another independence than the one it states.
import type { Family, Outcome, PacketFrontMatter, Settings, VerdictFile } from "../spec/schemas.js";
import { classifyModel, type HostFamilyMaps } from "./family.js";
import { familyRelation } from "./independence.js";
import { judgedAuthorFamily, judgedMaps } from "./packet-chain.js";
import { authorIdentity } from "./selection.js";
import type { GateSnapshot } from "./snapshot.js";

export type OutcomeFamilies = Pick<Outcome, "author_family" | "author_family_source" | "reviewer_family" | "family_relation">;

/** request.json's author as a round is judged under `maps` (`judgedAuthorFamily`), with where that family comes from. */
export function judgedAuthor(
  s: Pick<GateSnapshot, "request">,
  packet: Pick<PacketFrontMatter, "author_family">,
  maps: HostFamilyMaps,
): Pick<OutcomeFamilies, "author_family" | "author_family_source"> {
  const family = judgedAuthorFamily(packet, s.request, maps);
  return { author_family: family, author_family_source: family === "unknown" ? "unknown" : authorIdentity(s.request!, maps).source };
}

/** A round's families as `maps` class them: the author as `judgedAuthor`, the reviewer's model (undefined: none). */
export function familiesUnder(
  s: Pick<GateSnapshot, "request">,
  packet: PacketFrontMatter,
  reviewerModel: string | null | undefined,
  maps: HostFamilyMaps,
): OutcomeFamilies {
  const author = judgedAuthor(s, packet, maps);
  const reviewer: Family | null = reviewerModel === undefined ? null : classifyModel(reviewerModel, maps.family_aliases);
  return { ...author, reviewer_family: reviewer, family_relation: familyRelation(author.author_family, reviewer) };
}

/**
 * A quorum round's families as `maps` class them (§26): the author as `judgedAuthor`, and of the counted members'
 * models the first they class as not `different` from the author's family, else the first's (one reviewer family).
 */
export function quorumFamiliesUnder(
  s: Pick<GateSnapshot, "request">,
  packet: PacketFrontMatter,
  members: ReadonlyArray<{ model: string | null }>,
  maps: HostFamilyMaps,
): OutcomeFamilies {
  const judged = members.map((m) => familiesUnder(s, packet, m.model, maps));
  return judged.find((j) => j.family_relation !== "different") ?? judged[0]!;
}

/** The families a strong round's verdict sealed its independence violation under, when it records them (rule 11). */
export function sealedViolationFamilies(
  packet: Pick<PacketFrontMatter, "independence"> | undefined,
  verdict: Pick<VerdictFile, "independence_violation" | "violation_families"> | undefined,
): OutcomeFamilies | undefined {
  return packet?.independence === "strong" && verdict?.independence_violation ? verdict.violation_families : undefined;
}

/**
 * The families an outcome records for the round it ended at: judged under the maps the round's packet was issued
 * with, as the broker judged its pass; a strong round recorded weak, under the maps that made it weak — those its
 * verdict sealed a violation under (`violation_families`: the settings when it was verified, which may be put back
 * since), else the first that class its reviewer with the author's family or with none, the settings now when they
 * alone did (the broker's demotion of a pass, §17), which the outcome's reason says. `verdict` is the sealed one;
 * undefined when no review was applied. Without a packet (a skip), request.json's author under the settings.
 */
export function outcomeFamilies(
  s: Pick<GateSnapshot, "request" | "familyMaps">,
  packet: PacketFrontMatter | undefined,
  verdict: Pick<VerdictFile, "reviewer_model" | "independence_violation" | "violation_families"> | undefined,
  independence: Outcome["independence"] | undefined,
  settings: Settings,
): OutcomeFamilies {
  if (!packet) {
    const author = authorIdentity(s.request!, settings);
    return { author_family: author.family, author_family_source: author.source, reviewer_family: null, family_relation: null };
  }
  const demoted = packet.independence === "strong" && independence === "weak";
  const sealed = demoted ? sealedViolationFamilies(packet, verdict) : undefined;
  if (sealed) return sealed;
  const judged = judgedMaps(packet, settings, false, s.familyMaps).map((maps) => familiesUnder(s, packet, verdict?.reviewer_model, maps));
  return (demoted && judged.find((j) => j.family_relation !== "different")) || judged[0]!;
}

/**
 * Why an outcome's families are not one judgement, or null: its relation must be its author's and reviewer's (a
 * quorum's joins several), a strong pass must rest on two known families that differ (SPEC §12), and a weak pass its
 * verdict's `sealed` violation made weak (`sealedViolationFamilies`) names the families it was sealed under; any other
 * end states the independence its packet promised, whoever answered.
 */
export function familiesProblem(
  o: Pick<Outcome, "status" | "author_family" | "author_family_source" | "reviewer_family" | "family_relation" | "independence" | "quorum">,
  sealed?: OutcomeFamilies,
): string | null {
  if (o.family_relation === undefined) return null; // recorded since it was added
  const keys = ["author_family", "author_family_source", "reviewer_family", "family_relation"] as const;
  if (sealed && o.status === "satisfied" && o.independence === "weak" && keys.some((k) => o[k] !== sealed[k]))
    return (
      "independence weak, but its families are not those its verdict sealed the independence violation under " +
      `(author_family ${sealed.author_family}, reviewer_family ${sealed.reviewer_family}: ${sealed.family_relation})`
    );
  const relation = familyRelation(o.author_family, o.reviewer_family);
  if (!o.quorum && o.family_relation !== relation)
    return (
      `family_relation ${o.family_relation} is not the relation of its author_family ${o.author_family} ` +
      `and reviewer_family ${o.reviewer_family}`
    );
  if (o.status === "satisfied" && o.independence === "strong" && o.family_relation !== null && o.family_relation !== "different")
    return `independence strong, but the families it records are ${o.family_relation}`;
  return null;
}
