// WHO reviews: a pure function of the author, the request and the configured providers. A same-family or
// unknown-family pairing is never "selected"; it degrades to the weak path, which is still gated. At difficulty
// nightmare only reviewers that read the repository themselves are candidates, on every path.
import { ADAPTER_KIND_INFO, FILE_READING_KINDS, readsFiles } from "./adapter-kinds.js";
import { classifyModel, familyOfHost, type HostFamilyMaps } from "./family.js";
import type { Family, ProviderConfig, QuorumRule, Request, Settings } from "../spec/schemas.js";
import { MANUAL_PROVIDER, pinnedReviewer, type ResolvedPolicy } from "./policy.js";
import { familyRelation, isIndependent } from "./independence.js";

export interface Provider {
  id: string;
  adapter: ProviderConfig["adapter"];
  model: string | null;
  family: Family;
  selectable: boolean;
  /** Why it is (not) usable, for `providers` and selection reasons. */
  note?: string;
  available: boolean;
  /** copilot: the families of its configured agent profiles (it has no family of its own). */
  profileFamilies?: Family[];
}

export interface AuthorIdentity {
  host: string;
  model: string | null;
  family: Family;
  source: "declared-model" | "host-map" | "unknown";
  /** Why the family is unknown although the model and the host each name one: they name different ones. */
  conflict?: string;
}

export interface Selection {
  status: "selected" | "degraded-local" | "skipped";
  /** null when review is skipped, or when no reviewer can serve the packet (nightmare without a file-reading one). */
  provider: Provider | null;
  independence: "strong" | "weak";
  reason: string;
}

/** The profile family a copilot reviewer takes for this author: the first configured known family that is not the author's. */
export function profileFamilyFor(families: readonly Family[], authorFamily: Family): Family {
  return families.find((f) => f !== "unknown" && f !== authorFamily) ?? "unknown";
}

/** copilot's family depends on the author: that of the profile it would run (unknown without profiles). */
function forAuthor(p: Provider, author: AuthorIdentity): Provider {
  return p.profileFamilies ? { ...p, family: profileFamilyFor(p.profileFamilies, author.family) } : p;
}

export function profileFamilies(cfg: ProviderConfig): Family[] | undefined {
  return cfg.adapter === "copilot" ? (Object.keys(cfg.copilot_profiles ?? {}) as Family[]) : undefined;
}

/**
 * The author's family: its declared model's, else its host's. A model of another family than a host of a known one
 * (`claude-code` declaring `gpt-5`) is ambiguous, so the family is unknown (SPEC §12): a host that really runs another
 * vendor's model (through a proxy) says so in settings.host_families.
 */
/** The author's model as request.json declares it (trimmed; none when blank): what every packet copies. */
export const declaredModel = (request: Pick<Request, "author_model">): string | null => request.author_model?.trim() || null;

export function authorIdentity(request: Pick<Request, "author_host" | "author_model">, settings: HostFamilyMaps): AuthorIdentity {
  const host = request.author_host;
  const model = declaredModel(request);
  const declared = model ? classifyModel(model, settings.family_aliases) : "unknown";
  const mapped = familyOfHost(host, settings);
  if (declared !== "unknown" && mapped !== "unknown" && declared !== mapped) {
    const conflict =
      `the declared model ${JSON.stringify(model)} is ${declared}, but host ${JSON.stringify(host)} is ${mapped} ` +
      "(a host that runs another vendor's model names its family in settings.host_families)";
    return { host, model, family: "unknown", source: "unknown", conflict };
  }
  if (declared !== "unknown") return { host, model, family: declared, source: "declared-model" };
  return { host, model, family: mapped, source: mapped === "unknown" ? "unknown" : "host-map" };
}

/** The built-in human reviewer: always there, never auto-selected. */
export const BUILTIN_MANUAL: Provider = {
  id: MANUAL_PROVIDER,
  adapter: "manual",
  model: null,
  family: "unknown",
  selectable: false,
  available: true,
};

/**
 * A provider as settings configure it, before anything is probed: the one reading of a provider's settings, for
 * selection here and for `providers` (adapters/probe.ts), so both name the same family and selectability.
 */
export function settingsProvider(id: string, cfg: ProviderConfig, aliases: Settings["family_aliases"]): Omit<Provider, "available"> {
  return {
    id,
    adapter: cfg.adapter,
    model: cfg.model ?? null,
    family: classifyModel(cfg.model, aliases),
    selectable: cfg.selectable !== false && cfg.adapter !== "manual",
    ...(cfg.adapter === "copilot" ? { profileFamilies: profileFamilies(cfg) } : {}),
  };
}

