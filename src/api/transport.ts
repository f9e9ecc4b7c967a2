/**
 * HTTP to the API through undici, with a dispatcher of our own for the API's origin
 * (never the global one). The key travels only in the Authorization header; every
 * body is read to the end or dumped; a body larger than the cap is cut off unread.
 */
import type { Pool } from 'undici';
import { abortError, ApiError } from './errors.js';
import type { LimitHeaders } from './limiter.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  maxResponseBytes: number;
  userAgent: string;
  /** Connections kept to the origin; at least the in-flight cap. */
  connections?: number;
}

export interface RawResponse {
  status: number;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown;
  /** True when a body was present but did not parse as JSON. */
  bodyInvalid: boolean;
  limits: LimitHeaders;
  retryAfterSeconds: number | undefined;
  requestId: string | undefined;
}

export class HttpTransport {
  /** undici loads with the first request, not before the server's first answer (start-up time). */
  private pool: Promise<Pool> | undefined;
  private readonly basePath: string;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
  }

  private connect(): Promise<Pool> {
    this.pool ??= import('undici').then(
      ({ Pool }) =>
        new Pool(new URL(this.options.baseUrl).origin, {
          connections: this.options.connections ?? 8,
          keepAliveTimeout: 10_000,
          keepAliveMaxTimeout: 60_000,
          connectTimeout: 10_000,
          headersTimeout: 30_000,
          // bodyTimeout measures gaps between chunks only; the caller's signal bounds the whole call.
          bodyTimeout: 30_000,
        }),
    );
    return this.pool;
  }

  /** One GET. `pathAndQuery` starts with /v1; it was built from validated, encoded parts. */
  async get(pathAndQuery: string, signal: AbortSignal): Promise<RawResponse> {
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await (
        await this.connect()
      ).request({
        method: 'GET',
        path: `${this.basePath}${pathAndQuery}`,
        headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json', 'user-agent': this.options.userAgent },
        signal,
      });
    } catch (error) {
      throw transportError(error, signal);
    }
    const headers = response.headers;
    const header = (name: string): string | undefined => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const result: Omit<RawResponse, 'body' | 'bodyInvalid'> = {
      status: response.statusCode,
      limits: parseLimitHeaders(header, Date.now()),
      retryAfterSeconds: parseRetryAfter(header('retry-after')),
      requestId: header('x-request-id'),
    };
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump();
      throw new ApiError({
        code: 'RESPONSE_INVALID',
        status: response.statusCode,
        message: `The API answered a ${response.statusCode} redirect, which this client does not follow.`,
        hint: 'Check MARKET_DATA_BASE_URL: it should be the API origin itself.',
      });
    }
    const declared = Number(header('content-length'));
    if (Number.isFinite(declared) && declared > this.options.maxResponseBytes) {
      await response.body.dump({ limit: 0 }).catch(() => undefined);
      response.body.destroy();
      throw tooLarge(this.options.maxResponseBytes, result.requestId);
    }
    let text: string;
    try {
      text = await readCapped(response.body, this.options.maxResponseBytes);
    } catch (error) {
      response.body.destroy();
      if (error instanceof ApiError) throw new ApiError({ ...errorInit(error), requestId: result.requestId });
      throw transportError(error, signal);
    }
    if (text.length === 0) return { ...result, body: undefined, bodyInvalid: false };
    try {
      return { ...result, body: JSON.parse(text) as unknown, bodyInvalid: false };
    } catch {
      return { ...result, body: undefined, bodyInvalid: true };
    }
  }

  async close(): Promise<void> {
    await (await this.pool)?.close().catch(() => undefined);
  }
}

async function readCapped(body: AsyncIterable<Buffer>, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > cap) throw tooLarge(cap, undefined);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(cap: number, requestId: string | undefined): ApiError {
  return new ApiError({
    code: 'RESPONSE_TOO_LARGE_LOCAL',
    status: null,
    message: `The response is larger than this server's cap of ${cap} bytes; it was not read.`,
    hint: 'Ask for less (a smaller limit, a shorter range, format=summary) or raise MARKET_DATA_MAX_RESPONSE_BYTES.',
    requestId: requestId ?? null,
  });
}

function errorInit(error: ApiError): ConstructorParameters<typeof ApiError>[0] {
  return { code: error.code, status: error.status, message: error.message, hint: error.hint, recoverable: error.recoverable };
}

/** A failure below HTTP: the caller's abort or deadline, or the network. */
function transportError(error: unknown, signal: AbortSignal): ApiError {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ApiError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
  return new ApiError({
    code: 'NETWORK_ERROR',
    status: null,
    message: `The connection to the API failed (${code}).`,
    hint: 'Retry later; if it persists, check the network and MARKET_DATA_BASE_URL.',
  });
}

/**
 * Below this, a difference between the server's Date header (whole seconds) and the
 * local clock is rounding, not skew.
 */
const SKEW_THRESHOLD_MS = 1500;

/**
 * The server's limit headers, with its reset instants moved onto the local clock: a
 * server clock ahead of ours would otherwise make us wait too long, one behind would
 * make us send into a window it has not reset yet.
 */
function parseLimitHeaders(header: (name: string) => string | undefined, localNow: number): LimitHeaders {
  const int = (name: string): number | undefined => {
    const value = header(name);
    if (value === undefined || value.trim() === '') return undefined;
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  };
  const serverDate = Date.parse(header('date') ?? '');
  // Date is truncated to the second: the server's time lies in [date, date + 1 s).
  // Taking its start errs late, never early: an early refill would send into a spent window.
  const skew = Number.isFinite(serverDate) ? serverDate - localNow : 0;
  const toLocal = (serverInstant: number): number => (Math.abs(skew) > SKEW_THRESHOLD_MS ? serverInstant - skew : serverInstant);
  const resetEpoch = int('x-ratelimit-reset');
  const quotaReset = header('x-quota-reset-at');
  const quotaResetMs = quotaReset === undefined ? NaN : Date.parse(quotaReset);
  return {
    rateLimit: int('x-ratelimit-limit'),
    rateRemaining: int('x-ratelimit-remaining'),
    rateResetAt: resetEpoch === undefined ? undefined : toLocal(resetEpoch * 1000),
    quotaLimit: int('x-quota-limit'),
    quotaRemaining: int('x-quota-remaining'),
    quotaResetAt: Number.isFinite(quotaResetMs) ? toLocal(quotaResetMs) : undefined,
  };
}

/** Retry-After in seconds, or as an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - now) / 1000)) : undefined;
}
