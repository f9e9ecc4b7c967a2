/**
 * Who may use the HTTP transport: a bearer token on every request. Anyone who can reach
 * the port could otherwise call tools and spend the API key, so there is no way to run
 * without one: it comes from MARKET_DATA_HTTP_TOKEN or is generated at start.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTP_ENV } from '../config/env-vars.js';
import type { HttpSettings } from '../config/http.js';
import { isLoopbackHost } from '../config/secure-url.js';

export interface HttpAccess {
  token: string;
  /** True when we made the token up: it is printed once, since no one else knows it. */
  generated: boolean;
  /** Host names (no port) a request's Host header may name. */
  allowedHosts: string[];
}

/** Where --http is asked to serve, besides its settings. */
export interface AccessRequest {
  readonly bindHost: string;
  /** --allowed-hosts, which wins over MARKET_DATA_HTTP_ALLOWED_HOSTS. */
  readonly allowedHostsFlag: string | undefined;
  /** With OAuth sign-in (src/auth) every request carries a token of its own user instead of the static one. */
  readonly signIn: boolean;
}

/** The access rules for a bind address, or a message saying what is missing. */
export function httpAccess(
  settings: Pick<HttpSettings, 'token' | 'allowedHosts'>,
  { bindHost, allowedHostsFlag, signIn }: AccessRequest,
): { ok: true; access: HttpAccess } | { ok: false; problem: string } {
  const given = settings.token;
  const listed =
    allowedHostsFlag === undefined
      ? settings.allowedHosts
      : allowedHostsFlag
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean);
  const loopback = isLoopbackHost(bindHost.replace(/^\[|\]$/g, ''));
  if (!loopback) {
    if (!given && !signIn)
      return { ok: false, problem: `--host ${bindHost} is not a loopback address: set ${HTTP_ENV.token} (a token of your choosing).` };
    if (listed.length === 0)
      return {
        ok: false,
        problem: `--host ${bindHost} is not a loopback address: list the host names clients use with --allowed-hosts (or ${HTTP_ENV.allowedHosts}).`,
      };
  }
  const allowedHosts = loopback ? [...new Set(['localhost', '127.0.0.1', '[::1]', ...listed])] : listed;
  const token = given || randomBytes(24).toString('base64url');
  return { ok: true, access: { token, generated: !given, allowedHosts } };
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A guard that answers 401 (with WWW-Authenticate) unless the request carries the token. */
export function bearerGuard(token: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const expected = digest(token);
  return (req, res) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // Compared as digests, in constant time: the answer says nothing about how close a guess was.
    if (match?.[1] && timingSafeEqual(digest(match[1]), expected)) return true;
    res
      .writeHead(401, {
        'content-type': 'application/json',
        // RFC 6750 section 3.1: no error code for a request that sent no token; invalid_token for one that sent a wrong one.
        'www-authenticate': /^bearer\s/i.test(header)
          ? 'Bearer realm="market-data-mcp", error="invalid_token"'
          : 'Bearer realm="market-data-mcp"',
      })
      .end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: `Unauthorized: send "Authorization: Bearer <token>" (${HTTP_ENV.token}).` },
        }),
      );
    return false;
  };
}
