// The broker's whole round logic for one step (SPEC §8–§16): decide(), then every record the action writes, fully
// built — the packet (reviewer selected, finalizer rules, extras), the escalation, the outcome with its attribution,
// the events. The broker worker only reads the inputs and writes what this returns.
import { busJson } from "./bus-json.js";
import { memoryText } from "./memory-text.js";
import { Escalation, type Event, type Family, Outcome, type PacketFrontMatter, type Settings } from "../spec/schemas.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import type { ArtifactState } from "./artifact-view.js";
import {
  type Action,
  ARTIFACT_OPTIONS,
  decide,
  type DecideContext,
  type EscalationAction,
  type GateDecision,
  type OutcomeAction,
  mapsNowOf,
  type PacketAction,
  type QuorumIssue,
  RETRY_OPTIONS,
} from "./decide.js";
import { blockingItems, listedFindings } from "./findings.js";
import { countedRounds, roundMembers, roundPacket, validDecision } from "./gate-queries.js";
import { sentShas } from "./sent-bytes.js";
import { contestedText } from "./verdict-pass.js";
import { familyRelation, modelSourceWords } from "./independence.js";
import { issuedFamilyMaps, type MapsFile } from "./family.js";
import { packetBodyText, packetId, renderPacket } from "./packet.js";
import { embeddedArtifact, type PacketExtras, renderPacketBody } from "./packet-body.js";
import { sha256Hex } from "./sha.js";
import { isNightmare } from "./adapter-kinds.js";
import { familyMaps, type ReviewerFields, reviewerFields } from "./packet-chain.js";
import { judgedAuthor, outcomeFamilies, quorumFamiliesUnder } from "./outcome-families.js";
import { MANUAL_PROVIDER, type ResolvedPolicy } from "./policy.js";
import { passProblems, quorumPassProblems, type ReverifyInput, unprovenPass } from "./reverify.js";
import { scrub, scrubOptions } from "./scrub.js";
import { authorIdentity, type Provider, selectQuorum, selectReviewer } from "./selection.js";
import { packetMember, slotFile } from "./slot-file.js";
import { mergeFindings } from "./quorum.js";
import type { GateSnapshot } from "./snapshot.js";
import { renderTrail, type ResultLookup, trailEntries } from "./trail.js";
import { textOf } from "./text-of.js";
import { ReadFault } from "./read-fault.js";

/** A finding's title or evidence is cut at this length in an escalation, as in the trail. */
const MAX_FINDING_TEXT = 300;

/** The gate's files the broker's records draw on, read by the shell on demand (each at most once a step). */
export interface GateReads {
  /** The artifact as decide() saw it. */
  artifact: () => ArtifactState;
  /** The artifact read anew as an outcome is written: a pass must hold for the bytes on disk then. */
  artifactNow: () => ArtifactState;
  /** Round n's result, parsed leniently with its free text scrubbed; null when it cannot be read. */
  result: ResultLookup;
  resultBytes: ReverifyInput["resultBytes"];
  /** A text file of the gate (memory, rebuttal), scrubbed: a foreign writer may have dropped it unscrubbed. */
  text: (name: string) => string;
  /** The gate's decisions with their free text (note, decided_by) scrubbed: a foreign writer may have dropped one
   * unscrubbed, and the trail and the console show it. */
  decisions: () => GateSnapshot["decisions"];
  /** The gate's rejected files with their reasons scrubbed: a reason.json recorded before reasons were scrubbed, or
   * dropped by another tool, may quote a key, and the trail, status and the console show it. */
  rejected: () => GateSnapshot["rejected"];
}

export interface BrokerInput {
  settings: Settings;
  /** The gate's policy, resolved once a step (gatePolicy). */
  policy: ResolvedPolicy;
  codexSkip: DecideContext["codexSkip"];
  reads: GateReads;
  /** Detected reviewers, once fetched: null until a new selection asks for them (detection probes binaries). */
  providers: Provider[] | null;
  /** The time the records are stamped with. */
  now: string;
  trailPath: string;
}

