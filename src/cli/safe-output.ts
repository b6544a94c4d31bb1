// Every line this process prints passes the one terminal rule (core/terminal-safe.ts): 52 places print text that may
// come from a reviewer or a planted file, and a rule applied at each of them would be missed at the next.
import { terminalSafe } from "../core/terminal-safe.js";

/** Text written to standard output and error is made terminal-safe (bytes, e.g. a child's piped output, pass as is). */
export function guardOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(typeof chunk === "string" ? terminalSafe(chunk) : chunk, ...rest)) as typeof stream.write;
  }
}
