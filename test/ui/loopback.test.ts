import { describe, expect, it } from "vitest";
import { isLoopback } from "../../src/ui/loopback.js";

describe("isLoopback: whether --host keeps the console on this machine", () => {
  it("is every loopback address and localhost", () => {
    for (const host of ["127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.2", "localhost"])
      expect(isLoopback(host), host).toBe(true);
  });

  it("is no address another machine can reach, nor a name it cannot tell", () => {
    for (const host of ["0.0.0.0", "::", "128.0.0.1", "10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "example.test", "127.0.0.1.nip.io"])
      expect(isLoopback(host), host).toBe(false);
  });
});
