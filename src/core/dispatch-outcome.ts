// What one dispatch of a reviewer came to: the core plans fallbacks and records attempts from it; adapters produce it.
import type { CapabilityError } from "../spec/schemas.js";

/** An identity the adapter chose itself and nothing reported (copilot: the agent profile's `model:`). */
export interface DeclaredIdentity {
  model: string;
  profile: string;
}

export type DispatchOutcome =
  /** The reviewer answered; reportedModel is what the CLI or endpoint said it ran, when it says. */
  | { kind: "output"; text: string; reportedModel?: string | null; declared?: DeclaredIdentity }
  /**
   * Proven that no review ran (binary missing, spawn failure, refused before sending): safe to fall back. With
   * `capability`, the refusal named the requested effort or model, so a weaker pair may be tried.
   */
  | {
      kind: "not-run";
      reason: string;
      capability?: CapabilityError;
      declared?: DeclaredIdentity;
      /** The system could not start the reviewer (its errno: EMFILE, EAGAIN…): a shortage that passes. */
      shortage?: string;
    }
  /** Something may have run (timeout, crash, disconnect, 5xx): never dispatch again automatically. */
  | { kind: "ambiguous"; reason: string; declared?: DeclaredIdentity }
  /** The reviewer answered more than the bus reads (MAX_OUTPUT_BYTES): malformed, never normalized or repaired. */
  | { kind: "oversized"; reason: string; declared?: DeclaredIdentity };
