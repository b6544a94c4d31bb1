// How this process prints. Every line passes the one terminal rule (core/terminal-safe.ts): 52 places print text that
// may come from a reviewer or a planted file, and a rule applied at each of them would be missed at the next.
// A command prints with `print`, straight to the descriptor: Node builds process.stdout on first use, and that loads
// its stream modules (2-3 ms of a command's start, more for a pipe; bench/README.md), which a hook run at every turn
// of an author host pays each time. Once something has made the stream, everything goes through it, in order.
import { writeSync } from "node:fs";
import { terminalSafe } from "../core/terminal-safe.js";

type Output = "stdout" | "stderr";
const DESCRIPTOR: Record<Output, number> = { stdout: 1, stderr: 2 };
/** The outputs whose Node stream exists (guarded and in use): printing goes through it from then on. */
const streams = new Set<Output>();

/**
 * Guards standard output and error from the moment Node makes each stream: text written to it is made terminal-safe
 * (bytes, e.g. a child's piped output, pass as is), and output nobody reads any more (`guild-bus … | head`) ends the
 * process quietly with the code it has so far, instead of an unhandled EPIPE; a command that handles it itself (`up`
 * drains its workers) adds its own listener and decides.
 */
export function guardOutput(): void {
  for (const name of ["stdout", "stderr"] as const) {
    const made = Object.getOwnPropertyDescriptor(process, name);
    if (!made?.get || !made.configurable) {
      guard(name, process[name]);
      continue;
    }
    let stream: NodeJS.WriteStream | undefined;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: made.enumerable,
      get: () => (stream ??= guard(name, made.get!.call(process) as NodeJS.WriteStream)),
    });
  }
}

function guard(name: Output, stream: NodeJS.WriteStream): NodeJS.WriteStream {
  streams.add(name);
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === "string" ? terminalSafe(chunk) : chunk, ...rest)) as typeof stream.write;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" && stream.listenerCount("error") === 1) process.exit(process.exitCode ?? 0);
  });
  return stream;
}

/**
 * Prints text (made terminal-safe) or bytes (as they are) to standard output or error, synchronously. Whatever the
 * descriptor refuses (a full non-blocking pipe, a closed reader, no descriptor at all) is handed to Node's stream,
 * which handles it as it always has: waits, ends quietly (EPIPE, above), or drops it.
 */
export function print(name: Output, chunk: string | Uint8Array): void {
  if (streams.has(name) || process.platform === "win32") {
    process[name].write(chunk);
    return;
  }
  const bytes = typeof chunk === "string" ? Buffer.from(terminalSafe(chunk)) : chunk;
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(DESCRIPTOR[name], bytes, written);
  } catch {
    process[name].write(bytes.subarray(written));
  }
}
