// The one independence rule (SPEC §12): a review is strong only when both families are known and they differ.
import type { Family, PacketFrontMatter, Settings } from "../spec/schemas.js";
import { classifyModel } from "./family.js";
import { scrubLine } from "./scrub.js";

/** How a reviewer's family relates to the author's; null when there is no reviewer. */
export function familyRelation(author: Family, reviewer: Family | null): "different" | "same" | "unknown" | null {
  if (reviewer === null) return null;
  if (author === "unknown" || reviewer === "unknown") return "unknown";
  return author === reviewer ? "same" : "different";
}

/** Whether a review by `reviewer` can count as strong for an author of family `author`. */
export function isIndependent(author: Family, reviewer: Family): boolean {
  return familyRelation(author, reviewer) === "different";
}

/** Who reviewed: the model the result reports when it names one (a reported model always wins), else the packet's. */
export function reviewerOf(
  result: Record<string, unknown>,
  packet: Pick<PacketFrontMatter, "reviewer_model">,
  aliases: Settings["family_aliases"],
): { model: string | null; family: Family } {
  // a dropped result's name is shown on one line in the verdict, trail and status: folded and bounded like the bus's own
  const named = typeof result.reviewer_model === "string" ? scrubLine(result.reviewer_model, 200) : "";
  const reported = named || null;
  const model = reported ?? packet.reviewer_model;
  return { model, family: classifyModel(model, aliases) };
}

/** Whether a review by a model of `family` keeps what the packet promised: strong needs a known, other family. */
export function keepsIndependence(P: Pick<PacketFrontMatter, "independence" | "author_family">, family: Family): boolean {
  return P.independence !== "strong" || isIndependent(P.author_family, family);
}

/**
 * Whether a model of `family` may answer packet P in its reviewer's place (a tier's model, a model_chain step, a
 * fallback provider): as keepsIndependence, and a quorum member's only in the family it was selected as — another
 * member's family would make one family's two reviews the round's two (SPEC §26: they count once, so the round cannot
 * pass on them).
 */
export function keepsReviewer(
  P: Pick<PacketFrontMatter, "independence" | "author_family" | "quorum" | "reviewer_family">,
  family: Family,
): boolean {
  return keepsIndependence(P, family) && (!P.quorum || family === P.reviewer_family);
}

/** Why a model of `family` may not answer P in its reviewer's place (keepsReviewer), in words. */
export function reviewerRefusal(
  P: Pick<PacketFrontMatter, "independence" | "author_family" | "quorum" | "reviewer_family" | "reviewer_provider">,
  family: Family,
): string | null {
  if (!keepsIndependence(P, family)) return `${family} cannot keep strong independence from ${P.author_family}`;
  if (!keepsReviewer(P, family))
    return `${family} is not ${P.reviewer_provider}'s family in the quorum round (${P.reviewer_family}): families must stay distinct`;
  return null;
}

/** How a reviewer model's name is known, by its `identity_assurance` word (outcome.json, SPEC §6). */
const SOURCE_WORDS: Record<string, string> = {
  reported: "reported by the reviewer",
  requested: "the one requested, not reported by the reviewer (unverified)",
  declared: "as the settings declare it, not reported by the reviewer (unverified)",
};

/**
 * An outcome's `identity_assurance` in words (a quorum's names each member: `gem: reported; gpt: requested`): where
 * the reviewer model it names came from. The one wording of `check`'s PASS line and the broker's weak-pass reason.
 */
export function modelSourceWords(assurance: string): string {
  return assurance.replace(/(^|: )(reported|requested|declared)(?=;|$)/g, (_, at: string, how: string) => `${at}${SOURCE_WORDS[how]}`);
}
