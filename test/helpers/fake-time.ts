/**
 * One fake clock shared by the simulator and a client, so that tests of the account's
 * limits (windows, Retry-After pauses, the quota reset) run in milliseconds of real time.
 *
 * Real I/O still happens (the client talks HTTP to the simulator): fake time moves only
 * while no request is out, so that a window never turns over under a request in flight
 * unless the test says so.
 */
import type { PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { GateDecorator } from '../../src/api/gate/gate-decorator.js';
import type { ClientDeps } from '../../src/api/client.js';
import { FakeClock, settle } from './fake-clock.js';

export interface FakeTime {
  clock: FakeClock;
  /** For the simulator's `now` option. */
  now: () => number;
  /** For the client: its clock, its gate on that clock, its retry waits on that clock. */
  deps: Pick<ClientDeps, 'now' | 'gate' | 'sleep'>;
  /** Lets fake time pass until `work` settles, and returns what it settles with. */
  run<T>(work: Promise<T>): Promise<T>;
  /** No request of the client is on the wire. */
  idle(): boolean;
  /** Lets real I/O run, without moving fake time, until `ready` holds. */
  until(ready: () => boolean): Promise<void>;
}

/** Permits given out and not yet given back: a request is on the wire. */
class CountingGate extends GateDecorator {
  out = 0;
  override async acquire(request: PermitRequest): Promise<SendPermit> {
    const permit = await this.inner.acquire(request);
    this.out += 1;
    return {
      release: (outcome) => {
        this.out -= 1;
        permit.release(outcome);
      },
    };
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A fake clock that starts at the beginning of one of the simulator's windows (`alignMs`), after `from` (default now). */
export function fakeTime(alignMs = 60_000, stepMs = 10, from = Date.now()): FakeTime {
  const clock = new FakeClock(Math.ceil(from / alignMs) * alignMs);
  const gate = new CountingGate(new InProcessAccountGate({ clock }));
  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      const timer = clock.after(ms, resolve);
      signal.addEventListener('abort', () => (timer.cancel(), resolve()), { once: true });
    });
  const until = async (ready: () => boolean): Promise<void> => {
    while (!ready()) await nextTurn();
  };
  return {
    clock,
    now: () => clock.now(),
    deps: { now: () => clock.now(), gate, sleep },
    until,
    idle: () => gate.out === 0,
    async run<T>(work: Promise<T>): Promise<T> {
      let settled = false;
      const mark = (): void => void (settled = true);
      work.then(mark, mark);
      for (;;) {
        // Whatever can happen without time passing happens first.
        await settle();
        if (settled) break;
        if (gate.out === 0) await clock.advance(stepMs);
      }
      return work;
    },
  };
}
