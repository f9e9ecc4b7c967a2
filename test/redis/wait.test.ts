/** Wait or fail on the shared window: the expected wait of a queued request, on a fake clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedWaitMs, type WaitPicture } from '../../src/redis/wait.js';

const SLACK = 50;
const seen = (over: Partial<WaitPicture> & { used?: number; resetInMs?: number }, at = 1_000_000): WaitPicture => ({
  reason: over.reason ?? 'window',
  waitMs: over.waitMs ?? 0,
  seenAt: at,
  window: { limit: 60, used: over.used ?? 60, resetInMs: over.resetInMs ?? 4000, windowMs: 6000 },
});

test('with nothing seen yet, a request expects to go now', () => {
  assert.equal(expectedWaitMs(undefined, 10, 0, SLACK), 0);
});

test('a spent window: the next request waits for its reset, later ones for the windows after', () => {
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(expectedWaitMs(picture, 1, 1_000_000, SLACK), 4050);
  assert.equal(expectedWaitMs(picture, 60, 1_000_000, SLACK), 4050);
  assert.equal(expectedWaitMs(picture, 61, 1_000_000, SLACK), 10_050, 'the 61st needs the window after');
  assert.equal(expectedWaitMs(picture, 121, 1_000_000, SLACK), 16_050);
});

test('the wait shrinks as the clock moves, and a window seen ending is fresh again', () => {
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(expectedWaitMs(picture, 1, 1_003_000, SLACK), 1050);
  assert.equal(expectedWaitMs(picture, 1, 1_004_100, SLACK), 0, 'after the reset the window has room');
});

test('room left in the window: the first ones go now, the rest wait for the reset', () => {
  const picture = seen({ reason: 'slot', used: 55, resetInMs: 2000 });
  assert.equal(expectedWaitMs(picture, 5, 1_000_000, SLACK), 0);
  assert.equal(expectedWaitMs(picture, 6, 1_000_000, SLACK), 2050);
});

test('a Retry-After pause holds everyone, even with room in the window', () => {
  const picture = seen({ reason: 'pause', waitMs: 7000, used: 0, resetInMs: 3000 });
  assert.equal(expectedWaitMs(picture, 1, 1_000_000, SLACK), 7000);
  assert.equal(expectedWaitMs(picture, 1, 1_006_000, SLACK), 1000);
});

test('until the window length is known, a queued request is promised no more than the next reset', () => {
  // The default length (the spec's minute) may be far from the server's: the 121st request
  // of a 6 s window would be refused as needing 2 more minutes when it needs 12 s.
  const picture = seen({ used: 60, resetInMs: 4000 });
  assert.equal(expectedWaitMs(picture, 121, 1_000_000, SLACK, false), 4050);
  assert.equal(expectedWaitMs(picture, 121, 1_000_000, SLACK, true), 16_050);
});
