// The interface every reviewer adapter implements; the reviewer worker owns claims, attempts and delivery.
import type { DispatchOutcome } from "../core/dispatch-outcome.js";
import type { PacketFrontMatter, ProviderConfig, Settings } from "../spec/schemas.js";

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

export interface ReviewerAdapter {
  dispatch(input: DispatchInput): Promise<DispatchOutcome>;
}
