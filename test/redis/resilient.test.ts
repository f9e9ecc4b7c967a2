/** The fallback wrapper on a fake clock: switches at once, never fails open, probes and rejoins. */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { GateView, PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { RedisUnavailableError } from '../../src/redis/connection.js';
import { ResilientGate, type SharedGate } from '../../src/redis/resilient.js';
import { StandInGate } from '../helpers/redis-local-gate.js';

class FakeShared implements SharedGate {
  up = true;
  acquired = 0;
  pings = 0;
  paused: number[] = [];
  private readonly listeners: ((error: RedisUnavailableError) => void)[] = [];
  acquire(_request: PermitRequest): Promise<SendPermit> {
    if (!this.up) return Promise.reject(new RedisUnavailableError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })));
    this.acquired += 1;
    return Promise.resolve({ release: () => undefined });
  }
  ping(): Promise<void> {
    this.pings += 1;
    return this.up ? Promise.resolve() : Promise.reject(new RedisUnavailableError('ECONNREFUSED'));
  }
  onDown(listener: (error: RedisUnavailableError) => void): void {
    this.listeners.push(listener);
  }
  fail(): void {
    this.up = false;
    for (const l of this.listeners) l(new RedisUnavailableError(Object.assign(new Error('x'), { code: 'ECONNRESET' })));
  }
  pause(untilMs: number): void {
    this.paused.push(untilMs);
  }
  inFlightRefused(): void {}
  latchQuota(): void {}
  rememberDisabled(): void {}
  disabledFor(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }
  async view(): Promise<GateView> {
    if (!this.up) throw new RedisUnavailableError('ECONNREFUSED');
    return { ...(await new StandInGate().view()), mode: 'redis' };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const request = (): PermitRequest => ({ free: false, deadline: Date.now() + 5000, signal: new AbortController().signal });
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

test('a request meets a Redis that is gone: the fallback serves it at once, and the view says why', async () => {
  const shared = new FakeShared();
  const fallback = new StandInGate(5);
  const gate = new ResilientGate(shared, fallback, { probeMs: 2000 });
  await gate.acquire(request());
  assert.equal(shared.acquired, 1);
  shared.up = false;
  await gate.acquire(request());
  assert.equal(fallback.acquired, 1, 'never fails open: the in-process gate gave the permit');
  const view = await gate.view();
  assert.equal(view.mode, 'in-process');
  assert.match(view.mode_reason ?? '', /redis unreachable \(ECONNREFUSED\)/);
  await gate.close();
});

test('after a failure it probes every probeMs, and rejoins Redis when a probe answers', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const shared = new FakeShared();
  const fallback = new StandInGate(5);
  const gate = new ResilientGate(shared, fallback, { probeMs: 2000 });
  shared.fail();
  assert.equal(gate.activeMode, 'in-process', 'the connection failure alone moves it, before any request');
  t.mock.timers.tick(1999);
  await settle();
  assert.equal(shared.pings, 0);
  t.mock.timers.tick(1);
  await settle();
  assert.equal(shared.pings, 1);
  assert.equal(gate.activeMode, 'in-process', 'still down: keeps the fallback');
  shared.up = true;
  t.mock.timers.tick(2000);
  await settle();
  assert.equal(shared.pings, 2);
  assert.equal(gate.activeMode, 'redis');
  await gate.acquire(request());
  assert.equal(shared.acquired, 1);
  assert.equal(fallback.acquired, 0);
  await gate.close();
  mock.timers.reset();
});

test('account-wide facts reach the fallback too, so it knows them the moment it takes over', async () => {
  const shared = new FakeShared();
  const fallback = new StandInGate(5);
  const gate = new ResilientGate(shared, fallback);
  const until = Date.now() + 60_000;
  gate.pause(until);
  gate.rememberDisabled('dealer_heatmap', until);
  gate.latchQuota(until);
  assert.deepEqual(shared.paused, [until]);
  shared.fail();
  assert.equal(await gate.disabledFor('dealer_heatmap'), 60);
  await assert.rejects(gate.acquire(request()), { code: 'QUOTA_EXHAUSTED' });
  await gate.close();
});

test('joining Redis at start: on the fallback until Redis answers; a call waits at most join.waitMs for it', async () => {
  const shared = new FakeShared();
  const fallback = new StandInGate(5);
  let answer: (ok: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (answer = resolve));
  const gate = new ResilientGate(shared, fallback, { join: { ready, waitMs: 50 } });
  assert.equal(gate.activeMode, 'in-process', 'nothing waited for Redis: the gate starts on its fallback');
  const started = Date.now();
  await gate.acquire(request());
  assert.ok(Date.now() - started < 1000, 'the first call waited only a little for Redis');
  assert.equal(fallback.acquired, 1, 'Redis had not answered: the fallback gave the permit');
  assert.match((await gate.view()).mode_reason ?? '', /connecting to Redis/);
  answer(true);
  await settle();
  assert.equal(gate.activeMode, 'redis');
  await gate.acquire(request());
  assert.equal(shared.acquired, 1, 'once Redis answered, permits come from it');

  const early = new ResilientGate(new FakeShared(), new StandInGate(5), { join: { ready: Promise.resolve(true), waitMs: 1000 } });
  assert.equal((await early.view()).mode, 'redis', 'a call soon after start waits for a Redis that answers at once');
  await Promise.all([gate.close(), early.close()]);
});
