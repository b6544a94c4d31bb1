// Reads .guild/settings.json. Bad settings never crash a worker: problems are reported and defaults used.
import type { Layout } from "./layout.js";
import { describeIssues } from "../spec/issues.js";
import { type EffortTier, GateKey, Settings } from "../spec/schemas.js";
import { didYouMean, lineColumn } from "../core/suggest.js";
import { gateQuorum, unknownReviewer } from "../core/policy.js";
import { CLI_KINDS, dispatchedByBus, providerConfigProblem } from "../core/adapter-kinds.js";
import { initialPair } from "../core/dispatch-plan.js";
import { aliasUnused } from "../core/family.js";
import { compileCustom, ScrubConfigError } from "../core/scrub.js";
import { quorumProblem } from "../spec/quorum-rule.js";
import { parseJsonAnswer } from "../core/json-answer.js";
import { shown } from "../core/text-of.js";
import { type LoadedSettings, readSettingsFile } from "./settings-file.js";
import { GUILD_SECRETS_POLICY_KEY, GUILD_SETTINGS_KEYS } from "../spec/constants.js";
import { EVERY_LANE, FIXED_GATES, GATE_NAMES, isGateKey, PROVIDER_ID_RE } from "../spec/ids.js";

export function loadSettings(layout: Layout): LoadedSettings {
  const read = readSettingsFile(layout);
  return "text" in read ? settingsOf(read.text) : read;
}

/** The settings a settings.json's text holds, with what was not taken and why. */
export function settingsOf(text: string): LoadedSettings {
  // the one JSON reader: nesting past its depth would overflow the recursive walks below (a clone, zod) in every worker
  const answer = parseJsonAnswer(text);
  if (!answer.ok)
    return {
      settings: {},
      problems: [`settings.json is ${answer.kind === "syntax" ? `not valid JSON (${jsonErrorAt(text)})` : answer.reason}; using defaults`],
      incomplete: true,
    };
  const raw = answer.value;
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    return { settings: {}, problems: ["settings.json is not a JSON object; using defaults"], incomplete: true };
  // One bad value must not discard the rest: drop each invalid key (or provider entry) and keep what is valid.
  const candidate = structuredClone(raw) as Record<string, unknown>;
  const problems: string[] = unknownKeys(candidate);
  const reported = problems.length; // an unknown key is reported and left alone: nothing is dropped for it
  for (let attempt = 0; attempt < 50; attempt++) {
    const parsed = Settings.safeParse(candidate);
    if (parsed.success) {
      problems.push(...unknownReviewers(parsed.data));
      const incomplete = problems.length > reported;
      // kept as written, as an unknown key is: each use refuses on it (fail closed), the check says it first
      problems.push(...valuesNoUseTakes(parsed.data));
      return { settings: parsed.data, problems, ...(incomplete && { incomplete: true }) };
    }
    const issue = parsed.error.issues[0]!;
    const [top, sub] = issue.path as Array<string | number>;
    const ignored = top === "providers" && sub !== undefined ? `provider ${String(sub)}` : top === undefined ? "the file" : String(top);
    const why =
      issue.code === "invalid_key" && top === "providers" ? notAProviderId(String(sub), candidate) : describeIssues({ issues: [issue] })[0];
    problems.push(`settings.json: ${why}; ignoring ${ignored}`);
    if (top === undefined) return { settings: {}, problems, incomplete: true };
    if (top === "providers" && sub !== undefined && candidate.providers && typeof candidate.providers === "object") {
      delete (candidate.providers as Record<string, unknown>)[String(sub)];
    } else {
      delete candidate[String(top)];
    }
  }
  return { settings: {}, problems: [...problems, "settings.json: too many problems; using defaults"], incomplete: true };
}

/** A providers key that is no provider id, with the name it was likely meant as (one the settings refer to, a CLI kind). */
function notAProviderId(id: string, raw: Record<string, unknown>): string {
  const named = [raw.reviewer, raw.weak_reviewer, ...Object.values(raw.providers as object).flatMap((p) => p?.fallback)];
  const known = [...CLI_KINDS, ...named.filter((n): n is string => typeof n === "string" && PROVIDER_ID_RE.test(n))];
  const rule = 'a lower-case letter or digit, then at most 63 more or ".", "_", "-"';
  return `providers: ${shown(id)} is not a provider id${didYouMean(id, known)}: ${rule}`;
}

/**
 * Values the schema takes that no use of them can: each is refused where it is used (a scrub, a dispatch, a request's
 * quorum), by the same function that judges it here, so `status`, `check` and every command a person runs name it
 * before a worker fails on it. Nothing is dropped: a redaction pattern left out would let its secrets through.
 */
