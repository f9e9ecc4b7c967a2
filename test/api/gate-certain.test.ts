/**
 * Wait or fail refuses a call at once only on what is certain, on a fake clock: the
 * windows that must pass by counting, and a pace that several answers showed. A moment
 * (a slot held through a retry wait, one slow answer of a loaded machine, the others'
 * share of a window read at its first answer) is not a pace: the calls it would refuse
 * wait, and are refused later only if they do turn out late. Driven through the client's
 * own retry driver, so that slots are held as the client holds them (through the wait
 * after IN_FLIGHT_EXCEEDED).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, errorFromResponse } from '../../src/api/errors.js';
import type { LimitHeaders } from '../../src/api/gate/account-gate.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { driveRetries, type AttemptAnswer } from '../../src/api/retry-driver.js';
import type { Flight } from '../../src/api/shared-request.js';
import { FakeClock } from '../helpers/fake-clock.js';

const IN_FLIGHT = 5;
const DEADLINE_MS = 50_000;

interface Upstream {
  /** Requests a window, and its length. */
  limit: number;
  windowMs: number;
  /** How long the n-th request (1-based) of this process takes to answer. */
  takes: (n: number) => number;
  /** How many requests the account's other processes have in flight at `sinceStart` ms into the burst. */
  othersInFlight: (sinceStart: number) => number;
  /** What the other processes have spent of the current window once this process has spent `ours` of it. */
  othersSpent: (ours: number) => number;
}

/**
 * The account as the server counts it (a fixed window aligned to multiples of its length,
 * and 5 in flight), shared with other processes that send beside this one.
 */
class Account {
  private windowStart = 0;
  private ours = 0;
  private oursInFlight = 0;

  constructor(
    private readonly upstream: Upstream,
    private readonly startedAt: number,
  ) {}

  /** A request of ours arrives at `now`: the answer it will get. */
  arrive(now: number): { status: number; code?: 'IN_FLIGHT_EXCEEDED' | 'RATE_LIMITED'; retryAfterSeconds?: number } {
    this.roll(now);
    if (this.oursInFlight + this.upstream.othersInFlight(now - this.startedAt) >= IN_FLIGHT)
      return { status: 429, code: 'IN_FLIGHT_EXCEEDED', retryAfterSeconds: 1 };
    if (this.counted() >= this.upstream.limit)
      return { status: 429, code: 'RATE_LIMITED', retryAfterSeconds: Math.ceil((this.windowStart + this.upstream.windowMs - now) / 1000) };
    this.ours += 1;
    return { status: 200 };
  }

  sending(): void {
    this.oursInFlight += 1;
  }

  answered(): void {
    this.oursInFlight -= 1;
  }

  headers(now: number): LimitHeaders {
    this.roll(now);
    return {
      rateLimit: this.upstream.limit,
      rateRemaining: this.upstream.limit - this.counted(),
      rateResetAt: this.windowStart + this.upstream.windowMs,
    };
  }

  private counted(): number {
    return Math.min(this.upstream.limit, this.ours + this.upstream.othersSpent(this.ours));
  }

  private roll(now: number): void {
    const start = Math.floor(now / this.upstream.windowMs) * this.upstream.windowMs;
    if (start === this.windowStart) return;
    this.windowStart = start;
    this.ours = 0;
  }
}

interface Outcome {
  /** Ms after the burst began that the call ended. */
  at: number;
  /** The refusal's message, for a call refused. */
  refused?: string;
}

/** `calls` calls at once, each through the retry driver and the gate, against `upstream`; runs the fake clock until all ended. */
async function burst(calls: number, upstream: Upstream): Promise<Outcome[]> {
  // 20 ms into a window, as a burst begins anywhere in one.
  const clock = new FakeClock(Math.ceil(1_800_000_000_000 / upstream.windowMs) * upstream.windowMs + 20);
  const gate = new InProcessAccountGate({ clock });
  const began = clock.now();
  const account = new Account(upstream, began);
  let sent = 0;
  const one = (): Promise<string> => {
    const deadline = began + DEADLINE_MS;
    const flight: Flight = {
      signal: new AbortController().signal,
      deadline: () => deadline,
      progress: () => undefined,
      sending: () => undefined,
      answered: () => undefined,
    };
    return driveRetries<string>(
      {
        gate,
        now: () => clock.now(),
        random: () => 0.5,
        sleep: (ms) => new Promise<void>((resolve) => clock.after(ms, resolve)),
      },
      {
        flight,
        free: false,
        capability: 'market.total_options_volume',
        send: () =>
          new Promise<AttemptAnswer<string>>((resolve) => {
            const answer = account.arrive(clock.now());
            account.sending();
            clock.after(upstream.takes((sent += 1)), () => {
              account.answered();
              const headers = account.headers(clock.now());
              if (answer.code === undefined) {
                resolve({ ok: true, value: 'data', outcome: { status: 200, headers } });
                return;
              }
              const failed = errorFromResponse(
                answer.status,
                { error: { code: answer.code, message: answer.code, retry_after_seconds: answer.retryAfterSeconds } },
                undefined,
                undefined,
              );
              resolve({ ok: false, failed, outcome: { status: answer.status, code: answer.code, headers }, quotaResetAt: undefined });
            });
          }),
      },
    );
  };
  const outcomes: (Outcome | undefined)[] = Array.from({ length: calls }, () => undefined);
  for (let i = 0; i < calls; i += 1) {
    void one().then(
      () => (outcomes[i] = { at: clock.now() - began }),
      (error: unknown) => (outcomes[i] = { at: clock.now() - began, refused: error instanceof ApiError ? error.message : String(error) }),
    );
  }
  while (outcomes.includes(undefined)) {
    assert.ok(clock.now() - began < DEADLINE_MS + 10_000, `${outcomes.filter((o) => o === undefined).length} calls never ended`);
    await clock.advance(10);
  }
  await gate.close();
  return outcomes.map((o) => o ?? { at: Infinity, refused: 'never ended' });
}

