// Which providers live reviewer workers can run on their own machines (SPEC §13, §15, §18): each reviewer worker writes
// the provider ids its own detection finds runnable into its presence file. In a team over a shared tree the broker's
// machine need not hold a reviewer's key or CLI: a provider counts as available when the broker's detection finds it
// OR a live reviewer worker of its adapter kind, on any host, says it runs it. Pure: the reading is runtime/peers.ts.
import type { Provider } from "./selection.js";
import { dispatchedByBus } from "./adapter-kinds.js";
import { PROVIDER_ID_RE } from "../spec/ids.js";

/** A live reviewer worker's advertisement: its kind (an adapter kind), its host, and the provider ids it runs there. */
export interface Advert {
  kind: string;
  /** The presence file's name (`<host>-<pid namespace>-<pid>`): which worker says so. */
  peer: string;
  host: string;
  providers: string[];
}

const MAX_ADVERTISED = 64;

/** The presence file's body for a reviewer worker that runs `providers` on `host`. */
export function advertText(host: string, providers: readonly string[]): string {
  return JSON.stringify({ host, providers: [...new Set(providers)].sort() }) + "\n";
}

/** A presence file's body read back: null when it says nothing usable (empty, torn, not the shape). */
export function parseAdvert(text: string): { host: string; providers: string[] } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { host, providers } = value as { host?: unknown; providers?: unknown };
  if (typeof host !== "string" || !Array.isArray(providers)) return null;
  const ids = providers.filter((p): p is string => typeof p === "string" && PROVIDER_ID_RE.test(p)).slice(0, MAX_ADVERTISED);
  return { host: host.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 100) || "?", providers: ids };
}

/** The live workers of the provider's adapter kind that say they run it. */
export function advertisersOf(p: { id: string; adapter: string }, adverts: readonly Advert[]): Advert[] {
  // only a reviewer worker runs a provider: a file under workers/manual (a detect-only declaration's kind) runs nothing
  if (!dispatchedByBus(p.adapter)) return [];
  return adverts.filter((a) => a.kind === p.adapter && a.providers.includes(p.id));
}

/** "the http worker on machB", "the codex workers on m1, m2". */
export function servedByWords(kind: string, advertisers: readonly Advert[]): string {
  const hosts = [...new Set(advertisers.map((a) => a.host))].sort();
  return `the ${kind} worker${advertisers.length === 1 ? "" : "s"} on ${hosts.join(", ")}`;
}

/**
 * The broker's detection with the live workers' advertisements: a provider its own machine cannot run counts as
 * available when a live reviewer worker of its adapter kind runs it elsewhere. Nothing else changes: family,
 * selectability and every selection rule stay as detected; an unknown id advertised adds no provider.
 */
export function withAdvertised<P extends Provider>(detected: readonly P[], adverts: readonly Advert[]): P[] {
  return detected.map((p) => {
    if (p.available) return p;
    const by = advertisersOf(p, adverts);
    if (!by.length) return p;
    const here = p.note ? ` (not runnable on the broker's machine: ${p.note})` : "";
    return { ...p, available: true, note: `served by ${servedByWords(p.adapter, by)}${here}` };
  });
}

/**
 * Whether a reviewer worker leaves a packet addressed to `provider` to another worker of its kind: when it cannot run
 * that provider here while a live peer elsewhere says it can. Otherwise (it can run it, or no live peer does) it claims
 * as before — and one that cannot run it fails the round `unavailable` with its reason, so nothing is stranded.
 * Returns the peers it leaves it to (empty: claim).
 */
export function leaveToPeers(
  provider: { id: string; adapter: string },
  runsHere: ReadonlySet<string>,
  adverts: readonly Advert[],
  self: string,
): Advert[] {
  if (runsHere.has(provider.id)) return [];
  return advertisersOf(provider, adverts).filter((a) => a.peer !== self);
}