export type BrokerStep =
  /** Nothing to write: the trail shows the decision. */
  | { type: "wait"; decision: GateDecision }
  /** A new reviewer selection needs the detected providers: fetch them and plan again. */
  | { type: "select"; decision: GateDecision }
  /** The action's records could not be built (a gate file unreadable): the trail says why, the gate waits. */
  | { type: "stuck"; decision: GateDecision }
  /** The artifact changed between the decision and the outcome: read the gate and decide again. */
  | { type: "recheck" }
  /** Write `name` (an immutable gate file); `events` once it is delivered; with an outcome, the trail shows it first. */
  | {
      type: "write";
      decision: GateDecision;
      action: Action;
      name: string;
      text: string;
      events: Event[];
      outcome?: Outcome;
      /** A packet's front matter: what a read will find in it once it is delivered. */
      packet?: PacketFrontMatter;
      /** A packet's family-maps file (SPEC §7), delivered before it: one per gate while the settings keep the maps. */
      familyMaps?: MapsFile;
    };

export function planStep(s: GateSnapshot, input: BrokerInput): BrokerStep {
  const decision = decide(s, {
    policy: input.policy,
    codexSkip: input.codexSkip,
    artifact: input.reads.artifact,
    ...mapsNowOf(s, input.settings),
  });
  const action = decision.action;
  if (!action) return { type: "wait", decision };
  try {
    if (action.type === "escalation") return writeEscalation(s, decision, action, input);
    if (action.type === "packet") return planPacket(s, decision, action, input);
    return planOutcome(s, decision, action, input);
  } catch (error) {
    if (error instanceof ReadFault) throw error; // the system's passing failure: the whole step is tried again
    return stuck(decision, action, error);
  }
}

/** A step that cannot build or write its records: the decision, with why, for the trail. */
export function stuck(decision: GateDecision, action: Action, error: unknown): { type: "stuck"; decision: GateDecision } {
  return {
    type: "stuck",
    decision: { ...decision, detail: `cannot ${action.type} for round ${action.round}: ${(error as Error).message}` },
  };
}

function writeEscalation(s: GateSnapshot, decision: GateDecision, action: EscalationAction, input: BrokerInput): BrokerStep {
  const text = busJson(escalationRecord(s, withRepeatedFindings(s, action, input.reads), input.now));
  return { type: "write", decision, action, name: `escalation-${action.round}.json`, text, events: roundEvents(s, action, input.now) };
}

/**
 * A repeated-findings stall names the findings: round R's blocking findings are exactly the repeated ones (the
 * keys matched as sets), read from its result — a quorum round's from every member's, merged — with the free text
 * scrubbed, each cut like the trail's.
 */
function withRepeatedFindings(s: GateSnapshot, action: EscalationAction, reads: GateReads): EscalationAction {
  if (action.stall?.pattern !== "repeated_findings") return action;
  const cut = (t: string) => t.slice(0, MAX_FINDING_TEXT);
  const reviewers = roundMembers(s, action.round).map(([id]) => id);
  const perReviewer = (reviewers.length ? reviewers : [null]).map((member) => ({
    provider: member ?? "",
    findings: listedFindings(reads.result(action.round, member)?.blocking_findings).findings,
  }));
  const findings = mergeFindings(perReviewer).map((f) => ({
    title: cut(f.title),
    ...(f.evidence === undefined ? {} : { evidence: cut(f.evidence) }),
  }));
  return { ...action, stall: { ...action.stall, findings } };
}

export function escalationRecord(s: GateSnapshot, a: EscalationAction, at: string): Escalation {
  return Escalation.parse({
    schema_version: "guild_bus.escalation.v1",
    run_id: s.runId,
    gate: s.gate,
    round: a.round,
    reason: a.reason,
    detail: a.detail,
    options: a.options,
    ...(a.stall ? { stall: a.stall } : {}),
    at,
  });
}

function planPacket(s: GateSnapshot, decision: GateDecision, action: PacketAction, input: BrokerInput): BrokerStep {
  const artifact = input.reads.artifact();
  if (!artifact.ok) throw new Error(artifact.detail); // decide() issues packets only for a readable artifact
  if (action.quorum) return planMemberPacket(s, decision, action, action.quorum, input);
  if (!action.inherit && input.providers === null) return { type: "select", decision };
  const reviewer = packetReviewer(s, action, input);
  // Selection found no reviewer: a human decides instead (never a packet nobody may serve).
  if ("unavailable" in reviewer) return writeEscalation(s, decision, noReviewer(action, reviewer.unavailable), input);
  return writePacket(s, decision, action, packetFront(s, action, reviewer, artifact, input), input);
}

/**
 * A quorum round's next member packet (SPEC §26): the members it keeps, those already issued, then new selections of
 * families not yet in the round; one packet a step, each named after its reviewer.
 */
