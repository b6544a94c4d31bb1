// Naming grammar of the bus: every path component is built from a value that passed one of these checks.

export const RUN_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The one list of gates: these, and a lane gate per lane id (`G-lane:<id>`). */
export const FIXED_GATES = ["G-init", "G-spec", "G-plan", "G-quality", "G-operations", "G-diagnose"] as const;
export type FixedGate = (typeof FIXED_GATES)[number];
const LANE_ID = "[A-Za-z0-9._-]{1,64}";
export const GATE_RE = new RegExp(`^(?:${FIXED_GATES.join("|")}|G-lane:${LANE_ID})$`);
/** How the gates are spelled out to a person. */
export const GATE_NAMES = `${FIXED_GATES.join(" ")} or G-lane:<id>`;
export const SHA256_RE = /^[0-9a-fA-F]{64}$/;
/** A provider id: a key of `settings.providers`, a quorum member's file-name part, a provider a worker advertises. */
export const PROVIDER_ID = "[a-z0-9][a-z0-9._-]{0,63}";
export const PROVIDER_ID_RE = new RegExp(`^${PROVIDER_ID}$`);

export type Gate = FixedGate | `G-lane:${string}`;

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

/** The per-gate settings key (gate_tiers, gate_quorum) that stands for every lane gate. */
export const EVERY_LANE = "G-lane";

/** A key of a per-gate settings map: a gate, or EVERY_LANE. Any other names no gate, so its entry would never apply. */
export function isGateKey(value: string): boolean {
  return value === EVERY_LANE || isGate(value);
}

export class InvalidIdError extends Error {
  constructor(kind: string, value: unknown) {
    // echoed, but bounded: a megabyte "id" must not come back as a megabyte error
    const shown = JSON.stringify(value) ?? typeof value;
    super(`invalid ${kind}: ${shown.length > 120 ? `${shown.slice(0, 120)}… (${shown.length} characters)` : shown}`);
    this.name = "InvalidIdError";
  }
}

export function assertRunId(value: unknown): string {
  if (!isRunId(value)) throw new InvalidIdError("run id (expected ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, no '..')", value);
  return value;
}

export function assertGate(value: unknown): Gate {
  if (!isGate(value)) {
    throw new InvalidIdError(`gate (expected one of ${GATE_NAMES})`, value);
  }
  return value;
}