const refusals = (outcomes: Outcome[]): string[] => outcomes.flatMap((o) => (o.refused === undefined ? [] : [o.refused]));

test('beside two other processes (a share of 1 in flight), slots held through the wait after IN_FLIGHT_EXCEEDED are no pace: 60 calls the windows serve in time are all served', async () => {
  // The others start their bursts at once too, holding four slots for a second and a half,
  // then two (their shares); they spend two units of the window for each of ours. A request
  // takes 90 ms; one refused with IN_FLIGHT_EXCEEDED keeps its slot through its 1 s wait.
  const outcomes = await burst(60, {
    limit: 60,
    windowMs: 6000,
    takes: () => 90,
    othersInFlight: (t) => (t < 1500 ? 4 : 2),
    othersSpent: (ours) => 2 * ours,
  });
  assert.deepEqual(refusals(outcomes), [], 'no call refused: the window count serves them all within the deadline');
  // Twenty of ours a window: three windows, not the deadline.
  const took = Math.max(...outcomes.map((o) => o.at));
  assert.ok(took < 20_000, `served in ${took} ms`);
});

test('one slow answer (a stall of a loaded machine) is no pace: the calls behind it are served; three slow answers are, and refuse then those they cannot serve', async () => {
  const beside = { limit: 60, windowMs: 6000, othersInFlight: () => 0, othersSpent: (ours: number) => 2 * ours };
  // The first five answer in 90 ms and show a share of 1; the first request of the queue's own stalls 1.5 s.
  const stalled = await burst(60, { ...beside, takes: (n) => (n === 6 ? 1500 : 90) });
  assert.deepEqual(refusals(stalled), [], 'no call refused on one slow answer');

  // Every request of the queue's own takes 1.5 s: 53 calls ahead at a share of 1 do not fit in 50 s.
  const slow = await burst(60, { ...beside, takes: (n) => (n <= 5 ? 90 : 1500) });
  const refused = slow.filter((o) => o.refused !== undefined);
  assert.ok(refused.length >= 20, `refused ${refused.length}: the calls the pace the answers showed cannot serve in time`);
  for (const o of refused) {
    // Once three answers showed the pace (about 4.6 s in), not at the deadline.
    assert.ok(o.at <= 5000, `refused after ${o.at} ms: ${o.refused ?? ''}`);
    assert.match(o.refused ?? '', /nothing was sent/);
  }
  for (const o of slow.filter((c) => c.refused === undefined))
    assert.ok(o.at <= DEADLINE_MS, `a call kept was answered in time, not after ${o.at} ms`);
});

test("the others' share of a window read at its first answer is a moment: only the calls the window count with the others certainly there cannot serve are refused", async () => {
  // The spec's window, 60 a minute: the next one is beyond a 50 s deadline. Another process
  // spent 20 of it in a burst as this one's first five went out: 4 of theirs to each of
  // ours at the first answers, 1 to each of ours by the window's end.
  const outcomes = await burst(47, { limit: 60, windowMs: 60_000, takes: () => 100, othersInFlight: () => 0, othersSpent: () => 20 });
  const refused = outcomes.filter((o) => o.refused !== undefined);
  // 40 left for ours, less the window's last slot kept for the other: 39. The other 8 are
  // refused at once, at the first answers: no window in their deadline can serve them.
  assert.equal(outcomes.length - refused.length, 39, `served ${outcomes.length - refused.length}: ${refused[0]?.refused ?? ''}`);
  assert.equal(refused.length, 8);
  for (const o of refused) assert.ok(o.at <= 100, `refused after ${o.at} ms`);
});
