// Preloaded with `node --require` (NODE_OPTIONS) into a worker: its wall clock (Date.now, new Date()) runs
// GUILD_TEST_CLOCK_SKEW_MS ahead (negative: behind), as a machine whose clock disagrees with its peers' on one tree.
// The monotonic clock is left alone, as a real skew leaves it.
const RealDate = Date;
const skew = Number(process.env.GUILD_TEST_CLOCK_SKEW_MS || 0);
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skew);
    else super(...args);
  }
  static now() {
    return RealDate.now() + skew;
  }
}
globalThis.Date = SkewedDate;
