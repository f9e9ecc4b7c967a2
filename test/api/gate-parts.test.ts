/** Each part of the account gate alone, on a fake clock: no sleeps. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DisabledMemory } from '../../src/api/gate/disabled-memory.js';
import { InFlightCap } from '../../src/api/gate/in-flight-cap.js';
import { Pause } from '../../src/api/gate/pause.js';
import { QuotaLatch } from '../../src/api/gate/quota-latch.js';
import { RateWindow } from '../../src/api/gate/rate-window.js';
import { clampWaitSeconds, parseLimitHeaders, parseRetryAfter } from '../../src/api/limit-headers.js';
import { mayRetry, RETRY_POLICY, retryDelayMs } from '../../src/api/retry-policy.js';

const T0 = 1_800_000_000_000;

/** A server window of `limit` ending at `resetAt`, counting every request that reaches it. */
function serverWindow(
  limit: number,
  resetAt: number,
): { count: (n?: number) => void; headers: () => { rateLimit: number; rateRemaining: number; rateResetAt: number } } {
  let used = 0;
  return {
    count: (n = 1) => (used += n),
    headers: () => ({ rateLimit: limit, rateRemaining: Math.max(0, limit - used), rateResetAt: resetAt }),
  };
}

test('RateWindow: a process alone uses all 60 of the window, even when its requests in flight were already counted by the server', () => {
  const window = new RateWindow();
  const server = serverWindow(60, T0 + 6000);
  let now = T0;
  let sent = 0;
  // Five in flight at a time; the server counts each on arrival and answers all five afterwards.
  while (window.available(now) > 0) {
    const batch = Math.min(5, window.available(now));
    for (let i = 0; i < batch; i += 1) {
      window.take(now);
      server.count();
      sent += 1;
    }
    now += 50;
    for (let i = 0; i < batch; i += 1) window.observe(server.headers(), now);
  }
  assert.equal(sent, 60);
  assert.equal(window.view(now).remaining, 0);
  assert.equal(window.refillsAt(now), T0 + 6000 + 25, 'refills when the server says its window resets');
});

test('RateWindow: requests another process spent are subtracted, and the view says others are sending', () => {
  const window = new RateWindow();
  const server = serverWindow(60, T0 + 6000);
  server.count(20); // another process
  for (let i = 0; i < 5; i += 1) {
    window.take(T0);
    server.count();
  }
  window.observe(server.headers(), T0 + 50);
  assert.equal(window.available(T0 + 50), 35);
  assert.equal(window.othersActive(), true);
});

test('RateWindow: the window rolls at the reset instant and the next answer aligns it to the new server window', () => {
  const window = new RateWindow();
  window.take(T0);
  window.observe({ rateLimit: 10, rateRemaining: 0, rateResetAt: T0 + 2000 }, T0 + 10);
  assert.equal(window.available(T0 + 1000), 0);
  assert.equal(window.available(T0 + 2025), 10, 'a fresh window after the reset');
  window.take(T0 + 2030);
  window.observe({ rateLimit: 10, rateRemaining: 9, rateResetAt: T0 + 4000 }, T0 + 2040);
  assert.equal(window.available(T0 + 2040), 9);
  assert.equal(window.view(T0 + 2040).resetsAt, T0 + 4000);
  // With two resets seen, the window's length is known: a call 25 places back waits two more windows.
  assert.equal(window.turnAt(9 + 10 + 5, T0 + 2040), T0 + 4000 + 25 + 2000);
});

test('RateWindow: without rate headers a local window of 60 a minute opens at the first request and rolls, forever', () => {
  const window = new RateWindow();
  let now = T0 + 1234;
  for (let round = 0; round < 3; round += 1) {
    let sent = 0;
    const opened = now;
    while (window.available(now) > 0) {
      window.take(now);
      window.observe({}, now + 5);
      sent += 1;
      now += 10;
    }
    assert.equal(sent, 60, `round ${round}: 60 requests`);
    assert.equal(window.refillsAt(now), opened + 60_000 + 25, `round ${round}: a minute after its first request`);
    now = window.refillsAt(now) + 1000;
  }
});

test('RateWindow: an answer from the window before (its reset already passed) does not overwrite the current one', () => {
  const window = new RateWindow();
  window.take(T0);
  window.observe({ rateLimit: 10, rateRemaining: 5, rateResetAt: T0 + 2000 }, T0 + 10);
  window.observe({ rateLimit: 10, rateRemaining: 9, rateResetAt: T0 - 4000 }, T0 + 20);
  assert.equal(window.available(T0 + 20), 5);
});

