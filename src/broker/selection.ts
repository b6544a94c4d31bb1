// WHO reviews: a pure function of the author, the request and the configured providers. A same-family or
// unknown-family pairing is never "selected"; it degrades to the weak path, which is still gated.
import { classifyModel, familyOfHost } from "../family.js";
import type { Family, ProviderConfig, Request, Settings } from "../spec/schemas.js";
import type { ResolvedPolicy } from "./policy.js";

export const MANUAL_PROVIDER = "manual";

export interface Provider {
  id: string;
  adapter: ProviderConfig["adapter"];
  model: string | null;
  family: Family;
  selectable: boolean;
  /** Why it is (not) usable, for `providers` and selection reasons. */
  note?: string;
  available: boolean;
}

export interface AuthorIdentity {
  host: string;
  model: string | null;
  family: Family;
  source: "declared-model" | "host-map" | "unknown";
}

export interface Selection {
  status: "selected" | "degraded-local" | "skipped";
  provider: Provider | null;
  independence: "strong" | "weak";
  reason: string;
}

/** Auto ranking: native CLIs first, then HTTP, then generic commands; ties by id. */
const ADAPTER_RANK: Record<Provider["adapter"], number> = { codex: 0, claude: 1, gemini: 2, http: 3, command: 4, manual: 5 };

export function authorIdentity(request: Pick<Request, "author_host" | "author_model">, settings: Settings): AuthorIdentity {
  const model = request.author_model?.trim() || null;
  const declared = model ? classifyModel(model, settings.family_aliases) : "unknown";
  if (declared !== "unknown") return { host: request.author_host, model, family: declared, source: "declared-model" };
  const mapped = familyOfHost(request.author_host, settings.host_families);
  return { host: request.author_host, model, family: mapped, source: mapped === "unknown" ? "unknown" : "host-map" };
}

/** Providers configured in settings, plus the built-in manual (human) reviewer. */
export function configuredProviders(settings: Settings): Provider[] {
  const out: Provider[] = Object.entries(settings.providers ?? {}).map(([id, cfg]) => ({
    id,
    adapter: cfg.adapter,
    model: cfg.model ?? null,
    family: classifyModel(cfg.model, settings.family_aliases),
    selectable: cfg.selectable !== false && cfg.adapter !== "manual",
    available: true,
  }));
  if (!out.some((p) => p.id === MANUAL_PROVIDER)) {
    out.push({ id: MANUAL_PROVIDER, adapter: "manual", model: null, family: "unknown", selectable: false, available: true });
  }
  return out;
}

function weakReviewer(providers: Provider[], author: AuthorIdentity, settings: Settings): Provider {
  const usable = providers.filter((p) => p.available);
  return (
    usable.find((p) => p.id === settings.weak_reviewer) ??
    usable.find((p) => p.adapter !== "manual" && p.family === author.family && p.family !== "unknown") ??
    usable.find((p) => p.adapter !== "manual") ??
    usable.find((p) => p.adapter === "manual") ?? {
      id: MANUAL_PROVIDER, adapter: "manual", model: null, family: "unknown", selectable: false, available: true,
    }
  );
}

function weak(providers: Provider[], author: AuthorIdentity, settings: Settings, reason: string): Selection {
  return { status: "degraded-local", provider: weakReviewer(providers, author, settings), independence: "weak", reason };
}

export function selectReviewer(
  policy: ResolvedPolicy,
  request: Pick<Request, "reviewer">,
  author: AuthorIdentity,
  providers: Provider[],
  settings: Settings,
): Selection {
  if (!policy.required) return { status: "skipped", provider: null, independence: "weak", reason: `review not required (${policy.requiredBecause})` };
  if (policy.mode === "local") return weak(providers, author, settings, "review=local: same-host review, weak independence");
  const pin = request.reviewer && request.reviewer !== "auto" ? request.reviewer : settings.reviewer && settings.reviewer !== "auto" ? settings.reviewer : null;
  if (author.family === "unknown") {
    return weak(providers, author, settings, `author family unknown (host ${JSON.stringify(author.host)}): independence cannot be proven`);
  }
  if (pin) {
    const pinned = providers.find((p) => p.id === pin);
    if (!pinned) return weak(providers, author, settings, `pinned reviewer ${JSON.stringify(pin)} is not configured; refusing to substitute silently`);
    if (!pinned.available) return weak(providers, author, settings, `pinned reviewer ${pin} unavailable: ${pinned.note ?? "not detected"}`);
    // Before the manual case: a human reviewer declared with the author's model family is a self-review too.
    if (pinned.family === author.family) {
      return weak(providers, author, settings, `pinned reviewer ${pin} is ${pinned.family}, the author's family: same-family self-review cannot satisfy cross`);
    }
    if (pinned.adapter === "manual") {
      return { status: "selected", provider: pinned, independence: "strong", reason: "pinned manual reviewer; a different known family is enforced when answering" };
    }
    if (pinned.family === "unknown") return weak(providers, author, settings, `pinned reviewer ${pin} has no known model family`);
    return { status: "selected", provider: pinned, independence: "strong", reason: `pinned reviewer ${pin} (${pinned.family} ≠ ${author.family})` };
  }
  const ranked = providers
    .filter((p) => p.available && p.selectable && p.family !== "unknown" && p.family !== author.family)
    .sort((a, b) => ADAPTER_RANK[a.adapter] - ADAPTER_RANK[b.adapter] || a.id.localeCompare(b.id));
  const top = ranked[0];
  if (top) return { status: "selected", provider: top, independence: "strong", reason: `auto: ${top.id} (${top.family} ≠ ${author.family})` };
  return weak(providers, author, settings, `no available reviewer of a family other than ${author.family}`);
}
