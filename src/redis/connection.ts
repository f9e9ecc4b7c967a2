/**
 * Two connections to one Redis for one process: commands (the gate's scripts, the
 * cache tier) and a subscriber (pub/sub wake-ups). Neither ever queues a command while
 * Redis is away, and every command has a time limit: a caller learns at once that Redis
 * is gone and falls back, rather than hanging.
 */
import { createClient } from 'redis';
import type { RedisCommander } from './scripts.js';

export interface RedisLinkOptions {
  url: string;
  /** A command that takes longer counts as Redis being unreachable. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * A Redis whose commands take longer than this (a moving average) is left as if it did
   * not answer, until a probe answers within half of it. Undefined: only the timeout counts.
   */
  slowOverMs?: number | undefined;
}

/**
 * What a call may spend on Redis: a share of its deadline over its round trips (cache tier,
 * shared request, fair turn, the gate's scripts), never less than a floor (a local Redis
 * answers in a millisecond or two, a loaded one in tens). Calls took 3.7-11 s on a Redis
 * answering each command under its 1 s timeout, and one missed its 10 s deadline.
 */
export function slowRedisOverMs(deadlineMs: number): number {
  return Math.max(50, (deadlineMs * 0.1) / 8);
}

export class RedisUnavailableError extends Error {
  readonly code = 'REDIS_UNAVAILABLE';
  constructor(cause: unknown) {
    super(`redis unreachable: ${describe(cause)}`);
    this.name = 'RedisUnavailableError';
  }
}

/** A short reason fit for api_status and logs: an error code or message, never the URL (it may carry a password). */
export function describe(error: unknown): string {
  if (error instanceof RedisUnavailableError) return error.message.replace(/^redis unreachable: /, '');
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/rediss?:\/\/\S*/g, '[redis url]').slice(0, 120);
}

type Client = ReturnType<typeof createClient>;

/** How much the latest command weighs in the moving average of command times. */
const LATENCY_WEIGHT = 0.3;

export class RedisLink implements RedisCommander {
  private readonly client: Client;
  private readonly subscriber: Client;
  private readonly commandTimeoutMs: number;
  private readonly channels = new Map<string, (message: string) => void>();
  private readonly subscribed = new Set<string>();
  /** SUBSCRIBEs sent and not yet answered: a retry joins one rather than sending another. */
  private readonly subscribing = new Map<string, Promise<void>>();
  private readonly troubleListeners = new Set<(error: Error) => void>();
  private closed = false;
  private unanswered: RedisUnavailableError | undefined;
  /** Why Redis refused us (say, the password), until a connection is ready: "not connected" alone hides it. */
  private lastFailure: string | undefined;
  /** Settles when each connection's first attempt has an outcome (ready or an error), or after the connect timeout. */
  private readonly firstAttempts: Promise<unknown>;
  /** How long recent commands took (a moving average): a Redis that answers, but slowly, is found by it. */
  private latency = 0;
  private readonly slowLimitMs: number | undefined;
  /** Set while Redis is left for being slow: a probe must answer within half of the limit to bring it back. */
  private leftSlow = false;

