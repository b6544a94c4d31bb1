// The name of a reviewer's file for a round: `result-3.json` for the gate's own reviewer, `result-3.<provider>.json`
// for a quorum member (SPEC §26). Every worker and view builds these names here, and the reader parses them back.

const SLOT_EXT = { packet: "md", attempt: "json", result: "json", response: "md", failure: "json", verdict: "json", memory: "md" } as const;
export type SlotKind = keyof typeof SLOT_EXT;

export function slotFile(kind: SlotKind, round: number, member: string | null = null): string {
  return member === null ? `${kind}-${round}.${SLOT_EXT[kind]}` : `${kind}-${round}.${member}.${SLOT_EXT[kind]}`;
}

/** Where the verifier seals the result bytes a verdict binds (SPEC §15). */
export const SEALS_DIR = ".verified";

export function sealFile(round: number, member: string | null = null): string {
  return `${SEALS_DIR}/${slotFile("result", round, member)}`;
}

export function isSlotKind(kind: string): kind is SlotKind {
  return kind in SLOT_EXT;
}

/** The quorum member a packet was issued to, or null for a gate's own reviewer: the suffix of its round's files. */
export function packetMember(p: { quorum?: unknown; reviewer_provider: string }): string | null {
  return p.quorum ? p.reviewer_provider : null;
}
