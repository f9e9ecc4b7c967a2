/**
 * Wait or fail, on the shared window: how long a request queued in this process can
 * expect to wait, from the last picture of the account a gate script returned. It counts
 * every cause the in-process gate counts: the Retry-After pause, the window (with the
 * requests other processes of the account have queued, which take its slots as surely
 * as ours do), and the waves of requests behind the account's shared in-flight leases,
 * each taking what a wave was seen to take (src/api/gate/queue-pace.ts). Pure arithmetic
 * on a local clock, so it is tested on a fake one.
 */
import type { GateSnapshot, WaitReason } from './scripts.js';

/** What the last acquire saw, and when (local epoch ms). */
export interface WaitPicture {
  reason: WaitReason | 'none';
  /** Redis's own wait for a refused acquire (the pause left, for `pause`); 0 when granted. */
  waitMs: number;
  window: GateSnapshot;
  seenAt: number;
}

export interface WaitContext {
  /** Margin after the server's reset instant before sending again. */
  slackMs: number;
  /**
   * The window's length is known (learned from the server's resets). Until it is, the
   * windows after the next reset count at `windowAtLeastMs`, never at a default length: the
   * spec's minute, far from a server's 6 s, would refuse requests that the next windows
   * serve in time.
   */
  windowKnown: boolean;
  /**
   * The least the server's window can be: the longest wait to a reset the server named (a
   * window is at least as long as the wait to its end seen from inside it); 0 when none was.
   */
  windowAtLeastMs: number;
  /** How long a wave of the account's cap of requests takes (0 until known). */
  waveMs: number;
}

export interface ExpectedWait {
  ms: number;
  /** The cause that sets the wait. */
  reason: WaitReason | 'none';
}

/**
 * Expected wait of the request at `position` (1 = the next to go) of this process's
 * queue. Other processes' queues count as ahead of it up to its own place in line: their
 * pumps take turns with ours, so each may send about as many as are ahead of it here.
 */
export function expectedWait(picture: WaitPicture | undefined, position: number, now: number, context: WaitContext): ExpectedWait {
  if (!picture) return { ms: 0, reason: 'none' };
  const snapshot = picture.window;
  const elapsed = Math.max(0, now - picture.seenAt);
  const pauseLeft = picture.reason === 'pause' ? Math.max(0, picture.waitMs - elapsed) : 0;
  const othersAhead = snapshot.othersQueued.reduce((sum, queued) => sum + Math.min(queued, position - 1), 0);
  const place = position + othersAhead;
  const byWindow = windowWait(snapshot, place, elapsed, context);
  const byFlight = byWindow.ms > 0 ? byWindow.wavesAfter * context.waveMs : flightWait(snapshot, place, elapsed, context.waveMs);
  const ms = Math.max(pauseLeft, byWindow.ms + byFlight);
  if (pauseLeft > 0 && pauseLeft >= byWindow.ms + byFlight) return { ms, reason: 'pause' };
  if (byWindow.ms > 0) return { ms, reason: 'window' };
  return { ms, reason: byFlight > 0 ? 'slot' : 'none' };
}

/**
 * The wait for a window with room for the request at `place`, and how many waves of the
 * in-flight cap go before it in that window (each a request's duration).
 */
function windowWait(snapshot: GateSnapshot, place: number, elapsed: number, context: WaitContext): { ms: number; wavesAfter: number } {
  const { limit, windowMs } = snapshot;
  let used = snapshot.used;
  let resetIn = snapshot.resetInMs - elapsed;
  let resetKnown = snapshot.serverAligned;
  if (resetIn + context.slackMs <= 0) {
    // The window seen has ended since: the next one is fresh, and ends when a known length says.
    used = 0;
    resetIn = windowMs - (-resetIn % Math.max(1, windowMs));
    resetKnown = resetKnown && context.windowKnown;
  }
  const left = Math.max(0, limit - used);
  if (place <= left) return { ms: 0, wavesAfter: 0 };
  // A reset this side guessed (a window opened here before the server's headers named one, or
  // one past the last the server named, of a length not learned) promises no wait: the first
  // headers realign it, often to a much nearer reset, and refusing on the guess (the spec's
  // 60 s) refused calls a 6 s window served in time (test/scale/redis-servers.test.ts under load).
  if (!resetKnown) return { ms: 0, wavesAfter: 0 };
  if (limit <= 0) return { ms: Number.POSITIVE_INFINITY, wavesAfter: 0 };
  const beyond = place - left;
  const windowsAhead = Math.ceil(beyond / limit);
  // Its place in the window it goes in: the ones before it there go out in waves of the cap.
  const inItsWindow = beyond - (windowsAhead - 1) * limit;
  const wavesAfter = Math.floor((inItsWindow - 1) / Math.max(1, snapshot.cap));
  // Until the length is learned, each window after the next counts at the least it can be.
  const length = context.windowKnown ? windowMs : context.windowAtLeastMs;
  return { ms: resetIn + context.slackMs + (windowsAhead - 1) * length, wavesAfter: windowsAhead === 1 || length > 0 ? wavesAfter : 0 };
}

/** The wait behind the account's in-flight leases, in waves of the cap, each taking `waveMs`. */
function flightWait(snapshot: GateSnapshot, place: number, elapsed: number, waveMs: number): number {
  if (waveMs <= 0) return 0;
  const cap = Math.max(1, snapshot.cap);
  const free = Math.max(0, cap - snapshot.inFlight);
  if (place <= free) return 0;
  const waves = Math.floor((place - 1 - free) / cap) + 1;
  return Math.max(0, waves * waveMs - elapsed);
}