function planMemberPacket(s: GateSnapshot, decision: GateDecision, action: PacketAction, q: QuorumIssue, input: BrokerInput): BrokerStep {
  const issued = roundMembers(s, action.round).map(([, p]) => p);
  const fixed = [...q.keep.filter((k) => !issued.some((p) => p.reviewer_provider === k.reviewer_provider)), ...issued];
  let members = fixed.map(reviewerFields);
  if (fixed.length < q.rule.of) {
    if (input.providers === null) return { type: "select", decision };
    const author = authorIdentity(s.request!, input.settings);
    const ids = fixed.map((p) => ({ id: p.reviewer_provider, family: p.reviewer_family }));
    const chosen = selectQuorum(input.policy, author, input.providers, { rule: q.rule, fixed: ids, exclude: q.exclude });
    if ("unavailable" in chosen) {
      // a retry that still cannot fill the round waits, writing nothing: the round starts once the families are there
      if (!issued.length && s.escalations.has(action.round - 1))
        return {
          type: "wait",
          decision: {
            state: "awaiting_author",
            round: action.round - 1,
            action: null,
            detail: `${chosen.unavailable}; the round starts once the missing families are available`,
          },
        };
      // nothing issued yet: the round never starts; a round partly issued waits for a human at that round
      const escalation: EscalationAction = issued.length
        ? { type: "escalation", round: action.round, reason: "unavailable", detail: chosen.unavailable, options: RETRY_OPTIONS }
        : noReviewer(action, chosen.unavailable);
      return writeEscalation(s, decision, escalation, input);
    }
    members = [...members, ...chosen.add.map((p) => quorumReviewer(p, q, author.family))];
  }
  const member = members.find((m) => !issued.some((p) => p.reviewer_provider === m.reviewer_provider));
  if (!member) return { type: "wait", decision };
  const artifact = input.reads.artifact();
  if (!artifact.ok) throw new Error(artifact.detail);
  // a round partly issued keeps its members' round-wide fields: a settings edit between two members (another cap)
  // must not make them disagree, which would void the round (quorumRoundProblem)
  const first = issued[0];
  const kept = first && { counted_round: first.counted_round, cap: first.cap, stop: first.stop, difficulty: first.difficulty };
  const front = { ...packetFront(s, action, member, artifact, input), ...kept, quorum: q.rule };
  return writePacket(
    s,
    decision,
    action,
    { ...front, packet_id: packetId(s.runId, s.gate, action.round, member.reviewer_provider) },
    input,
  );
}

function quorumReviewer(p: Provider, q: QuorumIssue, author: Family): ReviewerFields {
  return {
    reviewer_provider: p.id,
    reviewer_adapter: p.adapter,
    reviewer_model: p.model,
    reviewer_family: p.family,
    independence: "strong",
    selection_status: "selected",
    selection_reason: `quorum ${q.rule.need}/${q.rule.of}: ${p.id} (${p.family} ≠ ${author})`,
  };
}

/** The packet as a file, unless it would be larger than a reader takes (then the artifact is the author's to shorten). */
function writePacket(
  s: GateSnapshot,
  decision: GateDecision,
  action: PacketAction,
  planned: PacketFrontMatter,
  input: BrokerInput,
): BrokerStep {
  const artifact = input.reads.artifact();
  if (!artifact.ok) throw new Error(artifact.detail);
  // what both families were classified under: the round is judged by them, never by a later settings edit; in a file
  // of their own, which the packet binds by sha, since the reviewer is sent the packet (SPEC §7)
  const familyMaps = issuedFamilyMaps(s.request!.author_host, input.settings);
  const front = issuedFront({ ...planned, family_maps_sha256: familyMaps.sha }, input);
  const text = packetText(s, front, artifact.text, input);
  const name = slotFile("packet", action.round, packetMember(front));
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_FILE_BYTES) {
    // readers refuse any gate file over MAX_FILE_BYTES unread (SPEC §5): never write a packet we would refuse
    const detail =
      `${name} would be ${bytes} bytes, over the ${MAX_FILE_BYTES}-byte limit for a gate file: ` +
      "the artifact with this gate's paths, memory, rebuttal and prior findings is too large; shorten them, then retry";
    // a retry that still cannot fit waits for the author, writing nothing
    if (s.escalations.has(action.round - 1))
      return { type: "wait", decision: { state: "awaiting_author", round: action.round - 1, action: null, detail } };
    return writeEscalation(
      s,
      decision,
      { type: "escalation", round: action.round - 1, reason: "artifact_too_large", detail, options: ARTIFACT_OPTIONS },
      input,
    );
  }
  return { type: "write", decision, action, name, text, events: roundEvents(s, action, input.now), packet: front, familyMaps };
}

