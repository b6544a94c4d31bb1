// outcome.json's families are one judgement (SPEC §6): the one its independence was decided under — the maps its
// round's packet was issued with, or the settings now when they alone made a strong round's pass weak (§17).
import { describe, expect, it } from "vitest";
import { familyMapsFile } from "../../src/core/family.js";
import { familiesProblem, familiesUnder, outcomeFamilies, quorumFamiliesUnder } from "../../src/core/outcome-families.js";
import { type FamilyMaps, Settings } from "../../src/spec/schemas.js";
import { packet, request } from "../helpers/snapshots.js";

const ISSUED: FamilyMaps = { family_aliases: { "acme-1": "openai" }, host_families: {} };
const file = familyMapsFile(ISSUED);
const s = { request: request(), familyMaps: new Map([[file.sha, ISSUED]]) };
const P = packet(1, { family_maps_sha256: file.sha });
const settings = (o: Record<string, unknown> = {}) => Settings.parse({ family_aliases: { "acme-1": "openai" }, ...o });
/** A verdict by `model` that sealed no violation. */
const by = (model: string) => ({ reviewer_model: model, independence_violation: false });
/** What the packet's maps judge: claude's artifact (anthropic, by its host) reviewed by acme-1 (openai). */
const AS_ISSUED = {
  author_family: "anthropic",
  author_family_source: "host-map",
  reviewer_family: "openai",
  family_relation: "different",
} as const;

describe("outcomeFamilies", () => {
  it("a strong pass: as the packet's maps judge it, which the settings now agree with", () => {
    expect(outcomeFamilies(s, P, by("acme-1"), "strong", settings())).toEqual(AS_ISSUED);
  });

  it("a strong round the settings now made weak: as they class the families, not the packet's maps' different", () => {
    const now = settings({ family_aliases: { "acme-1": "anthropic" } });
    expect(outcomeFamilies(s, P, by("acme-1"), "weak", now)).toEqual({
      ...AS_ISSUED,
      reviewer_family: "anthropic",
      family_relation: "same",
    });
    // the author of another family now than the packet names: judged against unknown, as reverify judges it
    expect(outcomeFamilies(s, P, by("acme-1"), "weak", settings({ host_families: { claude: "google" } }))).toEqual({
      author_family: "unknown",
      author_family_source: "unknown",
      reviewer_family: "openai",
      family_relation: "unknown",
    });
  });

  it("a strong round its verifier sealed a violation for: as the verdict records the maps it was sealed under", () => {
    // the settings when it was verified classed acme-1 with the author; put back since, they and the packet's maps agree
    const sealed = { ...AS_ISSUED, reviewer_family: "anthropic", family_relation: "same" } as const;
    const verdict = { ...by("acme-1"), independence_violation: true, violation_families: sealed };
    expect(outcomeFamilies(s, P, verdict, "weak", settings())).toEqual(sealed);
    // a verdict from before they were recorded: as the maps judge it
    expect(outcomeFamilies(s, P, { ...verdict, violation_families: undefined }, "weak", settings())).toEqual(AS_ISSUED);
    // recorded only where it made a strong round weak: a weak packet's review states what its packet promised
    expect(outcomeFamilies(s, { ...P, independence: "weak" }, verdict, "weak", settings())).toEqual(AS_ISSUED);
  });

  it("a weak round the packet's maps already judge: as they judge it, whatever the settings now", () => {
    const now = settings({ family_aliases: { "acme-1": "google" } });
    expect(outcomeFamilies(s, P, by("claude-opus-4"), "weak", now)).toMatchObject({
      reviewer_family: "anthropic",
      family_relation: "same",
    });
  });

  it("any other end: the author as the packet's maps class it, never as the settings now do", () => {
    const now = settings({ host_families: { claude: "google" } });
    expect(outcomeFamilies(s, P, by("acme-1"), "strong", now)).toEqual(AS_ISSUED);
    // no review applied (a force-pass after no_verdict): no reviewer, no relation
    expect(outcomeFamilies(s, P, undefined, "strong", now)).toEqual({ ...AS_ISSUED, reviewer_family: null, family_relation: null });
    // a weak packet's review is recorded as its maps judge it
    const weak = { ...P, independence: "weak" as const };
    expect(outcomeFamilies(s, weak, by("acme-1"), "weak", now)).toEqual(AS_ISSUED);
  });

  it("maps the gate does not hold as the packet binds them: an author of no known family", () => {
    const gone = { ...s, familyMaps: new Map() };
    expect(outcomeFamilies(gone, P, by("acme-1"), "weak", settings())).toEqual({
      author_family: "unknown",
      author_family_source: "unknown",
      reviewer_family: "unknown",
      family_relation: "unknown",
    });
  });

  it("no packet (a skip): the author as the settings class it", () => {
    expect(outcomeFamilies(s, undefined, undefined, null, settings({ host_families: { claude: "google" } }))).toEqual({
      author_family: "google",
      author_family_source: "host-map",
      reviewer_family: null,
      family_relation: null,
    });
  });
});

