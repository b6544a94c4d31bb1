// What changed in the artifact between two rounds: the scrubbed bytes each packet embedded, diffed by line.
import { diffLines } from "diff";

export type DiffLine = { kind: "add" | "del" | "same"; text: string };

/** A diff worth more than this many edits, or longer than this to compute, is shown as "too different". */
const MAX_EDITS = 5000;
export const DIFF_TIMEOUT_MS = 500;
/** Unchanged runs longer than this are folded to their first and last CONTEXT lines. */
const CONTEXT = 3;

export function artifactDiff(before: string, after: string, timeoutMs = DIFF_TIMEOUT_MS): DiffLine[] | null {
  const parts = diffLines(before, after, { maxEditLength: MAX_EDITS, timeout: Math.min(timeoutMs, DIFF_TIMEOUT_MS) });
  if (!parts) return null;
  const out: DiffLine[] = [];
  for (const part of parts) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    const kind: DiffLine["kind"] = part.added ? "add" : part.removed ? "del" : "same";
    if (kind === "same" && lines.length > 2 * CONTEXT + 1) {
      out.push(...lines.slice(0, CONTEXT).map((text) => ({ kind, text })));
      out.push({ kind, text: `… ${lines.length - 2 * CONTEXT} unchanged lines …` });
      out.push(...lines.slice(-CONTEXT).map((text) => ({ kind, text })));
    } else for (const text of lines) out.push({ kind, text }); // one push per line: a spread of an artifact's lines overflows
  }
  return out;
}
