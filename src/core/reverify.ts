// `status --verify` (SPEC §17): an ended gate's outcome is re-derived from the files it rests on — packet, result,
// verdict, seal, decisions and the artifact as it is now — instead of being believed. Files forged consistently by a
// local writer stay out of the threat model; this turns "trust the files" into "trust, and check on demand".
import type { ArtifactView } from "./artifact-view.js";
import { blockingItems } from "./findings.js";
import { evaluateGatePass } from "./gate-pass.js";
import { parseReviewResult } from "./result-wire.js";
import { evaluateScoreGate } from "./score-gate.js";
import { sha256Hex } from "./sha.js";
import { type ResolvedPolicy, reviewMode } from "./policy.js";
import type { Family, Settings, StopPolicy } from "../spec/schemas.js";
import { type GateSnapshot, memberView } from "./snapshot.js";
import { isIndependent, reviewerOf } from "./independence.js";
import { openRound, roundMembers, roundPacket, validDecision } from "./gate-queries.js";
import { issueProblem, judgedAuthorFamily, judgedMaps, recordsFamilyMaps } from "./packet-chain.js";
import { familyMapsProblem } from "./family.js";
import { deliveryRefusal } from "./result-slot.js";
import { passNoLongerHolds, rescrubbed, sentArtifact, sentShas } from "./sent-bytes.js";
import { scrub, scrubOptions } from "./scrub.js";
import { contestedFindings, failReasons, rulingCounts, verdictPasses } from "./verdict-pass.js";
import { judgeQuorum } from "./quorum.js";
import { familiesProblem, sealedViolationFamilies } from "./outcome-families.js";
import { judgeQuorumRound, quorumMembers } from "./quorum-round.js";
import { type SlotKind, slotFile } from "./slot-file.js";

/** Round n's result as read from disk (bounded): its bytes, or why they could not be read. */
export type ResultBytes = { ok: true; bytes: Buffer; text: string } | { ok: false; reason: string };

export interface ReverifyInput {
  settings: Settings;
  policy: ResolvedPolicy;
  /** The artifact as it is now, or the bytes a round sent (a pass judged at the bytes it passed). */
  artifact: ArtifactView;
  /** Round n's result bytes: the gate's own, or a quorum member's. */
  resultBytes: (round: number, member: string | null) => ResultBytes;
  /** Whether a skip is held to what today's settings require (`status --verify`, `check`); not when a gate's own end is
   * reported (`wait`, `status`, the stop hook): a settings edit re-judges no ended gate. */
  requiredNow?: boolean;
  /** Whether the reviewers' and author's families are judged only under the maps the round's packets were issued with
   * (the broker's judgement of a pass, and the evidence for its escalations: a settings edit since changes neither);
   * not when a pass is reported, which the settings now must not class with the author's family either. */
  issuedOnly?: boolean;
}

export interface Reverification {
  ok: boolean;
  problems: string[];
}

/** The raw bytes are those passed, but the redaction settings (secrets_policy) now scrub them to others (SPEC §17). */
const RESCRUBBED =
  "the redaction settings changed since: the artifact's raw bytes are the ones passed, but they scrub to other bytes now " +
  "(restore the settings, or review again)";

