/**
 * The one door of the --http server: the static bearer token (one user, CI) or, when an
 * issuer is configured, OAuth access tokens checked as a resource server. Either way the
 * request goes on with its caller known, and the token stays here: nothing downstream
 * sees it, and the upstream only ever gets the account's API key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { STATIC_TOKEN_CALLER, type Caller } from './caller.js';
import type { ResourceServer } from './resource-server.js';

export interface Admission {
  caller: Caller;
  /** Handed to the MCP handler (ctx.http.authInfo) without the token itself. */
  authInfo: AuthInfo | undefined;
}

export type HttpGuard = (req: IncomingMessage, res: ServerResponse) => Promise<Admission | undefined>;

export function oauthGuard(resourceServer: ResourceServer): HttpGuard {
  return async (req, res) => {
    const info = await resourceServer.authenticate(req, res);
    if (!info) return undefined;
    const subject = typeof info.extra?.['subject'] === 'string' ? info.extra['subject'] : info.clientId;
    // The token has done its job: it is not kept where a tool, a log or a dump could reach it.
    return {
      caller: { subject, clientId: info.clientId },
      authInfo: { ...info, token: '[verified]', extra: { ...info.extra, subject } },
    };
  };
}

/** The static token's guard, made asynchronous so both modes share one door. */
export function staticTokenGuard(check: (req: IncomingMessage, res: ServerResponse) => boolean): HttpGuard {
  const authInfo: AuthInfo = {
    token: '[verified]',
    clientId: STATIC_TOKEN_CALLER.clientId,
    scopes: [],
    extra: { subject: STATIC_TOKEN_CALLER.subject },
  };
  return (req, res) => Promise.resolve(check(req, res) ? { caller: STATIC_TOKEN_CALLER, authInfo } : undefined);
}
