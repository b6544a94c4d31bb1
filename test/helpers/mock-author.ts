// A scripted AUTHOR model for the real-host tests: the mock endpoints (mock-anthropic, mock-gemini, mock-openai) ask
// it what the model does next in a conversation whose tools include guild-bus's. It reads only what a model reads —
// the request: the newest guild-bus tool result in it decides the next call, so one script serves every host's wire
// format. The model's own edit of the artifact is `revise()` (run by the test, as a model's edit tool would).

export type AuthorStep = { tool: { name: string; args: Record<string, unknown> } } | { text: string };

/** Given a request's raw body and the tool names it offers: the model's next step, or null (not an author turn). */
export type AuthorBrain = (rawBody: string, toolNames: string[]) => AuthorStep | null;

export interface ReviewLoopAuthor {
  brain: AuthorBrain;
  /** The guild-bus tools called, in order (short names). */
  calls: string[];
  /** The final message the model gave, once it gave one. */
  finalText: () => string | null;
}

/** Tool-result markers of src/mcp (the text each tool answers with), newest position wins. */
const MARKERS = [
  ["requested: run ", "wait"],
  ["still running after ", "wait"],
  ["Next: revise the artifact", "findings"],
  ["findings of round ", "resubmit"],
  ["resubmitted after round", "wait"],
  ["Next: the gate ended", "done"],
  ["Next: a human decision is needed", "done"],
] as const;

export function reviewLoopAuthor(o: { artifact: string; gate: string; authorModel: string; revise: () => void }): ReviewLoopAuthor {
  const calls: string[] = [];
  let final: string | null = null;
  let revised = false;
  const brain: AuthorBrain = (raw, toolNames) => {
    const named = (short: string) => toolNames.find((n) => n === short || n.endsWith(`__${short}`) || n.endsWith(`_${short}`));
    if (!named("request_review")) return null; // an auxiliary call (a title, a summary): not the author's turn
    const text = raw.replace(/\\"/g, '"');
    let next = "request_review";
    let at = -1;
    for (const [marker, step] of MARKERS) {
      const i = text.lastIndexOf(marker);
      if (i > at) [at, next] = [i, step];
    }
    const run = /requested: run (run-[A-Za-z0-9-]+)/.exec(text)?.[1] ?? "";
    if (next === "done") {
      final = text.slice(at, at + 400).split(/\\n|\n/)[0] ?? "";
      return { text: `The review loop is over: ${/gate ended/.test(final) ? "the gate ended" : "a human must decide"}.` };
    }
    if (next === "resubmit" && !revised) {
      o.revise();
      revised = true;
    }
    const args: Record<string, unknown> =
      next === "request_review" ? { artifact: o.artifact, gate: o.gate, author_model: o.authorModel } : { run_id: run, gate: o.gate };
    calls.push(next);
    return { tool: { name: named(next) ?? next, args } };
  };
  return { brain, calls, finalText: () => final };
}
