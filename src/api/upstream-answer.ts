/**
 * What one upstream answer means: a failure of the error table (classification) or the
 * data and meta the caller gets (result mapping). Pure functions of the answer, apart
 * from the client's orchestration, so that each rule can be read and tested on its own.
 */
import * as z from 'zod';
import { MAX_DEPTH, nestedDeeperThan, sanitizeParsed, sanitizeText, type TextCuts } from '../sanitize.js';
import { abortError, ApiError, apiError, errorFromResponse } from './errors.js';
import type { PermitOutcome } from './gate/account-gate.js';
import { clampWaitSeconds } from './limit-headers.js';
import { payloadParts } from './payload-parts.js';
import type { PagingEvidence } from './paging-evidence.js';
import { MAX_ARRAY_ITEMS, MAX_OBJECT_KEYS } from './sliced-json.js';
import { knownOnly, resultMetaSchema, type ResultMeta } from './result-meta.js';
import type { RawResponse } from './transport.js';

/** A successful answer: the data and the meta the client gives it. */
export const apiResultSchema = z.object({ data: z.unknown(), meta: resultMetaSchema });

export interface ApiResult {
  data: unknown;
  meta: ResultMeta;
}

/** One attempt's answer, read: data, or the table's failure; and what the gate is told of it. */
export type ReadAnswer =
  | { ok: true; answered: RawResponse; outcome: PermitOutcome }
  | {
      ok: false;
      failed: ApiError;
      /** The response when a status line came back. */
      answered: RawResponse | undefined;
      outcome: PermitOutcome;
    };

/** Reads what the transport gave: a response to classify, or a failure before any status. */
export function readAnswer(response: RawResponse | ApiError): ReadAnswer {
  if (response instanceof ApiError)
    return { ok: false, failed: response, answered: undefined, outcome: { status: response.status ?? undefined, code: response.code } };
  const failed = classify(response);
  const outcome: PermitOutcome = { status: response.status, headers: response.limits, code: failed?.code };
  return failed ? { ok: false, failed, answered: response, outcome } : { ok: true, answered: response, outcome };
}

/** A request that threw before any status line: cancelled, refused by the transport, or a network failure. */
export function transportFailure(error: unknown, signal: AbortSignal): ApiError {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ApiError) return error;
  return apiError('NETWORK_ERROR');
}

/** A 202's body: its wait, when it gives one (clamped as the headers' are). */
const notReadyBody = z.looseObject({ retry_after_seconds: z.unknown() });

/** The failure an answer with a status line carries, or undefined when it is data. */
export function classify(response: RawResponse): ApiError | undefined {
  if (response.status === 200) {
    // A large body had its depth checked on the text by the parse; a small one is walked here.
    const tooDeep = response.nestedTooDeep ?? (typeof response.body === 'object' && nestedDeeperThan(response.body, MAX_DEPTH));
    if (!tooDeep && (response.bodyInvalid || typeof response.body !== 'object' || response.body === null)) {
      return apiError('RESPONSE_INVALID', {
        status: 200,
        message: 'The API answered 200 with a body that broke off or is not valid JSON; the unit was charged, so it is not retried.',
        hint: 'Call again later if you need it; report the request id if it persists.',
        requestId: response.requestId ?? null,
      });
    }
    if (tooDeep) {
      return apiError('RESPONSE_INVALID', {
        status: 200,
        message: `The API answered 200 with JSON nested deeper than ${MAX_DEPTH} levels; it was not used.`,
        hint: 'Retry later; report the request id if it persists.',
        requestId: response.requestId ?? null,
      });
    }
    return undefined;
  }
  if (response.status === 202) {
    const body = notReadyBody.safeParse(response.body);
    return apiError('NOT_READY', {
      hint: 'Call again shortly; waiting for it is not charged.',
      retryAfterSeconds: (body.success ? clampWaitSeconds(body.data.retry_after_seconds) : undefined) ?? response.retryAfterSeconds,
      requestId: response.requestId ?? null,
    });
  }
  if (response.status > 200 && response.status < 300) {
    return apiError('RESPONSE_INVALID', {
      status: response.status,
      message: `The API answered ${response.status}, which this client does not expect.`,
      requestId: response.requestId ?? null,
    });
  }
  return errorFromResponse(response.status, response.body, response.retryAfterSeconds, response.requestId);
}

/** What a page too large to read whole says of the rows it left out (sliced-json.ts). */
/** The longest text value an answer passes on; longer ones are cut and said to be. */
const TEXT_VALUE_CHARS = 2000;

function cutNotice(cuts: TextCuts): string | undefined {
  if (cuts.count === 0) return undefined;
  const values = cuts.count === 1 ? '1 text value was' : `${cuts.count} text values were`;
  return `${values} longer than ${TEXT_VALUE_CHARS.toLocaleString('en-US')} characters (the longest ${cuts.longest.toLocaleString('en-US')}) and cut there, ending in "…".`;
}

