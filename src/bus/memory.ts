// Reviewer memory (hard and nightmare difficulty): the reviewer's own memory_update is kept as memory-<n>.md and
// given back to it in the next packet. Every writer of a result calls this first, so a packet built after the
// result always finds the memory.
import type { Layout } from "./layout.js";
import type { PacketFrontMatter, ReviewResultStrict } from "../spec/schemas.js";
import { deliver } from "./deliver.js";
import { packetMember, slotFile } from "../core/slot-file.js";
import { memoryText } from "../core/memory-text.js";

/** `result` is already scrubbed (scrubResult), so the memory is too. */
export async function deliverMemory(layout: Layout, packet: PacketFrontMatter, result: ReviewResultStrict): Promise<void> {
  if (packet.difficulty !== "hard" && packet.difficulty !== "nightmare") return;
  const text = result.memory_update === undefined ? "" : memoryText(result.memory_update);
  if (!text) return;
  const name = slotFile("memory", packet.round, packetMember(packet));
  await deliver(layout.gateFile(packet.run_id, packet.gate, name), text + "\n", { guildDir: layout.guild });
}