/** Before round 1 there is no reviewer to retry and nothing to force-pass: the request ends as rework. */
function noReviewer(action: PacketAction, why: string): EscalationAction {
  const round = action.round - 1;
  return { type: "escalation", round, reason: "unavailable", detail: why, options: round === 0 ? ["rework"] : RETRY_OPTIONS };
}

/** The packet's reviewer: the inherited one, or one selected now (a finalizer afresh: never copilot, and only strong). */
function packetReviewer(s: GateSnapshot, action: PacketAction, input: BrokerInput): ReviewerFields | { unavailable: string } {
  if (action.inherit) return reviewerFields(action.inherit);
  const { settings, policy } = input;
  const author = authorIdentity(s.request!, settings);
  const excluded = new Set(action.exclude ?? []);
  const finalizer = action.restart_reason === "finalizer";
  const candidates = (input.providers ?? []).map((p) =>
    excluded.has(p.id) || (finalizer && p.adapter === "copilot") ? { ...p, available: false, note: "unavailable in this gate" } : p,
  );
  const sel = finalizer
    ? selectReviewer(policy, { reviewer: "auto" }, author, candidates, { ...settings, reviewer: "auto" })
    : selectReviewer(policy, s.request!, author, candidates, settings);
  const provider = sel.provider;
  if (!provider) return { unavailable: sel.reason };
  if (action.exclude?.length && provider.id === MANUAL_PROVIDER && !settings.providers?.[MANUAL_PROVIDER]) {
    // A reviewer that could not run is never silently replaced by a person nobody asked for: review is unavailable.
    return {
      unavailable:
        `reviewer ${action.exclude.join(", ")} could not run${action.excludeWhy ? ` (${action.excludeWhy})` : ""}, ` +
        "no other reviewer is available, and no human reviewer was asked for " +
        "(retry once it can run, or request again with reviewer manual to have a person review)",
    };
  }
  if (finalizer && sel.status !== "selected") {
    return {
      unavailable:
        `no finalizer for the copilot pass of round ${action.restart_of}: ` +
        `a non-copilot reviewer of a known family other than ${author.family} is needed (${sel.reason})`,
    };
  }
  return {
    reviewer_provider: provider.id,
    reviewer_adapter: provider.adapter,
    reviewer_model: provider.model,
    reviewer_family: provider.family,
    independence: sel.independence,
    selection_status: sel.status,
    selection_reason: sel.reason,
  };
}

export function packetFront(
  s: GateSnapshot,
  action: PacketAction,
  reviewer: ReviewerFields,
  artifact: { sha: string; rawSha: string; changedAtMs?: number },
  input: Pick<BrokerInput, "settings" | "policy" | "now">,
): PacketFrontMatter {
  const request = s.request!;
  const author = authorIdentity(request, input.settings);
  return {
    schema_version: "guild_bus.packet.v1",
    packet_id: packetId(s.runId, s.gate, action.round),
    run_id: s.runId,
    gate: s.gate,
    round: action.round,
    counted_round: action.counted_round,
    cap: action.cap,
    restart_of: action.restart_of,
    restart_reason: action.restart_reason,
    author_host: request.author_host,
    author_model: author.model,
    author_family: author.family,
    author_family_source: author.source,
    ...reviewer,
    artifact_path: request.artifact_path,
    artifact_sha256: artifact.sha,
    artifact_raw_sha256: artifact.rawSha,
    ...(input.policy.difficulty === "nightmare" && artifact.changedAtMs !== undefined
      ? { artifact_changed_at_ms: Math.floor(artifact.changedAtMs) }
      : {}),
    difficulty: input.policy.difficulty,
    stop: input.policy.stop,
    issued_at: input.now,
  };
}

/** What the broker reads to build a packet's body: settings (the scrubber's), the gate's files. */
type PacketInput = Pick<BrokerInput, "settings" | "reads">;

/**
 * The packet file the broker writes for `front` in this gate: nothing in it but what the front matter, the artifact's
 * scrubbed bytes and the gate's earlier files make (its stop policy and difficulty are the packet's own), so whether a
 * packet is the broker's can be told by building it again (`unissuedPacketProblem`).
 */
