// Detection probes binaries, so a broker reuses its answer for a minute.
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
  ) {}

  get(settings: Settings): Promise<DetectedProvider[]> {
    const key = JSON.stringify(settings.providers ?? {});
    if (!this.value || key !== this.key || Date.now() - this.at > this.ttlMs) {
      this.value = detectProviders(settings, this.layout);
      this.at = Date.now();
      this.key = key;
    }
    return this.value;
  }
}