/** What does not re-derive in an ended gate's outcome; an open gate has nothing to verify. */
export function reverifyOutcome(s: GateSnapshot, input: ReverifyInput): Reverification | null {
  const o = s.outcome;
  if (!o) return null;
  // which artifact and which policy the outcome answers are the request's: without it nothing re-derives
  if (!s.request) return { ok: false, problems: ["no valid request.json: the outcome cannot be re-derived from the files"] };
  const problems: string[] = [];
  const n = o.final_round;
  const { policy, artifact } = input;
  // a pass names the gate's last round: an earlier round's pass says nothing of what came after it
  const last = openRound(s);
  if ((o.status === "satisfied" || o.status === "force_passed") && n !== last)
    problems.push(
      last < n
        ? // its packet is missing or was refused: nothing issued the round the outcome names (never "round 0 … after it")
          `the outcome names round ${n}, but no valid packet issued it (the last round issued is ${last})`
        : `the outcome names round ${n}, but round ${last} was issued after it`,
    );
  // when a gate's own end is reported, what request.json asked still holds (`review` records the mode in force); only
  // today's settings are not asked
  const required =
    input.requiredNow !== false ? policy.required : reviewMode({ review: s.request.review ?? "off", risk: s.request.risk }, {}).required;
  if (o.status === "skipped" && required) problems.push(`skipped, but review is required (${policy.requiredBecause})`);
  // the broker skips only before round 1: a gate that issued a packet was under review
  if (o.status === "skipped" && (last > 0 || n !== 0)) problems.push(`skipped, but round ${Math.max(last, n)} was issued`);
  // what explains its independence must be one judgement (SPEC §6): a record that contradicts itself is no broker's
  const packet = roundPacket(s, n);
  const families = familiesProblem(o, packet?.quorum ? undefined : sealedViolationFamilies(packet, s.verdicts.get(n)));
  if (families) problems.push(families);
  if (o.status === "force_passed") {
    if (validDecision(s, n)?.choice !== "force-pass")
      problems.push(`force_passed, but no force-pass decision answers an escalation of round ${n}`);
    const bound = packet && sentShas(packet);
    if (!bound) problems.push(`force_passed, but round ${n} has no valid packet: which bytes were passed cannot be told`);
    else if (
      o.artifact_sha256 !== bound.artifact_sha256 ||
      (bound.artifact_raw_sha256 && o.artifact_raw_sha256 !== bound.artifact_raw_sha256)
    )
      problems.push(`force_passed binds other artifact bytes than round ${n}'s packet sent (${bound.artifact_sha256})`);
  }
  if (o.status === "satisfied") {
    if (o.satisfied_at_round !== n) problems.push(`satisfied_at_round ${String(o.satisfied_at_round)} is not the final round ${n}`);
    // a weak quorum pass claims the rule as the broker judged it, under its packets' maps: the settings now made it
    // weak (§26), as a weak single pass is checked at no family
    else if (packet?.quorum) {
      const judged = o.independence === "weak" ? { ...input, issuedOnly: true } : input;
      problems.push(...quorumPassProblems(s, n, judged, o.quorum?.members ?? null));
    } else problems.push(...passProblems(s, n, input, o.independence));
  }
  if (o.status === "satisfied" || o.status === "force_passed") {
    if (o.artifact_sha256 === null) problems.push("the outcome binds no artifact bytes (artifact_sha256 is null)");
    else if (!artifact.ok) problems.push(`the artifact is unreadable now: ${artifact.detail}`);
    else if (artifact.sha !== o.artifact_sha256)
      problems.push(
        rescrubbed(o, artifact)
          ? `${RESCRUBBED} (outcome ${o.artifact_sha256}, now ${artifact.sha})`
          : `the artifact changed since the outcome (outcome ${o.artifact_sha256}, now ${artifact.sha})`,
      );
    // the scrubbed view hides redacted regions; outcomes written before the raw sha was recorded have only the first check
    else if (o.artifact_raw_sha256 && artifact.rawSha !== o.artifact_raw_sha256)
      problems.push(`the artifact's raw bytes changed since the outcome (an edit inside a redacted region; now ${artifact.rawSha})`);
  }
  return { ok: problems.length === 0, problems };
}

/**
 * Why an ended pass (satisfied, force-passed, skipped) does not re-derive from its gate's files, or null (also for any
 * other end, and for an open gate): what every face asks before it reports the end as a pass (status, wait, the MCP
 * tools, the console, trail.md). Judged as its end is reported, not against today's settings, and at the bytes its
 * final round sent once the artifact no longer holds them: a pass of bytes edited since is still one, of other bytes.
 */
export function unprovenPass(s: GateSnapshot, input: Omit<ReverifyInput, "requiredNow">): string | null {
  const o = s.outcome;
  if (!o || o.status === "rework" || o.status === "stopped") return null;
  const artifact = passNoLongerHolds(o, input.artifact) ? sentArtifact(s) : input.artifact;
  return reverifyOutcome(s, { ...input, artifact, requiredNow: false })?.problems[0] ?? null;
}

/**
 * Why round n's pass does not re-derive from its files: the packet, the result bytes (the sealed ones), a verdict
 * bound to them, the gate-pass on the artifact as it is now under the round's own stop policy, and, for a strong
 * stamp, the reviewer family. The broker asks before it writes `satisfied`; `status --verify` after.
 */
