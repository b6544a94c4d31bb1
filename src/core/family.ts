// The one model-family classifier. Families are derived from model strings only; hosts map through HOST_FAMILIES.
import type { Family, FamilyMaps, PacketFrontMatter } from "../spec/schemas.js";
import { sha256Hex } from "./sha.js";
import { shown } from "./text-of.js";
import { FAMILIES } from "../spec/constants.js";

type Known = Exclude<Family, "unknown">;

/** Needles that must stand alone as a token (no digit suffix: "gpt4" is not "gpt"). */
const EXACT: Record<string, Known> = {
  gpt: "openai",
  chatgpt: "openai",
  codex: "openai",
  oracle: "openai",
  o1: "openai",
  o3: "openai",
  o4: "openai",
  claude: "anthropic",
  sonnet: "anthropic",
  opus: "anthropic",
  haiku: "anthropic",
  anthropic: "anthropic",
  gemini: "google",
  google: "google",
};

/** Needles that may carry a version suffix `[0-9.]*` ("qwen2.5", "glm4", "llama3.1"). */
const SUFFIXED: Record<string, Known> = {
  deepseek: "deepseek",
  kimi: "moonshot",
  moonshot: "moonshot",
  qwen: "qwen",
  tongyi: "qwen",
  glm: "zhipu",
  zhipu: "zhipu",
  minimax: "minimax",
  abab: "minimax",
  mimo: "xiaomi",
  xiaomi: "xiaomi",
  doubao: "bytedance",
  bytedance: "bytedance",
  volcengine: "bytedance",
  grok: "xai",
  llama: "meta",
  mistral: "mistral",
  mixtral: "mistral",
};

