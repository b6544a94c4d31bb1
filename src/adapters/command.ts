// The generic command adapter: runs a configured program (no shell) with the packet on stdin or as a file path.
import { DEFAULT_TIMEOUT_MS, runChild, tail, unfinishedChild } from "./child.js";
import { childEnv } from "./environment.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";

export const commandAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    if (!config.argv?.length) return { kind: "not-run", reason: `provider ${input.providerId} has no argv configured` };
    const argv = config.input === "file" ? [...config.argv, input.packetPath] : config.argv;
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const outcome = await runChild({
      argv,
      stdin: config.input === "file" && input.prompt === "" ? "" : input.prompt,
      timeoutMs,
      env: childEnv(input),
      cwd: input.project.root,
      signal: input.signal,
    });
    if (outcome.kind !== "exit") return unfinishedChild(outcome, "command", argv[0]!, timeoutMs);
    if (outcome.code !== 0) {
      return { kind: "ambiguous", reason: `exited with ${outcome.code ?? outcome.signal}: ${tail(outcome.stderr)}` };
    }
    return { kind: "output", text: outcome.stdout, reportedModel: null };
  },
};
