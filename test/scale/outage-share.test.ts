/**
 * While Redis is away, the nodes of an account cannot see each other's requests: each
 * keeps to its part of the account (its limits divided by the processes Redis last saw
 * alive), lets the requests Redis granted it finish first, and on rejoining keeps to its
 * part for a probe's interval more. Timing on a fake clock; the membership on a real Redis.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GateView, PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { WHOLE_ACCOUNT } from '../../src/api/gate/account-share.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { partInForce } from '../../src/redis/outage-part.js';
import { RedisLink, RedisUnavailableError } from '../../src/redis/connection.js';
import { accountKeys } from '../../src/redis/keys.js';
import { AccountMembers } from '../../src/redis/members.js';
import { ResilientGate, type SharedGate } from '../../src/redis/resilient.js';
import { FakeClock, settle } from '../helpers/fake-clock.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

/** The upstream's own headers for a window of 60 that resets at `resetAt`, `used` of it spent. */
const headers = (used: number, resetAt: number) => ({ rateLimit: 60, rateRemaining: 60 - used, rateResetAt: resetAt });

/** The part of a process Redis listed last among `processes`, so that it gets no remainder (rank undefined: the even part). */
const seenBy = (processes: number) => ({
  inForce: () => partInForce({ seen: () => ({ processes, rank: processes - 1 }) }),
  close: () => Promise.resolve(),
});

/** Asks the gate for `asked` permits at once; the list fills as they are granted. */
function ask(gate: { acquire(r: PermitRequest): Promise<SendPermit> }, clock: FakeClock, asked: number): SendPermit[] {
  const permits: SendPermit[] = [];
  for (let i = 0; i < asked; i += 1)
    void gate.acquire({ free: false, deadline: clock.now() + 60_000, signal: new AbortController().signal }).then(
      (p) => permits.push(p),
      () => undefined,
    );
  return permits;
}

test("a node's fallback gate keeps to 1/N of the account's in-flight slots and window, and has the whole account again at N = 1", async () => {
  const clock = new FakeClock(1_000_000);
  const gate = new InProcessAccountGate({ clock });
  gate.shareAccount({ processes: 3 });
  const permits = ask(gate, clock, 30);
  await settle();
  assert.equal(permits.length, 1, "floor(5/3) = 1 in flight of the account's 5");
  assert.equal((await gate.view()).max_in_flight, 1);
  // A window of 60 shared by three, this node alone sending: answered one at a time, it sends its part and waits.
  const resetAt = clock.now() + 10_000;
  for (let answered = 0; answered < permits.length;) {
    permits[answered]?.release({ status: 200, headers: headers(permits.length, resetAt) });
    answered += 1;
    await settle();
  }
  assert.equal(permits.length, 60 / 3, 'its part of the window, then it waits for the next');

  gate.shareAccount(WHOLE_ACCOUNT);
  await clock.advance(10_100);
  await settle();
  assert.equal(permits.length - 60 / 3, 5, "alone again: the account's 5 in flight at once");
  await gate.close();
});

test('the share stops at what the account has left: a window the shared gate mostly spent before the outage is not spent again', async () => {
  const clock = new FakeClock(1_000_000);
  const gate = new InProcessAccountGate({ clock });
  gate.shareAccount({ processes: 2 });
  const resetAt = clock.now() + 10_000;
  const spentBefore = 50;
  const permits = ask(gate, clock, 60);
  await settle();
  for (let answered = 0; answered < permits.length;) {
    permits[answered]?.release({ status: 200, headers: headers(spentBefore + permits.length, resetAt) });
    answered += 1;
    await settle();
  }
  assert.ok(permits.length + spentBefore <= 60, `${permits.length} sent after ${spentBefore}: within the window of 60`);
  assert.ok(permits.length > 0 && permits.length < 60 / 2, 'something, and less than its part: the account had less left');
  await gate.close();
});

