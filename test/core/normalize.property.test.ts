// Properties of the textual normalizer: whatever a reviewer prints, the bus either gets one well-formed envelope
// it can bind to the packet, or a reason — never a verdict the reviewer did not give. Fences: SPEC §9.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanFences } from "../../src/core/fences.js";
import { type EnvelopeContext, mentionsScore, normalizeOutput } from "../../src/core/normalize.js";
import { ReviewResultStrict } from "../../src/spec/schemas.js";

const ctx: EnvelopeContext = {
  packetId: "G-spec-run-r1",
  artifactSha256: "a".repeat(64),
  round: 1,
  reviewerHost: "prop",
  reviewerModel: "gpt-5",
  reviewerModelSource: "requested",
};
const prose = fc
  .string({ maxLength: 200 })
  .filter((s) => !s.includes("`") && !s.includes("~~~") && !s.includes("SATISFIED") && !s.includes("{"));
const finding = fc.record({
  severity: fc.constantFrom("blocking", "high", "medium", "low", "info"),
  title: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /\S/.test(s)),
});
const envelope = fc.record({
  verdict: fc.constantFrom("satisfied", "issues"),
  findings: fc.array(finding, { maxLength: 3 }),
  blocking_findings: fc.array(
    finding.map((f) => ({ ...f, severity: "blocking" })),
    { maxLength: 3 },
  ),
});