describe("quorumFamiliesUnder", () => {
  // gem-1 and acme-1 as the settings now class them: a quorum pass they make short is recorded under them (§26)
  const now = settings({ family_aliases: { "acme-1": "openai", "gem-1": "google", "acme-2": "anthropic" } });
  const members = (...models: Array<string | null>) => models.map((model) => ({ model }));

  it("records the first member the maps class as not different from the author's family, as one reviewer's would be", () => {
    expect(quorumFamiliesUnder(s, P, members("gem-1", "acme-2", null), now)).toEqual(familiesUnder(s, P, "acme-2", now));
    expect(quorumFamiliesUnder(s, P, members("gem-1", "acme-2", null), now)).toMatchObject({
      reviewer_family: "anthropic",
      family_relation: "same",
    });
    expect(quorumFamiliesUnder(s, P, members("gem-1", null), now)).toEqual(familiesUnder(s, P, null, now));
  });

  it("else the first member's, the author as the maps class it", () => {
    expect(quorumFamiliesUnder(s, P, members("gem-1", "acme-1"), now)).toEqual({
      ...AS_ISSUED,
      reviewer_family: "google",
    });
    // the author of another family under them than the packet names: unknown, so the first member's relation is too
    const moved = settings({ host_families: { claude: "google" } });
    expect(quorumFamiliesUnder(s, P, members("gem-1", "acme-1"), moved)).toEqual(familiesUnder(s, P, "gem-1", moved));
  });
});

describe("familiesProblem", () => {
  const o = { status: "satisfied", independence: "strong", quorum: undefined, ...AS_ISSUED } as const;
  it("holds an outcome's families to one judgement", () => {
    expect(familiesProblem(o)).toBeNull();
    expect(familiesProblem({ ...o, reviewer_family: "anthropic" })).toMatch(/^family_relation different is not the relation/);
    expect(familiesProblem({ ...o, reviewer_family: "anthropic", family_relation: "same" })).toMatch(/^independence strong, but/);
    // any other end states what its packet promised, whoever answered; an outcome from before the relation was recorded
    expect(familiesProblem({ ...o, status: "rework", reviewer_family: "anthropic", family_relation: "same" })).toBeNull();
    expect(familiesProblem({ ...o, reviewer_family: "anthropic", family_relation: undefined })).toBeNull();
  });

  it("holds a weak pass its verdict's sealed violation made weak to the families it was sealed under", () => {
    const sealed = { ...AS_ISSUED, reviewer_family: "unknown", family_relation: "unknown" } as const;
    const weak = { ...o, independence: "weak" } as const;
    expect(familiesProblem({ ...weak, ...sealed }, sealed)).toBeNull();
    // the packet's maps' different beside the weak stamp: what the violation was sealed under it does not say
    expect(familiesProblem(weak, sealed)).toBe(
      "independence weak, but its families are not those its verdict sealed the independence violation under " +
        "(author_family anthropic, reviewer_family unknown: unknown)",
    );
    expect(familiesProblem({ ...weak, ...sealed, author_family_source: "declared-model" }, sealed)).toMatch(/^independence weak, but/);
    // any other end states what its packet promised
    expect(familiesProblem({ ...weak, status: "rework" }, sealed)).toBeNull();
  });
});
