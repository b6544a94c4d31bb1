// packet-<n>.md: YAML front matter (PacketFrontMatter) followed by the markdown body the reviewer reads.
import YAML from "yaml";
import { describeIssues, PacketFrontMatter } from "../spec/schemas.js";

const FRONT_MATTER_RE = /^---\n([\s\S]*?)\n---\n/;

export function renderPacket(front: PacketFrontMatter, body: string): string {
  const yaml = YAML.stringify(PacketFrontMatter.parse(front), { lineWidth: 0 }).trimEnd();
  return `---\n${yaml}\n---\n${body}`;
}

export function parsePacket(text: string): { front: PacketFrontMatter | null; body: string; problems: string[] } {
  const m = FRONT_MATTER_RE.exec(text);
  if (!m) return { front: null, body: text, problems: ["packet has no YAML front matter"] };
  let data: unknown;
  try {
    data = YAML.parse(m[1]!);
  } catch (error) {
    return { front: null, body: text, problems: [`packet front matter is not YAML: ${(error as Error).message}`] };
  }
  const parsed = PacketFrontMatter.safeParse(data);
  if (!parsed.success) return { front: null, body: text, problems: describeIssues(parsed.error) };
  return { front: parsed.data, body: text.slice(m[0].length), problems: [] };
}

/**
 * Packet ids follow Guild's `<gate>-<run>-r<round>` convention and are injective (SPEC §2): a lane gate keeps its
 * ':' and ends its id with another ':', since neither lane ids nor run ids may hold one (`G-lane:a-b:c-r1` is not
 * `G-lane:a:b-c-r1`). Fixed gate names have no variable part, and `-r<round>` is always the last dash.
 */
export function packetId(runId: string, gate: string, round: number, member: string | null = null): string {
  const id = gate.includes(":") ? `${gate}:${runId}-r${round}` : `${gate}-${runId}-r${round}`;
  // a quorum member's packet names its reviewer: a result for one member can never be taken for another's
  return member === null ? id : `${id}.${member}`;
}
