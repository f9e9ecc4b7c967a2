/**
 * Scale tests start several server processes on one account and must wait on the wall
 * clock: separate processes cannot share a fake clock. CI runs them once (on its first
 * Node pass) and sets MARKET_DATA_SKIP_SCALE_TESTS=1 for the second. Their throughput
 * figures (share of each window used) are printed by bench/limits.mjs, not asserted.
 */
export const SKIP_SCALE = process.env['MARKET_DATA_SKIP_SCALE_TESTS'] === '1';

/** Options for `test`/`describe`: skipped, saying why, when CI has already run them. */
export const scaleTest: { skip: string | false } = {
  skip: SKIP_SCALE ? 'scale tests run once per CI run (MARKET_DATA_SKIP_SCALE_TESTS=1)' : false,
};
