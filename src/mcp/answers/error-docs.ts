/**
 * The docs_url an agent is given: the upstream's own page when it sent one on the web, and
 * otherwise this project's public README at the error table's anchor of the code. Never a
 * local file (the install folder's README handed the user's path to the model and opened
 * nowhere for a remote client) nor a loopback server (a simulator's short-lived port, which
 * answers 401 or 404). Local refusals get it as the upstream's codes do.
 */
import { isLoopbackHost } from '../../config/secure-url.js';

/** This project's public README: its error table has a row, anchored by code, for every code the API answers. */
export const PROJECT_README_URL = 'https://github.com/market-data-mcp/market-data-mcp/blob/main/README.md';
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

/** A page anyone can open: https, or http on a host other than this machine. */
function onTheWeb(url: string): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return !isLoopbackHost(parsed.hostname);
    return parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname);
  } catch {
    return false;
  }
}

export function docsUrlOf(error: { code: string; kind: string; docsUrl: string | undefined }): string | null {
  if (error.docsUrl && onTheWeb(error.docsUrl)) return error.docsUrl;
  const anchor = ANCHORED.has(error.code) ? error.code : ANCHORED.has(error.kind) ? error.kind : undefined;
  return anchor ? `${PROJECT_README_URL}#${anchor}` : null;
}
