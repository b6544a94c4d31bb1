// A team over a shared tree (SPEC §13, §15, §18): a provider the broker's machine cannot run counts as available when a
// live reviewer worker of its kind elsewhere says it runs it; a worker that cannot run a provider leaves its packet to
// such a worker, and claims it as before when none says so.
import { describe, expect, it } from "vitest";
import { type Advert, advertText, leaveToPeers, parseAdvert, withAdvertised } from "../../src/core/advertised.js";
import { type AuthorIdentity, type Provider, selectReviewer } from "../../src/core/selection.js";
import { MANUAL_PROVIDER } from "../../src/core/policy.js";
import { policy } from "../helpers/snapshots.js";

const cross = policy({ mode: "cross", required: true });
const claudeAuthor: AuthorIdentity = { host: "claude", model: null, family: "anthropic", source: "host-map" };
const manual: Provider = { id: MANUAL_PROVIDER, adapter: "manual", model: null, family: "unknown", selectable: false, available: true };
/** hx as the broker's machine detects it: no key here. */
const hx: Provider = {
  id: "hx",
  adapter: "http",
  model: "gpt-5",
  family: "openai",
  selectable: true,
  available: false,
  note: "api key variable HX_KEY not set",
};
const machB: Advert = { kind: "http", peer: "machB-4026531836-77", host: "machB", providers: ["hx"] };
const select = (providers: Provider[]) => selectReviewer(cross, { reviewer: "auto" }, claudeAuthor, providers, {});

describe("selection with providers live reviewer workers advertise", () => {
  it("selects a cross-family provider only another machine's worker runs, strong, and says where", () => {
    expect(select([hx, manual])).toMatchObject({ status: "degraded-local", independence: "weak" });
    const providers = withAdvertised([hx, manual], [machB]);
    expect(select(providers)).toMatchObject({ status: "selected", independence: "strong", provider: { id: "hx", family: "openai" } });
    expect(providers[0]!.note).toBe(
      "served by the http worker on machB (not runnable on the broker's machine: api key variable HX_KEY not set)",
    );
  });

  it("counts only a worker of the provider's adapter kind naming its id; family and selectability stay as detected", () => {
    expect(withAdvertised([hx], [{ ...machB, kind: "command" }])[0]!.available).toBe(false);
    expect(withAdvertised([hx], [{ ...machB, providers: ["other"] }])[0]!.available).toBe(false);
    expect(withAdvertised([hx], [])[0]).toBe(hx);
    // a detect-only declaration (adapter manual, never selectable) is no reviewer worker's to run: a file planted under
    // workers/manual must not make it available (a pin to it would then be selected strong)
    const declared: Provider = { id: "decl", adapter: "manual", model: "gpt-5", family: "openai", selectable: false, available: false };
    expect(withAdvertised([declared], [{ ...machB, kind: "manual", providers: ["decl"] }])[0]).toBe(declared);
    const unselectable = { ...hx, selectable: false };
    expect(withAdvertised([unselectable], [machB])[0]).toMatchObject({ available: true, selectable: false, family: "openai" });
    expect(select(withAdvertised([unselectable, manual], [machB]))).toMatchObject({ independence: "weak" });
    const sameFamily = { ...hx, family: "anthropic" as const };
    expect(select(withAdvertised([sameFamily, manual], [machB]))).toMatchObject({ independence: "weak" });
  });
});

describe("a reviewer worker's claim when a provider runs only elsewhere", () => {
  const self = "machA-4026531836-12";
  it("leaves the packet to a live worker elsewhere that runs the provider, when it cannot run it here", () => {
    expect(leaveToPeers({ id: "hx", adapter: "http" }, new Set(), [machB], self)).toEqual([machB]);
  });
  it("claims when it runs the provider here, or when no other live worker says it runs it (fails unavailable as before)", () => {
    expect(leaveToPeers({ id: "hx", adapter: "http" }, new Set(["hx"]), [machB], self)).toEqual([]);
    expect(leaveToPeers({ id: "hx", adapter: "http" }, new Set(), [], self)).toEqual([]);
    expect(leaveToPeers({ id: "hx", adapter: "http" }, new Set(), [{ ...machB, peer: self }], self)).toEqual([]);
    expect(leaveToPeers({ id: "hx", adapter: "http" }, new Set(), [{ ...machB, providers: ["hy"] }], self)).toEqual([]);
  });
});

describe("the advertisement in a presence file", () => {
  it("reads back what it writes, and nothing from a body that is empty, torn or of another shape", () => {
    expect(parseAdvert(advertText("machB", ["hx", "hx", "ds"]))).toEqual({ host: "machB", providers: ["ds", "hx"] });
    for (const body of ["", '{"host":"m","providers":["hx"', "[]", '{"providers":["hx"]}', '{"host":"m","providers":"hx"}'])
      expect(parseAdvert(body)).toBeNull();
    expect(parseAdvert('{"host":"m\\u001b[2J","providers":["ok","../x",3,"a b"]}')).toEqual({ host: "m--2J", providers: ["ok"] });
  });

  it("keeps only ids a provider can have (SPEC §2, as settings and quorum file names spell them)", () => {
    expect(parseAdvert('{"host":"m","providers":["gpt","GPT","Gpt-5","-x","gpt-5.mini"]}')).toEqual({
      host: "m",
      providers: ["gpt", "gpt-5.mini"],
    });
  });
});
