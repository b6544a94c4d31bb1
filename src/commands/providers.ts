// `guild-bus providers` as the one command layer: every reviewer configured or found, whether it can review and why
// not, every host looked for with the line that enables it, and what is wrong with the settings.
import type { Layout } from "../bus/layout.js";
import { loadSettingsSoon } from "../bus/load-soon.js";
import type { LoadedSettings } from "../bus/settings-file.js";
import { detectProviders } from "../adapters/probe.js";
import { type HostReport, hostReports } from "../core/provider-hints.js";

export interface ProviderReport {
  settings_problems: string[];
  providers: Awaited<ReturnType<typeof detectProviders>>;
  hosts: HostReport[];
}

/** `onSlow` hears when a CLI's --version probe is slow and detection waits on it (see detectProviders); `checked`:
 * settings.json as the caller already read it (the CLI's check), else it is read here. */
export async function providerReport(layout: Layout, onSlow?: (note: string) => void, checked?: LoadedSettings): Promise<ProviderReport> {
  const { settings, problems } = checked ?? (await loadSettingsSoon(layout));
  const providers = await detectProviders(settings, layout, undefined, onSlow);
  return { settings_problems: problems, providers, hosts: hostReports(providers) };
}

/** The hosts looked for, as lines for a person: usable, or why not and how to enable it. */
export function hostLines(hosts: HostReport[]): string[] {
  return hosts.flatMap((h) =>
    h.usable ? [`✓ ${h.host}: usable (${h.providers.join(", ")})`] : [`✗ ${h.host}: ${h.why}`, `    to enable: ${h.enable}`],
  );
}
