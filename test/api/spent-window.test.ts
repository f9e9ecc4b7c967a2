/**
 * After another client of the account spent the window before this process started, a
 * burst gets every slot of the windows that follow, on a fake clock against a fixed
 * window of 60 a 6 s (the simulator's, aligned to multiples of its length).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LimitHeaders, PermitOutcome } from '../../src/api/gate/account-gate.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FakeClock } from '../helpers/fake-clock.js';

const LIMIT = 60;
const WINDOW_MS = 6000;

/** The server's fixed window: what it counted, and the headers it answers with. */
class ServerWindow {
  private start = 0;
  private count = 0;

  private roll(now: number): void {
    const start = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    if (start === this.start) return;
    this.start = start;
    this.count = 0;
  }

  /** Counts a request, or false when the window is spent (a 429). */
  take(now: number): boolean {
    this.roll(now);
    if (this.count >= LIMIT) return false;
    this.count += 1;
    return true;
  }

  headers(now: number): LimitHeaders {
    this.roll(now);
    return { rateLimit: LIMIT, rateRemaining: LIMIT - this.count, rateResetAt: this.start + WINDOW_MS };
  }
}

test('a burst after a window another client spent before start-up uses every slot of the next windows: 300 calls in five', async () => {
  // Two and a half seconds into a window, which another client has spent.
  const clock = new FakeClock(Math.floor(1_800_000_000_000 / WINDOW_MS) * WINDOW_MS + 2500);
  const server = new ServerWindow();
  while (server.take(clock.now()));
  const gate = new InProcessAccountGate({ clock });
  const answer = (now: number): PermitOutcome =>
    server.take(now) ? { status: 200, headers: server.headers(now) } : { status: 429, code: 'RATE_LIMITED', headers: server.headers(now) };
  // Start-up: the free openapi.json meets the spent window.
  const document = await gate.acquire({ free: true, deadline: clock.now() + 60_000, signal: new AbortController().signal });
  await clock.advance(5);
  document.release(answer(clock.now()));

  const sentIn = new Map<number, number>();
  let ended = 0;
  const calls = Array.from({ length: 300 }, () =>
    gate.acquire({ free: false, deadline: clock.now() + 50_000, signal: new AbortController().signal }).then((permit) => {
      clock.after(20, () => {
        const outcome = answer(clock.now());
        assert.equal(outcome.status, 200, 'no request meets a spent window');
        const window = Math.floor(clock.now() / WINDOW_MS);
        sentIn.set(window, (sentIn.get(window) ?? 0) + 1);
        permit.release(outcome);
        ended += 1;
      });
    }),
  );
  const began = clock.now();
  while (ended < calls.length) {
    assert.ok(clock.now() - began < 60_000, `${calls.length - ended} calls still waiting after a minute`);
    await clock.advance(50);
  }
  await Promise.all(calls);
  assert.deepEqual([...sentIn.values()], [60, 60, 60, 60, 60], 'each window after the spent one used whole');
  await gate.close();
});
