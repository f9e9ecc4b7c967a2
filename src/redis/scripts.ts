/**
 * The account gate's Lua scripts. Each runs atomically in Redis and takes its time from
 * Redis `TIME`, so every process on every host sees one clock: skew between hosts does
 * not matter. Instants that come from this process (a header's reset, a Retry-After)
 * travel as durations from now and are turned into Redis time inside the script.
 */
import { createHash } from 'node:crypto';
import type { AccountKeys } from './keys.js';

/** The one thing the scripts need from a Redis connection (node-redis's client has it). */
export interface RedisCommander {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * The state hash expires like every key, but never before an instant it holds (a pause,
 * a quota latch that may last until the month's reset): an account no process uses any
 * more leaves nothing behind, and one in use loses nothing it still needs.
 */
const KEEP_STATE = `local function keepState(key, ttl)
  local keep = ttl
  for _, v in ipairs(redis.call('HMGET', key, 'paused_until', 'quota_until', 'quota_reset')) do
    local at = tonumber(v)
    if at and at - now > keep then keep = at - now end
  end
  redis.call('PEXPIRE', key, math.floor(keep))
end`;

/**
 * KEYS: window, leases, state, queues. ARGV: lease id, lease ms, max in flight, default
 * limit, default window ms, free (1/0), slack ms, key ttl ms, process id, requests this
 * process has queued (the head included), how long that count holds.
 * Returns {3, ms until the quota latch lifts} refused; otherwise {1 granted | 2 wait,
 * wait ms, reason, limit, used, reset in ms, window ms, source, in flight, cap, length
 * learned (1/0), other processes' queued counts...}.
 */
const ACQUIRE = `${NOW}
local leaseMs = tonumber(ARGV[2])
local maxInFlight = tonumber(ARGV[3])
local slack = tonumber(ARGV[7])
local ttl = tonumber(ARGV[8])
local queued = tonumber(ARGV[10])
local st = redis.call('HMGET', KEYS[3], 'quota_until', 'paused_until', 'cap')
-- What the account's other processes have queued: their requests take the window's
-- slots and the leases as ours do. A count holds for a short while; its process renews it.
local others = {}
local q = redis.call('HGETALL', KEYS[4])
for i = 1, #q, 2 do
  local count, untilMs = string.match(q[i + 1], '^(%d+):(%d+)$')
  if count == nil or tonumber(untilMs) <= now then redis.call('HDEL', KEYS[4], q[i])
  elseif q[i] ~= ARGV[9] then table.insert(others, tonumber(count)) end
end
local function keepQueued(n)
  if n > 0 then
    redis.call('HSET', KEYS[4], ARGV[9], n .. ':' .. (now + tonumber(ARGV[11])))
    redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[11]))
  else
    redis.call('HDEL', KEYS[4], ARGV[9])
  end
end
local quotaUntil = tonumber(st[1]) or 0
if ARGV[6] ~= '1' and quotaUntil > now then
  keepQueued(queued - 1)
  return {3, quotaUntil - now}
end
local w = redis.call('HMGET', KEYS[1], 'limit', 'used', 'reset', 'len', 'source', 'len_source')
local limit = tonumber(w[1]) or tonumber(ARGV[4])
local used = tonumber(w[2]) or 0
local reset = tonumber(w[3])
local len = tonumber(w[4]) or tonumber(ARGV[5])
local source = w[5] or 'local'
local learned = 0
if w[6] == 'server' then learned = 1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local cap = math.floor(tonumber(st[3]) or maxInFlight)
if cap > maxInFlight then cap = maxInFlight end
if cap < 1 then cap = 1 end
local inFlight = redis.call('ZCARD', KEYS[2])
local function answer(kind, waitMs, reason)
  local row = {kind, waitMs, reason, limit, used, (reset or now) - now, len, source, inFlight, cap, learned}
  for _, n in ipairs(others) do table.insert(row, n) end
  return row
end
local pausedUntil = tonumber(st[2]) or 0
if pausedUntil > now then
  keepQueued(queued)
  return answer(2, pausedUntil - now, 'pause')
end
if reset == nil or now >= reset + slack then
  -- The window ended (or never opened): open one of the last known length. The first
  -- answer with headers aligns it to the server's; without headers it simply rolls.
  used = 0
  reset = now + len
  source = 'local'
  redis.call('HSET', KEYS[1], 'used', 0, 'reset', reset, 'limit', limit, 'len', len, 'source', 'local')
end
if used >= limit then
  keepQueued(queued)
  return answer(2, reset + slack - now, 'window')
end
if inFlight >= cap then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  keepQueued(queued)
  return answer(2, math.max(1, tonumber(first[2]) - now), 'slot')
end
redis.call('ZADD', KEYS[2], now + leaseMs, ARGV[1])
redis.call('HINCRBY', KEYS[1], 'used', 1)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
keepQueued(queued - 1)
used = used + 1
inFlight = inFlight + 1
return answer(1, 0, 'none')`;

/** KEYS: queues. ARGV: process id, requests queued, how long the count holds. */
const QUEUED = `${NOW}
local n = tonumber(ARGV[2])
if n > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], n .. ':' .. (now + tonumber(ARGV[3])))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return n`;

/**
 * A permit comes back with the server's answer. KEYS: window, leases, state.
 * ARGV: lease id, limit, remaining, reset in ms, quota limit, quota remaining,
 * quota reset in ms, max in flight, default window ms, success (1/0), wake channel,
 * key ttl ms. Empty strings mean "the server did not say".
 */
const RELEASE = `${NOW}
${KEEP_STATE}
redis.call('ZREM', KEYS[2], ARGV[1])
local maxInFlight = tonumber(ARGV[8])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'limit', ARGV[2]) end
if ARGV[3] ~= '' and ARGV[4] ~= '' then
  local hreset = now + tonumber(ARGV[4])
  -- An answer from a window that is already over says nothing about the current one.
  if hreset > now then
    local w = redis.call('HMGET', KEYS[1], 'limit', 'used', 'reset', 'source', 'len', 'server_reset', 'len_source')
    local limit = tonumber(w[1]) or tonumber(ARGV[2]) or 0
    local used = tonumber(w[2]) or 0
    local reset = tonumber(w[3])
    local len = tonumber(w[5]) or tonumber(ARGV[9])
    local lastServer = tonumber(w[6])
    local serverUsed = limit - tonumber(ARGV[3])
    -- The server's reset is in whole seconds: within a second it is the same window.
    local older = w[4] == 'server' and reset ~= nil and hreset < reset - 1000
    if not older then
      -- Two resets the server named give its window's length: the first pair replaces the
      -- default (which may be shorter or longer), later ones keep the smallest (an idle gap
      -- spans several windows).
      local lenSource = w[7] or 'default'
      if lastServer ~= nil and hreset > lastServer + 1000 then
        if lenSource == 'server' then len = math.min(len, hreset - lastServer) else len = hreset - lastServer end
        lenSource = 'server'
      end
      if lastServer == nil or hreset > lastServer + 1000 then lastServer = hreset end
      -- Count what the server counted: other senders of the account show up here. A
      -- later window than ours (the server reset before we expected) starts from its count.
      local newer = w[4] == 'server' and reset ~= nil and hreset > reset + 1000
      if newer or serverUsed > used then used = serverUsed end
      redis.call('HSET', KEYS[1], 'used', used, 'reset', hreset, 'source', 'server', 'len', len, 'server_reset', lastServer, 'len_source', lenSource)
    end
  end
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[3], 'quota_remaining', ARGV[6])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], 'quota_limit', ARGV[5]) end
  if ARGV[7] ~= '' then
    local qreset = now + tonumber(ARGV[7])
    redis.call('HSET', KEYS[3], 'quota_reset', qreset)
    if tonumber(ARGV[6]) <= 0 then redis.call('HSET', KEYS[3], 'quota_until', qreset) end
  end
end
if ARGV[10] == '1' then
  -- Additive increase of a cap that IN_FLIGHT_EXCEEDED shrank.
  local cap = tonumber(redis.call('HGET', KEYS[3], 'cap'))
  if cap ~= nil and cap < maxInFlight then
    cap = math.min(maxInFlight, cap + 1 / cap)
    redis.call('HSET', KEYS[3], 'cap', tostring(cap))
  end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[12]))
keepState(KEYS[3], tonumber(ARGV[12]))
redis.call('PUBLISH', ARGV[11], 'release')
return 1`;

/** KEYS: leases. ARGV: lease ms, key ttl ms, lease ids... Extends the leases this process still holds. */
const RENEW = `${NOW}
local renewed = 0
for i = 3, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
    renewed = renewed + 1
  end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return renewed`;

/** KEYS: state. ARGV: field, ms from now, wake channel, key ttl ms. Moves an instant later, never earlier. */
const HOLD_UNTIL = `${NOW}
${KEEP_STATE}
local untilMs = now + tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if untilMs > current then redis.call('HSET', KEYS[1], ARGV[1], untilMs) end
if ARGV[1] == 'quota_until' then redis.call('HSET', KEYS[1], 'quota_remaining', 0) end
keepState(KEYS[1], tonumber(ARGV[4]))
redis.call('PUBLISH', ARGV[3], ARGV[1])
return untilMs - now`;

/** KEYS: state. ARGV: max in flight, key ttl ms. IN_FLIGHT_EXCEEDED: halve the account's shared cap. */
const SHRINK = `${NOW}
${KEEP_STATE}
local cap = tonumber(redis.call('HGET', KEYS[1], 'cap')) or tonumber(ARGV[1])
cap = math.max(1, math.floor(cap / 2))
redis.call('HSET', KEYS[1], 'cap', tostring(cap))
keepState(KEYS[1], tonumber(ARGV[2]))
return cap`;

/**
 * KEYS: disabled. ARGV: capability, ms from now (or '' to read). Returns ms left, or -1.
 * The hash lives as long as its latest entry: it goes when nothing in it is remembered.
 */
const DISABLED = `${NOW}
if ARGV[2] ~= '' then
  local untilMs = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], ARGV[1], untilMs)
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
  return tonumber(ARGV[2])
end
local untilMs = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if untilMs == nil or untilMs <= now then return -1 end
return untilMs - now`;

/** KEYS: window, leases, state, disabled. Everything api_status shows, in Redis time. */
const VIEW = `${NOW}
local w = redis.call('HMGET', KEYS[1], 'limit', 'used', 'reset')
local s = redis.call('HMGET', KEYS[3], 'paused_until', 'quota_limit', 'quota_remaining', 'quota_reset', 'quota_until', 'cap')
local inFlight = redis.call('ZCOUNT', KEYS[2], now, '+inf')
local disabled = {}
local d = redis.call('HGETALL', KEYS[4])
for i = 1, #d, 2 do
  if tonumber(d[i + 1]) > now then table.insert(disabled, d[i]) end
end
return {now, w[1] or '', w[2] or '', w[3] or '', s[1] or '', s[2] or '', s[3] or '', s[4] or '', s[5] or '', s[6] or '', inFlight, disabled}`;

/**
 * How long a process's queued count holds without being renewed. A pump with a queue asks
 * Redis at least every 2 s (its longest sleep), so a live count never lapses; a dead
 * process's count goes after this.
 */
const QUEUED_HOLD_MS = 6000;

export class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** EVALSHA, loading the script on NOSCRIPT (a restarted or failed-over Redis forgets scripts). */
  async run(redis: RedisCommander, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await redis.sendCommand(['EVALSHA', this.sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
      return redis.sendCommand(['EVAL', this.source, ...tail]);
    }
  }
}

export type AcquireAnswer =
  | { kind: 'granted'; inFlight: number; snapshot: GateSnapshot }
  | { kind: 'wait'; waitMs: number; reason: WaitReason; snapshot: GateSnapshot }
  | { kind: 'quota'; waitMs: number };

export type WaitReason = 'pause' | 'window' | 'slot';

/** The account's shared window and leases as one acquire saw them, in durations from that instant. */
export interface GateSnapshot {
  limit: number;
  used: number;
  resetInMs: number;
  windowMs: number;
  /** The reset came from the server's headers (not a window opened here at cold start). */
  serverAligned: boolean;
  /** The window's length came from two resets the server named (not the spec's default). */
  lengthLearned: boolean;
  /** Leases held by every process of the account, and the account's cap on them. */
  inFlight: number;
  cap: number;
  /** How many requests each other process of the account has queued. */
  othersQueued: number[];
}

export interface ReleaseFacts {
  leaseId: string;
  limit?: number | undefined;
  remaining?: number | undefined;
  resetInMs?: number | undefined;
  quotaLimit?: number | undefined;
  quotaRemaining?: number | undefined;
  quotaResetInMs?: number | undefined;
  success: boolean;
}

export interface SharedView {
  limit: number | undefined;
  used: number | undefined;
  resetInMs: number | undefined;
  pausedForMs: number;
  quotaLimit: number | undefined;
  quotaRemaining: number | undefined;
  quotaResetInMs: number | undefined;
  quotaLatchedForMs: number;
  cap: number | undefined;
  inFlight: number;
  disabled: string[];
}

export interface GateScriptSettings {
  maxInFlight: number;
  perWindow: number;
  windowMs: number;
  leaseMs: number;
  slackMs: number;
  /** How long idle shared state lives before Redis drops it. */
  keyTtlMs: number;
}

const SCRIPTS = {
  acquire: new Script(ACQUIRE),
  queued: new Script(QUEUED),
  release: new Script(RELEASE),
  renew: new Script(RENEW),
  holdUntil: new Script(HOLD_UNTIL),
  shrink: new Script(SHRINK),
  disabled: new Script(DISABLED),
  view: new Script(VIEW),
};

/** Typed calls of the scripts for one account. */
export class GateScripts {
  constructor(
    private readonly redis: RedisCommander,
    private readonly keys: AccountKeys,
    private readonly settings: GateScriptSettings,
  ) {}

  /**
   * One turn for the head of this process's queue; `queued` is how many this process has
   * waiting, the head included, so that the others count them in their estimates.
   */
  async acquire(leaseId: string, free: boolean, processId: string, queued: number): Promise<AcquireAnswer> {
    const s = this.settings;
    const reply = await SCRIPTS.acquire.run(
      this.redis,
      [this.keys.window, this.keys.leases, this.keys.state, this.keys.queues],
      [leaseId, s.leaseMs, s.maxInFlight, s.perWindow, s.windowMs, free ? 1 : 0, s.slackMs, s.keyTtlMs, processId, queued, QUEUED_HOLD_MS],
    );
    const row = asArray(reply);
    const kind = num(row[0]);
    if (kind === 3) return { kind: 'quota', waitMs: num(row[1]) };
    const snapshot: GateSnapshot = {
      limit: num(row[3]),
      used: num(row[4]),
      resetInMs: num(row[5]),
      windowMs: num(row[6]),
      serverAligned: String(row[7]) === 'server',
      inFlight: num(row[8]),
      cap: num(row[9]),
      lengthLearned: num(row[10]) === 1,
      othersQueued: row.slice(11).map(num),
    };
    if (kind === 1) return { kind: 'granted', inFlight: snapshot.inFlight, snapshot };
    const reason = String(row[2]);
    return {
      kind: 'wait',
      waitMs: Math.max(1, num(row[1])),
      reason: reason === 'pause' || reason === 'slot' ? reason : 'window',
      snapshot,
    };
  }

  /** This process's queue emptied (or shrank) without a turn asked: the others stop counting it. */
  async setQueued(processId: string, queued: number): Promise<void> {
    await SCRIPTS.queued.run(this.redis, [this.keys.queues], [processId, queued, QUEUED_HOLD_MS]);
  }

  async release(facts: ReleaseFacts): Promise<void> {
    const s = this.settings;
    const opt = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '' : String(Math.round(value)));
    await SCRIPTS.release.run(
      this.redis,
      [this.keys.window, this.keys.leases, this.keys.state],
      [
        facts.leaseId,
        opt(facts.limit),
        opt(facts.remaining),
        opt(facts.resetInMs),
        opt(facts.quotaLimit),
        opt(facts.quotaRemaining),
        opt(facts.quotaResetInMs),
        s.maxInFlight,
        s.windowMs,
        facts.success ? 1 : 0,
        this.keys.wake,
        s.keyTtlMs,
      ],
    );
  }

  async renew(leaseIds: readonly string[]): Promise<number> {
    return num(await SCRIPTS.renew.run(this.redis, [this.keys.leases], [this.settings.leaseMs, this.settings.keyTtlMs, ...leaseIds]));
  }

  async pause(forMs: number): Promise<void> {
    await this.holdUntil('paused_until', forMs);
  }

  async latchQuota(forMs: number): Promise<void> {
    await this.holdUntil('quota_until', forMs);
  }

  async shrinkCap(): Promise<number> {
    return num(await SCRIPTS.shrink.run(this.redis, [this.keys.state], [this.settings.maxInFlight, this.settings.keyTtlMs]));
  }

  async rememberDisabled(capability: string, forMs: number): Promise<void> {
    await SCRIPTS.disabled.run(this.redis, [this.keys.disabled], [capability, Math.max(1, Math.round(forMs))]);
  }

  /** Milliseconds left of a remembered SERVICE_DISABLED, or undefined. */
  async disabledFor(capability: string): Promise<number | undefined> {
    const left = num(await SCRIPTS.disabled.run(this.redis, [this.keys.disabled], [capability, '']));
    return left < 0 ? undefined : left;
  }

  async view(): Promise<SharedView> {
    const row = asArray(await SCRIPTS.view.run(this.redis, [this.keys.window, this.keys.leases, this.keys.state, this.keys.disabled], []));
    const now = num(row[0]);
    const opt = (value: unknown): number | undefined => (value === '' || value === undefined || value === null ? undefined : Number(value));
    const until = (value: unknown): number => Math.max(0, (opt(value) ?? 0) - now);
    const reset = opt(row[3]);
    const quotaReset = opt(row[7]);
    return {
      limit: opt(row[1]),
      used: opt(row[2]),
      resetInMs: reset === undefined ? undefined : reset - now,
      pausedForMs: until(row[4]),
      quotaLimit: opt(row[5]),
      quotaRemaining: opt(row[6]),
      quotaResetInMs: quotaReset === undefined ? undefined : quotaReset - now,
      quotaLatchedForMs: until(row[8]),
      cap: opt(row[9]),
      inFlight: num(row[10]),
      disabled: asArray(row[11]).map(String),
    };
  }

  private async holdUntil(field: 'paused_until' | 'quota_until', forMs: number): Promise<void> {
    await SCRIPTS.holdUntil.run(
      this.redis,
      [this.keys.state],
      [field, Math.max(0, Math.round(forMs)), this.keys.wake, this.settings.keyTtlMs],
    );
  }
}

function asArray(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from a gate script');
  return reply as unknown[];
}

function num(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new Error('unexpected reply from a gate script');
  return n;
}
