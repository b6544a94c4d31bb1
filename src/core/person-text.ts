// Text a person hands on that goes whole into a packet or the trail (a rebuttal, a decision's note): one rule for the
// commands that write it and the reader of a file another tool dropped.
import { MAX_NOTE_BYTES } from "../spec/constants.js";

/** A rebuttal that says nothing: it would open a paid ruling round on nothing. */
export const EMPTY_REBUTTAL = "the rebuttal is empty: say why the findings are wrong, or revise the artifact and resubmit";

/** Refused, never cut (that would change what it says), when longer than MAX_NOTE_BYTES; null when it fits. */
function tooLong(what: string, holder: string, text: string, goesInto: string): string | null {
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_NOTE_BYTES) return null;
  return (
    `the ${what} is ${bytes} bytes; ${holder} holds at most ${MAX_NOTE_BYTES} bytes (${MAX_NOTE_BYTES / 1024} KiB), as it goes whole ` +
    `into ${goesInto}: shorten it (long material belongs in a project file the artifact names)`
  );
}

/** Why a rebuttal's text cannot be ruled on, or null. */
export function rebuttalTextProblem(text: string): string | null {
  if (!text.trim()) return EMPTY_REBUTTAL;
  return tooLong("rebuttal", "a rebuttal", text, "the ruling round's packet");
}

/** Why a decision's note cannot be passed on, or null. */
export function decisionNoteProblem(note: string | undefined): string | null {
  return tooLong("note", "a decision's note", note ?? "", "the trail, and a continue note into the next packet");
}