/** Providers configured in settings, plus the built-in manual (human) reviewer. */
export function configuredProviders(settings: Settings): Provider[] {
  const out: Provider[] = Object.entries(settings.providers ?? {}).map(([id, cfg]) => ({
    ...settingsProvider(id, cfg, settings.family_aliases),
    available: true,
  }));
  if (!out.some((p) => p.id === MANUAL_PROVIDER)) {
    out.push(BUILTIN_MANUAL);
  }
  return out;
}

function weakReviewer(providers: Provider[], author: AuthorIdentity, settings: Settings, readersOnly: boolean): Provider | null {
  const usable = providers.filter((p) => p.available);
  return (
    usable.find((p) => p.id === settings.weak_reviewer) ??
    usable.find((p) => p.adapter !== "manual" && familyRelation(author.family, p.family) === "same") ??
    usable.find((p) => p.adapter !== "manual") ??
    usable.find((p) => p.adapter === "manual") ??
    (readersOnly ? null : BUILTIN_MANUAL)
  );
}

export function selectReviewer(
  policy: ResolvedPolicy,
  request: Pick<Request, "reviewer">,
  author: AuthorIdentity,
  all: Provider[],
  settings: Settings,
): Selection {
  if (!policy.required)
    return { status: "skipped", provider: null, independence: "weak", reason: `review not required (${policy.requiredBecause})` };
  const nightmare = policy.difficulty === "nightmare";
  const providers = (nightmare ? all.filter((p) => readsFiles(p.adapter)) : all).map((p) => forAuthor(p, author));
  const weak = (reason: string, instead = false): Selection => {
    const provider = weakReviewer(providers, author, settings, nightmare);
    // a pin that cannot be honoured names what stands in for it: a substitute, never a silent one
    const named = instead && provider ? `${reason}; ${provider.id} (${provider.family}) reviews instead, with weak independence` : reason;
    if (provider) return { status: "degraded-local", provider, independence: "weak", reason: named };
    return {
      status: "degraded-local",
      provider: null,
      independence: "weak",
      reason: `${reason}; difficulty nightmare: no file-reading reviewer (${FILE_READING_KINDS.join(", ")}) is available`,
    };
  };
  if (policy.mode === "local") return weak("review=local: same-host review, weak independence");
  const pin = pinnedReviewer(request, settings);
  if (author.family === "unknown") {
    return weak(`author family unknown (${author.conflict ?? `host ${JSON.stringify(author.host)}`}): independence cannot be proven`);
  }
  if (pin) {
    const refused = nightmare ? all.find((p) => p.id === pin && !readsFiles(p.adapter)) : undefined;
    if (refused)
      return {
        status: "degraded-local",
        provider: null,
        independence: "weak",
        reason: `difficulty nightmare: pinned reviewer ${pin} (adapter ${refused.adapter}) cannot read the repository`,
      };
    const pinned = providers.find((p) => p.id === pin);
    if (!pinned) return weak(`pinned reviewer ${JSON.stringify(pin)} is not configured`, true);
    if (!pinned.available) return weak(`pinned reviewer ${pin} unavailable: ${pinned.note ?? "not detected"}`, true);
    // Before the manual case: a human reviewer declared with the author's model family is a self-review too.
    if (pinned.family === author.family) {
      return weak(`pinned reviewer ${pin} is ${pinned.family}, the author's family: same-family self-review cannot satisfy cross`);
    }
    if (pinned.adapter === "manual") {
      return {
        status: "selected",
        provider: pinned,
        independence: "strong",
        reason: "pinned manual reviewer; a different known family is enforced when answering",
      };
    }
    if (pinned.family === "unknown") return weak(`pinned reviewer ${pin} has no known model family`);
    return {
      status: "selected",
      provider: pinned,
      independence: "strong",
      reason: `pinned reviewer ${pin} (${pinned.family} ≠ ${author.family})`,
    };
  }
  const ranked = providers
    .filter((p) => p.available && p.selectable && isIndependent(author.family, p.family))
    .sort((a, b) => ADAPTER_KIND_INFO[a.adapter].rank - ADAPTER_KIND_INFO[b.adapter].rank || a.id.localeCompare(b.id));
  const top = ranked[0];
  if (top)
    return { status: "selected", provider: top, independence: "strong", reason: `auto: ${top.id} (${top.family} ≠ ${author.family})` };
  return weak(`no available reviewer of a family other than ${author.family}${passedOver(providers)}${unavailable(providers, author)}`);
}

/**
 * Why reviewers that are here were passed over for want of a family, and the setting that gives them one: without it,
 * a configured `{"adapter": "claude"}` looked like no reviewer at all, and the review fell to a person with no word
 * of the fix.
 */
