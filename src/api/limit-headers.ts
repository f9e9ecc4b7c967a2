/**
 * The server's limit headers and waits, read defensively: a value that cannot be right
 * (a window reset more than a window away, a negative or infinite wait, more left than
 * the limit) is clamped or dropped here, so that no part of the gate is poisoned by it.
 */
import type { LimitHeaders } from './gate/account-gate.js';
import { SPEC_LIMITS } from '../catalog/index.js';

/** The spec's rate window is one minute: a reset further away than that is not a window's. */
export const MAX_WINDOW_MS = SPEC_LIMITS.windowMs;
/** A month and a bit: the furthest a quota reset or any wait can sensibly be. */
export const MAX_WAIT_SECONDS = 32 * 24 * 3600;
/**
 * Below this, a difference between the server's Date header (whole seconds) and the
 * local clock is rounding, not skew.
 */
const SKEW_THRESHOLD_MS = 1500;
/** Rounding of `X-RateLimit-Reset` to whole seconds, and clocks a little apart. */
const RESET_TOLERANCE_MS = 1500;

/** A wait in seconds from a header or a body, as a whole number of seconds in range, or undefined. */
export function clampWaitSeconds(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  return Math.min(MAX_WAIT_SECONDS, Math.ceil(value));
}

/** Retry-After in seconds, or as an HTTP date; clamped. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return clampWaitSeconds(Number(text));
  // An HTTP date names its weekday and month; Date.parse would take "-3" for a year.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isFinite(date) ? clampWaitSeconds(Math.max(0, (date - now) / 1000)) : undefined;
}

/**
 * The limit headers of one answer, with the server's instants moved onto the local
 * clock: a server clock ahead of ours would otherwise make us wait too long, one behind
 * would make us send into a window it has not reset yet.
 */
export function parseLimitHeaders(header: (name: string) => string | undefined, localNow: number): LimitHeaders {
  const count = (name: string): number | undefined => {
    const value = header(name)?.trim();
    if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
    return Number(value);
  };
  const serverDate = Date.parse(header('date') ?? '');
  // Date is truncated to the second: the server's time lies in [date, date + 1 s).
  // Taking its start errs late, never early: an early refill would send into a spent window.
  const skew = Number.isFinite(serverDate) ? serverDate - localNow : 0;
  const toLocal = (serverInstant: number): number => (Math.abs(skew) > SKEW_THRESHOLD_MS ? serverInstant - skew : serverInstant);

  const rateLimit = positive(count('x-ratelimit-limit'));
  const resetEpoch = count('x-ratelimit-reset');
  const rateResetAt = resetEpoch === undefined ? undefined : toLocal(resetEpoch * 1000);
  const resetValid =
    rateResetAt !== undefined &&
    rateResetAt > localNow - RESET_TOLERANCE_MS &&
    rateResetAt <= localNow + MAX_WINDOW_MS + RESET_TOLERANCE_MS;
  const rateRemaining = atMost(count('x-ratelimit-remaining'), rateLimit);

  const quotaLimit = count('x-quota-limit');
  const quotaReset = Date.parse(header('x-quota-reset-at') ?? '');
  const quotaResetAt = Number.isFinite(quotaReset) ? toLocal(quotaReset) : undefined;
  const quotaResetValid =
    quotaResetAt !== undefined && quotaResetAt > localNow - RESET_TOLERANCE_MS && quotaResetAt <= localNow + MAX_WAIT_SECONDS * 1000;
  return {
    rateLimit,
    // Remaining means nothing without the window it belongs to.
    rateRemaining: resetValid ? rateRemaining : undefined,
    rateResetAt: resetValid ? rateResetAt : undefined,
    quotaLimit,
    quotaRemaining: atMost(count('x-quota-remaining'), quotaLimit),
    quotaResetAt: quotaResetValid ? quotaResetAt : undefined,
  };
}

function positive(value: number | undefined): number | undefined {
  return value === undefined || value === 0 ? undefined : value;
}

function atMost(value: number | undefined, limit: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return limit === undefined ? value : Math.min(value, limit);
}
