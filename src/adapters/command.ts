// The generic command adapter: runs a configured program (no shell) with the packet on stdin or as a file path.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_TIMEOUT_MS, runChild, tail, unfinishedChild, withScratch } from "./child.js";
import { childEnv } from "./environment.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";
import { providerConfigProblem } from "../core/adapter-kinds.js";

export const commandAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    const problem = providerConfigProblem(config); // argv among them
    if (problem) return { kind: "not-run", reason: `provider ${input.providerId}: ${problem}` };
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    // a file the child reads is a private copy of the text the worker checked and sends: the gate's packet-<n>.md can
    // be replaced between that check and the child's read
    const run = (argv: string[]) =>
      runChild({ argv, stdin: input.prompt, timeoutMs, env: childEnv(input), cwd: input.project.root, signal: input.signal });
    const { argv, outcome } =
      config.input === "file"
        ? await withScratch("command", async (scratch) => {
            const file = path.join(scratch, path.basename(input.packetPath));
            writeFileSync(file, input.prompt, { mode: 0o600 });
            const argv = [...config.argv!, file];
            return { argv, outcome: await run(argv) };
          })
        : { argv: config.argv!, outcome: await run(config.argv!) };
    if (outcome.kind !== "exit") return unfinishedChild(outcome, "command", argv[0]!, timeoutMs);
    if (outcome.code !== 0) {
      const how = outcome.code === null ? `killed by ${outcome.signal}` : `exited with ${outcome.code}`;
      const said = tail(outcome.stderr);
      return { kind: "ambiguous", reason: `${how}${said ? `: ${said}` : ", nothing on stderr"}` };
    }
    return { kind: "output", text: outcome.stdout, reportedModel: null };
  },
};
