/**
 * The static token's answer to hosts that look for OAuth. Claude Code, VS Code, Codex and
 * mcp-remote probe the RFC 9728 and RFC 8414 metadata (and OpenID discovery) after a 401,
 * and without metadata fall back to `/register` (MCP authorization spec). A 401 on those
 * sent them down a sign-in that could only fail (Claude Code: "Invalid OAuth error
 * response" on the 401 of /register) instead of asking for the header. A 404, with an
 * OAuth-shaped error naming the header, says this server has no OAuth. With an issuer
 * configured these paths are the resource server's (resource-server.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** `/.well-known/<name>` and its path-suffixed forms (`…/mcp`), OpenID's path-prefixed form, and the fallback endpoints. */
const OAUTH_PATHS =
  /^\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/|$)|\/\.well-known\/openid-configuration$|^\/(register|authorize|token)$/;

export function answerNoOAuthDiscovery(req: IncomingMessage, res: ServerResponse): boolean {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (!OAUTH_PATHS.test(path)) return false;
  res.writeHead(404, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      // The shape of an OAuth error (RFC 6749 section 5.2): a client that reads it shows the description.
      error: 'invalid_request',
      error_description: 'This server does not use OAuth: send "Authorization: Bearer <token>" (MARKET_DATA_HTTP_TOKEN).',
    }),
  );
  return true;
}
