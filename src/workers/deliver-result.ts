// The one way a result enters a gate, whoever wrote the answer (reviewer worker, manual worker, `respond`): scrub it,
// bound it, check that its round can still take a result (SPEC §15), deliver the reviewer's memory, then the result.
import { busJson } from "../core/bus-json.js";
import { resultRefusal } from "../core/result-slot.js";
import { readGate } from "../bus/gate-reader.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { receivedScrubOptions, scrubResult } from "../core/scrub.js";
import { type PacketFrontMatter, resultFieldNames, type ReviewResultStrict } from "../spec/schemas.js";
import { deliver, type DeliverStatus } from "../bus/deliver.js";
import { readBounded } from "../bus/read-bounded.js";
import { keepRejected, rejectPlace } from "../bus/reject.js";
import type { BusContext } from "../bus/context.js";
import { deliverMemory } from "../bus/memory.js";
import { memberView } from "../core/snapshot.js";
import { packetMember, slotFile } from "../core/slot-file.js";
import { withoutForeignEscalation } from "./issued-packets.js";

export type ResultDelivery =
  { ok: true; status: DeliverStatus; result: ReviewResultStrict } | { ok: false; reason: string; tooLarge: boolean; keptAs?: string };

/** `keepRefused`: a paid answer its round no longer takes is kept in the gate's rejected/, with why, never lost. */
/** The result and the bytes `deliverResult` writes for `answer`. */
export function resultAsDelivered(ctx: BusContext, answer: ReviewResultStrict): { result: ReviewResultStrict; text: string } {
  // the providers' own API keys too, by value: an endpoint that echoes the key it was sent must not commit it to the gate
  const result = scrubResult(answer, receivedScrubOptions(ctx.settings), resultFieldNames());
  return { result, text: busJson(result) };
}

export async function deliverResult(
  ctx: BusContext,
  packet: PacketFrontMatter,
  answer: ReviewResultStrict,
  { keepRefused = false } = {},
): Promise<ResultDelivery> {
  const { layout } = ctx;
  const { result, text } = resultAsDelivered(ctx, answer);
  const bytes = Buffer.byteLength(text);
  // scrub labels can grow an answer; a gate file the verifier refuses unread would strand the round
  if (bytes > MAX_FILE_BYTES)
    return {
      ok: false,
      tooLarge: true,
      reason: `the result is ${bytes} bytes once scrubbed, more than the ${MAX_FILE_BYTES} a gate file may hold`,
    };
  const member = packetMember(packet);
  // an escalation that cannot be the broker's does not close the round to its paid answer
  const gate = withoutForeignEscalation(ctx, readGate(layout, packet.run_id, packet.gate));
  // A view the system failed to read whole (EIO, EMFILE…) cannot refuse a paid answer: it is delivered, and the
  // verifier, which acts only on whole views, moves it aside if its round had closed after all.
  const whole = !gate.problems.some((p) => p.fault);
  const refusal = whole ? resultRefusal(member === null ? gate : memberView(gate, member), packet.round) : null;
  const name = slotFile("result", packet.round, member);
  const slot = layout.gateFile(packet.run_id, packet.gate, name);
  // a try of this delivery landed before the system failed it (EIO on its fsync), and the round went on from it: that
  // is this answer delivered, not one the round no longer takes (the bytes carry the dispatch's key)
  if (refusal && holds(slot, text)) return { ok: true, status: "identical", result };
  if (refusal) {
    const keptAs = keepRefused
      ? await keepRejected(gate.dir, name, text, `not delivered: ${refusal}`, rejectPlace(ctx)).catch(() => undefined) // a linked rejected/
      : undefined;
    return { ok: false, tooLarge: false, reason: refusal, ...(keptAs ? { keptAs } : {}) };
  }
  await deliverMemory(layout, packet, result);
  const { status } = await deliver(slot, text, { guildDir: layout.guild });
  return { ok: true, status, result };
}

function holds(file: string, text: string): boolean {
  try {
    return readBounded(file, { max: MAX_FILE_BYTES }).equals(Buffer.from(text, "utf8"));
  } catch {
    return false;
  }
}
