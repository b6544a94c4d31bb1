// The verifier: for each new result-<n>.json, run the gate-pass against the artifact as it is now (scrubbed), judge
// the score condition and any rulings, and deliver verdict-<n>.json. Deterministic code only; results that cannot
// belong to the open round are rejected.
import { existsSync } from "node:fs";
import { busJson } from "../core/bus-json.js";
import { evaluateGatePass } from "../core/gate-pass.js";
import { type LenientResult, parseReviewResult, type ReadOutcome } from "../core/result-wire.js";
import { textOf } from "../core/text-of.js";
import { evaluateScoreGate } from "../core/score-gate.js";
import { blockingItems, blockingKeys } from "../core/findings.js";
import { artifactOrFault, readArtifact } from "../bus/artifact.js";
import type { ArtifactState } from "../core/artifact-view.js";
import { type PacketFrontMatter, VerdictFile } from "../spec/schemas.js";
import { sha256Hex } from "../core/sha.js";
import { deliveryRefusal, resultRefusal } from "../core/result-slot.js";
import { resultBytes } from "../bus/gate-reader.js";
import { packetTextProblem, readGateLive } from "./issued-packets.js";
import { type GateSnapshot, reviewerViews } from "../core/snapshot.js";
import { contestedFindings, rulingCounts } from "../core/verdict-pass.js";
import { SEALS_DIR, sealFile, slotFile } from "../core/slot-file.js";
import { movesAside } from "../bus/layout.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { ageMs } from "../bus/age.js";
import { decodeUtf8, readBounded, type ReadRefused } from "../bus/read-bounded.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { deliverInOrder } from "../bus/deliver.js";
import { type JudgedVersion, rejectFile, rejectPlace } from "../bus/reject.js";
import type { BusContext } from "../bus/context.js";
import { GATES_IN_FLIGHT, type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { familiesUnder } from "../core/outcome-families.js";
import { lostFamilyMaps, sealedReviewer } from "../core/packet-chain.js";
import { familyMapsProblem } from "../core/family.js";
import { foreignGraceMs } from "../core/gate-queries.js";
import { scrub, scrubOptions } from "../core/scrub.js";
import { ReadFault } from "../core/read-fault.js";

export async function verifyGate(
  ctx: BusContext,
  runId: string,
  gate: string,
  log: (m: string) => void,
  nowMs = Date.now(),
): Promise<"active" | "finished"> {
  // A verdict that landed in a slot after the read (another verifier's, or a stray one, which no event wakes this
  // worker for) is looked at once more now, to move a stray one aside and verify, not at the full-scan look.
  const first = await lookAt(ctx, { runId, gate }, log, nowMs);
  const last = first.slotTaken ? await lookAt(ctx, { runId, gate }, log, nowMs) : first;
  return last.finished ? "finished" : "active";
}

async function lookAt(
  ctx: BusContext,
  { runId, gate }: { runId: string; gate: string },
  log: (m: string) => void,
  nowMs: number,
): Promise<{ finished: boolean; slotTaken: boolean }> {
  const s = readGateLive(ctx, runId, gate);
  // only the version judged is moved: another file may hold the name by the move (SPEC §5)
  const rejectName = async (name: string, reason: string, judged: JudgedVersion) => {
    if (await rejectFile(s.dir, name, reason, rejectPlace(ctx), judged)) log(`${runId}/${gate}: rejected ${name}: ${reason}`);
  };
  for (const p of s.problems) {
    // a result that is symlinked, oversized or not a regular file; a verdict that verified nothing here frees its slot
    if (movesAside("verifier", p.file)) await rejectName(p.file, p.reason, p);
  }
  const grace = foreignGraceMs(ctx.settings);
  // a packet's family maps the broker is to write again (SPEC §7): its answer waits for them, never sealed a violation
  const restoring = new Set(
    lostFamilyMaps(s, ctx.settings).flatMap((l) => (l.restore ? [slotFile("packet", l.packet.round, l.member)] : [])),
  );
  let slotTaken = false;
  // the gate's own reviewer, then each quorum member: the same rule on each one's files
  for (const view of reviewerViews(s)) {
    const reject = (round: number, reason: string, judged: JudgedVersion) =>
      rejectName(slotFile("result", round, view.member), reason, judged);
    for (const [round, seen] of view.results) {
      if (view.verdicts.has(round) || restoring.has(slotFile("packet", round, view.member))) continue;
      // an answer to a packet that is not the broker's is kept for the person who settles that round, never moved aside,
      // and sealed as it is: an edit while the packet is not the broker's breaks the seal, and the round never passes
      if (s.problems.some((p) => p.unissued && p.file === slotFile("packet", round, view.member))) {
        if (ageMs(`${s.dir}/${slotFile("result", round, view.member)}`, seen, nowMs) >= grace)
          await sealAsFound(ctx, { runId, gate, round, member: view.member, view }, log);
        continue;
      }
      // a link, file or directory where the seal or .verified/ goes: nothing can be sealed until a human removes it
      if (s.problems.some((p) => p.blocks && (p.file === sealFile(round, view.member) || p.file === SEALS_DIR))) continue;
      const refusal = resultRefusal(view, round);
      // an answer sealed as found stays once a person settled its round (a retry): it is that round's history, which
      // the packets after it repeat
      if (refusal && keptAnswer(ctx, { runId, gate, round, member: view.member, view })) continue;
      if (refusal) await reject(round, refusal, seen);
      else {
        const mayStillBeWriting = ageMs(`${s.dir}/${slotFile("result", round, view.member)}`, seen, nowMs) < grace;
        const packet = view.packets.get(round)!;
        const toVerify = { ctx, runId, gate, round, member: view.member, packet, view, gateView: s, mayStillBeWriting, reject, log };
        if ((await verifyRound(toVerify)) === "slot taken") slotTaken = true;
      }
    }
  }
  return { finished: s.outcome !== null, slotTaken };
}

interface RoundToVerify {
  ctx: BusContext;
  runId: string;
  gate: string;
  round: number;
  member: string | null;
  packet: PacketFrontMatter;
  /** The reviewer's files the packet belongs to (a quorum member's own): a ruling counts its contested round's findings. */
  view: GateSnapshot;
  /** The whole gate as read (every reviewer's files): what the broker built the packet from. */
  gateView: GateSnapshot;
  /** A foreign writer may still be writing the result in place: an unreadable one is left for later, not rejected. */
  mayStillBeWriting: boolean;
  reject: (round: number, reason: string, judged: JudgedVersion) => Promise<void>;
  log: (m: string) => void;
}

/**
 * Seal a result as it is, with no verdict yet (a later verdict binds the same bytes, or the round never passes): only
 * the answer of the worker that dispatched the round (its delivery key), never one dropped in its slot, which that
 * worker then moves aside to deliver its own.
 */
async function sealAsFound(
  ctx: BusContext,
  slot: { runId: string; gate: string; round: number; member: string | null; view: GateSnapshot },
  log: (m: string) => void,
) {
  const { runId, gate, round, member, view } = slot;
  const sealPath = ctx.layout.gateFile(runId, gate, sealFile(round, member));
  if (existsSync(sealPath)) return; // sealed at an earlier look: the reader compares the result with it
  let bytes: Buffer;
  try {
    bytes = readBounded(ctx.layout.gateFile(runId, gate, slotFile("result", round, member)), { max: MAX_FILE_BYTES });
  } catch (error) {
    rethrowSystemFault(error);
    return; // moved, or not a file a verdict could bind: the next look sees what is there
  }
  const parsed = parseReviewResult(bytes.toString("utf8")).result;
  const packet = view.packets.get(round);
  if (!parsed || !packet || deliveryRefusal(view, packet, parsed) !== null) return;
  await deliverInOrder([{ finalPath: sealPath, bytes }], {
    guildDir: ctx.layout.guild,
    log: (m) => log(`${runId}/${gate}: ${m}`),
  });
}

/** Whether the round's result is its worker's answer that sealAsFound sealed, byte for byte. */
function keptAnswer(
  ctx: BusContext,
  slot: { runId: string; gate: string; round: number; member: string | null; view: GateSnapshot },
): boolean {
  const { runId, gate, round, member, view } = slot;
  try {
    const seal = readBounded(ctx.layout.gateFile(runId, gate, sealFile(round, member)), { max: MAX_FILE_BYTES });
    const bytes = readBounded(ctx.layout.gateFile(runId, gate, slotFile("result", round, member)), { max: MAX_FILE_BYTES });
    const parsed = parseReviewResult(bytes.toString("utf8")).result;
    const packet = view.packets.get(round);
    return seal.equals(bytes) && parsed !== null && packet !== undefined && deliveryRefusal(view, packet, parsed) === null;
  } catch (error) {
    rethrowSystemFault(error);
    return false; // no seal, or no result a seal could match
  }
}

/** Verify one round's result; "slot taken" when another file already held the seal's or the verdict's name. */
async function verifyRound(toVerify: RoundToVerify): Promise<"delivered" | "slot taken" | void> {
  const { ctx, runId, gate, round, member, packet, mayStillBeWriting, reject, log } = toVerify;
  const { layout } = ctx;
  const resultPath = layout.gateFile(runId, gate, slotFile("result", round, member));
  // The verdict binds the bytes on disk: hash exactly what was read, decode strictly (SPEC §5).
  let bytes: Buffer;
  let raw: string;
  try {
    bytes = readBounded(resultPath, { max: MAX_FILE_BYTES });
    raw = decodeUtf8(bytes, slotFile("result", round, member));
  } catch (error) {
    rethrowSystemFault(error); // the disk's failure, not the result's: never a reason to reject a paid review
    if ((error as ReadRefused).kind === "missing") return; // moved meanwhile
    if (mayStillBeWriting && (error as ReadRefused).kind !== "not-regular") return;
    return reject(round, (error as Error).message, toVerify.view.results.get(round) ?? {});
  }
  const parsed = parseReviewResult(raw);
  if (!parsed.result) {
    if (mayStillBeWriting) return; // a foreign writer may still be writing it in place
    return reject(round, `not a review_result.v1: ${parsed.reasons.join("; ")}`, { bytes });
  }
  if (parsed.result.packet_id !== packet.packet_id) {
    return reject(round, `names packet ${JSON.stringify(parsed.result.packet_id)}; the open round's packet is ${packet.packet_id}`, {
      bytes,
    });
  }
  const notDispatched = deliveryRefusal(toVerify.view, packet, parsed.result);
  if (notDispatched) return reject(round, notDispatched, { bytes });
  // the packet's bytes the result is judged against: its fields (stop, author family) decide the pass, so the verdict
  // binds them, and an edit after it breaks the round (SPEC §15). They are the bytes whose fields were judged: read
  // again here, they must still hold the front matter the look saw
  let packetSha: string;
  try {
    const packetName = slotFile("packet", round, member);
    const packetBytes = readBounded(layout.gateFile(runId, gate, packetName), { max: MAX_FILE_BYTES });
    const packetText = decodeUtf8(packetBytes, packetName);
    // ...and they are the broker's packet, to the byte: the next look leaves out one that is not, and the broker moves
    // it aside (undefined: edited since the look)
    if (packetTextProblem(ctx, toVerify.gateView, packet, packetText) !== null) return;
    packetSha = sha256Hex(packetBytes);
  } catch (error) {
    rethrowSystemFault(error);
    return; // moved meanwhile: the next look sees what is there
  }
  // the artifact as it is now: a failure here (the disk, a redaction pattern) is not the result's, so it is retried
  const artifact = artifactOrFault(readArtifact(layout, packet.artifact_path, scrubOptions(ctx.settings)));
  // judging only looks at the result (and its packet): a result no rule foresaw is moved aside with the reason,
  // never retried for ever (its gate would stall)
  let verdict: VerdictFile;
  try {
    verdict = judge(toVerify, artifact, { bytes, raw, packetSha }, { ...parsed, result: parsed.result });
  } catch (error) {
    return reject(round, `the verifier cannot judge it: ${error instanceof Error ? error.message : textOf(error)}`, { bytes });
  }
  // Seal the bytes first: once a verdict exists, these are the only result its round can have (SPEC §15). Both are
  // written at once; the verdict is linked only once the seal is delivered and durable, and not after a conflict.
  const delivered = await deliverInOrder(
    [
      { finalPath: layout.gateFile(runId, gate, sealFile(round, member)), bytes },
      { finalPath: layout.gateFile(runId, gate, slotFile("verdict", round, member)), bytes: busJson(verdict) },
    ],
    { guildDir: layout.guild, log: (m) => log(`${runId}/${gate}: ${m}`) },
  );
  return delivered.some((d) => d.status === "conflict") ? "slot taken" : "delivered";
}

export function createVerifier(options: WorkerOptions): WorkerRuntime {
  return workerRuntime("verifier", options, (ctx, { runId, gate }, _signal, log) => verifyGate(ctx, runId, gate, log), {
    concurrency: GATES_IN_FLIGHT,
    shareWork: true, // several verifiers on a tree split the gates (reconciler.ts, peers.ts)
  });
}

/** The verdict on one round's result, from it, its packet and the artifact read (it throws only on a result no rule
 * foresaw; the caller then rejects it). */
function judge(
  { ctx, runId, gate, round, packet, view }: RoundToVerify,
  artifact: ArtifactState,
  { bytes, raw, packetSha }: { bytes: Buffer; raw: string; packetSha: string },
  parsed: ReadOutcome<LenientResult> & { result: LenientResult },
): VerdictFile {
  const r = parsed.result;
  const reasons: string[] = [];
  const artifactBytes = artifact.ok ? Buffer.from(artifact.text, "utf8") : Buffer.alloc(0);
  if (!artifact.ok) reasons.push(`artifact unreadable now: ${artifact.detail}`);
  const report = evaluateGatePass({ resultRaw: raw, parsed, artifactBytes, packetId: packet.packet_id });
  report.reasons.push(...reasons);
  // maps the packet binds that the gate does not hold seal a violation (no family is known): the verdict says why
  const mapsGone = familyMapsProblem(packet, view.familyMaps);
  if (mapsGone) report.reasons.push(`packet: ${mapsGone}`);
  const {
    model: reviewerModel,
    family: reviewerFamily,
    violatedUnder,
  } = sealedReviewer(r, packet, view.request, ctx.settings, view.familyMaps);
  const contested = contestedFindings(
    packet,
    (round) => {
      const read = resultBytes(view, round);
      if (!read.ok && read.fault) throw new ReadFault(read.reason); // tried again later: a ruling sealed wrong is final
      return read.ok ? blockingItems(parseReviewResult(read.text).result) : null;
    },
    (text) => scrub(text, scrubOptions(ctx.settings)),
  );
  // rulings in any shape count as the re-derivation counts them (one that is not a list upholds): the verdict fails closed
  const rulings = contested !== null || (r.rulings !== undefined && r.rulings !== null) ? rulingCounts(r.rulings, contested) : null;
  return VerdictFile.parse({
    schema_version: "guild_bus.verdict.v1",
    run_id: runId,
    gate,
    round,
    packet_id: packet.packet_id,
    packet_sha256: packetSha,
    result_sha256: sha256Hex(bytes),
    artifact_sha256_reviewed: r.artifact_sha256_reviewed,
    result_verdict: r.verdict,
    blocking_count: blockingItems(r).length,
    blocking_keys: blockingKeys(blockingItems(r)),
    reviewer_model: reviewerModel,
    reviewer_family: reviewerFamily,
    independence_violation: violatedUnder !== undefined,
    // the families that made it a violation: the settings now may be put back before the broker writes the outcome
    ...(violatedUnder ? { violation_families: familiesUnder(view, packet, reviewerModel, violatedUnder) } : {}),
    gate_pass: report,
    score_gate: evaluateScoreGate(r),
    ...(rulings ? { rulings } : {}),
    verified_at: new Date().toISOString(),
  });
}
