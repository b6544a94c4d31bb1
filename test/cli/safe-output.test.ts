// `print` writes straight to the descriptor; what the descriptor refuses must still reach the reader, once, in order.
import { afterEach, describe, expect, it, vi } from "vitest";

const written: Buffer[] = [];
let refuse: NodeJS.ErrnoException | null = null;
vi.mock("node:fs", async (actual) => ({
  ...(await actual<typeof import("node:fs")>()),
  writeSync: (fd: number, bytes: Uint8Array, offset: number) => {
    if (fd !== 2) throw new Error(`unexpected descriptor ${fd}`);
    // a pipe that takes four bytes, then is full (or gone)
    if (written.length > 0 && refuse) throw refuse;
    const part = Buffer.from(bytes.subarray(offset, offset + 4));
    written.push(part);
    return part.length;
  },
}));
const { print } = await import("../../src/cli/safe-output.js");

afterEach(() => {
  written.length = 0;
  refuse = null;
  vi.restoreAllMocks();
});

function streamed(): string[] {
  const chunks: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => chunks.push(Buffer.from(chunk as Uint8Array).toString()) > 0);
  return chunks;
}

describe("print", () => {
  it("writes all of the text, made terminal-safe, in as many writes as the descriptor takes", () => {
    const chunks = streamed();
    print("stderr", "title \u001b[2J done\n");
    expect(Buffer.concat(written).toString()).toBe("title \\u001b[2J done\n");
    expect(chunks).toEqual([]);
  });

  it.each(["EAGAIN", "EPIPE", "EBADF"])("hands what the descriptor refused (%s) to Node's stream, which handles it as before", (code) => {
    refuse = Object.assign(new Error(code), { code });
    const chunks = streamed();
    print("stderr", "0123456789\u0007\n");
    expect(Buffer.concat(written).toString()).toBe("0123");
    expect(chunks).toEqual(["456789\\u0007\n"]); // the rest, once, already made safe
  });

  it("passes bytes as they are", () => {
    streamed();
    print("stderr", Buffer.from("a\u001bb"));
    expect(Buffer.concat(written).toString()).toBe("a\u001bb");
  });
});
