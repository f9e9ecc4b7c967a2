/**
 * Streamable HTTP, bound to 127.0.0.1 by default. In front of the handler: a bearer
 * token on every request (no one else may spend the key), then Host and Origin checks
 * (DNS-rebinding protection). One server instance per request.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { Caller } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import { markingHandler } from '../mcp/arguments/prototype-guard.js';
import { callerOf, requestOrigin } from '../mcp/request-origin.js';
import { createServer, type ServerDeps } from '../mcp/server.js';
import type { Runtime } from '../runtime.js';
import { RequestEnds } from './request-ends.js';
import { EXIT_GRACE_MS, exitAfter } from './exit.js';
import { isLoopbackHost } from '../config/secure-url.js';
import { closeAfterRefusal, connectionTimeouts, limitConnections, maxConnections, refusalsClose } from './http-limits.js';
import { bearerGuard, HTTP_TOKEN_ENV, type HttpAccess } from './http-auth.js';
import { ListenStreams } from './http-listen.js';
import { auditWhenAnswered, rpcOf, type AuditEntry } from '../observe/http-audit.js';

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

/** What the end of a shutdown's grace keeps for answering the calls it stops. */
const SHUTDOWN_ANSWER_MS = 1000;

export async function serveHttp(
  runtime: Runtime,
  options: {
    port: number;
    host: string;
    access: HttpAccess;
    door?: FrontDoor | undefined;
    /** The dependencies of a request of this caller (the caller's own key: src/team/user-accounts.ts). */
    deps?: ((caller: Caller | undefined) => Promise<ServerDeps>) | undefined;
    /** Closes, before the runtime, what the team's server opened (src/team/team.ts). */
    closing?: (() => Promise<void>) | undefined;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const depsFor = options.deps;
  // At any log level: the audit trail is not diagnostics.
  const audit = runtime.log.child({}, { level: 'info' });
  // One server per request, for its caller: the factory is handed the request's AuthInfo.
  const handler = createMcpHandler(async ({ authInfo }) => createServer(depsFor ? await depsFor(callerOf(authInfo)) : runtime.deps));
  // Streams that hear of changes: 2026-07-28 listens (the SDK's) and 2025-11-25 GET streams (ours), a few per member.
  const listen = new ListenStreams();
  runtime.registry.onChange(() => {
    handler.notify.toolsChanged();
    listen.toolsChanged();
  });
  // Each request's body is read once, by the prototype guard (mcp/prototype-guard.ts), which
  // renames an own __proto__ argument before the SDK's parse drops it and tells the request's
  // audit line what the body asks (2025-11-25 clients send no Mcp-Method header).
  const nodeHandlerNaming = (entry: AuditEntry): ReturnType<typeof toNodeHandler> =>
    toNodeHandler(markingHandler(handler, (body) => Object.assign(entry, rpcOf(body))));
  const validateHost = hostHeaderValidation(options.access.allowedHosts);
  const validateOrigin = originValidation(options.access.allowedHosts);
  // OAuth sign-in, health and metrics live in src/auth, src/team and src/observe; without them, the static token.
  const door = options.door ?? createFrontDoor({ staticToken: bearerGuard(options.access.token) });
  // Responses not yet ended: at shutdown they are let finish, and their connections then end.
  const inFlight = new Set<ServerResponse>();
  const ends = new RequestEnds();
  let draining = false;
  const http = createHttpServer(connectionTimeouts(), (req, res) => {
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // Its connection is idle once this response is done: end it rather than keep it alive.
      if (draining) setImmediate(() => http.closeIdleConnections());
    });
    if (draining) res.shouldKeepAlive = false;
    if (door.open(req, res)) return;
    const started = Date.now();
    const admitted = refusalsClose(res);
    // Watched from before admission: one who hangs up while a token is checked is gone as well.
    const ended = ends.watch(req, res);
    void door.admit(req, res).then((admission) => {
      const who = { subject: admission?.caller.subject, client_id: admission?.caller.clientId };
      if (!admission || !validateHost(req, res) || !validateOrigin(req, res)) {
        auditWhenAnswered(audit, res, 'refused', { ...who, method: `${req.method ?? 'GET'} ${pathOf(req)}` }, started);
        closeAfterRefusal(req, res);
        return;
      }
      admitted();
      if (!req.url?.startsWith('/mcp')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('MCP endpoint: /mcp\n');
        return;
      }
      const member = admission.caller.subject;
      if (ListenStreams.isLegacyListen(req) && pathOf(req) === '/mcp') {
        auditWhenAnswered(audit, res, 'mcp_request', { ...who, method: 'GET (listen for changes)' }, started);
        listen.serveLegacy(member, res);
        return;
      }
      if (ListenStreams.isListen(req) && !listen.admit(member, res)) {
        auditWhenAnswered(audit, res, 'refused', { ...who, method: 'subscriptions/listen' }, started);
        return;
      }
      // The line is written once the answer is sent; a JSON body names its method and tool by then.
      const entry: AuditEntry = { ...who, method: req.method ?? 'GET' };
      auditWhenAnswered(audit, res, 'mcp_request', entry, started);
      // node:http always sets method on a server request; its type leaves it optional. The
      // adapter hands `auth` to the server factory and to tools as ctx.http.authInfo: the
      // caller and the request's end go with it to each call's context (src/mcp/call-context.ts).
      const auth: AuthInfo = requestOrigin(admission.caller, admission.authInfo, ended);
      const nodeHandler = nodeHandlerNaming(entry);
      const request = Object.assign(req, { auth }) as Parameters<typeof nodeHandler>[0] & { auth?: AuthInfo };
      return nodeHandler(request, res);
    });
  });
  limitConnections(http, maxConnections(process.env));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${address.port}/mcp`;
  const lines = [`market-data-mcp listening on ${url}`, ...door.describe()];
  if (door.describe().length === 0)
    lines.push(
      options.access.generated
        ? `Bearer token (generated for this run; set ${HTTP_TOKEN_ENV} to choose one): ${options.access.token}`
        : `Bearer token: the value of ${HTTP_TOKEN_ENV}`,
    );
  lines.push(`Clients send: Authorization: Bearer <token>. Allowed Host names: ${options.access.allowedHosts.join(', ')}.`);
  if (!isLoopbackHost(options.host))
    lines.push(`WARNING: ${options.host} is not loopback; anyone who can reach this port and knows the token can spend the API key.`);
  process.stderr.write(`${lines.join('\n')}\n`);
  // Graceful: stop accepting connections, end the idle keep-alive ones, let the requests in
  // flight be answered, and only then close the handler (which would abort them) and the
  // runtime. exitAfter (exit.ts) bounds the whole by EXIT_GRACE_MS: a request that does not
  // finish in time (a stream left open, an upstream that hangs) cannot keep the process up.
  const close = async (): Promise<void> => {
    draining = true;
    listen.endAll();
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    const drained = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeIdleConnections();
    // A call still running near the end of the grace is answered with a recoverable error
    // (the time left lets that answer reach its caller) instead of losing its connection.
    const lastCall = setTimeout(() => ends.endForShutdown(), EXIT_GRACE_MS - SHUTDOWN_ANSWER_MS);
    await drained;
    clearTimeout(lastCall);
    await handler.close();
    await options.closing?.();
    await runtime.close();
  };
  const shutdown = (): void => exitAfter(close(), 0);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return { url, close };
}
