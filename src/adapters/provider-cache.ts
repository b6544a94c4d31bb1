// Detection probes binaries, so a broker reuses its answer for a minute; a detection that failed is not reused (the
// next gate probes again rather than waiting out the minute).
import type { Layout } from "../bus/layout.js";
import type { Settings } from "../spec/schemas.js";
import { type DetectedProvider, detectProviders } from "./probe.js";

export class ProviderCache {
  private value: Promise<DetectedProvider[]> | null = null;
  private at = 0;
  private key = "";
  constructor(
    private readonly layout: Layout,
    private readonly ttlMs = 60_000,
    private readonly detect: typeof detectProviders = detectProviders,
  ) {}

  get(settings: Settings): Promise<DetectedProvider[]> {
    const key = JSON.stringify(settings.providers ?? {});
    if (!this.value || key !== this.key || performance.now() - this.at > this.ttlMs) {
      const value = this.detect(settings, this.layout);
      this.value = value;
      this.at = performance.now();
      this.key = key;
      value.catch(() => {
        if (this.value === value) this.value = null;
      });
    }
    return this.value;
  }
}
