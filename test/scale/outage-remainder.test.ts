/**
 * While Redis is away the account's limits divide among its processes, and what does not
 * divide goes one each to the lowest ranks of Redis's sorted member list: the parts add up
 * to exactly the account's limits (5 in flight among 3 is 2 + 2 + 1, not 1 + 1 + 1). A
 * process Redis never listed (started during the outage) takes no remainder, and its part
 * comes from what it can know: its node's record, MARKET_DATA_EXPECTED_PROCESSES, or an
 * assumption that leaves room for others. Timing on a fake clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { partOf, type AccountPart } from '../../src/api/gate/account-share.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { SPEC_LIMITS } from '../../src/catalog/index.js';
import { ASSUMED_PROCESSES, partInForce } from '../../src/redis/outage-part.js';
import { ResilientGate, type SharedGate } from '../../src/redis/resilient.js';
import { FakeClock, settle } from '../helpers/fake-clock.js';

function ask(gate: { acquire(r: PermitRequest): Promise<SendPermit> }, clock: FakeClock, asked: number): SendPermit[] {
  const permits: SendPermit[] = [];
  for (let i = 0; i < asked; i += 1)
    void gate.acquire({ free: false, deadline: clock.now() + 60_000, signal: new AbortController().signal }).then(
      (p) => permits.push(p),
      () => undefined,
    );
  return permits;
}

test('the parts of the processes Redis listed add up to exactly the limit, each within one of the even part; one never listed takes the even part', () => {
  for (const limit of [SPEC_LIMITS.inFlight, SPEC_LIMITS.perWindow, 7])
    for (let processes = 1; processes <= limit; processes += 1) {
      const parts = Array.from({ length: processes }, (_, rank) => partOf(limit, { processes, rank }));
      const even = Math.floor(limit / processes);
      assert.equal(
        parts.reduce((a, b) => a + b, 0),
        limit,
        `${limit} among ${processes}: ${parts.join(' + ')}`,
      );
      for (const part of parts) assert.ok(part === even || part === even + 1, `${part} of ${limit} among ${processes}`);
      assert.equal(partOf(limit, { processes }), even, 'unranked: the even part, no remainder');
    }
  // More processes than slots: each still sends (one each) rather than stop serving.
  assert.equal(partOf(SPEC_LIMITS.inFlight, { processes: 8, rank: 7 }), 1);
});

test("three nodes' fallback gates, ranked 0, 1, 2: together they hold all 5 of the account's in-flight slots and spend all 60 of its window, never more", async () => {
  const clock = new FakeClock(1_000_000);
  const resetAt = clock.now() + 10_000;
  let inFlight = 0;
  let windowSent = 0;
  for (let rank = 0; rank < 3; rank += 1) {
    const gate = new InProcessAccountGate({ clock });
    gate.shareAccount({ processes: 3, rank });
    const permits = ask(gate, clock, 40);
    await settle();
    inFlight += permits.length;
    assert.equal((await gate.view()).max_in_flight, permits.length, 'api_status shows the part in force');
    // Answered one at a time, the headers showing the window as this node spent it (the others unseen, as in an outage).
    let sent = 0;
    for (let answered = 0; answered < permits.length; answered += 1) {
      sent = permits.length;
      permits[answered]?.release({ status: 200, headers: { rateLimit: 60, rateRemaining: 60 - sent, rateResetAt: resetAt } });
      await settle();
    }
    windowSent += permits.length;
    await gate.close();
  }
  assert.equal(inFlight, SPEC_LIMITS.inFlight, 'the in-flight parts add up to the account limit (floor(5/3) x 3 would leave 2 unused)');
  assert.equal(windowSent, SPEC_LIMITS.perWindow, "the window parts add up to the account's window");
});

test('a process Redis never answered: its record, else the expected count, else the assumption; the expected count is a floor for all', () => {
  const seen: AccountPart = { processes: 3, rank: 0 };
  assert.deepEqual(partInForce({ seen: () => seen, remembered: 5 }).part, seen, 'what Redis said in this life wins over the record');
  assert.deepEqual(partInForce({ seen: () => undefined, remembered: 2 }).part, { processes: 2 });
  assert.deepEqual(partInForce({ seen: () => undefined, expected: 4 }).part.processes, 4);
  assert.deepEqual(partInForce({ seen: () => undefined, remembered: 2, expected: 4 }).part.processes, 4);
  assert.deepEqual(partInForce({ seen: () => seen, expected: 4 }).part, { processes: 4, rank: 0 }, 'room for the 4th, rank kept');
  const assumed = partInForce({ seen: () => undefined });
  assert.equal(assumed.part.processes, ASSUMED_PROCESSES);
  assert.ok(assumed.part.processes > 1 && assumed.part.rank === undefined, 'leaves room for others and takes no remainder');
});

/** A shared gate whose Redis never answered. */
const unreachable: SharedGate = {
  acquire: () => Promise.reject(new Error('not reached')),
  ping: () => Promise.reject(new Error('ECONNREFUSED')),
  onDown: () => undefined,
  pause: () => undefined,
  inFlightRefused: () => undefined,
  latchQuota: () => undefined,
  rememberDisabled: () => undefined,
  disabledFor: () => Promise.resolve(undefined),
  view: () => Promise.reject(new Error('not reached')),
  close: () => Promise.resolve(),
};

test('a node started while Redis is down keeps to the part it can know of, not the whole account, and api_status says why', async () => {
  for (const sources of [{}, { remembered: 2 }, { expected: 4 }]) {
    const clock = new FakeClock(1_000_000);
    const fallback = new InProcessAccountGate({ clock });
    const gate = new ResilientGate(unreachable, fallback, {
      probeMs: 60_000,
      join: { ready: Promise.resolve(false), waitMs: 150 },
      members: { inForce: () => partInForce({ seen: () => undefined, ...sources }), close: () => Promise.resolve() },
    });
    const permits = ask(gate, clock, 10);
    await settle();
    const expected = partInForce({ seen: () => undefined, ...sources }).part;
    assert.ok(expected.processes > 1);
    assert.equal(permits.length, partOf(SPEC_LIMITS.inFlight, expected), `${JSON.stringify(sources)}: its part in flight, not 5`);
    const view = await gate.view();
    assert.equal(view.mode, 'in-process');
    assert.match(
      view.mode_reason ?? '',
      new RegExp(
        `\\(${expected.processes} processes of the account, (assumed|as this node last saw|as MARKET_DATA_EXPECTED_PROCESSES says)`,
      ),
    );
    for (const p of permits) p.release({ status: 200 });
    await gate.close();
  }
});
