// Naming grammar of the bus: every path component is built from a value that passed one of these checks.

export const RUN_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const FIXED_GATES = ["G-init", "G-spec", "G-plan", "G-quality", "G-operations", "G-diagnose"] as const;
export const LANE_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const GATE_RE = /^(?:G-init|G-spec|G-plan|G-quality|G-operations|G-diagnose|G-lane:[A-Za-z0-9._-]{1,64})$/;
export const SHA256_RE = /^[0-9a-fA-F]{64}$/;
/** The wire tag of a review result: its schema_version and the info string of its fence. */
export const RESULT_WIRE = "review_result.v1";

export type Gate = (typeof FIXED_GATES)[number] | `G-lane:${string}`;

function notDots(s: string): boolean {
  return s !== "." && s !== ".." && !s.includes("..");
}

export function isRunId(value: unknown): value is string {
  return typeof value === "string" && RUN_ID_RE.test(value) && notDots(value);
}

export function isGate(value: unknown): value is Gate {
  if (typeof value !== "string" || !GATE_RE.test(value)) return false;
  return !value.startsWith("G-lane:") || notDots(value.slice("G-lane:".length));
}

export function isRound(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

export class InvalidIdError extends Error {
  constructor(kind: string, value: unknown) {
    super(`invalid ${kind}: ${JSON.stringify(value)}`);
    this.name = "InvalidIdError";
  }
}

export function assertRunId(value: unknown): string {
  if (!isRunId(value)) throw new InvalidIdError("run id (expected ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, no '..')", value);
  return value;
}

export function assertGate(value: unknown): Gate {
  if (!isGate(value)) {
    throw new InvalidIdError(`gate (expected one of ${FIXED_GATES.join(" ")} or G-lane:<id>)`, value);
  }
  return value;
}

export function assertRound(value: unknown): number {
  if (!isRound(value)) throw new InvalidIdError("round (positive integer)", value);
  return value;
}
