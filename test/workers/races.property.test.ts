// No false sign-off when workers race (test/helpers/gate-explorer.ts, `split` and `quorum`): two brokers and two
// verifiers, each step cut at its writes so the others act between its read and each link() (first writer wins); a
// quorum round of two members (or three), each dispatched with its keys and answered (passing, blocking, of other bytes, without
// the key) or failed with its end key; a worker that dies with writes pending; the manual worker delivering a person's
// response-<n>.md; stray files. GATE_EXPLORE_DEPTH explores deeper.
import { type ExploreOptions, exploreStarts } from "../helpers/gate-explorer.js";

const answered = ["broker", "attempt1.gem", "attempt1.gpt", "result1.gem:ok", "result1.gpt:ok"];
const starts: Array<[string, ExploreOptions]> = [
  ["round 1 answered and verified", { depth: 3, split: true, strays: false, seed: ["broker", "result1:ok", "verifier"] }],
  ["a fresh quorum request (two brokers issue its member packets)", { depth: 4, split: true, quorum: true, strays: false }],
  [
    "a quorum round both members answered, verified",
    { depth: 4, split: true, quorum: true, strays: false, seed: [...answered, "verifier"] },
  ],
  // a worker that dies between two of its links: a seal without its verdict, a broker's plan half landed
  [
    "round 1 answered, workers that may die with writes pending",
    { depth: 4, split: true, crash: true, strays: false, seed: ["broker", "result1:ok"] },
  ],
  [
    "a response-1.md the manual worker delivers while the others race and die",
    { depth: 3, split: true, crash: true, manual: true, strays: false, seed: ["broker", "response1:ok"] },
  ],
  [
    "a quorum of three (3 of 3), a member unavailable, verifiers racing",
    {
      depth: 4,
      split: true,
      quorum: true,
      need3: 3,
      spare: true,
      strays: false,
      seed: ["broker", "attempt1.ds", "attempt1.gem", "attempt1.gpt", "result1.gem:ok", "result1.gpt:ok", "failure1.ds:unavailable"],
    },
  ],
  ["stray files while the workers race", { depth: 3, split: true, seed: ["broker", "result1:ok", "verifier"] }],
];

exploreStarts("no false sign-off when brokers and verifiers race (bounded exhaustive, SPEC §5 §15 §26)", starts);
