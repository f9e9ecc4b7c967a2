/**
 * The docs_url an agent is given: the upstream's own page, unless it points at a loopback
 * server (a simulator's short-lived port, which answers 401 or 404), and otherwise the
 * README this package ships, at the error table's anchor of the code. Local refusals get it
 * as the upstream's codes do.
 */
import { isLoopbackHost } from '../../config.js';

const README = new URL('../README.md', import.meta.url).href;
/** The codes the README's error table anchors (`<a id="CODE">`). */
const ANCHORED: ReadonlySet<string> = new Set([
  'AUTH_MISSING',
  'AUTH_INVALID',
  'AUTH_PAUSED',
  'SCOPE_INSUFFICIENT',
  'KEY_LIMIT_REACHED',
  'VALIDATION_ERROR',
  'TICKER_INVALID',
  'CONTRACT_SYMBOL_INVALID',
  'INDEX_UNSUPPORTED',
  'RANGE_TOO_DEEP',
  'RESPONSE_TOO_LARGE',
  'NOT_FOUND',
  'READ_MODEL_UNAVAILABLE',
  'SERVICE_DISABLED',
  'RATE_LIMITED',
  'QUOTA_EXHAUSTED',
  'IN_FLIGHT_EXCEEDED',
  'CIRCUIT_OPEN',
  'UPSTREAM_ERROR',
  'UPSTREAM_TIMEOUT',
  'INTERNAL_ERROR',
]);

function loopback(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname);
  } catch {
    return true;
  }
}

export function docsUrlOf(error: { code: string; kind: string; docsUrl: string | undefined }): string | null {
  if (error.docsUrl && !loopback(error.docsUrl)) return error.docsUrl;
  const anchor = ANCHORED.has(error.code) ? error.code : ANCHORED.has(error.kind) ? error.kind : undefined;
  return anchor ? `${README}#${anchor}` : null;
}