  constructor(options: RedisLinkOptions) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1000;
    this.slowLimitMs = options.slowOverMs;
    const connectTimeout = options.connectTimeoutMs ?? 1000;
    const make = (): Client =>
      createClient({
        url: options.url,
        disableOfflineQueue: true,
        socket: {
          connectTimeout,
          // Keep reconnecting in the background; callers never wait for it.
          reconnectStrategy: (retries: number) => Math.min(2000, 100 * 2 ** Math.min(retries, 5)),
        },
      });
    this.client = make();
    this.subscriber = make();
    this.firstAttempts = Promise.race([
      Promise.all(
        [this.client, this.subscriber].map(
          (client) =>
            new Promise<void>((resolve) => {
              client.once('ready', resolve);
              client.once('error', resolve);
            }),
        ),
      ),
      new Promise<void>((resolve) => setTimeout(resolve, connectTimeout).unref()),
    ]);
    for (const client of [this.client, this.subscriber]) {
      client.on('error', (error: unknown) => this.trouble(error));
      client.on('ready', () => (this.lastFailure = undefined));
      // node-redis resolves connect() only once connected; it retries on its own meanwhile.
      client.connect().catch((error: unknown) => this.trouble(error));
    }
  }

  /** Told when a connection fails: queued requests move to the fallback at once. */
  onTrouble(listener: (error: Error) => void): void {
    this.troubleListeners.add(listener);
  }

  async sendCommand(args: readonly string[]): Promise<unknown> {
    // After a command went unanswered, refuse at once until a probe gets an answer: a
    // frozen Redis must cost each call nothing, not a timeout each.
    if (this.unanswered) throw this.unanswered;
    return this.send(args);
  }

  private async send(args: readonly string[]): Promise<unknown> {
    if (this.closed) throw new RedisUnavailableError('closed');
    if (!this.client.isReady) throw this.notConnected('not connected');
    const sent = Date.now();
    try {
      return await this.bounded(this.client.sendCommand([...args]));
    } catch (error) {
      if (error instanceof RedisUnavailableError || isConnectionError(error)) throw new RedisUnavailableError(error);
      throw error;
    } finally {
      this.latency = this.latency * (1 - LATENCY_WEIGHT) + (Date.now() - sent) * LATENCY_WEIGHT;
      if (this.slowLimitMs !== undefined && this.latency > this.slowLimitMs && !this.unanswered) this.leaveSlow();
    }
  }

  /**
   * Redis answers, but slower than a call can afford: every command is refused at once, as
   * after one that went unanswered, and the gates fall back now, until a probe is fast.
   */
  private leaveSlow(): void {
    this.leftSlow = true;
    this.unanswered = new RedisUnavailableError(`slower than a call can afford: about ${Math.round(this.latency)} ms a command`);
    for (const listener of this.troubleListeners) listener(this.unanswered);
  }

  /** Listens on `channel`; the subscription is made again whenever Redis comes back. */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.channels.set(channel, onMessage);
    await this.ensureSubscribed();
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.sendCommand(['PUBLISH', channel, message]);
  }

  /** Resolves when both connections answer; the probe that decides to rejoin. */
  async ping(): Promise<void> {
    // Start-up's first probe: a refusal (a wrong password) is said from the first report on, not "not connected".
    if (!this.client.isReady || !this.subscriber.isReady) await this.firstAttempts;
    const sent = Date.now();
    await this.send(['PING']);
    const took = Date.now() - sent;
    if (this.leftSlow && this.slowLimitMs !== undefined && took > this.slowLimitMs / 2)
      throw new RedisUnavailableError(`still slow: ${took} ms for a PING`);
    this.leftSlow = false;
    this.latency = took;
    this.unanswered = undefined;
    if (!this.subscriber.isReady) throw this.notConnected('subscriber not connected');
    await this.ensureSubscribed();
  }

  /** Start-up must not hang on a Redis that is down: true once it answers, false after `withinMs`. */
  async waitUntilReady(withinMs: number): Promise<boolean> {
    const until = Date.now() + withinMs;
    for (;;) {
      try {
        await this.ping();
        return true;
      } catch {
        if (this.closed || Date.now() + 50 >= until) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  async close(): Promise<void> {
    // The client closes the gate and the runtime the account: a second close is a no-op.
    if (this.closed) return;
    this.closed = true;
    // close() waits for replies still due; a Redis that stopped answering would hold the
    // process open for good (a host could not stop the server), so the wait is bounded.
    await Promise.all(
      [this.client, this.subscriber].map(async (client) => {
        if (client.isOpen) {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.commandTimeoutMs)));
          const closed = client.close().then(
            () => 'closed' as const,
            () => 'late' as const,
          );
          const outcome = await Promise.race([closed, late]);
          clearTimeout(timer);
          if (outcome === 'closed') return;
        }
        client.destroy();
      }),
    );
  }

  private async ensureSubscribed(): Promise<void> {
    // A SUBSCRIBE to a Redis that stopped answering never settles: it is bounded like any
    // command, and while a command goes unanswered no new one is sent (the probe retries).
    if (this.unanswered) throw this.unanswered;
    // The gate subscribes at once, in the background: what it reports first is what a user reads.
    if (!this.subscriber.isReady) await this.firstAttempts;
    if (!this.subscriber.isReady) throw this.notConnected('subscriber not connected');
    for (const [channel, listener] of this.channels) {
      if (this.subscribed.has(channel)) continue;
      let pending = this.subscribing.get(channel);
      if (!pending) {
        pending = this.subscriber
          .subscribe(channel, (message: string) => listener(message))
          .then(
            () => void this.subscribed.add(channel),
            (error: unknown) => {
              throw isConnectionError(error) ? new RedisUnavailableError(error) : error;
            },
          );
        const forget = (): void => void this.subscribing.delete(channel);
        pending.then(forget, forget);
        this.subscribing.set(channel, pending);
      }
      await this.bounded(pending);
    }
  }

  /** `work`, or RedisUnavailableError (and no further commands until a probe answers) after the command timeout. */
  private async bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.unanswered = new RedisUnavailableError(`no answer within ${this.commandTimeoutMs} ms`);
        reject(this.unanswered);
      }, this.commandTimeoutMs);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** "not connected", with the reason the last attempt failed when Redis refused us (say, the password). */
  private notConnected(what: string): RedisUnavailableError {
    return new RedisUnavailableError(this.lastFailure ? `${what}: ${this.lastFailure}` : what);
  }

  private trouble(error: unknown): void {
    if (this.closed) return;
    // A refusal stays the reason until a connection is ready: the socket errors after it would hide it.
    this.lastFailure = refusal(error) ?? this.lastFailure;
    // Said in words a user acts on, not as Redis's own WRONGPASS text.
    const wrapped = new RedisUnavailableError(refusal(error) ?? error);
    for (const listener of this.troubleListeners) listener(wrapped);
  }
}

/**
 * A refusal by Redis itself, in words a user can act on (never the URL or the password);
 * undefined for network trouble, which "not connected" already says.
 */
function refusal(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (/^(WRONGPASS|NOAUTH)|invalid password|AUTH.*(failed|called without)/i.test(message))
    return 'authentication failed: check the user and password in MARKET_DATA_REDIS_URL';
  if (/^NOPERM/.test(message)) return 'permission denied: the Redis user may not run the commands the server needs';
  return undefined;
}

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const name = error.name;
  return (
    name === 'ClientClosedError' ||
    name === 'ClientOfflineError' ||
    name === 'SocketClosedUnexpectedlyError' ||
    name === 'ConnectionTimeoutError' ||
    name === 'TimeoutError' ||
    'code' in error
  );
}