export function passProblems(
  s: GateSnapshot,
  n: number,
  input: Omit<ReverifyInput, "policy">,
  independence: "strong" | "weak" | null | undefined,
): string[] {
  return rederive(s, n, input, independence).problems;
}

/**
 * Whether round n's pass re-derives at the bytes its packet sent, as the broker asks before it writes `satisfied`
 * (a quorum round under the members the rule counts, one reviewer at the independence its verdict earns). Judged
 * from files that stay once the broker has asked, never the artifact: an edit since changes nothing here.
 */
export function sentPassRederives(
  s: GateSnapshot,
  n: number,
  input: Omit<ReverifyInput, "policy" | "artifact">,
  stop: StopPolicy,
): boolean {
  const packet = roundPacket(s, n);
  if (!packet) return false;
  const sent = sentShas(packet);
  const artifact: ArtifactView = { ok: true, sha: sent.artifact_sha256, rawSha: sent.artifact_raw_sha256 ?? "" };
  // the families as the broker judged them, under the maps the round was issued with
  const asked = { ...input, artifact, issuedOnly: true };
  if (packet.quorum) {
    const q = judgeQuorumRound(s, n, packet, packet.stop ?? stop);
    return q.type === "pass" && quorumPassProblems(s, n, asked, q.judgement.counted).length === 0;
  }
  const weak = packet.independence === "strong" && s.verdicts.get(n)?.independence_violation === true;
  return passProblems(s, n, asked, weak ? "weak" : packet.independence).length === 0;
}

interface Rederived {
  problems: string[];
  /** The result holds blocking findings (or upholds a contested one): it closes a quorum round whatever else holds. */
  blocking: boolean;
  /** The reviewer's family under each of the maps the round is judged under (`judgedMaps`), in their order. */
  families: Family[];
  /** A verdict was sealed for this round, but the result it binds is gone or is other bytes now: what the round was
   * judged on cannot be read again, so nothing about it re-derives (a deleted or edited blocker among them). */
  sealBroken: boolean;
}