function passedOver(providers: Provider[]): string {
  const unknown = providers.filter((p) => p.available && p.selectable && p.adapter !== "manual" && p.family === "unknown");
  if (!unknown.length) return "";
  // a reviewer that has a model the classifier does not know needs the model's family named, not a model
  const fix = (p: Provider) =>
    p.adapter === "copilot"
      ? `copilot_profiles for providers.${p.id}`
      : p.model
        ? `family_aliases for its model ${JSON.stringify(p.model)} (providers.${p.id})`
        : `a "model" for providers.${p.id}`;
  return (
    ` (${unknown.map((p) => p.id).join(", ")}: no known model family, never selected for a strong review; ` +
    `set ${unknown.map(fix).join(", ")} in .guild/settings.json)`
  );
}

/**
 * Reviewers of another family that are here (configured, or a CLI on PATH) but cannot run: without it, a configured codex
 * missing from PATH or not signed in looked like no reviewer at all, and the review fell to a person with no word of
 * the fix. Their notes are long (version, probe, auth); `providers` shows them with the fix.
 */
function unavailable(providers: Provider[], author: AuthorIdentity): string {
  const down = providers.filter((p) => !p.available && p.selectable && p.adapter !== "manual" && isIndependent(author.family, p.family));
  if (!down.length) return "";
  const ids = down.map((p) => p.id).join(", ");
  const them = down.length > 1 ? "them" : "it";
  return ` (${ids}: here but cannot run, not installed or not signed in; \`guild-bus providers\` says why and how to enable ${them})`;
}

/**
 * The reviewers a quorum round adds to those it keeps (SPEC §26): available, selectable, never copilot (its identity
 * is only declared) or a person, each of a known family that is not the author's and not one already in the round —
 * the rule's named families first. Fewer than the round needs is no round at all: why, naming what is missing.
 */
export function selectQuorum(
  policy: ResolvedPolicy,
  author: AuthorIdentity,
  all: Provider[],
  round: { rule: QuorumRule; fixed: Array<Pick<Provider, "id" | "family">>; exclude: readonly string[] },
): { add: Provider[] } | { unavailable: string } {
  const { rule, fixed, exclude } = round;
  const families = new Set(fixed.map((p) => p.family));
  const ids = new Set(fixed.map((p) => p.id));
  const named = new Set<Family>(rule.families ?? []);
  const candidates = all
    .filter((p) => !(policy.difficulty === "nightmare" && !readsFiles(p.adapter)))
    .filter((p) => p.available && p.selectable && p.adapter !== "copilot" && p.adapter !== "manual")
    .filter((p) => !ids.has(p.id) && !exclude.includes(p.id) && isIndependent(author.family, p.family))
    .sort(
      (a, b) =>
        Number(named.has(b.family)) - Number(named.has(a.family)) ||
        ADAPTER_KIND_INFO[a.adapter].rank - ADAPTER_KIND_INFO[b.adapter].rank ||
        a.id.localeCompare(b.id),
    );
  const add: Provider[] = [];
  for (const p of candidates) {
    if (fixed.length + add.length >= rule.of) break;
    if (families.has(p.family)) continue;
    families.add(p.family);
    add.push(p);
  }
  const missingNamed = [...named].filter((f) => !families.has(f));
  if (fixed.length + add.length >= rule.of && !missingNamed.length) return { add };
  const have = [...families].join(", ") || "none";
  // at nightmare the reviewers that cannot read the repository were left out: say so, or the person looks for a
  // missing family among providers that are configured and available
  const unread =
    policy.difficulty === "nightmare"
      ? all.filter(
          (p) =>
            !readsFiles(p.adapter) &&
            p.available &&
            p.selectable &&
            p.adapter !== "manual" &&
            !exclude.includes(p.id) &&
            isIndependent(author.family, p.family),
        )
      : [];
  const readers = FILE_READING_KINDS.filter((k) => k !== "copilot").join(", "); // copilot is never a member
  const nightmare = unread.length
    ? `; difficulty nightmare: only reviewers that read the repository (${readers}) take part, ` +
      `not ${unread.map((p) => `${p.id} (${p.adapter})`).join(", ")} — use difficulty hard, or configure file-reading reviewers`
    : "";
  const why =
    author.family === "unknown"
      ? `the author's family is unknown (host ${JSON.stringify(author.host)}): no family can be shown to differ from it`
      : `${rule.of} reviewers of distinct known families other than the author's (${author.family}) are needed; ` +
        `the round can have ${have}` +
        (missingNamed.length ? `; no available reviewer of ${missingNamed.join(", ")}` : "") +
        nightmare;
  // a rule naming the author's family can never be met: no provider configured fixes that, only another request
  if (author.family !== "unknown" && named.has(author.family))
    return {
      unavailable:
        `quorum ${rule.need}/${rule.of}: ${why}; the rule names ${author.family}, the author's own family, whose reviews never ` +
        "count: no reviewer can make it pass — rework, and request the review naming other families",
    };
  return {
    unavailable: `quorum ${rule.need}/${rule.of}: ${why} (configure or enable providers of the missing families: guild-bus providers)`,
  };
}