test('RateWindow: a refused request that the server did not count is not counted as spent', () => {
  const window = new RateWindow();
  const generation = window.take(T0);
  window.take(T0);
  window.untake(generation, T0 + 10);
  window.observe({ rateLimit: 10, rateRemaining: 9, rateResetAt: T0 + 2000 }, T0 + 20);
  assert.equal(window.available(T0 + 20), 9);
});

test('limit headers: a reset more than a window away, negative or absurd values are dropped or clamped', () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name];
  const far = parseLimitHeaders(
    headers({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(T0 / 1000) + 86_400 * 365) }),
    T0,
  );
  assert.equal(far.rateResetAt, undefined, 'a reset a year away is not a window');
  assert.equal(far.rateRemaining, undefined, 'remaining without its window means nothing');
  const over = parseLimitHeaders(
    headers({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '900', 'x-ratelimit-reset': String(Math.ceil(T0 / 1000) + 30) }),
    T0,
  );
  assert.equal(over.rateRemaining, 60, 'never more left than the limit');
  assert.equal(over.rateResetAt, (Math.ceil(T0 / 1000) + 30) * 1000);
  const junk = parseLimitHeaders(
    headers({
      'x-ratelimit-limit': '-5',
      'x-ratelimit-remaining': 'Infinity',
      'x-quota-remaining': '1e9',
      'x-quota-reset-at': '2999-01-01T00:00:00Z',
    }),
    T0,
  );
  assert.deepEqual(junk, {
    rateLimit: undefined,
    rateRemaining: undefined,
    rateResetAt: undefined,
    quotaLimit: undefined,
    quotaRemaining: undefined,
    quotaResetAt: undefined,
  });
  assert.equal(clampWaitSeconds(-10), undefined);
  assert.equal(clampWaitSeconds(Infinity), undefined);
  assert.equal(clampWaitSeconds(0.2), 1);
  assert.equal(clampWaitSeconds(1e12), 32 * 24 * 3600);
  assert.equal(parseRetryAfter('-3'), undefined);
  assert.equal(parseRetryAfter(' 7 '), 7);
  assert.equal(parseRetryAfter(new Date(T0 + 5000).toUTCString(), T0), 5);
});

test('InFlightCap: slow start from 1 doubles per round of answers up to the account limit', () => {
  const cap = new InFlightCap({ max: 5, initial: 1 });
  assert.equal(cap.current(T0), 1);
  cap.answered(T0);
  assert.equal(cap.current(T0), 2);
  cap.answered(T0);
  cap.answered(T0);
  assert.equal(cap.current(T0), 4);
  for (let i = 0; i < 4; i += 1) cap.answered(T0);
  assert.equal(cap.current(T0), 5);
});

test('InFlightCap: IN_FLIGHT_EXCEEDED halves the cap once per burst, never below 1, and quiet periods add one slot each', () => {
  const cap = new InFlightCap({ max: 5, initial: 5, burstMs: 500, growAfterMs: 60_000 });
  cap.refused(T0);
  cap.refused(T0 + 100);
  cap.refused(T0 + 400);
  assert.equal(cap.current(T0 + 400), 2, 'one burst of refusals halves once');
  cap.refused(T0 + 1000);
  cap.refused(T0 + 2000);
  assert.equal(cap.current(T0 + 2000), 1, 'never below one');
  assert.equal(cap.current(T0 + 2000 + 59_999), 1);
  assert.equal(cap.current(T0 + 2000 + 60_000), 2, 'additive increase after a quiet period');
  assert.equal(cap.current(T0 + 2000 + 10 * 60_000), 5, 'and back to the account limit, not beyond');
});

test('InFlightCap: the slots in flight are counted against the current cap', () => {
  const cap = new InFlightCap({ max: 5, initial: 2 });
  cap.take();
  assert.equal(cap.hasRoom(T0), true);
  cap.take();
  assert.equal(cap.hasRoom(T0), false);
  cap.give();
  assert.equal(cap.hasRoom(T0), true);
});

test('Pause: only extends, ends at its instant, ignores nonsense', () => {
  const pause = new Pause();
  pause.extend(T0 + 5000);
  pause.extend(T0 + 1000);
  pause.extend(Infinity);
  assert.equal(pause.endsAt(T0), T0 + 5000);
  assert.equal(pause.endsAt(T0 + 5000), undefined);
});