export function packetText(s: GateSnapshot, front: PacketFrontMatter, artifactText: string, input: PacketInput): string {
  const issued = issuedFront(front, input);
  return renderPacket(issued, packetBody(s, issued, artifactText, input));
}

/**
 * `front` as the broker writes it: a ruling packet records the contested titles as it shows them (scrubbed under the
 * redaction settings now, then cut), so its ruling is counted against what the reviewer was shown, whatever those
 * settings say once it is sealed (SPEC §21.2); any other packet records none. A packet that records others is not the
 * broker's (`unissuedPacketProblem` builds it again). A packet of an earlier build (one that binds no family-maps file)
 * recorded none and showed the titles scrubbed now: built again as it was, so an upgrade mid-round keeps its round.
 */
function issuedFront(front: PacketFrontMatter, input: PacketInput): PacketFrontMatter {
  if (front.family_maps_sha256 === undefined) return { ...front, contested_titles: undefined };
  const ruling = front.restart_reason === "ruling" && front.restart_of !== null;
  const titles = ruling
    ? listedFindings(blockingItems(input.reads.result(front.restart_of!))).findings.map((f) =>
        contestedText(f.title, (t) => scrub(t, scrubOptions(input.settings))),
      )
    : undefined;
  return { ...front, contested_titles: titles };
}

/**
 * Why a packet file is not the one the broker writes for its own front matter in this gate, or null. The reader binds
 * a packet's front matter (request, slot, reviewer, embedded bytes); the rest of it (the instructions, the earlier
 * rounds, other text labelled as the artifact) is what the reviewer acts on, so it must be the broker's to the byte.
 * The text's own front matter is not read: only a text whose front matter block is `front`'s rendering can match.
 */
export function unissuedPacketProblem(s: GateSnapshot, front: PacketFrontMatter, text: string, input: PacketInput): string | null {
  const body = packetBodyText(text);
  // the fence ends a line: an artifact without a final newline was embedded with one
  const embedded = isNightmare(front) ? "" : (embeddedArtifact(body) ?? "");
  const artifact = isNightmare(front) || sha256Hex(embedded) === front.artifact_sha256 ? embedded : embedded.slice(0, -1);
  return packetText(s, front, artifact, input) === text
    ? null
    : "its text is not the packet the broker issues for its front matter (instructions, earlier rounds or other text were " +
        "changed, or another version of guild-bus wrote it: every host of a project runs one version)";
}

function packetBody(s: GateSnapshot, front: PacketFrontMatter, artifactText: string, input: PacketInput): string {
  const extras = packetExtras(s, front, input);
  // a quorum round's packets go out one per step: the members issued before this one are not earlier rounds
  const repeated = (round: number) => round < front.round && ownRound(s, front, round);
  // only the results the packet repeats are read (a proof after the answer came would read and scrub that answer too)
  const lookup: ResultLookup = (round, member) => (repeated(round) ? input.reads.result(round, member) : null);
  const { entries, findings } = trailEntries(s, lookup, front.stop ?? "verdict");
  const earlier = entries.filter((e) => repeated(e.round));
  return renderPacketBody(front, artifactText, earlier, findings, extras);
}

/**
 * Whether round k (before this packet's) is this packet's reviewer's own, to give back as its earlier findings and
 * memory. A reviewer selected afresh (a degraded re-selection, a copilot pass's finalizer) never sees another's critique
 * or notes: they would anchor it, and the packet calls them its own (SPEC §21.2). A quorum member sees every member's
 * findings, named (§26), and its own memory only.
 */
function ownRound(s: GateSnapshot, front: PacketFrontMatter, k: number): boolean {
  return packetMember(front) !== null || s.packets.get(k)?.reviewer_provider === front.reviewer_provider;
}

/**
 * The note of the human's `continue` at the checkpoint before this packet's round, or, for a round that re-runs one its
 * reviewer never answered (a retry, a restart on edited bytes, a re-selection, a malformed re-run, a copilot pass's
 * finalizer), the one that round carried: the instruction must not vanish with the round (SPEC §21.3).
 */
function checkpointNote(s: GateSnapshot, front: PacketFrontMatter): { round: number; note: string } | null {
  for (let p: PacketFrontMatter | undefined = front; p;) {
    const dec = validDecision(s, p.round - 1);
    if (dec?.choice === "continue") return dec.note?.trim() ? { round: p.round - 1, note: dec.note } : null;
    // a retried round re-runs the one before it (a ruling's restart_of is the contested round); every other restart
    // re-runs its restart_of, but a ruling, which rules on a round that answered
    const back = dec?.choice === "retry" ? p.round - 1 : p.restart_reason && p.restart_reason !== "ruling" ? p.restart_of : null;
    if (back === null || back >= p.round) return null;
    p = roundPacket(s, back);
  }
  return null;
}

