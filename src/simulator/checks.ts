/**
 * The service's checks, one middleware each, in the order a real gateway applies them.
 * A check either passes (next) or throws an ApiRefusal that the app's single error handler
 * turns into the spec's envelope.
 */
import type { MiddlewareHandler } from 'hono';
import { scopeOf, validateRequest } from '../catalog/index.js';
import { shiftDate, toEt } from '../catalog/market-calendar.js';
import { ApiRefusal, currentDataset, type SimEnv } from './api-error.js';
import { FixedWindowCounter } from './limits.js';
import { referenceSymbol } from './reference.js';
import type { SimulatedApi } from './server.js';

type Check = MiddlewareHandler<SimEnv>;

function secondsUntil(instant: number, now: number): number {
  return Math.max(1, Math.ceil((instant - now) / 1000));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function authentication(sim: SimulatedApi): Check {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) throw new ApiRefusal('AUTH_MISSING', { hint: 'Send Authorization: Bearer <API_KEY>.' });
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const key = match?.[1] ? sim.book.key(match[1]) : undefined;
    if (!key || key.revoked) throw new ApiRefusal('AUTH_INVALID', { hint: 'Check the key, or create a new one on the account page.' });
    const account = sim.book.account(key.accountId);
    if (!account) throw new ApiRefusal('AUTH_INVALID');
    c.set('key', key);
    c.set('account', account);
    if (account.subscription === 'lapsed') throw new ApiRefusal('AUTH_PAUSED', { hint: 'Restore the subscription; the same key resumes.' });
    await next();
  };
}

export function ipRate(sim: SimulatedApi): Check {
  return async (c, next) => {
    const now = c.get('now');
    const ip = c.env.incoming.socket.remoteAddress ?? 'unknown';
    let window = sim.perIp.get(ip);
    if (!window) sim.perIp.set(ip, (window = new FixedWindowCounter(sim.limitSettings.perIpPerWindow, sim.limitSettings.windowMs)));
    if (!window.tryTake(now))
      throw new ApiRefusal('RATE_LIMITED', {
        message: 'Too many requests from this IP in this minute.',
        retryAfterSeconds: secondsUntil(window.state(now).resetAtMs, now),
      });
    await next();
  };
}

export function accountRate(sim: SimulatedApi): Check {
  return async (c, next) => {
    const now = c.get('now');
    const limits = sim.accountLimits(c.get('account')?.id ?? '');
    if (!limits.rate.tryTake(now))
      throw new ApiRefusal('RATE_LIMITED', {
        hint: `Wait for the window to reset; the account allows ${sim.limitSettings.perWindow} requests a window.`,
        retryAfterSeconds: secondsUntil(limits.rate.state(now).resetAtMs, now),
      });
    await next();
  };
}

/** Counts the request in flight until its response closes; past the cap, IN_FLIGHT_EXCEEDED. */
export function inFlightCap(sim: SimulatedApi): Check {
  return async (c, next) => {
    const limits = sim.accountLimits(c.get('account')?.id ?? '');
    limits.inFlight += 1;
    c.env.outgoing.once('close', () => {
      limits.inFlight -= 1;
    });
    limits.maxInFlightSeen = Math.max(limits.maxInFlightSeen, limits.inFlight);
    if (limits.inFlight > sim.limitSettings.inFlight) {
      // Whether the refused request still counts against the window is a simulator option.
      limits.refusedInFlight(c.get('now'));
      throw new ApiRefusal('IN_FLIGHT_EXCEEDED', {
        hint: `At most ${sim.limitSettings.inFlight} requests in flight per account.`,
        retryAfterSeconds: 1,
      });
    }
    await next();
  };
}

export const readOnly: Check = async (c, next) => {
  if (c.req.method !== 'GET')
    throw new ApiRefusal('NOT_FOUND', { message: `${c.req.method} is not served: the API is read-only.`, hint: 'Use GET.' });
  await next();
};

export function quota(sim: SimulatedApi): Check {
  return async (c, next) => {
    const now = c.get('now');
    const limits = sim.accountLimits(c.get('account')?.id ?? '');
    if (limits.quota.remaining(now) <= 0) {
      const resetAt = limits.quota.resetAtMs(now);
      throw new ApiRefusal('QUOTA_EXHAUSTED', {
        hint: `The quota resets at ${new Date(resetAt).toISOString()}.`,
        retryAfterSeconds: secondsUntil(resetAt, now),
      });
    }
    await next();
  };
}

export function circuit(sim: SimulatedApi): Check {
  return async (c, next) => {
    const retry = sim.faults.circuitRetryAfter(c.get('now'));
    if (retry !== undefined) throw new ApiRefusal('CIRCUIT_OPEN', { retryAfterSeconds: retry });
    await next();
  };
}

/** Injected faults: latency, a reset connection, an error, a raw body; shapes of the 200 are applied when it is written. */
export function faults(sim: SimulatedApi): Check {
  return async (c, next) => {
    if (sim.faults.latencyMs > 0) await delay(sim.faults.latencyMs);
    const fault = sim.faults.take();
    if (fault?.kind === 'reset') {
      c.set('reset', true);
      c.env.incoming.socket.destroy();
      return c.body(null);
    }
    if (fault?.kind === 'error') {
      throw new ApiRefusal(fault.code, {
        ...(fault.status === undefined ? {} : { status: fault.status }),
        ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
        ...(fault.hint === undefined ? {} : { hint: fault.hint }),
      });
    }
    if (fault?.kind === 'raw')
      return new Response(fault.body, {
        status: fault.status,
        headers: { 'Content-Type': fault.contentType, 'Content-Length': String(Buffer.byteLength(fault.body)) },
      });
    if (fault) c.set('shape', fault);
    return next();
  };
}