class FakeShared implements SharedGate {
  up = true;
  granted = 0;
  private readonly listeners: ((error: RedisUnavailableError) => void)[] = [];
  acquire(): Promise<SendPermit> {
    if (!this.up) return Promise.reject(new RedisUnavailableError('ECONNREFUSED'));
    this.granted += 1;
    return Promise.resolve({ release: () => undefined });
  }
  ping(): Promise<void> {
    return this.up ? Promise.resolve() : Promise.reject(new RedisUnavailableError('ECONNREFUSED'));
  }
  onDown(listener: (error: RedisUnavailableError) => void): void {
    this.listeners.push(listener);
  }
  fail(): void {
    this.up = false;
    for (const l of this.listeners) l(new RedisUnavailableError('ECONNRESET'));
  }
  pause(): void {}
  inFlightRefused(): void {}
  latchQuota(): void {}
  rememberDisabled(): void {}
  disabledFor(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }
  view(): Promise<GateView> {
    return Promise.reject(new RedisUnavailableError('not in this test'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

test('Redis goes away: the node waits for what Redis granted it, then sends only its part, and says so in api_status', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const clock = new FakeClock(1_000_000);
  const shared = new FakeShared();
  const fallback = new InProcessAccountGate({ clock });
  const members = seenBy(3);
  const gate = new ResilientGate(shared, fallback, { probeMs: 2000, members, now: () => clock.now() });
  const before = ask(gate, clock, 2);
  await settle();
  assert.equal(before.length, 2, 'on Redis');

  shared.fail();
  const during = ask(gate, clock, 6);
  await settle();
  assert.equal(during.length, 0, 'nothing more while the two Redis granted are still out: the account cannot see them any more');
  for (const p of before) p.release({ status: 200 });
  await settle();
  assert.equal(during.length, 1, 'then one at a time: 1/3 of the account');
  const view = await gate.view();
  assert.equal(view.mode, 'in-process');
  assert.equal(view.max_in_flight, 1);
  assert.match(view.mode_reason ?? '', /1 of 5 in flight and 20 of 60 a window \(3 processes of the account, as last seen through Redis\)/);
  for (const p of during) p.release({ status: 200 });
  await gate.close();
});

test('Redis is back: for a probe interval the node takes both a shared turn and one of its part, then the shared gate alone', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const clock = new FakeClock(1_000_000);
  const shared = new FakeShared();
  const fallback = new InProcessAccountGate({ clock });
  const gate = new ResilientGate(shared, fallback, {
    probeMs: 2000,
    members: seenBy(3),
    now: () => Date.now(),
  });
  shared.fail();
  shared.up = true;
  t.mock.timers.tick(2000);
  await settle();
  assert.equal(gate.activeMode, 'redis');
  const rejoined = ask(gate, clock, 5);
  await settle();
  assert.equal(rejoined.length, 1, 'still 1/3 in flight: the other nodes may not have noticed Redis yet');
  assert.equal(shared.granted, 1, 'and the shared gate counts it');
  rejoined[0]?.release({ status: 200 });
  await settle();
  assert.equal(rejoined.length, 2, 'the next goes when that one answers');
  t.mock.timers.tick(2500);
  const after = ask(gate, clock, 5);
  await settle();
  assert.equal(after.length, 5, 'after the interval the shared gate alone decides');
  await gate.close();
});

redisTest('every process of the account beats into Redis: the count holds while Redis is away and drops when one leaves', {}, async () => {
  const redis = await ThrowawayRedis.start();
  const links = [0, 1, 2].map(() => new RedisLink({ url: redis.url }));
  const clock = new FakeClock(1_000_000);
  const keys = accountKeys('sim-live-key');
  const members = links.map((link) => new AccountMembers({ redis: link, keys, clock, redisNow: () => clock.now() }));
  try {
    for (const link of links) await link.waitUntilReady(5000);
    for (const m of members) await m.beat();
    assert.deepEqual(
      members.map((m) => m.count()),
      [1, 2, 3],
      'each sees those that beat before it and itself',
    );
    await clock.advance(1000);
    for (const m of members) await m.beat();
    assert.deepEqual(
      members.map((m) => m.count()),
      [3, 3, 3],
    );
    assert.deepEqual(
      members.map((m) => m.part()?.rank).sort(),
      [0, 1, 2],
      'each has its own place in the sorted list: the remainder of the limits goes to one process each',
    );
    await redis.kill();
    for (let s = 0; s < 10; s += 1) {
      await clock.advance(1000);
      for (const m of members) assert.equal(await m.beat(), undefined, 'Redis is away');
    }
    assert.deepEqual(
      members.map((m) => m.count()),
      [3, 3, 3],
      'the last count holds through the outage',
    );
    await redis.restart();
    for (const link of links) await link.waitUntilReady(5000);
    await clock.advance(1000);
    const [a, b, c] = members;
    assert.ok(a && b && c);
    await c.close();
    await a.beat();
    await b.beat();
    assert.equal(b.count(), 3, 'a Redis that just came back has not heard everyone: the recent highest count holds');
    await clock.advance(6000);
    await a.beat();
    assert.equal(await b.beat(), 2);
    assert.equal(b.count(), 2, 'one that left stops counting once the recent counts are older than a beat lives');
  } finally {
    for (const m of members) await m.close();
    for (const link of links) await link.close();
    await redis.kill();
  }
});

test('the fallback follows the window through the shared gate: Redis going away just after the window is spent sends nothing until it resets', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const clock = new FakeClock(1_000_000);
  const shared = new FakeShared();
  const fallback = new InProcessAccountGate({ clock });
  const gate = new ResilientGate(shared, fallback, {
    probeMs: 60_000,
    members: seenBy(2),
    now: () => clock.now(),
  });
  const last = ask(gate, clock, 1);
  await settle();
  const resetAt = clock.now() + 5000;
  last[0]?.release({ status: 200, headers: headers(60, resetAt) });
  shared.fail();
  const during = ask(gate, clock, 3);
  await settle();
  assert.equal(during.length, 0, 'the account spent its window through Redis: the fallback knows it');
  await clock.advance(5100);
  await settle();
  assert.ok(during.length > 0, 'the next window: its part goes out');
  for (const p of during) p.release({ status: 200 });
  await gate.close();
});