/** What the modes add to a packet: the paths, the reviewer's own memory, the human's note, a rebuttal to rule on. */
function packetExtras(s: GateSnapshot, front: PacketFrontMatter, input: PacketInput): PacketExtras {
  const clean = (text: string) => scrub(text, scrubOptions(input.settings));
  const given = checkpointNote(s, front);
  const note = given ? { round: given.round, text: clean(given.note) } : null;
  let ruling: PacketExtras["ruling"] = null;
  if (front.restart_reason === "ruling" && front.restart_of !== null) {
    // bounded like the trail's lists: a result's findings must not swell the next packet past the file limit
    const contested = listedFindings(blockingItems(input.reads.result(front.restart_of))).findings;
    const cut = (t: string | undefined) => (t === undefined ? undefined : contestedText(t, clean));
    ruling = {
      round: front.restart_of,
      findings: contested.map((f, i) => ({
        title: front.contested_titles?.[i] ?? cut(f.title)!,
        severity: cut(f.severity),
        detail: cut(f.detail),
        evidence: cut(f.evidence),
      })),
      rebuttal: input.reads.text(`rebuttal-${front.restart_of}.md`),
    };
  }
  const hard = (front.difficulty ?? "medium") !== "medium";
  // the reviewer's own memory: a quorum member's is its own
  const member = packetMember(front);
  const memories = member === null ? s.memories : (s.members.get(member)?.memories ?? new Set<number>());
  return {
    paths: (s.request?.paths ?? []).map(clean),
    memory: hard
      ? [...memories]
          .filter((k) => k < front.round && ownRound(s, front, k))
          .sort((a, b) => a - b)
          .flatMap((k) => {
            // shown as the reviewer's own notes only while it is what round k's sealed result said: anyone can drop a file
            const text = input.reads.text(slotFile("memory", k, member));
            const own = input.reads.result(k, member)?.memory_update;
            // (as written before memories were kept with their control characters shown: the bytes as they were)
            const said = typeof own === "string" && own.trim() !== "" && [memoryText(own), own.trim()].includes(text.trim());
            return said ? [{ round: k, text }] : [];
          })
      : [],
    humanNote: note,
    ruling,
  };
}

function planOutcome(s: GateSnapshot, decision: GateDecision, action: OutcomeAction, input: BrokerInput): BrokerStep {
  const now = input.reads.artifactNow();
  if (action.status === "satisfied") {
    const decided = input.reads.artifact();
    // both shas: an edit inside a redacted region changes only the raw one, and must restart the round (SPEC §11)
    if (!now.ok || !decided.ok || now.sha !== decided.sha || now.rawSha !== decided.rawSha) return { type: "recheck" };
    // ...and a pass must re-derive from the sealed result: a stray verdict that contradicts its result ends nothing.
    // under the family maps the round was issued with, as the evidence for its no_verdict is judged (sentPassRederives)
    const reverify = { settings: input.settings, artifact: now, resultBytes: input.reads.resultBytes, issuedOnly: true };
    const unproven = action.quorum
      ? quorumPassProblems(s, action.round, reverify, action.quorum)
      : passProblems(s, action.round, reverify, action.independence);
    if (unproven.length) {
      const what = action.quorum ? `quorum round ${action.round}` : `verdict-${action.round}.json`;
      const detail = `${what} does not re-derive from its result: ${unproven.join("; ")}`;
      return writeEscalation(
        s,
        decision,
        { type: "escalation", round: action.round, reason: "no_verdict", detail, options: RETRY_OPTIONS },
        input,
      );
    }
    // a strong stamp is also held to the settings now, as every report of the pass holds it (§17): one they class with
    // the author's family ends weak, as a sealed violation does, never a no_verdict whose evidence would hang on them;
    // a quorum pass they make a family short alike (§26)
    const settingsNow = { ...reverify, issuedOnly: false };
    const classed =
      action.independence !== "strong"
        ? []
        : action.quorum
          ? quorumPassProblems(s, action.round, settingsNow, action.quorum)
          : passProblems(s, action.round, settingsNow, "strong");
    if (classed.length)
      return planOutcome(
        s,
        decision,
        {
          ...action,
          independence: "weak",
          // the outcome's families are then those settings' (outcomeFamilies): the reason says whose they are
          reason: action.quorum
            ? `${action.reason}, but not under the settings now (${classed[0]}): a weak review, its families as those settings class them`
            : `gate passed, but under the settings now its reviewer is of no known family other than the author's ` +
              `(${classed[0]}): a weak review, its families as those settings class them`,
          ...(action.quorum ? {} : { namesModel: true as const }),
        },
        input,
      );
  }
  const outcome = outcomeRecord(s, action, now, input);
  return {
    type: "write",
    decision,
    action,
    name: "outcome.json",
    text: busJson(outcome),
    events: roundEvents(s, action, input.now),
    outcome,
  };
}

