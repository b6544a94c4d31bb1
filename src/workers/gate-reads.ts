// What the broker's plan is given: the gate's files, read on demand (bounded, strict UTF-8, free text scrubbed), the
// settings and the policy resolved once a step.
import path from "node:path";
import { artifactOrFault, gateArtifact, lazyArtifact } from "../bus/artifact.js";
import type { BusContext } from "../bus/context.js";
import { inGate, resultBytes } from "../bus/gate-reader.js";
import { cachedParse } from "../bus/parse-cache.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { ReadFault } from "../core/read-fault.js";
import type { BrokerInput, GateReads } from "../core/broker-plan.js";
import { gatePolicy } from "../core/gate-queries.js";
import type { Provider } from "../core/selection.js";
import { parseReviewResult } from "../core/result-wire.js";
import { scrub, scrubOptions, scrubResult } from "../core/scrub.js";
import type { GateSnapshot } from "../core/snapshot.js";
import type { ResultLookup } from "../core/trail.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { slotFile } from "../core/slot-file.js";
import { type Decision, resultFieldNames } from "../spec/schemas.js";

/** Each decision read, scrubbed once per set of patterns: the same object while the file is the same, so the trail's
 * memo of a round's section holds. */
const scrubbedDecisions = new WeakMap<Decision, { patterns: string; value: Decision }>();

export function gateReads(ctx: BusContext, s: GateSnapshot): GateReads {
  const options = scrubOptions(ctx.settings);
  const read = (name: string) => readTextBounded(path.join(s.dir, name), { max: MAX_FILE_BYTES });
  const patterns = JSON.stringify(options.customPatterns ?? []);
  const result: ResultLookup = (round, member = null) => {
    const name = slotFile("result", round, member);
    // the version the gate read listed: a result it did not see is not shown
    const seen = (member === null ? s : s.members.get(member))?.results.get(round);
    if (!seen) return null;
    // every step of a gate looks its results up again (trail, packets, outcome): read and scrub each once
    return cachedParse(
      `${inGate(s.dir, name)}#scrubbed:${patterns}`,
      seen.version,
      () => {
        try {
          // results may come from foreign writers: their text is scrubbed before it reaches a packet or the trail
          const parsed = parseReviewResult(read(name)).result;
          return { value: parsed && (scrubResult(parsed as never, options, resultFieldNames()) as unknown as typeof parsed), read: true };
        } catch (error) {
          // a packet built now would go out without the round's findings: the step is tried again instead
          rethrowSystemFault(error);
          return { value: null, read: false }; // unreadable or gone: the trail and packets show the round without its findings
        }
      },
      (r) => r.read,
    ).value;
  };
  const artifact = lazyArtifact(ctx.layout, ctx.settings, s);
  return {
    artifact: () => artifactOrFault(artifact()),
    artifactNow: () => artifactOrFault(gateArtifact(ctx.layout, ctx.settings, s)),
    result,
    resultBytes: (round, member) => {
      const bytes = resultBytes({ dir: s.dir, member }, round);
      if (!bytes.ok && bytes.fault) throw new ReadFault(bytes.reason);
      return bytes;
    },
    decisions: () =>
      new Map(
        [...s.decisions].map(([round, d]) => {
          const hit = scrubbedDecisions.get(d);
          if (hit?.patterns === patterns) return [round, hit.value];
          const value = {
            ...d,
            ...(d.decided_by === undefined ? {} : { decided_by: scrub(d.decided_by, options) }),
            ...(d.note === undefined ? {} : { note: scrub(d.note, options) }),
          };
          scrubbedDecisions.set(d, { patterns, value });
          return [round, value];
        }),
      ),
    rejected: () => s.rejected.map((r) => ({ ...r, reason: scrub(r.reason, options) })),
    text: (name) => {
      try {
        return scrub(read(name), options);
      } catch (error) {
        rethrowSystemFault(error);
        throw error;
      }
    },
  };
}

export function brokerInput(ctx: BusContext, s: GateSnapshot, providers: Provider[] | null): BrokerInput {
  return {
    settings: ctx.settings,
    policy: gatePolicy(s, ctx.settings),
    codexSkip: ctx.codexSkip,
    reads: gateReads(ctx, s),
    providers,
    now: new Date().toISOString(),
    trailPath: ctx.layout.rel(ctx.layout.gateFile(s.runId, s.gate, "trail.md")),
  };
}
