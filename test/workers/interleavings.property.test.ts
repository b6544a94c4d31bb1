// No false sign-off under any interleaving, checked exhaustively in a small scope (test/helpers/gate-explorer.ts):
// every sequence of broker and verifier passes, reviewer answers (right, for other bytes, for another round, of the
// author's family), artifact edits and reverts, resubmits, decisions, stray verdicts, seals, escalations and outcomes,
// and deletions, up to a few moves from each start. GATE_EXPLORE_DEPTH explores deeper (each move multiplies the
// states by about five); explore() also takes a redaction pattern and the score stop policy, a person's response-<n>.md
// answers (the manual worker) and settings edited mid-gate.
import { type ExploreOptions, exploreStarts } from "../helpers/gate-explorer.js";

// the author's turn is explored at hard difficulty, where it may also contest the findings (a ruling round)
const starts: Array<[string, ExploreOptions]> = [
  ["a fresh request", { depth: 3 }],
  ["round 1 answered and verified", { depth: 3, seed: ["broker", "result1:ok", "verifier"] }],
  // a verdict that restarts the round: a dropped escalation must not make it a person's to force-pass
  ["round 1 answered for other bytes and verified", { depth: 3, seed: ["broker", "result1:otherbytes", "verifier"] }],
  ["the author's turn after findings", { depth: 3, seed: ["broker", "result1:issues", "verifier", "broker"], difficulty: "hard" }],
  // a person's response-1.md (the manual worker's input): answers of every kind, one it refuses, its removal
  ["a fresh request a person answers with response-1.md", { depth: 4, manual: true, strays: false }],
  ["round 1 answered by response-1.md and verified", { depth: 3, manual: true, seed: ["broker", "response1:ok", "manual", "verifier"] }],
  // the round cap, the restart cap and stall detection edited mid-gate, and back
  ["findings, then settings edited", { depth: 3, settingsEdits: true, strays: false, seed: ["broker", "result1:issues", "verifier"] }],
];

exploreStarts("no false sign-off under any interleaving (bounded exhaustive, SPEC §5 §11 §15)", starts);
