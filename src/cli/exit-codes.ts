// The exit codes of a wait (`review --wait`, `resubmit|rebut|decide --wait`, `guild-bus wait`), in one sentence.
export const WAIT_EXITS =
  "0 satisfied, force-passed or skipped; 2 passed, but not the bytes the artifact holds now (edited since: `check` fails it); " +
  "3 the author's turn (rework, stopped); 4 a human decision; 5 review unavailable; " +
  "6 --timeout reached (the gate still moves; re-attach with `guild-bus wait`); 130 interrupted; 1 usage error";