function valuesNoUseTakes(settings: Settings): string[] {
  const problems: string[] = [];
  const say = (key: string, why: string, fix: string) => problems.push(`settings.json: ${key}: ${why} (${fix})`);
  for (const pattern of settings.secrets_policy?.redaction_patterns ?? []) {
    try {
      compileCustom([pattern]);
    } catch (error) {
      if (!(error instanceof ScrubConfigError)) throw error;
      say("secrets_policy.redaction_patterns", error.message, "every scrub refuses until it is fixed or removed");
    }
  }
  const tiers = new Set<EffortTier>(["regular", ...Object.values(settings.gate_tiers ?? {})]);
  for (const [id, config] of Object.entries(settings.providers ?? {})) {
    const cannot = "every dispatch to it is refused before it runs: fix the entry";
    const problem = providerConfigProblem(config);
    if (problem) say(`providers.${id}`, problem, cannot);
    for (const tier of dispatchedByBus(config.adapter) ? tiers : []) {
      const pair = initialPair(config, tier);
      if (!pair.ok) say(`providers.${id}`, pair.why, cannot);
    }
  }
  for (const gate of Object.keys(settings.gate_quorum ?? {})) {
    const rule = gateQuorum({ gate }, settings)!;
    const problem = quorumProblem(rule);
    if (problem) say(`gate_quorum.${gate}`, `quorum ${rule.need}/${rule.of}: ${problem}`, "every request of the gate is refused");
  }
  for (const [needle, family] of Object.entries(settings.family_aliases ?? {})) {
    const unused = aliasUnused(needle, family);
    if (unused) say(`family_aliases.${shown(needle)}`, unused, "the classifier ignores it: fix or remove it");
  }
  return [...new Set(problems)]; // a provider's one problem, once for every tier
}

/** Where JSON.parse stops, as "line L, column C: <its message>". */
function jsonErrorAt(text: string): string {
  let error = new Error("");
  try {
    JSON.parse(text);
  } catch (thrown) {
    error = thrown as Error;
  }
  const at = /at position (\d+)/.exec(error.message);
  const { line, column } = lineColumn(text, at ? Number(at[1]) : text.length);
  return `line ${line}, column ${column}: ${error.message.replace(/ in JSON at position \d+.*$/, "")}`;
}

/**
 * Keys the bus does not know, in the file and in every object under it (a provider entry, `secrets_policy`, a tier),
 * and keys of a per-gate map that name no gate: a misspelt key would otherwise be ignored in silence (`provders`, a
 * `redaction_pattern` whose secrets then reach the reviewer, a quorum for `G-Spec`). They are reported, not dropped
 * (the schema lets them through, or strips them: what zod itself refuses, it names). Guild's own keys are Guild's, in
 * the file both read. The walk follows the schema, so it goes no deeper than the settings do.
 */
function unknownKeys(raw: Record<string, unknown>): string[] {
  return keysNamingNothing(Settings as unknown as SchemaNode, raw, []);
}

/** The parts of a zod schema's definition the walk reads. */
interface SchemaNode {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, SchemaNode>;
      catchall?: SchemaNode;
      innerType?: SchemaNode;
      keyType?: unknown;
      valueType?: SchemaNode;
    };
  };
}

function keysNamingNothing(schema: SchemaNode, value: unknown, at: string[]): string[] {
  const def = schema._zod.def;
  if (def.type === "optional" || def.type === "default") return keysNamingNothing(def.innerType!, value, at);
  // a value of another type is the schema's to refuse
  if (!value || typeof value !== "object" || Array.isArray(value)) return [];
  const where = `settings.json: ${at.length ? `${at.join(".")}: ` : ""}`;
  const entries = Object.entries(value);
  if (def.type === "record")
    return entries.flatMap(([key, entry]) => [
      ...(def.keyType === GateKey && !isGateKey(key)
        ? [`${where}${shown(key)} is not a gate${didYouMean(key, GATE_KEYS)}: its entry applies to none (${GATE_KEY_NAMES})`]
        : []),
      ...keysNamingNothing(def.valueType!, entry, [...at, key]),
    ]);
  if (def.type !== "object") return [];
  const known = Object.keys(def.shape!);
  const refused = def.catchall?._zod.def.type === "never"; // a strict object: zod names the key itself
  return entries.flatMap(([key, entry]) => {
    if (known.includes(key)) return keysNamingNothing(def.shape![key]!, entry, [...at, key]);
    return refused || guildsOwn(at, key) ? [] : [`${where}unknown key ${shown(key)}${didYouMean(key, known)}`];
  });
}

const GATE_KEYS = [...FIXED_GATES, EVERY_LANE];
const GATE_KEY_NAMES = `${GATE_NAMES}; ${EVERY_LANE}: every lane`;

/** Whether Guild writes this key where it is (SPEC §3): neither read nor refused. */
function guildsOwn(at: string[], key: string): boolean {
  if (at.length === 0) return GUILD_SETTINGS_KEYS.includes(key);
  return at.length === 1 && at[0] === "secrets_policy" && GUILD_SECRETS_POLICY_KEY.test(key);
}

/**
 * Reviewer names the settings give that name nothing the broker could select, as `--reviewer` is checked: a typo in
 * `reviewer` would otherwise be recorded in every request and end in a weak review nobody asked for. Each one is
 * removed (the workers carry on without it; every command a person runs refuses until it is fixed).
 */
function unknownReviewers(settings: Settings): string[] {
  const problems: string[] = [];
  const check = (where: string, id: string | undefined, drop: () => void) => {
    const why = id === undefined ? null : unknownReviewer(id, settings);
    if (why === null) return;
    problems.push(`settings.json: ${where}: ${why.replace(/^reviewer /, "")}; ignoring ${where}`);
    drop();
  };
  check("reviewer", settings.reviewer, () => delete settings.reviewer);
  check("weak_reviewer", settings.weak_reviewer, () => delete settings.weak_reviewer);
  for (const [id, provider] of Object.entries(settings.providers ?? {}))
    for (const name of provider.fallback ?? [])
      check(`providers.${id}.fallback`, name, () => (provider.fallback = provider.fallback!.filter((n) => n !== name)));
  return problems;
}