function leftOutNotice(leftOut: number): string | undefined {
  if (leftOut === 0) return undefined;
  return `The API answered more rows than this server reads from one page (${MAX_ARRAY_ITEMS} a list): ${leftOut} were left out unread. Ask for less (a smaller limit, a shorter range, a filter).`;
}

function fieldsLeftOutNotice(fieldsLeftOut: number): string | undefined {
  if (fieldsLeftOut === 0) return undefined;
  return `The API answered an object wider than this server reads (${MAX_OBJECT_KEYS} fields): ${fieldsLeftOut} fields were left out unread. Ask for fewer fields or less data.`;
}

/** Characters of the body each result was read from: a page too large to cache is known without serializing it again. */
const answeredChars = new WeakMap<ApiResult, number>();

/**
 * Whether `result` came from a body longer than `maxChars`, or one read a slice at a time
 * (a dense page: 100,000 empty rows in 0.3 MB took one JSON.stringify of 5-50 ms for the
 * cache); false when not known, e.g. from a cache.
 */
export function answeredLongerThan(result: ApiResult, maxChars: number): boolean {
  return (answeredChars.get(result) ?? 0) > maxChars;
}

/** Longest next-page token and URL followed: one longer is not cut (it would name another page) but left out. */
const TOKEN_CHARS = 512;
const URL_CHARS = 1000;

/** The evidence as kept with the answer: tokens and URLs with hidden characters or over length left out, never altered. */
function keptEvidence(evidence: PagingEvidence): PagingEvidence | undefined {
  const kept = { ...evidence };
  const clean = (value: string, max: number): boolean => value.length <= max && sanitizeText(value, max) === value;
  if (kept.token !== undefined && !clean(kept.token, TOKEN_CHARS)) {
    delete kept.token;
    kept.more = true;
  }
  if (kept.url !== undefined && !clean(kept.url, URL_CHARS)) {
    delete kept.url;
    kept.more = true;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** How a 200's body is read: `clean` false only for an answer whose reader cleans what it reads (request-target.ts); `tickerField` what rows keyed by ticker name it (payload-parts.ts). */
export interface ResultReading {
  clean?: boolean | undefined;
  tickerField?: string | undefined;
}

/** The data and meta of a 200 that classify found no failure in. */
export async function toResult(operationId: string, response: RawResponse, reading: ResultReading = {}): Promise<ApiResult> {
  const clean = reading.clean ?? true;
  // Rows, meta and paging wherever the upstream put them (payload-parts.ts); an unknown shape comes back whole.
  const parts = payloadParts(
    response.body,
    { link: response.link, total: response.total, contentRange: response.contentRange },
    reading.tickerField,
  );
  const upstream = parts.meta;
  const paging = keptEvidence(parts.paging);
  const str = (value: unknown, max = 500): string | null => (typeof value === 'string' ? sanitizeText(value, max) : null);
  const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  // Upstream text is data, not instructions: no hidden or reordering characters reach the agent.
  // Cleaned where it lies, a slice at a time: a page of millions of rows is neither copied nor walked in one go.
  const cuts: TextCuts = { count: 0, longest: 0 };
  const data = clean ? await sanitizeParsed(parts.data, TEXT_VALUE_CHARS, cuts) : parts.data;
  const leftOut = response.leftOut ?? 0;
  const fieldsLeftOut = response.fieldsLeftOut ?? 0;
  // Rows the API or the reader left out, and what was cut inside rows: only the first means more to read.
  const rowsLeft = upstream['truncated'] === true || paging?.more === true || leftOut > 0;
  const contentCut = fieldsLeftOut > 0 || cuts.count > 0;
  const result: ApiResult = {
    data,
    meta: knownOnly<ResultMeta>({
      operation_id: operationId,
      request_id: str(upstream['request_id'], 100) ?? response.requestId ?? null,
      cache_hit: false,
      age_seconds: 0,
      data_freshness_seconds: num(upstream['data_freshness_seconds']),
      paging,
      truncated: rowsLeft || contentCut,
      content_cut: contentCut && !rowsLeft ? true : null,
      notice:
        [str(upstream['notice']), leftOutNotice(leftOut), fieldsLeftOutNotice(fieldsLeftOut), cutNotice(cuts)].filter(Boolean).join(' ') ||
        null,
      rate_limit_remaining: response.limits.rateRemaining ?? num(upstream['rate_limit_remaining']),
      quota_remaining: response.limits.quotaRemaining ?? null,
      quota_remaining_pct: num(upstream['quota_remaining_pct']),
      data_source: str(upstream['data_source'], 100),
    }),
  };
  if (response.bodyChars !== undefined) answeredChars.set(result, response.sliced === true ? Number.POSITIVE_INFINITY : response.bodyChars);
  return result;
}