/** The outcome with its attribution: counted rounds, who reviewed, how sure the identity is, the family relation. */
export function outcomeRecord(
  s: GateSnapshot,
  action: OutcomeAction,
  artifact: ArtifactState,
  input: Pick<BrokerInput, "settings" | "reads" | "now" | "trailPath">,
): Outcome {
  const request = s.request!;
  if (action.quorum) return quorumOutcome(s, action, action.quorum, artifact, input);
  const v = s.verdicts.get(action.round);
  // Without a verdict no review was applied (e.g. force-pass after no_verdict): name no reviewer.
  const p = v ? s.packets.get(action.round) : undefined;
  const independence = action.independence ?? p?.independence ?? null;
  const families = outcomeFamilies(s, roundPacket(s, action.round), v, independence, input.settings);
  const assurance = v ? identityAssurance(p!, input.reads.result(action.round)) : null;
  return Outcome.parse({
    schema_version: "guild_bus.outcome.v1",
    run_id: s.runId,
    gate: s.gate,
    status: action.status,
    author_host: request.author_host,
    author_family: families.author_family,
    reviewer_host: p?.reviewer_provider ?? null,
    reviewer_model: v?.reviewer_model ?? p?.reviewer_model ?? null,
    reviewer_family: families.reviewer_family,
    family_relation: families.family_relation,
    author_family_source: families.author_family_source,
    identity_assurance: assurance,
    independence,
    rounds: countedRounds(s),
    ...(action.status === "satisfied" ? { satisfied_at_round: action.round } : {}),
    final_round: action.round,
    // a force-pass passes what its round sent; any other outcome binds the artifact as it is now
    ...(action.status === "force_passed" ? sentShas(roundPacket(s, action.round)!) : outcomeShas(artifact)),
    reason: action.namesModel && assurance ? `${action.reason}; reviewer model ${modelSourceWords(assurance)}` : action.reason,
    trail_path: input.trailPath,
    at: input.now,
  });
}

const FOREIGN = "foreign result (unverified)";
const MANUAL = "declared by whoever answered the manual round (unverified)";

/**
 * How the reviewer's model is known: as its result says, unless that result came from outside the bus. An external
 * result's own word about where it came from proves nothing; a manual round's answer is whoever wrote it (a person
 * through respond, or any file dropped in its slot), so its model is only as that writer declared, never "reported".
 */
function identityAssurance(packet: PacketFrontMatter, result: ReturnType<GateReads["result"]>): string {
  if (packet.reviewer_adapter === "external") return FOREIGN;
  if (packet.reviewer_adapter === "manual") return MANUAL;
  return textOf(result?.reviewer_model_source ?? FOREIGN);
}

/** The artifact bytes an outcome binds; an unreadable artifact is recorded as null (the outcome still says what happened). */
function outcomeShas(artifact: ArtifactState): Pick<Outcome, "artifact_sha256" | "artifact_raw_sha256"> {
  return { artifact_sha256: artifact.ok ? artifact.sha : null, artifact_raw_sha256: artifact.ok ? artifact.rawSha : null };
}

/**
 * A satisfied quorum gate's outcome: every counted member named (provider, family, model) in `quorum`; the single
 * reviewer fields join them, so a reader that knows no quorum still sees who reviewed.
 */