/** Host names (CLI hosts) to families; copilot routes to many vendors, so it has none. */
export const HOST_FAMILIES: Readonly<Record<string, Family>> = Object.freeze({
  claude: "anthropic",
  "claude-code": "anthropic",
  codex: "openai",
  "codex-local": "openai",
  "codex-cloud": "openai",
  "codex-cli": "openai",
  "codex-plugin": "openai",
  "codex-mcp-client": "openai", // the MCP clientInfo names the hosts send (the author host of `guild-bus mcp`)
  "gemini-cli": "google",
  "gemini-cli-mcp-client": "google",
  gemini: "google",
  agy: "google",
  antigravity: "google",
  copilot: "unknown",
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function needleRegex(needle: string, suffixed: boolean): RegExp {
  return new RegExp(`(?<![a-z0-9])${escape(needle)}${suffixed ? "[0-9.]*" : ""}(?![a-z0-9])`);
}

interface Needle {
  re: RegExp;
  family: Known;
}

const BUILTIN: readonly Needle[] = Object.freeze([
  ...Object.entries(EXACT).map(([n, family]) => ({ re: needleRegex(n, false), family })),
  ...Object.entries(SUFFIXED).map(([n, family]) => ({ re: needleRegex(n, true), family })),
]);

export type FamilyAliases = Readonly<Record<string, Family>>;

const isKnown = (family: unknown): family is Known => family !== "unknown" && (FAMILIES as readonly unknown[]).includes(family);

/** Why the classifier takes no needle from this alias (the settings reader names it); null when it does. */
export function aliasUnused(needle: string, family: unknown): string | null {
  if (needle.trim() === "") return "a blank needle matches no model";
  if (!isKnown(family)) return `${shown(family)} is no family a model can be classified as (${FAMILIES.filter(isKnown).join(", ")})`;
  return null;
}

function aliasNeedles(aliases: FamilyAliases | undefined): Needle[] {
  if (!aliases) return [];
  // The CLI passes `needle=family` pairs unchecked: a family outside FAMILIES (or none) must not become an answer.
  return Object.entries(aliases)
    .filter((entry): entry is [string, Known] => aliasUnused(entry[0], entry[1]) === null)
    .map(([needle, family]) => ({ re: needleRegex(needle.trim().toLowerCase(), false), family }));
}

/** Exactly one family matched → that family; none or several → "unknown". */
export function classifyModel(model: string | null | undefined, aliases?: FamilyAliases): Family {
  if (typeof model !== "string") return "unknown";
  const text = model.trim().toLowerCase();
  if (!text) return "unknown";
  const found = new Set<Known>();
  for (const { re, family } of [...BUILTIN, ...aliasNeedles(aliases)]) {
    if (re.test(text)) found.add(family);
  }
  return found.size === 1 ? [...found][0]! : "unknown";
}

/**
 * Own entries only ("constructor" is a host name, not Object.prototype's), keys compared like hosts are. Every value is
 * a Family: the settings schema refuses host_families naming another (test/bus/settings.test.ts).
 */
function hostEntry(map: Readonly<Record<string, Family>> | undefined, key: string): [string, Family] | undefined {
  return Object.entries(map ?? {}).find(([name]) => name.trim().toLowerCase() === key);
}

/** The settings a host's family depends on: its own map, and the aliases the model classifier knows. */
export interface HostFamilyMaps {
  host_families?: Readonly<Record<string, Family>> | undefined;
  family_aliases?: Readonly<Record<string, Family>> | undefined;
}

/** A host name's family: settings map, then the built-in map, then the model classifier (with the aliases) on the name. */
export function familyOfHost(host: string | null | undefined, maps: HostFamilyMaps = {}): Family {
  if (typeof host !== "string") return "unknown";
  const key = host.trim().toLowerCase();
  const mapped = hostEntry(maps.host_families, key)?.[1] ?? hostEntry(HOST_FAMILIES, key)?.[1];
  if (mapped) return mapped;
  return classifyModel(key, maps.family_aliases);
}

/**
 * The entries of the settings' maps that can decide a round's families (author on `host`, whatever model its reviewer
 * reports): every alias, since the reported model is not known when the packet is issued, and the host's own entry.
 * Classifying under them answers as under the whole maps.
 */
export function familyMapsFor(host: string, maps: HostFamilyMaps): FamilyMaps {
  const entry = hostEntry(maps.host_families, host.trim().toLowerCase());
  return { family_aliases: { ...maps.family_aliases }, host_families: entry ? { [entry[0]]: entry[1] } : {} };
}

/**
 * The gate file a packet's maps are recorded in (SPEC §7): named by the sha256 of its bytes, which the packet's
 * `family_maps_sha256` binds, so equal maps are one file per gate and the reviewer, who is sent the packet, never sees
 * the project's aliases. Keys sorted: the same maps are the same bytes whatever order the settings list them in.
 */
export function familyMapsFile(maps: FamilyMaps): { name: string; text: string; sha: string } {
  const sorted = (m: Readonly<Record<string, Family>>) =>
    Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = JSON.stringify({ family_aliases: sorted(maps.family_aliases), host_families: sorted(maps.host_families) }, null, 2) + "\n";
  const sha = sha256Hex(text);
  return { name: familyMapsName(sha), text, sha };
}

/** The family-maps file the broker writes for a packet of `authorHost`'s under `settings` (SPEC §7), with its maps. */
export function issuedFamilyMaps(authorHost: string, settings: HostFamilyMaps): MapsFile {
  const maps = familyMapsFor(authorHost, settings);
  return { ...familyMapsFile(maps), maps };
}
export type MapsFile = { name: string; text: string; sha: string; maps: FamilyMaps };

export const FAMILY_MAPS_RE = /^family-maps-([0-9a-f]{64})\.json$/;

export function familyMapsName(sha: string): string {
  return `family-maps-${sha}.json`;
}

/** What a packet records of its maps (SPEC §7): the sha of its family-maps file, or, from the previous build, the maps. */
export type RecordsMaps = Pick<PacketFrontMatter, "family_maps" | "family_maps_sha256">;

/** The gate's family-maps files, by the sha their bytes hash to (`GateSnapshot.familyMaps`). */
export type RecordedMaps = ReadonlyMap<string, FamilyMaps>;

/** Why the maps a packet binds cannot be read (its family-maps file is missing, or is other bytes), or null. */
export function familyMapsProblem(packet: RecordsMaps, recorded: RecordedMaps): string | null {
  const sha = packet.family_maps_sha256;
  return sha === undefined || recorded.has(sha)
    ? null
    : `${familyMapsName(sha)}, the family maps it was issued under, is missing or is not the bytes it binds: ` +
        "its round's families cannot be judged, so it passes nothing";
}