export const scope: Check = async (c, next) => {
  const dataset = currentDataset(c);
  if (!c.get('key')?.scopes.includes(scopeOf(dataset)))
    throw new ApiRefusal('SCOPE_INSUFFICIENT', {
      message: `This key lacks the scope ${scopeOf(dataset)}.`,
      hint: 'GET /v1/discover lists the key access_scope.',
    });
  await next();
};

export function adminOnly(sim: SimulatedApi): Check {
  return async (c, next) => {
    if (currentDataset(c).adminOnly && !sim.adminUserIds.has(c.get('account')?.userId ?? ''))
      throw new ApiRefusal('SCOPE_INSUFFICIENT', {
        message: 'This endpoint is limited to configured administrator user ids.',
        hint: 'Not available to this account at present.',
      });
    await next();
  };
}

export function capability(sim: SimulatedApi): Check {
  return async (c, next) => {
    const name = currentDataset(c).capability;
    if (name && sim.disabled.has(name))
      throw new ApiRefusal('SERVICE_DISABLED', {
        message: `The ${name} capability is disabled for now.`,
        hint: 'Degrade gracefully and retry at low frequency.',
      });
    await next();
  };
}

/**
 * The catalog's validation of the path ticker and the query, under the names the dialect
 * publishes. A repeated parameter is refused, but for an array the dialect takes as repeated
 * names (`symbols=A&symbols=B`, `exploded`), read as the one comma-joined list it stands for.
 */
export const validation =
  (exploded: ReadonlySet<string>): Check =>
  async (c, next) => {
    const raw: Record<string, string> = {};
    for (const [name, value] of new URL(c.req.url).searchParams) {
      if (Object.hasOwn(raw, name) && exploded.has(name)) raw[name] = `${raw[name]},${value}`;
      else if (Object.hasOwn(raw, name))
        throw new ApiRefusal('VALIDATION_ERROR', { message: `Parameter "${name}" is repeated.`, hint: 'Send each parameter once.' });
      else raw[name] = value;
    }
    const checked = validateRequest(currentDataset(c), c.req.param('ticker'), raw);
    if (!checked.ok) throw new ApiRefusal(checked.refusal.code, { message: checked.refusal.message, hint: checked.refusal.hint });
    c.set('query', checked.query);
    if (checked.ticker !== undefined) c.set('ticker', checked.ticker);
    await next();
  };

/** The ticker must be in the reference market, and not an index where the endpoint refuses them. */
export const coveredSymbol: Check = async (c, next) => {
  const ticker = c.get('ticker');
  if (ticker !== undefined) {
    const symbol = referenceSymbol(ticker);
    if (symbol?.kind === 'index' && currentDataset(c).indexesSupported === false)
      throw new ApiRefusal('INDEX_UNSUPPORTED', {
        message: `${ticker} is an index; this endpoint serves single names and ETFs only.`,
        hint: 'Use a supported symbol (for SPX, try SPY).',
      });
    if (!symbol)
      throw new ApiRefusal('NOT_FOUND', { message: `${ticker} is not covered by the service.`, hint: 'Do not retry; check the symbol.' });
    c.set('symbol', symbol);
  }
  await next();
};

export const retention: Check = async (c, next) => {
  const { retentionDays } = currentDataset(c);
  const query = c.get('query');
  if (retentionDays !== undefined) {
    const oldest = shiftDate(toEt(c.get('now')).date, -retentionDays);
    // A range that ends before the window reaches before it as surely as one that starts there.
    for (const bound of ['from', 'to'] as const) {
      const value = query[bound];
      if (typeof value === 'string' && value < oldest)
        throw new ApiRefusal('RANGE_TOO_DEEP', {
          message: `History before ${oldest} is outside the ${retentionDays}-day retention window.`,
          hint: `Move "${bound}" to ${oldest} or later.`,
        });
    }
  }
  await next();
};

/** On-demand datasets answer 202 for a while after the first request of a (dataset, ticker, query). */
export function materialization(sim: SimulatedApi): Check {
  return async (c, next) => {
    const dataset = currentDataset(c);
    if (dataset.onDemand && sim.materializationMs > 0) {
      const now = c.get('now');
      const readiness = `${dataset.operationId}|${c.get('ticker') ?? ''}|${JSON.stringify([c.get('query'), c.get('page')])}`;
      const first = sim.firstSeen.get(readiness) ?? now;
      sim.firstSeen.set(readiness, first);
      const readyIn = first + sim.materializationMs - now;
      if (readyIn > 0) {
        const retry = Math.max(1, Math.ceil(readyIn / 1000));
        c.set('retryAfterSeconds', retry);
        return c.json({ status: 'materializing', request_id: c.get('requestId'), retry_after_seconds: retry }, 202);
      }
    }
    return next();
  };
}
