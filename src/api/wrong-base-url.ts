/**
 * A base URL that is not the API. The free self-description endpoints (`/v1/discover`,
 * `/v1/openapi.json`) exist on every upstream the spec describes, so a 404 there, a page
 * that is not JSON, or a redirect (to a sign-in or docs page) says the URL is wrong, not
 * the key: told as such at start and by api_status, rather than "Key NOT working
 * (NOT_FOUND)", which sends a user to regenerate a key that was fine.
 */
import { apiRootOf } from '../config/config.js';
import { ENV } from '../config/env-vars.js';
import type { ApiError } from './errors.js';

/** The sentence naming the base URL as not the API, or undefined when the failure says nothing of it. */
export function wrongBaseUrl(error: ApiError, baseUrl: string | undefined, path: string): string | undefined {
  if (baseUrl === undefined || error.status === null) return undefined;
  const answered =
    error.status === 404
      ? `404 (${error.code})`
      : error.status === 200 && error.code === 'RESPONSE_INVALID'
        ? 'with a page that is not JSON'
        : error.status >= 300 && error.status < 400
          ? `with a redirect (${error.status})`
          : undefined;
  if (answered === undefined) return undefined;
  const root = apiRootOf(baseUrl);
  const fix = root === undefined ? "the API's own address, without /v1 (the server adds it)" : `${root} (the server adds /v1 itself)`;
  return `${ENV.baseUrl} does not point at the API: GET ${baseUrl}${path} answered ${answered}. Set it to ${fix}.`;
}