describe("normalizer properties", () => {
  it("never throws; an accepted answer is a strict review_result.v1 bound to the packet", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc.json(),
          prose.map((p) => `${p}\n## SATISFIED\n`),
        ),
        (raw) => {
          const n = normalizeOutput(raw, ctx);
          if (!n.ok) {
            expect(n.reasons.length).toBeGreaterThan(0);
            return;
          }
          expect(ReviewResultStrict.safeParse(n.result).success).toBe(true);
          expect(n.result.round).toBe(1);
          expect(n.result.reviewer_host).toBe("prop");
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("a fenced envelope inside any prose keeps the reviewer's verdict and findings", () => {
    fc.assert(
      fc.property(prose, envelope, prose, fc.constantFrom("review_result.v1", "json", ""), (before, env, after, tag) => {
        const raw = `${before}\n\`\`\`${tag}\n${JSON.stringify(env)}\n\`\`\`\n${after}`;
        const n = normalizeOutput(raw, ctx);
        expect(n.ok).toBe(true);
        if (!n.ok) return;
        expect(n.result.verdict).toBe(env.verdict);
        expect(n.result.blocking_findings.map((f) => f.title)).toEqual(env.blocking_findings.map((f) => f.title));
        expect(n.result.packet_id).toBe(ctx.packetId); // filled from the packet when the reviewer omits it
      }),
      { numRuns: 500 },
    );
  });

  it("an envelope embedded in prose without a fence is refused", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 80 }).filter((s) => /\S/.test(s) && !s.includes("`") && !s.includes("{") && !s.includes("}")),
        envelope,
        (text, env) => {
          expect(normalizeOutput(`${text} ${JSON.stringify(env)} ${text}`, ctx).ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a second verdict outside the chosen answer (printed bare, or in a fence never closed) makes it malformed, whatever they say", () => {
    // two verdicts that disagree must never let the more lenient one stand: neither is chosen (SPEC §9)
    const bare = (env: object, layout: string) =>
      ({
        line: JSON.stringify(env),
        pretty: JSON.stringify(env, null, 2),
        escaped: JSON.stringify(env).replace('"verdict"', '"verdic\\u0074"'),
        unclosed: `\`\`\`json\n${JSON.stringify(env)}`,
      })[layout]!;
    fc.assert(
      fc.property(
        envelope,
        envelope,
        prose,
        fc.constantFrom("line", "pretty", "escaped", "unclosed"),
        fc.record({ answer: fc.constantFrom("fenced", "sentinel"), otherFirst: fc.boolean() }),
        (chosen, other, text, layout, { answer, otherFirst }) => {
          const own = answer === "fenced" ? `\`\`\`review_result.v1\n${JSON.stringify(chosen)}\n\`\`\`` : "## SATISFIED";
          // an unclosed block runs to the end: it can only come last
          const first = otherFirst && layout !== "unclosed";
          const raw = first ? `${text}\n${bare(other, layout)}\n${own}\n` : `${text}\n${own}\n${bare(other, layout)}\n`;
          expect(normalizeOutput(raw, ctx).ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("satisfied from prose only through one standalone sentinel with nothing open after it", () => {
    fc.assert(
      fc.property(prose, fc.constantFrom("inline", "twice", "bullet-after", "question-after", "alone"), (text, shape) => {
        const raw = {
          inline: `see ${text} ## SATISFIED above`,
          twice: `${text}\n## SATISFIED\n## SATISFIED\n`,
          "bullet-after": `${text}\n## SATISFIED\n- one more thing\n`,
          "question-after": `${text}\n## SATISFIED\nshould the cap be 3?\n`,
          alone: `${text}\n## SATISFIED\n`,
        }[shape];
        const n = normalizeOutput(raw, ctx);
        expect(n.ok).toBe(shape === "alone");
        if (n.ok)
          expect(n.result).toMatchObject({
            verdict: "satisfied",
            blocking_findings: [],
            normalized_from: "sentinel",
            artifact_sha256_reviewed: ctx.artifactSha256,
          });
      }),
      { numRuns: 500 },
    );
  });

  // A fence as a reviewer may write it: ``` or ~~~ of any length, any indentation, an info string.
  const opening = (infos: string[]) =>
    fc.record({
      char: fc.constantFrom("`", "~"),
      length: fc.integer({ min: 3, max: 8 }),
      indent: fc.constantFrom("", " ", "   ", "  ", "\t", "      "),
      info: fc.constantFrom(...infos),
    });
  const quoting = ["", "markdown", "text", "md title=x"]; // blocks that are not candidate envelopes
  const openLine = (o: { char: string; length: number; indent: string; info: string }) => `${o.indent}${o.char.repeat(o.length)}${o.info}`;
  const bodyLines = fc.array(
    prose.map((p) => p.replace(/\n/g, " ")),
    { maxLength: 3 },
  );

  it("a ## SATISFIED quoted in a fence is never a verdict: closed, unterminated, or 'closed' by a shorter or other fence", () => {
    fc.assert(
      fc.property(
        prose,
        opening([...quoting, "json", " review_result.v1"]),
        bodyLines,
        bodyLines,
        fc.constantFrom("none", "same", "longer", "shorter", "other"),
        prose,
        // eslint-disable-next-line @typescript-eslint/max-params -- fast-check passes one argument per arbitrary
        (before, o, pre, post, closing, after) => {
          const close = {
            none: null,
            same: o.char.repeat(o.length),
            longer: o.char.repeat(o.length + 2),
            shorter: o.char.repeat(o.length - 1),
            other: (o.char === "`" ? "~" : "`").repeat(o.length),
          }[closing];
          const raw = [before, openLine(o), ...pre, "## SATISFIED", ...post, ...(close === null ? [] : [close]), after].join("\n");
          const n = normalizeOutput(raw, ctx);
          expect(n.ok).toBe(false);
          const { lines, fenced } = scanFences(raw);
          expect(fenced[lines.indexOf("## SATISFIED")]).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("after a fence closed by the same character at least as long, the reviewer's own sentinel counts", () => {
    fc.assert(
      fc.property(prose, opening(quoting), bodyLines, fc.boolean(), fc.nat(3), (before, o, body, quoteOne, extra) => {
        const raw = [
          before,
          openLine(o),
          ...body,
          ...(quoteOne ? ["## SATISFIED"] : []),
          `${o.indent}${o.char.repeat(o.length + extra)}`,
          "## SATISFIED",
          "",
        ].join("\n");
        const n = normalizeOutput(raw, ctx);
        expect(n.ok).toBe(true);
        if (n.ok) expect(n.result).toMatchObject({ verdict: "satisfied", normalized_from: "sentinel" });
      }),
      { numRuns: 1000 },
    );
  });
});

describe("inline score mentions", () => {
  // The scan must find exactly what the one-regex search finds (which is quadratic on "score:score:…").
  const reference = /score:[ \t]*[^\s/]+[ \t]*\/[ \t]*10/i;
  const line = fc
    .array(fc.constantFrom("score:", "Score:", "SCORE:", " ", "\t", "/", "10", "8", "x", ":", "s", "/10", "-"), { maxLength: 24 })
    .map((parts) => parts.join(""));
  it("the linear scan agrees with the reference regex", () => {
    fc.assert(
      fc.property(line, (l) => {
        expect(mentionsScore(l)).toBe(reference.test(l));
      }),
      { numRuns: 3000 },
    );
  });
});