function rederive(
  s: GateSnapshot,
  n: number,
  input: Omit<ReverifyInput, "policy">,
  independence: "strong" | "weak" | null | undefined,
): Rederived {
  const { artifact, settings } = input;
  const name = (kind: SlotKind) => slotFile(kind, n, s.member);
  const packet = s.packets.get(n);
  const maps = judgedMaps(packet ?? {}, settings, input.issuedOnly === true, s.familyMaps);
  if (!packet) return { problems: [`no valid ${name("packet")}`], blocking: false, families: maps.map(() => "unknown"), sealBroken: false };
  const stop = packet.stop ?? "verdict";
  const read = input.resultBytes(n, s.member);
  const sealed = s.verdicts.has(n) || s.brokenSeals.has(n);
  if (!read.ok)
    return {
      problems: [`${name("result")}: ${read.reason}`],
      blocking: false,
      families: maps.map(() => packet.reviewer_family),
      sealBroken: sealed,
    };
  const { bytes, text: raw } = read;
  // a packet the broker would not have issued for this gate passes nothing, whatever its result says: a packet that
  // records its family maps had its reviewer checked against the settings while its round was open, before a
  // verdict was sealed (workers/issued-packets.ts), so only its request is asked now and a providers edit since
  // re-judges nothing (SPEC §7); an earlier build's is held to the settings now, as it was
  const unissued = s.request && issueProblem(packet, s.request, recordsFamilyMaps(packet) ? null : settings);
  const problems: string[] = unissued ? [`${name("packet")}: ${unissued}`] : [];
  const mapsGone = familyMapsProblem(packet, s.familyMaps);
  if (mapsGone) problems.push(`${name("packet")}: ${mapsGone}`);
  const verdict = s.verdicts.get(n);
  // a verdict the reader left out says why (its seal removed, say): "no verdict" would name the wrong file
  const unbound = s.problems.find((p) => p.file === name("verdict"))?.reason;
  if (!verdict)
    problems.push(
      s.brokenSeals.get(n) ?? (unbound ? `${name("verdict")}: ${unbound}` : `no ${name("verdict")} bound to ${name("result")}`),
    );
  else if (verdict.result_sha256 !== sha256Hex(bytes)) problems.push(`${name("verdict")} binds other result bytes`);
  // the verdict as the broker judged it: an upheld contested finding keeps the gate closed whatever the result says
  else if (!verdictPasses(verdict, stop)) problems.push(`${name("verdict")} does not pass: ${failReasons(verdict, stop).join("; ")}`);
  // copilot's identity is only declared: its pass ends nothing until a finalizer of another family confirms it
  if (packet.reviewer_adapter === "copilot") problems.push(`round ${n} is copilot's pass, which only a finalizer round can confirm`);
  // The gate-pass again, on the artifact bytes the outcome names when they are still on disk.
  const artifactNamed = artifact.ok ? { artifactSha256: artifact.sha } : { artifactBytes: Buffer.alloc(0) };
  // the scrubbed bytes the result names hide redacted regions: the raw bytes must be the ones the packet sent
  if (artifact.ok && packet.artifact_raw_sha256 !== undefined && packet.artifact_raw_sha256 !== artifact.rawSha)
    problems.push(
      `the artifact's raw bytes are not those ${name("packet")} sent ` +
        // only an edit the scrubbed view cannot see is one inside a redacted region
        `(${artifact.sha === packet.artifact_sha256 ? "an edit inside a redacted region" : "edited since"}; ` +
        `packet ${packet.artifact_raw_sha256}, now ${artifact.rawSha})`,
    );
  const report = evaluateGatePass({ resultRaw: raw, ...artifactNamed, packetId: packet.packet_id });
  const c = report.conditions;
  const result = parseReviewResult(raw).result;
  if (!c.parses || !c.packet_id_match || !c.no_blockers) problems.push(`gate-pass fails: ${report.reasons.join("; ")}`);
  else if (!c.sha256_match && artifact.ok)
    problems.push(
      packet.artifact_raw_sha256 === artifact.rawSha
        ? `${RESCRUBBED}: ${report.reasons.join("; ")}`
        : // said as what it is here, an ended round: not the live round's "changed since its packet"
          `the result reviewed other bytes than the artifact holds now (reviewed ${result?.artifact_sha256_reviewed}, now ${artifact.sha})`,
    );
  const notDispatched = result && deliveryRefusal(s, packet, result);
  if (notDispatched) problems.push(notDispatched);
  // a ruling round again from the result: a contested finding it does not withdraw explicitly stands
  const contested = contestedFindings(
    packet,
    (round) => {
      const read = input.resultBytes(round, s.member);
      return read.ok ? blockingItems(parseReviewResult(read.text).result) : null;
    },
    (text) => scrub(text, scrubOptions(settings)),
  );
  // the rulings counted from the sealed result, never from the verdict file's copy of them
  const upheld = rulingCounts(result?.rulings, contested).upheld;
  if (contested !== null && upheld)
    problems.push(`${name("result")} leaves ${upheld} of round ${packet.restart_of}'s ${contested.length} contested finding(s) standing`);
  else if (upheld) problems.push(`${name("result")} upholds ${upheld} contested finding(s)`);
  if (stop === "verdict" && result?.verdict !== "satisfied")
    problems.push(`the result's verdict is ${JSON.stringify(result?.verdict)}, not "satisfied"`);
  if (stop === "score" && result && !evaluateScoreGate(result).positive) problems.push("the result's score does not pass the score gate");
  const families = maps.map((m, i) => {
    const { model, family } = reviewerOf(result ?? {}, packet, m.family_aliases);
    const author = judgedAuthorFamily(packet, s.request, m);
    const now = i > 0 ? " under the settings now (not those the packet was issued with)" : "";
    if (independence === "strong" && packet.independence === "strong" && !isIndependent(author, family))
      problems.push(`independence strong, but the reviewer model ${JSON.stringify(model)} is of family ${family} (author ${author})${now}`);
    return family;
  });
  // a violation its verifier sealed stays, whatever the settings say since: decide() never stamps such a pass strong
  if (independence === "strong" && packet.independence === "strong" && verdict?.independence_violation)
    problems.push(`independence strong, but ${name("verdict")} sealed an independence violation`);
  if (independence === "strong" && packet.independence !== "strong")
    problems.push(`independence strong, but ${name("packet")} promised a ${packet.independence} review`);
  const sealBroken = s.brokenSeals.has(n) || (verdict !== undefined && verdict.result_sha256 !== sha256Hex(bytes));
  return { problems, blocking: (c.parses && !c.no_blockers) || upheld > 0, families, sealBroken };
}

