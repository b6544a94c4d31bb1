// No false sign-off under any interleaving, checked exhaustively in a small scope (test/helpers/gate-explorer.ts):
// every sequence of broker and verifier passes, reviewer answers (right, for other bytes, for another round, of the
// author's family), artifact edits and reverts, resubmits, decisions, stray verdicts, seals, escalations and outcomes,
// and deletions, up to a few moves from each start. GATE_EXPLORE_DEPTH explores deeper (each move multiplies the
// states by about five); explore() also takes a redaction pattern and the score stop policy, a person's response-<n>.md
// answers (the manual worker), settings edited mid-gate, family-maps files lost, quorums of three, and a second run of
// the gate.
import { type ExploreOptions, exploreStarts } from "../helpers/gate-explorer.js";

const three = ["broker", "attempt1.ds", "attempt1.gem", "attempt1.gpt"];
// ds unavailable and gpt of the author's family: round 2 replaces ds by the spare
const degraded = [
  ...three,
  "result1.gem:ok",
  "result1.gpt:samefamily",
  "failure1.ds:unavailable",
  "verifier",
  "broker",
  "attempt2.gem",
  "attempt2.gpt",
  "attempt2.mis",
];
const passed = ["broker", "result1:ok", "verifier", "broker"];
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
  // a family-maps file deleted, edited or put back, and the family aliases edited (and back): a round whose maps the
  // gate lost never passes; the broker writes them again or a person decides (SPEC §7)
  ["a fresh request, its family maps lost", { depth: 4, maps: true, strays: false }],
  ["round 1 answered, its family maps lost", { depth: 4, maps: true, strays: false, seed: ["broker", "result1:ok"] }],
  ["a fresh quorum request, its family maps lost", { depth: 4, maps: true, quorum: true, strays: false }],
  // a quorum of three (need 2 of 3, or 3 of 3; a deepseek member of a third family, a mistral spare the broker selects
  // in an unavailable member's place): members that pass, block, answer other bytes or as the author's family, fail
  ["a fresh quorum of three, need 2 of 3", { depth: 4, quorum: true, need3: 2, strays: false }],
  [
    "need 2 of 3: the members disagree",
    { depth: 4, quorum: true, need3: 2, strays: false, seed: [...three, "result1.gem:ok", "result1.gpt:issues", "verifier"] },
  ],
  ["need 2 of 3: two pass, strays", { depth: 3, quorum: true, need3: 2, seed: [...three, "result1.gem:ok", "result1.gpt:ok", "verifier"] }],
  [
    "need 2 of 3: the degraded restart answered",
    { depth: 4, quorum: true, need3: 2, spare: true, strays: false, seed: [...degraded, "result2.gem:ok", "result2.mis:ok"] },
  ],
  [
    "need 3 of 3: a member unavailable",
    {
      depth: 4,
      quorum: true,
      need3: 3,
      spare: true,
      strays: false,
      seed: [...three, "result1.gem:ok", "result1.gpt:ok", "failure1.ds:unavailable", "verifier"],
    },
  ],
  // a second run of the gate: check judges the newest and every run that blocked the bytes now in the tree
  ["a newer run after the first passed, strays", { depth: 3, otherRun: "newer", seed: [...passed, "broker~"] }],
  // its verifier may read an edit the author then reverts: the blocker still counts
  [
    "an older run that blocks, after the first passed, strays",
    { depth: 3, otherRun: "older", seed: [...passed, "broker~", "result1~:issues"] },
  ],
  [
    "an older run that blocked, the first open",
    { depth: 4, otherRun: "older", strays: false, seed: ["broker", "broker~", "result1~:issues", "verifier~"] },
  ],
  ["a run as new that blocked", { depth: 4, otherRun: "same", strays: false, seed: ["broker~", "result1~:issues", "verifier~"] }],
];

exploreStarts("no false sign-off under any interleaving (bounded exhaustive, SPEC §5 §11 §15)", starts);
