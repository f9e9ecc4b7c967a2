/**
 * How V8 sizes the heap of a server that answers in bursts. By default V8 grows the heap by
 * up to 4x what a burst left alive and keeps it: after a 1,000-call soak the heap held
 * 135 MiB for 37 MiB of live objects, and resident memory stayed 2.5x the bare SDK
 * server's. `--optimize-for-size` makes it grow by a small factor, which held the same soak
 * at about 1.7x (bench/soak-memory.mjs). It leaves the young generation free to grow,
 * though: under 500 calls at once its two semi-spaces grew from 1 MiB to 16 MiB each, and
 * the peak held about 13 MiB more heap than with them kept at their first size
 * (`--semi-space-growth-factor=1`, the same effect as `--max-semi-space-size=1` at start).
 * The flags are set from inside because a host starts us as `node dist/cli.js` or through
 * npm's shim and neither lets us add node flags; V8 reads these sizing flags at every
 * collection, so setting them before the first burst is enough. `--optimize-for-size` also
 * makes V8 compile for size, which cost a start against a 100-dataset registry about 11 ms
 * (6 %; interleaved rounds, bench/startup.mjs): it is set when the first data call arrives
 * or a second after start, whichever comes first. The young generation's flag costs a start
 * nothing and is set at once.
 */
import { setFlagsFromString } from 'node:v8';

/** When the flag is set without a data call: a start answers its first tools/list well within it. */
const SIZED_FOR_LOAD_AFTER_MS = 1000;

/** Whether the server process asked for the policy and the first data call has not come yet. */
let sizedForLoadPending = false;

/** Set once, at start; `v8DefaultHeap` (MARKET_DATA_V8_DEFAULT_HEAP=1, src/config/development.ts) keeps V8's defaults, for comparison. */
export function favourSmallHeap({ v8DefaultHeap }: { readonly v8DefaultHeap: boolean }): void {
  if (v8DefaultHeap) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  sizedForLoadPending = true;
  // Past start-up even with no call: the flag is also what lets V8 give back the heap a start
  // grew (idle RSS 80 MiB without it, 70 with it, against a start with it from the outset).
  setTimeout(heapBeforeLoad, SIZED_FOR_LOAD_AFTER_MS).unref();
}

/**
 * Called as each data call begins (src/api/client.ts): the first one sizes the heap for
 * bursts. A no-op in a process that never called favourSmallHeap (tests, the library).
 */
export function heapBeforeLoad(): void {
  if (!sizedForLoadPending) return;
  sizedForLoadPending = false;
  setFlagsFromString('--optimize-for-size');
}
