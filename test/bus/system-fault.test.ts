// A delivery that must not be lost (a paid answer, the record of a dispatch) is tried again while the system fails
// it (EMFILE, EIO…); a failure of the file or the call itself is not retried.
import { describe, expect, it } from "vitest";
import { isSystemFault, retryOnSystemFault } from "../../src/bus/system-fault.js";
import { ReadRefused } from "../../src/bus/read-bounded.js";

const failure = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe("system faults", () => {
  it("tells the system's failures from the file's", () => {
    for (const code of ["EIO", "EMFILE", "ESTALE", "ENOTCONN"]) expect(isSystemFault(failure(code))).toBe(true);
    for (const code of ["ENOENT", "EACCES", "EEXIST", "ELOOP"]) expect(isSystemFault(failure(code))).toBe(false);
    expect(isSystemFault(new ReadRefused("f", "unreadable", "f: cannot open (EIO)", "EIO"))).toBe(true);
    expect(isSystemFault(new ReadRefused("f", "too-large", "f: too large"))).toBe(false);
    expect(isSystemFault(null)).toBe(false);
  });

  it("tries a call again while the system fails it, and gives up at once on any other failure", async () => {
    const codes = ["EMFILE", "EIO"];
    let calls = 0;
    await expect(
      retryOnSystemFault(async () => {
        calls++;
        const code = codes.shift();
        if (code) throw failure(code);
        return "delivered";
      }),
    ).resolves.toBe("delivered");
    expect(calls).toBe(3);

    calls = 0;
    await expect(
      retryOnSystemFault(async () => {
        calls++;
        throw failure("EACCES");
      }),
    ).rejects.toThrow("EACCES");
    expect(calls).toBe(1);
  });
});