test('QuotaLatch: refuses data requests until the reset, lets free ones through, and shows 0 left with the reset instant', () => {
  const latch = new QuotaLatch();
  latch.observe({ quotaLimit: 100_000, quotaRemaining: 12, quotaResetAt: T0 + 86_400_000 }, T0);
  assert.equal(latch.refusesFor(false, T0), 0);
  latch.latch(T0 + 60_000);
  assert.equal(latch.refusesFor(false, T0), 60_000);
  assert.equal(latch.refusesFor(true, T0), 0, 'discover, health and openapi.json still go');
  assert.deepEqual(latch.view(T0), { limit: 100_000, remaining: 0, resetsAt: T0 + 60_000, exhaustedUntil: T0 + 60_000 });
  assert.equal(latch.refusesFor(false, T0 + 60_000), 0, 'open again at the reset');
});

test('QuotaLatch: a header saying 0 left latches; one saying units are back lifts it', () => {
  const latch = new QuotaLatch();
  latch.observe({ quotaLimit: 10, quotaRemaining: 0, quotaResetAt: T0 + 1000 }, T0);
  assert.ok(latch.refusesFor(false, T0) > 0);
  latch.observe({ quotaLimit: 10, quotaRemaining: 10, quotaResetAt: T0 + 5000 }, T0 + 10);
  assert.equal(latch.refusesFor(false, T0 + 10), 0);
});

test('DisabledMemory: remembers a capability until its instant, then forgets it', () => {
  const memory = new DisabledMemory();
  memory.remember('dealer_heatmap', T0 + 300_000);
  assert.equal(memory.leftFor('dealer_heatmap', T0 + 1000), 299_000);
  assert.deepEqual(memory.list(T0), ['dealer_heatmap']);
  assert.equal(memory.leftFor('dealer_heatmap', T0 + 300_000), undefined);
  assert.deepEqual(memory.list(T0 + 300_000), []);
});

test('retry budget per call: 500, 502, 504 and resets share one budget of 2 retries; polls of a 202 are not counted', () => {
  const serverErrors = ['INTERNAL_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'NETWORK_ERROR'] as const;
  let retries = 0;
  const sequence = ['INTERNAL_ERROR', 'INTERNAL_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'NETWORK_ERROR'] as const;
  let sent = 0;
  for (const code of sequence) {
    sent += 1;
    if (!mayRetry(RETRY_POLICY[code], retries)) break;
    retries += 1;
  }
  assert.equal(sent, 3, 'the first try and 2 retries, whatever the mix');
  for (const code of serverErrors) assert.equal(mayRetry(RETRY_POLICY[code], 2), false);
  assert.equal(mayRetry(RETRY_POLICY.NOT_READY, 1000), true);
  assert.equal(mayRetry(RETRY_POLICY.RESPONSE_INVALID, 0), false, 'a charged 200 is never retried');
});

test("retry delays: the server's Retry-After is honoured by every rule, and 202 polls keep a 1 s floor", () => {
  const low = () => 0;
  assert.equal(retryDelayMs(RETRY_POLICY.INTERNAL_ERROR, 1, 3000, low), 3000);
  assert.equal(retryDelayMs(RETRY_POLICY.IN_FLIGHT_EXCEEDED, 1, 2000, low), 2000);
  assert.equal(retryDelayMs(RETRY_POLICY.IN_FLIGHT_EXCEEDED, 1, undefined, low), 200);
  assert.equal(retryDelayMs(RETRY_POLICY.NOT_READY, 1, 0, low), 1000, 'a "0" from the server is not a busy loop');
  assert.equal(retryDelayMs(RETRY_POLICY.NOT_READY, 5, undefined, low), 4000);
  assert.equal(retryDelayMs(RETRY_POLICY.READ_MODEL_UNAVAILABLE, 1, 7000, low), 7000);
});

test('InFlightCap: when the headers show other processes, the cap keeps to a fair share of the account limit', () => {
  const cap = new InFlightCap({ max: 5 });
  assert.equal(cap.current(T0), 5, 'alone: all of it, at once');
  cap.shareWith(2, T0);
  assert.equal(cap.current(T0), 2);
  cap.shareWith(3, T0);
  assert.equal(cap.current(T0), 1);
  assert.equal(cap.current(T0 + 59_999), 1);
  assert.equal(cap.current(T0 + 60_000), 2, 'additive increase still applies once the others are gone');
});
