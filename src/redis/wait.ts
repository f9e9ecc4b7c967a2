/**
 * Wait or fail, on the shared window: how long a request queued in this process can
 * expect to wait, from the last picture of the account's window a gate script returned.
 * Pure arithmetic on a local clock, so it is tested on a fake one.
 */
import type { WaitReason, WindowSnapshot } from './scripts.js';

/** What the last refused acquire saw, and when (local epoch ms). */
export interface WaitPicture {
  reason: WaitReason;
  waitMs: number;
  window: WindowSnapshot;
  seenAt: number;
}

/**
 * Expected wait of the request at `position` (1 = the next to go) of this process's
 * queue. Slots turn over within a request's latency, so only the pause and the windows
 * count; other processes' queues are not known here, so this errs early and the
 * request's own deadline timer still bounds its wait. Until the window's length is known
 * (`windowKnown`), no more than the wait to the next reset is promised: a default length
 * far from the server's would refuse requests that the next windows serve in time.
 */
export function expectedWaitMs(
  picture: WaitPicture | undefined,
  position: number,
  now: number,
  slackMs: number,
  windowKnown = true,
): number {
  if (!picture) return 0;
  const elapsed = Math.max(0, now - picture.seenAt);
  const pauseLeft = picture.reason === 'pause' ? Math.max(0, picture.waitMs - elapsed) : 0;
  const { limit, windowMs } = picture.window;
  let used = picture.window.used;
  let resetIn = picture.window.resetInMs - elapsed;
  if (resetIn + slackMs <= 0) {
    // The window seen has ended since: the next one is fresh.
    used = 0;
    resetIn = windowMs - (-resetIn % Math.max(1, windowMs));
  }
  const left = Math.max(0, limit - used);
  if (position <= left) return pauseLeft;
  if (limit <= 0) return Number.POSITIVE_INFINITY;
  const windowsAhead = windowKnown ? Math.ceil((position - left) / limit) : 1;
  return Math.max(pauseLeft, resetIn + slackMs + (windowsAhead - 1) * windowMs);
}
