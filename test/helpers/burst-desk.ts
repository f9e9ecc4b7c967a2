/**
 * A team's desk on simulated time, for the fair-in-time tests: one member bursts while the
 * others ask single calls at chosen instants of the window, through one or several nodes'
 * fair-share gates in front of one account, on an upstream that counts fixed windows as the
 * simulator does and answers with its rate headers after a realistic time. Reports each light
 * call's wait for its permit (in pacing intervals: the window's length over its limit), how
 * many requests each window took and whether the upstream refused any.
 *
 * Several nodes take turns as shared-turns.ts does through Redis (one turn at a time across
 * the nodes, the least served user first, the nodes woken when a turn ends), here in memory
 * with each question to "Redis" taking `hopMs` of simulated time; the account's window and
 * slots are one gate, as the Redis gate is one for every node.
 */
import { setMaxListeners } from 'node:events';
import type { GateView, PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { GateDecorator } from '../../src/api/gate/gate-decorator.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FixedWindowCounter } from '../../src/simulator/limits.js';
import { FairShareGate } from '../../src/team/fair-share-gate.js';
import { LocalTurns, type Turn, type Turns } from '../../src/team/turns.js';
import { FakeClock, settle } from './fake-clock.js';

export interface DeskPlan {
  /** Nodes the members' calls are spread over (round robin); 1: turns in one process. */
  nodes: number;
  windowMs: number;
  perWindow: number;
  inFlight: number;
  /** How long the upstream holds a request (the permit is given back after it). */
  latencyMs: number;
  /** Each question to the shared turns' Redis, in simulated time (several nodes only). */
  hopMs?: number;
  /** The bursting member's calls out at once (each starts the next as it is answered). */
  burstConcurrency: number;
  /** Windows the burst runs for, after the first (the desk starts mid-window, as a desk does). */
  windows: number;
  /** Where in each window (ms from its start) a light member asks a single call. */
  lightAt: readonly number[];
}

export interface LightCall {
  /** Milliseconds into its window when it was asked. */
  askedAt: number;
  waitedMs: number;
  /** The wait over one pacing interval. */
  intervals: number;
}

export interface DeskRun {
  light: LightCall[];
  /** Requests the upstream counted in each whole window of the run. */
  perWindow: number[];
  /** Requests the upstream refused (429). */
  refused: number;
}

const LIGHT = ['bob', 'carol', 'dave'];

export async function runBurstDesk(plan: DeskPlan): Promise<DeskRun> {
  const clock = new FakeClock();
  const { windowMs, perWindow: limit } = plan;
  const upstream = new FixedWindowCounter(limit, windowMs);
  const limits = new InProcessAccountGate({ clock, window: { limit, localWindowMs: windowMs }, inFlight: { max: plan.inFlight } });
  const account = new SharedAccount(limits, clock, plan.nodes > 1 ? (plan.hopMs ?? 1) : 0);
  const board = new TurnBoard(clock, plan.hopMs ?? 1);
  let asking = 'nobody';
  const nodes = Array.from(
    { length: plan.nodes },
    (_, i) => new FairShareGate(account, { who: () => asking, clock, turns: plan.nodes > 1 ? board.node(`node-${i}`) : new LocalTurns() }),
  );
  const stop = new AbortController();
  // Every call listens on the one signal that ends the run.
  setMaxListeners(0, stop.signal);
  const counted = new Map<number, number>();
  let refused = 0;
  let nextNode = 0;
  const send = async (who: string): Promise<number> => {
    const node = nodes[nextNode++ % nodes.length];
    if (!node) throw new Error('no node');
    asking = who;
    const asked = clock.now();
    const permit = await node.acquire({ free: false, deadline: clock.now() + 3_600_000, signal: stop.signal });
    const waited = clock.now() - asked;
    const ok = upstream.tryTake(clock.now());
    if (ok) {
      const w = Math.floor(clock.now() / windowMs);
      counted.set(w, (counted.get(w) ?? 0) + 1);
    } else refused += 1;
    const state = upstream.state(clock.now());
    clock.after(plan.latencyMs, () =>
      permit.release({
        status: ok ? 200 : 429,
        headers: { rateLimit: limit, rateRemaining: state.remaining, rateResetAt: Math.ceil(state.resetAtMs / 1000) * 1000 },
        ...(ok ? {} : { code: 'RATE_LIMITED' }),
      }),
    );
    return waited;
  };
  // The light members have called before: the desk is known to have several members.
  for (const who of LIGHT) {
    void send(who).catch(() => undefined);
    await clock.advance(plan.latencyMs + 10);
  }
  const firstWindow = Math.floor(clock.now() / windowMs) + 1;
  const endAt = (firstWindow + plan.windows) * windowMs;
  let burstOver = false;
  const burstWorker = async (): Promise<void> => {
    while (!burstOver) await send('alice').catch(() => undefined);
  };
  for (let i = 0; i < plan.burstConcurrency; i += 1) void burstWorker();
  const light: LightCall[] = [];
  const asks = [];
  for (let w = firstWindow; w < firstWindow + plan.windows; w += 1)
    for (const offset of plan.lightAt) asks.push({ at: w * windowMs + offset, offset });
  asks.sort((a, b) => a.at - b.at);
  for (const [i, ask] of asks.entries()) {
    await clock.advance(ask.at - clock.now());
    void send(LIGHT[i % LIGHT.length] ?? 'bob').then(
      (waitedMs) => light.push({ askedAt: ask.offset, waitedMs, intervals: waitedMs / (windowMs / limit) }),
      () => undefined,
    );
  }
  await clock.advance(endAt - clock.now());
  // The burst stops asking; the calls asked late in the last window are served in the next.
  burstOver = true;
  await clock.advance(windowMs);
  stop.abort();
  await clock.advance(windowMs);
  await settle();
  await Promise.all(nodes.map((n) => n.close()));
  await limits.close();
  const perWindow = [];
  for (let w = firstWindow; w < firstWindow + plan.windows; w += 1) perWindow.push(counted.get(w) ?? 0);
  return { light: light.sort((a, b) => b.waitedMs - a.waitedMs), perWindow, refused };
}

/** The account's one gate, closed once by the desk rather than by each node. */
class SharedAccount extends GateDecorator {
  constructor(
    inner: InProcessAccountGate,
    private readonly clock: FakeClock,
    private readonly hopMs: number,
  ) {
    super(inner);
  }
  async acquire(request: PermitRequest): Promise<SendPermit> {
    await this.hop();
    return this.inner.acquire(request);
  }
  override async view(): Promise<GateView> {
    await this.hop();
    return this.inner.view();
  }
  private hop(): Promise<void> {
    return new Promise((resolve) => this.clock.after(this.hopMs, resolve));
  }
  override close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The shared turns' Redis script (src/redis/shared-turns-script.ts) in memory: a user's tag is
 * the turns it was given in virtual time, a waiting user's next turn carries max(tag, v); the
 * turn goes to the least tag among the users waiting on any node, and only while no other
 * node holds it. Ending a turn wakes every node.
 */
class TurnBoard {
  private readonly waiting = new Map<string, Set<string>>();
  private readonly tags = new Map<string, number>();
  private readonly wakes = new Map<string, () => void>();
  private holder: string | undefined;
  private v = 0;

  constructor(
    private readonly clock: FakeClock,
    private readonly hopMs: number,
  ) {}

  node(name: string): Turns {
    return {
      acrossNodes: true,
      next: (users) => this.hop(() => this.ask(name, users)),
      done: (users) => void this.hop(() => this.end(name, users)),
      waitingChanged: (users) => void this.hop(() => this.say(name, users)),
      onWake: (wake) => void this.wakes.set(name, wake),
      close: () => Promise.resolve(),
    };
  }

  /** A question to Redis: answered after a hop there and back. */
  private hop<T>(work: () => T): Promise<T> {
    return new Promise((resolve) => this.clock.after(this.hopMs, () => resolve(work())));
  }

  private ask(node: string, users: readonly string[]): Turn {
    this.say(node, users);
    if (this.holder !== undefined && this.holder !== node) return { waitMs: 1000 };
    let least = Infinity;
    let pick: string | undefined;
    for (const [at, waiting] of this.waiting)
      for (const user of waiting) {
        const tag = Math.max(this.tags.get(user) ?? 0, this.v);
        least = Math.min(least, tag);
        if (at === node && (pick === undefined || tag < Math.max(this.tags.get(pick) ?? 0, this.v))) pick = user;
      }
    if (pick === undefined) return { waitMs: 1000 };
    const tag = Math.max(this.tags.get(pick) ?? 0, this.v);
    if (tag > least) return { waitMs: 1000 };
    this.holder = node;
    this.v = tag;
    this.tags.set(pick, tag + 1);
    return { user: pick };
  }

  private end(node: string, users: readonly string[]): void {
    this.say(node, users);
    if (this.holder === node) {
      this.holder = undefined;
      this.wakeAll();
    }
  }

  private say(node: string, users: readonly string[]): void {
    const before = this.waiting.get(node) ?? new Set();
    const left = [...before].some((user) => !users.includes(user));
    this.waiting.set(node, new Set(users));
    if (left) this.wakeAll();
  }

  /** Pub/sub: every node hears it a hop later. */
  private wakeAll(): void {
    for (const wake of this.wakes.values()) this.clock.after(this.hopMs, wake);
  }
}
