// packet-<n>.md: YAML front matter (PacketFrontMatter) followed by the markdown body the reviewer reads.
import { describeIssues } from "../spec/issues.js";
import { PacketFrontMatter } from "../spec/schemas.js";
import { parseYaml, readWrittenFrontMatter, renderFrontMatter } from "./front-matter.js";
import { deepFreeze } from "./memo.js";

const FRONT_MATTER_RE = /^---\n([\s\S]*?)\n---\n/;

/**
 * Front matter this process rendered, by its YAML text: parsing that exact text gives that same value back (the
 * round trip test/core/packet.test.ts checks), so the broker's read of its own packet skips the schema check.
 */
const rendered = new Map<string, PacketFrontMatter>();
const RENDERED_KEPT = 256;

export function renderPacket(front: PacketFrontMatter, body: string): string {
  // strings of its own: a value read from a packet is a slice of that packet's whole text (its artifact with it), which
  // the memo would keep alive for as long as it keeps the value
  const parsed = deepFreeze(PacketFrontMatter.parse(JSON.parse(JSON.stringify(front))));
  const yaml = renderFrontMatter(parsed);
  rendered.delete(yaml);
  rendered.set(yaml, parsed);
  if (rendered.size > RENDERED_KEPT) rendered.delete(rendered.keys().next().value!);
  return `---\n${yaml}\n---\n${body}`;
}

/** The text after a packet's front matter block, its front matter unread (the whole text when it has none). */
export function packetBodyText(text: string): string {
  const m = FRONT_MATTER_RE.exec(text);
  return m ? text.slice(m[0].length) : text;
}

export function parsePacket(text: string): { front: PacketFrontMatter | null; body: string; problems: string[] } {
  const m = FRONT_MATTER_RE.exec(text);
  if (!m) return { front: null, body: text, problems: ["packet has no YAML front matter"] };
  const known = rendered.get(m[1]!);
  // an object of its own each time, as a parse makes: a file version's front is what caches about that version (the
  // proof that its body is the broker's) are keyed by, and another text with this front matter is another version
  const { front, problems } = known ? { front: Object.freeze({ ...known }), problems: [] } : readFrontMatter(m[1]!);
  return front ? { front, body: text.slice(m[0].length), problems } : { front: null, body: text, problems };
}

/**
 * The front matter a YAML text holds, read as the bus wrote it or else by the parser: what the memo of rendered ones
 * stands in for.
 */
export function readFrontMatter(yaml: string): { front: PacketFrontMatter | null; problems: string[] } {
  let data: unknown;
  try {
    data = readWrittenFrontMatter(yaml) ?? parseYaml(yaml);
  } catch (error) {
    return { front: null, problems: [`packet front matter is not YAML: ${(error as Error).message}`] };
  }
  const parsed = PacketFrontMatter.safeParse(data);
  return parsed.success ? { front: parsed.data, problems: [] } : { front: null, problems: describeIssues(parsed.error) };
}

/**
 * Packet ids follow Guild's `<gate>-<run>-r<round>` convention and are injective (SPEC §2): a lane gate keeps its
 * ':' and ends its id with another ':', since neither lane ids nor run ids may hold one (`G-lane:a-b:c-r1` is not
 * `G-lane:a:b-c-r1`). Fixed gate names have no variable part, and `-r<round>` is always the last dash.
 */
export function packetId(runId: string, gate: string, round: number, member: string | null = null): string {
  const id = gate.includes(":") ? `${gate}:${runId}-r${round}` : `${gate}-${runId}-r${round}`;
  // a quorum member's packet names its reviewer: a result for one member can never be taken for another's. "+" is in
  // no run id, gate or provider id, so no member's id is another gate's plain one (run "x-r1.p-r2" round 3 and run "x"
  // round 1 member "p-r2-r3" shared one with ".")
  return member === null ? id : `${id}+${member}`;
}
