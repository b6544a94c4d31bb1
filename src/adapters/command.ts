// The generic command adapter: runs a configured program (no shell) with the packet on stdin or as a file path.
import { minimalEnv, runChild, unfinishedChild } from "./child.js";
import type { DispatchInput, DispatchOutcome, ReviewerAdapter } from "./types.js";

export const DEFAULT_TIMEOUT_MS = 15 * 60_000;

export const commandAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    if (!config.argv?.length) return { kind: "not-run", reason: `provider ${input.providerId} has no argv configured` };
    const argv = config.input === "file" ? [...config.argv, input.packetPath] : config.argv;
    const allow = [...(input.ctx.settings.secrets_policy?.env_allowlist ?? []), ...(config.env ?? [])];
    const outcome = await runChild({
      argv,
      stdin: config.input === "file" && input.prompt === "" ? "" : input.prompt,
      timeoutMs: config.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      env: minimalEnv(allow, process.env, { GUILD_BUS_PACKET_ID: input.front.packet_id, GUILD_BUS_ROUND: String(input.front.round) }),
      cwd: input.ctx.layout.root,
      signal: input.signal,
    });
    if (outcome.kind !== "exit") return unfinishedChild(outcome, "command", argv[0]!, config.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    if (outcome.code !== 0) {
      return { kind: "ambiguous", reason: `exited with ${outcome.code ?? outcome.signal}: ${outcome.stderr.trim().slice(-500)}` };
    }
    return { kind: "output", text: outcome.stdout, reportedModel: null };
  },
};