/**
 * Why round n's quorum pass does not re-derive: each member re-derived on its own files, the rule run again on
 * those (no member blocks; K distinct counting families pass on the artifact's bytes), and — for an outcome — the
 * members it names are exactly the ones the rule counts.
 */
export function quorumPassProblems(
  s: GateSnapshot,
  n: number,
  input: Omit<ReverifyInput, "policy">,
  named: Array<{ provider: string; family: Family }> | null,
): string[] {
  const packet = roundPacket(s, n)!;
  const rule = packet.quorum!;
  const sha = input.artifact.ok ? input.artifact.sha : null;
  const members = roundMembers(s, n).map(([provider]) => {
    const view = memberView(s, provider);
    const again = rederive(view, n, input, "strong");
    const violation = view.verdicts.get(n)?.independence_violation === true;
    return { provider, ...again, family: again.families[0]!, passed: again.problems.length === 0, violation, sha };
  });
  // the rule holds under each of the maps the round is judged under; the first's counted members are the outcome's
  const judged = judgedMaps(packet, input.settings, input.issuedOnly === true, s.familyMaps).map((maps, i) =>
    judgeQuorum(
      rule,
      judgedAuthorFamily(packet, s.request, maps),
      members.map((m) => ({ ...m, family: m.families[i] ?? m.family })),
    ),
  );
  const j = judged[0]!;
  // the broker judges a quorum round once all its members' packets are out and every one has ended: a member still
  // reviewing could block it
  const unended = quorumMembers(s, n, packet.stop ?? "verdict").filter((m) => m.state.kind === "pending");
  // as the broker judges (§26 rule 3): a member whose sealed answer is gone or changed ended without a verdict it can
  // stand by, which no pass of the others outweighs (a deleted or edited blocker would otherwise not count)
  const unsealed = members.filter((m) => m.sealBroken);
  const problems = [
    ...(members.length < rule.of ? [`quorum ${rule.need}/${rule.of}: only ${members.length} reviewer(s) were sent round ${n}`] : []),
    ...(unended.length ? [`quorum round ${n} had not ended: ${unended.map((m) => m.provider).join(", ")} still reviewing`] : []),
    ...unsealed.map((m) => `quorum round ${n}: ${m.provider}'s sealed answer is not on disk as sealed (${m.problems.join(", ")})`),
  ];
  if (!j.pass)
    problems.push(
      `quorum ${rule.need}/${rule.of} does not re-derive: ` +
        (j.blockedBy.length
          ? `blocked by ${j.blockedBy.join(", ")}`
          : `${j.missingCount} famil${j.missingCount === 1 ? "y" : "ies"} short`) +
        members
          .filter((m) => m.problems.length)
          .map((m) => `; ${m.provider}: ${m.problems.join(", ")}`)
          .join(""),
    );
  const now = judged.slice(1).find((o) => !o.pass);
  if (j.pass && now)
    problems.push(
      `quorum ${rule.need}/${rule.of} does not re-derive under the settings now (not those its packets were issued with): ` +
        `${now.missingCount} famil${now.missingCount === 1 ? "y" : "ies"} short`,
    );
  if (named !== null) {
    const key = (m: { provider: string; family: Family }) => `${m.provider}/${m.family}`;
    const counted = new Set(j.counted.map(key));
    const listed = named.map(key);
    if (listed.length !== counted.size || new Set(listed).size !== listed.length || listed.some((k) => !counted.has(k)))
      problems.push(
        `the outcome names ${listed.join(", ") || "no members"}, but the rule counts ${[...counted].join(", ") || "none"}` +
          // why a named member does not count, when its own files say
          members
            .filter((m) => m.problems.length && named.some((c) => c.provider === m.provider))
            .map((m) => `; ${m.provider}: ${m.problems.join(", ")}`)
            .join(""),
      );
  }
  return problems;
}
