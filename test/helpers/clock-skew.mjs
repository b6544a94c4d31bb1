// Preloaded with `node --import` (NODE_OPTIONS): this process's wall clock (Date.now, new Date()) runs
// GUILD_TEST_CLOCK_SKEW_MS ahead (negative: behind), as a machine whose clock disagrees with its peers' on one tree;
// or by the offset GUILD_TEST_CLOCK_SKEW_FILE holds, read again every 100 ms, so a test can step a running process's
// clock (NTP correcting it). The monotonic clock is left alone, as a real skew or step leaves it.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
const RealDate = Date;
const file = process.env.GUILD_TEST_CLOCK_SKEW_FILE;
let skew = Number(process.env.GUILD_TEST_CLOCK_SKEW_MS || 0);
let readAt = -Infinity;
function offset() {
  if (file && performance.now() - readAt >= 100) {
    readAt = performance.now();
    try {
      skew = Number(readFileSync(file, "utf8")) || 0;
    } catch {
      // not written yet: no offset
    }
  }
  return skew;
}
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset());
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset();
  }
}
globalThis.Date = SkewedDate;