function quorumOutcome(
  s: GateSnapshot,
  action: OutcomeAction,
  counted: NonNullable<OutcomeAction["quorum"]>,
  artifact: ArtifactState,
  input: Pick<BrokerInput, "settings" | "reads" | "now" | "trailPath">,
): Outcome {
  const packet = roundPacket(s, action.round)!;
  const rule = packet.quorum!;
  const weak = action.independence === "weak";
  const members = counted.map(({ provider, family }) => ({
    provider,
    family,
    model: s.members.get(provider)?.verdicts.get(action.round)?.reviewer_model ?? null,
  }));
  // a pass the settings now make short (planOutcome): as they class the author and the members (§26); else as the
  // rule counted them, under the maps the round was issued with, where every counted member relates to the author alike
  const issued = weak ? undefined : judgedAuthor(s, packet, familyMaps(packet, input.settings, s.familyMaps));
  const first = members[0]!.family;
  const families = issued
    ? { ...issued, reviewer_family: first, family_relation: familyRelation(issued.author_family, first) }
    : quorumFamiliesUnder(s, packet, members, input.settings);
  const assurance = counted.map(({ provider }) => {
    const packet = s.members.get(provider)?.packets.get(action.round);
    return `${provider}: ${packet ? identityAssurance(packet, input.reads.result(action.round, provider)) : FOREIGN}`;
  });
  return Outcome.parse({
    schema_version: "guild_bus.outcome.v1",
    run_id: s.runId,
    gate: s.gate,
    status: action.status,
    author_host: s.request!.author_host,
    author_family: families.author_family,
    reviewer_host: members.map((m) => m.provider).join(" + "),
    reviewer_model: members.map((m) => m.model ?? "unknown model").join(" + "),
    reviewer_family: families.reviewer_family,
    family_relation: families.family_relation,
    author_family_source: families.author_family_source,
    identity_assurance: assurance.join("; "),
    independence: weak ? "weak" : "strong",
    rounds: countedRounds(s),
    satisfied_at_round: action.round,
    final_round: action.round,
    ...outcomeShas(artifact),
    quorum: { need: rule.need, of: rule.of, ...(rule.families ? { families: rule.families } : {}), members },
    reason: action.reason,
    trail_path: input.trailPath,
    at: input.now,
  });
}

/** The events an action writes. A round ends once: at its escalation when it has one, else at what follows it. */
function roundEvents(s: GateSnapshot, action: Action, ts: string): Event[] {
  const base = { ts, run_id: s.runId, gate: s.gate };
  const out: Event[] = [];
  // a quorum round's later member packets continue a round already begun: the round before ended once
  if (action.type === "packet" && roundMembers(s, action.round).length) return out;
  const ended = action.type === "packet" ? action.round - 1 : action.round;
  const endsHere = action.type === "escalation" || !s.escalations.has(ended);
  const p = roundPacket(s, ended);
  if (ended >= 1 && endsHere && p) {
    out.push({
      ...base,
      event: "codex_review_round",
      round_number: ended,
      terminated_by_satisfied: action.type === "outcome" && action.status === "satisfied",
      reviewer_host: p.quorum
        ? roundMembers(s, ended)
            .map(([id]) => id)
            .join(" + ")
        : p.reviewer_provider,
      independence: p.independence,
    });
  }
  if (action.type === "escalation")
    out.push({ ...base, event: "review_escalation", round_number: action.round, reason: action.reason, options: action.options });
  // the broker acting on a person's answer to the escalation of the round that ended: the human override, recorded
  const decided = action.type === "escalation" || !s.escalations.has(ended) ? undefined : validDecision(s, ended);
  if (decided)
    out.push({ ...base, event: "review_decision", round_number: ended, reason: s.escalations.get(ended)!.reason, choice: decided.choice });
  if (action.type === "outcome")
    out.push({ ...base, event: "review_outcome", round_number: action.round, status: action.status, reason: action.reason });
  return out;
}

/** trail.md for the gate as it stands and the broker's decision; null for a gate without a request. */
export function trailText(s: GateSnapshot, decision: GateDecision, input: TrailInput): string | null {
  if (!s.request) return null;
  const { entries, findings, details } = trailEntries(s, input.reads.result, input.policy.stop);
  const { settings, policy, reads } = input;
  // an open gate's trail claims no pass: the artifact is read (bounded, hashed, scrubbed) only for an ended one
  const unproven = s.outcome ? unprovenPass(s, { settings, policy, artifact: reads.artifact(), resultBytes: reads.resultBytes }) : null;
  return renderTrail({ ...s, decisions: reads.decisions(), rejected: reads.rejected() }, entries, findings, decision, {
    details,
    unproven,
  });
}

export type TrailInput = Pick<BrokerInput, "settings" | "policy" | "reads">;
