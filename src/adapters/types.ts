// The interface every reviewer adapter implements; the reviewer worker owns claims, attempts and delivery.
import type { CapabilityError, PacketFrontMatter, ProviderConfig, Settings } from "../spec/schemas.js";

/** What a dispatch needs of the project, and nothing else of the bus. */
interface DispatchProject {
  /** The project root: a nightmare reviewer's workdir, relative binaries, the command's cwd, copilot's profiles. */
  root: string;
  /** secrets_policy.env_allowlist: variables every reviewer child gets besides the base ones. */
  envAllowlist: readonly string[];
  familyAliases: Settings["family_aliases"];
}

export function dispatchProject(root: string, settings: Settings): DispatchProject {
  return { root, envAllowlist: settings.secrets_policy?.env_allowlist ?? [], familyAliases: settings.family_aliases };
}

export interface DispatchInput {
  project: DispatchProject;
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
