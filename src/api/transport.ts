/**
 * HTTP to the API through node:http(s), with a keep-alive agent of our own for the API's
 * origin (never the global one). The key travels only in the Authorization header; every
 * body is read to the end or dumped; a body larger than the cap is cut off unread.
 */
import type { Agent } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { isLoopbackHost } from '../config/secure-url.js';
import { abortError, ApiError, apiError } from './errors.js';
import { httpGet, type SentResponse } from './http-get.js';
import type { LimitHeaders } from './gate/account-gate.js';
import { parseLimitHeaders, parseRetryAfter } from './limit-headers.js';
import { MAX_DEPTH } from '../sanitize.js';
import { parseBody } from './sliced-json.js';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  maxResponseBytes: number;
  userAgent: string;
  /** Connections kept to the origin; at least the in-flight cap. */
  connections?: number;
  /** The local clock the server's instants are moved onto (the client's, faked in tests). */
  now?: () => number;
}

export interface RawResponse {
  status: number;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown;
  /** True when a body was present but did not parse as JSON. */
  bodyInvalid: boolean;
  /** Whether the body nests deeper than MAX_DEPTH, when the parse already found out (large bodies); else undefined. */
  nestedTooDeep?: boolean | undefined;
  /** Array elements of a huge body left unread (sliced-json.ts MAX_ARRAY_ITEMS); 0 or undefined when none. */
  leftOut?: number | undefined;
  /** Object members of a very wide object left unread (sliced-json.ts MAX_OBJECT_KEYS); 0 or undefined when none. */
  fieldsLeftOut?: number | undefined;
  /** The body was built a slice at a time (large, dense or wide); see sliced-json.ts parseBody. */
  sliced?: boolean | undefined;
  /** Characters of the body's text, when one was read. */
  bodyChars?: number | undefined;
  limits: LimitHeaders;
  retryAfterSeconds: number | undefined;
  requestId: string | undefined;
  /** The `Link` header, where the API pages by it (`<…>; rel="next"`): paging evidence (paging-evidence.ts). */
  link?: string | undefined;
  /** The list's size where the API says it in a header (`X-Total-Count`, `X-Total`, `Content-Range`): paging evidence. */
  total?: string | undefined;
  contentRange?: string | undefined;
}

/** Longest silence on a connection: connecting, waiting for headers, or between two chunks of a body. */
const IDLE_TIMEOUT_MS = 30_000;
/** A kept-alive connection unused this long is closed (sooner when the server announces a shorter keep-alive). */
const KEEP_ALIVE_MS = 10_000;

export class HttpTransport {
  /** Made with the first request: node:https (tls) loads only for an https origin. */
  private agent: Promise<Agent> | undefined;
  private readonly basePath: string;
  private readonly host: string;
  private readonly origin: string;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.host = url.hostname;
    this.origin = url.origin;
  }

  private connect(): Promise<Agent> {
    this.agent ??= (new URL(this.options.baseUrl).protocol === 'https:' ? import('node:https') : import('node:http')).then(
      ({ Agent }) =>
        new Agent({
          keepAlive: true,
          maxSockets: this.options.connections ?? 8,
          // The timeout of a connection at rest in the pool; a request sets its own (IDLE_TIMEOUT_MS).
          timeout: KEEP_ALIVE_MS,
        }),
    );
    return this.agent;
  }

  /**
   * One GET. `pathAndQuery` starts with /v1; it was built from validated, encoded parts.
   * `onStatus` hears the status as soon as the status line arrives, before the body.
   */
  async get(pathAndQuery: string, signal: AbortSignal, onStatus?: (status: number) => void): Promise<RawResponse> {
    let response: SentResponse;
    try {
      response = await this.send(pathAndQuery, signal);
    } catch (error) {
      throw transportError(error, signal, this.host);
    }
    onStatus?.(response.statusCode);
    const headers = response.headers;
    const header = (name: string): string | undefined => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const result: Omit<RawResponse, 'body' | 'bodyInvalid'> = {
      status: response.statusCode,
      limits: parseLimitHeaders(header, (this.options.now ?? Date.now)()),
      retryAfterSeconds: parseRetryAfter(header('retry-after'), (this.options.now ?? Date.now)()),
      requestId: header('x-request-id'),
      link: header('link'),
      total: header('x-total-count') ?? header('x-total'),
      contentRange: header('content-range'),
    };
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump();
      throw apiError('RESPONSE_INVALID', {
        status: response.statusCode,
        message: `The API answered a ${response.statusCode} redirect, which this client does not follow.`,
        hint: 'Check MARKET_DATA_BASE_URL: it should be the API origin itself.',
      });
    }
    const declared = Number(header('content-length'));
    if (Number.isFinite(declared) && declared > this.options.maxResponseBytes) {
      await response.body.dump({ limit: 0 }).catch(() => undefined);
      response.body.destroy();
      throw tooLarge(this.options.maxResponseBytes, result.requestId, response.statusCode);
    }
    let text: string;
    try {
      text = await readCapped(response.body, this.options.maxResponseBytes);
    } catch (error) {
      response.body.destroy();
      if (error instanceof ApiError && error.code === 'RESPONSE_TOO_LARGE_LOCAL')
        throw tooLarge(this.options.maxResponseBytes, result.requestId, response.statusCode);
      if (error instanceof ApiError) throw error.with({ requestId: result.requestId });
      if (signal.aborted) throw abortError(signal);
      // The status line arrived: a 200 is already charged, so its broken body is
      // RESPONSE_INVALID (never retried); any other status is judged by its status alone.
      return { ...result, body: undefined, bodyInvalid: response.statusCode === 200 };
    }
    if (text.length === 0) return { ...result, body: undefined, bodyInvalid: false };
    const read = { ...result, bodyChars: text.length };
    try {
      // One native parse, or a slice at a time for a large or dense page; the depth checked on the text (sliced-json.ts).
      return { ...read, ...(await parseBody(text, MAX_DEPTH)), bodyInvalid: false };
    } catch {
      return { ...read, body: undefined, bodyInvalid: true };
    }
  }

  /**
   * `url` (absolute, or relative to the request it continues) as the path and query this
   * transport would send, when it names the same origin and the same path as `requestPath`
   * (below the base path); undefined for anything else. A next page the upstream names
   * elsewhere is never asked for: the key goes to the base URL's origin only.
   */
  sameRequest(url: string, requestPath: string): string | undefined {
    const origin = new URL(this.options.baseUrl).origin;
    const request = new URL(`${this.basePath}${requestPath}`, origin);
    let target: URL;
    try {
      target = new URL(url, request);
    } catch {
      return undefined;
    }
    if (target.origin !== request.origin || target.pathname !== request.pathname || target.username !== '' || target.password !== '')
      return undefined;
    const names = [...target.searchParams.keys()];
    // A query of repeated names cannot be sent back as it was given: not followed rather than altered.
    if (new Set(names).size !== names.length) return undefined;
    return `${requestPath}${target.search}`;
  }

  private async send(pathAndQuery: string, signal: AbortSignal): Promise<SentResponse> {
    const url = new URL(`${this.basePath}${pathAndQuery}`, this.origin);
    const headers = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json', 'user-agent': this.options.userAgent };
    // A first start waits on the document alone: one connection, closed after it, keeps nothing alive.
    const agent = this.agent === undefined && pathAndQuery === '/v1/openapi.json' ? undefined : await this.connect();
    return httpGet(url, { headers, signal, idleTimeoutMs: IDLE_TIMEOUT_MS, agent });
  }

  async close(): Promise<void> {
    (await this.agent)?.destroy();
  }
}

