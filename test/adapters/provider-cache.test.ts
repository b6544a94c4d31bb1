// A broker reuses its providers' detection for a minute, but never a detection that failed (a full disk while the probe
// cache was saved, say): the next gate probes again.
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { ProviderCache } from "../../src/adapters/provider-cache.js";
import type { DetectedProvider } from "../../src/adapters/probe.js";

describe("provider cache", () => {
  it("reuses a detection within its time, and detects again after one that failed", async () => {
    let calls = 0;
    const found: DetectedProvider[] = [];
    const cache = new ProviderCache(new Layout("/nonexistent"), 600_000, async () => {
      if (++calls === 1) throw new Error("ENOSPC: no space left on device");
      return found;
    });
    await expect(cache.get({})).rejects.toThrow("ENOSPC");
    expect(await cache.get({})).toBe(found);
    expect(await cache.get({})).toBe(found);
    expect(calls).toBe(2);
  });
});
