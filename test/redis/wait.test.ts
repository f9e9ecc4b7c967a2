/** Wait or fail on the shared window: the expected wait of a queued request, on a fake clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedWait, type WaitContext, type WaitPicture } from '../../src/redis/wait.js';
import type { GateSnapshot } from '../../src/redis/scripts.js';

const SLACK = 50;
const T0 = 1_000_000;
const known: WaitContext = { slackMs: SLACK, windowKnown: true, windowAtLeastMs: 0, waveMs: 0 };
const seen = (over: Partial<GateSnapshot> & { reason?: WaitPicture['reason']; waitMs?: number } = {}, at = T0): WaitPicture => ({
  reason: over.reason ?? 'window',
  waitMs: over.waitMs ?? 0,
  seenAt: at,
  window: {
    limit: 60,
    used: 60,
    resetInMs: 4000,
    windowMs: 6000,
    serverAligned: true,
    lengthLearned: true,
    inFlight: 0,
    cap: 5,
    othersQueued: [],
    ...over,
  },
});
const ms = (picture: WaitPicture | undefined, position: number, now = T0, context = known): number =>
  expectedWait(picture, position, now, context).ms;

test('with nothing seen yet, a request expects to go now', () => {
  assert.equal(ms(undefined, 10, 0), 0);
});

test('a spent window: the next request waits for its reset, later ones for the windows after', () => {
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(ms(picture, 1), 4050);
  assert.equal(ms(picture, 60), 4050);
  assert.equal(ms(picture, 61), 10_050, 'the 61st needs the window after');
  assert.equal(ms(picture, 121), 16_050);
});

test('the wait shrinks as the clock moves, and a window seen ending is fresh again', () => {
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(ms(picture, 1, T0 + 3000), 1050);
  assert.equal(ms(picture, 1, T0 + 4100), 0, 'after the reset the window has room');
});

test('room left in the window: the first ones go now, the rest wait for the reset', () => {
  const picture = seen({ reason: 'slot', used: 55, resetInMs: 2000 });
  assert.equal(ms(picture, 5), 0);
  assert.equal(ms(picture, 6), 2050);
});

test('a Retry-After pause holds everyone, even with room in the window', () => {
  const picture = seen({ reason: 'pause', waitMs: 7000, used: 0, resetInMs: 3000 });
  assert.equal(ms(picture, 1), 7000);
  assert.equal(ms(picture, 1, T0 + 6000), 1000);
  assert.equal(expectedWait(picture, 1, T0, known).reason, 'pause');
});

test('until the window length is known, the windows after the next reset count at the least the window can be, never at a default length', () => {
  // The default length (the spec's minute) may be far from the server's: the 121st request
  // of a 6 s window would be refused as needing 2 more minutes when it needs 12 s.
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(ms(picture, 121, T0, { ...known, windowKnown: false }), 4050, 'nothing known of the length: the next reset');
  // A reset seen 5 s away: the window is at least 5 s, so the 121st waits at least two of them after the reset.
  assert.equal(ms(picture, 121, T0, { ...known, windowKnown: false, windowAtLeastMs: 5000 }), 14_050);
  assert.equal(ms(picture, 121, T0, known), 16_050);
});

test('a reset guessed on this side promises no wait: a window opened before the server named one, or one past the last it named', () => {
  // Cold start: the gate's own window (the spec's minute) is spent before the first headers
  // arrive; they realign it to the server's reset, seconds away. Refusing on the guess
  // refused calls that a 6 s window served in time.
  const cold = seen({ used: 60, resetInMs: 60_000, windowMs: 60_000, serverAligned: false, lengthLearned: false });
  assert.equal(ms(cold, 1, T0, { ...known, windowKnown: false }), 0);
  // The server's window seen has ended and its length is not learned: when the next one ends is unknown.
  const ended = seen({ used: 60, resetInMs: 1000, windowMs: 60_000, lengthLearned: false });
  assert.equal(ms(ended, 61, T0 + 2000, { ...known, windowKnown: false }), 0);
  assert.ok(ms(ended, 61, T0 + 2000, known) > 0, 'with the length known, the window after is promised');
});

test('the queue behind the in-flight leases: each wave of the cap takes a request duration', () => {
  // Five leases held for the account, room in the window, requests take 2 s.
  const picture = seen({ reason: 'slot', used: 10, inFlight: 5, cap: 5 });
  const slow = { ...known, waveMs: 2000 };
  assert.equal(ms(picture, 1, T0, slow), 2000, 'the first waits for one of the five to answer');
  assert.equal(ms(picture, 5, T0, slow), 2000);
  assert.equal(ms(picture, 6, T0, slow), 4000, 'the sixth waits for a second wave');
  assert.equal(ms(picture, 11, T0, slow), 6000);
  assert.equal(expectedWait(picture, 6, T0, slow).reason, 'slot');
  assert.equal(ms(picture, 6, T0 + 1500, slow), 2500, 'a wave under way counts only what is left of it');
  assert.equal(ms(seen({ used: 10, inFlight: 2, cap: 5 }), 3, T0, slow), 0, 'free leases: the first three go now');
  assert.equal(ms(seen({ used: 10, inFlight: 2, cap: 5 }), 4, T0, slow), 2000);
});

test("other processes' queues take slots ahead of this one's, up to its own place in line", () => {
  // 6 left in the window; another process has 10 queued, a third 1.
  const picture = seen({ used: 54, resetInMs: 4000, othersQueued: [10, 1] });
  assert.equal(ms(picture, 1), 0, 'the head of each queue goes first');
  assert.equal(ms(picture, 3), 0, 'third here: 2 of the other queue and 1 of the third ahead, sixth in all');
  assert.equal(ms(picture, 4), 4050, 'fourth here: 3 + 1 ahead elsewhere, the window is spent before its turn');
  assert.equal(ms(seen({ used: 54, resetInMs: 4000 }), 4), 0, 'alone, the fourth fits in the window');
});

test('after a spent window, the requests of the next one go out in waves of the cap', () => {
  const picture = seen({ used: 60, resetInMs: 4000, cap: 5 });
  const slow = { ...known, waveMs: 1000 };
  assert.equal(ms(picture, 5, T0, slow), 4050);
  assert.equal(ms(picture, 6, T0, slow), 5050, 'the sixth of the new window waits for one wave');
  assert.equal(ms(picture, 66, T0, slow), 11_050, 'and so in the window after');
});
