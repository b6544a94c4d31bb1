// The interface every reviewer adapter implements; the reviewer worker owns claims, attempts and delivery.
import type { BusContext } from "../bus/context.js";
import type { CapabilityError, PacketFrontMatter, ProviderConfig } from "../spec/schemas.js";

export interface DispatchInput {
  ctx: BusContext;
  providerId: string;
  /** The provider's settings, with `model` and `effort` set to the pair this dispatch must request. */
  config: ProviderConfig;
  front: PacketFrontMatter;
  packetPath: string;
  /** What the reviewer reads: the packet, or the packet plus a schema-repair request. */
  prompt: string;
  signal: AbortSignal;
}

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
  | { kind: "not-run"; reason: string; capability?: CapabilityError; declared?: DeclaredIdentity }
  /** Something may have run (timeout, crash, disconnect, 5xx): never dispatch again automatically. */
  | { kind: "ambiguous"; reason: string; declared?: DeclaredIdentity }
  /** The reviewer answered more than the bus reads (MAX_OUTPUT_BYTES): malformed, never normalized or repaired. */
  | { kind: "oversized"; reason: string; declared?: DeclaredIdentity };

export interface ReviewerAdapter {
  dispatch(input: DispatchInput): Promise<DispatchOutcome>;
}