/**
 * The body as text, decoded a chunk at a time and each chunk let go of once decoded: the
 * chunks, their concatenation and the text were alive at once, and buffers of a whole page
 * (several hundred kB, freed after each) leave the allocator holding more than it gives back.
 * Read by its events: a stream's async iterator cost every call a watch of the stream's end
 * and a promise a chunk, about 2 % of a small call's time.
 */
function readCapped(body: SentResponse['body'], cap: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    const pieces: string[] = [];
    let total = 0;
    const stop = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > cap) {
        stop();
        body.destroy();
        reject(tooLarge(cap, undefined, undefined));
        return;
      }
      pieces.push(decoder.write(chunk));
    };
    const onEnd = (): void => {
      stop();
      pieces.push(decoder.end());
      resolve(pieces.join(''));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    // Closed before its end (the connection reset or destroyed): the body is incomplete.
    const onClose = (): void => {
      stop();
      reject(new Error('the response body closed before its end'));
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

function tooLarge(cap: number, requestId: string | undefined, status: number | undefined): ApiError {
  // A 200 was counted by the API before its body came: say so, as a deadline after a 200 does.
  const charged = status === undefined ? undefined : status === 200;
  return apiError('RESPONSE_TOO_LARGE_LOCAL', {
    message: `The response is larger than this server's cap of ${cap} bytes; it was not read.${charged ? " The API answered 200, so this call's unit was most likely charged: do not repeat it as is." : ''}`,
    hint: 'Ask for less (a smaller limit, a shorter range, format=summary) or raise MARKET_DATA_MAX_RESPONSE_BYTES.',
    requestId: requestId ?? null,
    ...(charged === undefined ? {} : { charged }),
  });
}

/** Codes of a failure to reach the host at all: on a non-loopback base URL, usually a wrong URL. */
const UNREACHABLE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ECONNREFUSED']);

/** A failure below HTTP: the caller's abort or deadline, the host not reachable, or the network. */
function transportError(error: unknown, signal: AbortSignal, host: string): ApiError {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ApiError) return error;
  const code = errorCode(error);
  if (UNREACHABLE_CODES.has(code) && !isLoopbackHost(host)) {
    const what = code === 'ECONNREFUSED' ? 'refused the connection' : 'could not be resolved';
    return apiError('BASE_URL_UNREACHABLE', {
      message: `The API host ${host} ${what} (${code}).`,
      hint: 'Check MARKET_DATA_BASE_URL in the server environment: it should be the API origin, for example https://api.example.com.',
    });
  }
  return apiError('NETWORK_ERROR', {
    message: `The connection to the API failed (${code}).`,
    hint: 'Retry later; if it persists, check the network and MARKET_DATA_BASE_URL.',
  });
}

/** The system error code, looked for on the error, its cause and the errors of an AggregateError. */
function errorCode(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown';
  if ('code' in error && typeof error.code === 'string' && error.code.startsWith('E')) return error.code;
  if ('cause' in error && error.cause !== undefined) {
    const inner = errorCode(error.cause);
    if (inner !== 'unknown') return inner;
  }
  if ('errors' in error && Array.isArray(error.errors)) {
    for (const inner of error.errors) {
      const code = errorCode(inner);
      if (code !== 'unknown') return code;
    }
  }
  return 'code' in error ? String(error.code) : 'unknown';
}
