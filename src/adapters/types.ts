// The interface every reviewer adapter implements; the reviewer worker owns claims, attempts and delivery.
import type { BusContext } from "../worker/context.js";
import type { PacketFrontMatter, ProviderConfig } from "../spec/schemas.js";

export interface DispatchInput {
  ctx: BusContext;
  providerId: string;
  config: ProviderConfig;
  front: PacketFrontMatter;
  packetPath: string;
  /** What the reviewer reads: the packet, or the packet plus a schema-repair request. */
  prompt: string;
  signal: AbortSignal;
}

export type DispatchOutcome =
  /** The reviewer answered; reportedModel is what the CLI or endpoint said it ran, when it says. */
  | { kind: "output"; text: string; reportedModel?: string | null }
  /** Proven that no review ran (binary missing, spawn failure, refused before sending): safe to fall back. */
  | { kind: "not-run"; reason: string }
  /** Something may have run (timeout, crash, disconnect, 5xx): never dispatch again automatically. */
  | { kind: "ambiguous"; reason: string };

export interface ReviewerAdapter {
  dispatch(input: DispatchInput): Promise<DispatchOutcome>;
}
