/**
 * Streamable HTTP, bound to 127.0.0.1 by default. In front of the handler: a bearer
 * token on every request (no one else may spend the key), then Host and Origin checks
 * (DNS-rebinding protection). One server instance per request.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { runAsCaller } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import { createServer, type ServerDeps } from '../mcp/server.js';
import type { Runtime } from '../runtime.js';
import { endCallsForShutdown, whileCallerConnected } from './caller-scope.js';
import { EXIT_GRACE_MS, exitAfter } from './exit.js';
import { closeAfterRefusal, connectionTimeouts, limitConnections, maxConnections, refusalsClose } from './http-limits.js';
import { bearerGuard, HTTP_TOKEN_ENV, type HttpAccess } from './http-auth.js';
import { ListenStreams } from './http-listen.js';
import { auditWhenAnswered, readJsonBody, refuseBody, rpcOf } from './http-audit.js';

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
    /** The dependencies of the request being served (the caller's own key: src/ops/user-accounts.ts). */
    deps?: (() => Promise<ServerDeps>) | undefined;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const depsFor = options.deps;
  // At any log level: the audit trail is not diagnostics.
  const audit = runtime.log.child({}, { level: 'info' });
  const handler = createMcpHandler(async () => createServer(depsFor ? await depsFor() : runtime.deps));
  // Streams that hear of changes: 2026-07-28 listens (the SDK's) and 2025-11-25 GET streams (ours), a few per member.
  const listen = new ListenStreams();
  runtime.registry.onChange(() => {
    handler.notify.toolsChanged();
    listen.toolsChanged();
  });
  const nodeHandler = toNodeHandler(handler);
  const validateHost = hostHeaderValidation(options.access.allowedHosts);
  const validateOrigin = originValidation(options.access.allowedHosts);
  // OAuth sign-in, health and metrics live in src/auth and src/ops; without them, the static token.
  const door = options.door ?? createFrontDoor({ staticToken: bearerGuard(options.access.token) });
  // Responses not yet ended: at shutdown they are let finish, and their connections then end.
  const inFlight = new Set<ServerResponse>();
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
    // The caller's scope covers admission too: one who hangs up while a token is checked is gone as well.
    void whileCallerConnected(req, res, () =>
      door.admit(req, res).then(async (admission) => {
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
        let body: unknown;
        if (req.method === 'POST') {
          const read = await readJsonBody(req);
          if (!read.ok) {
            auditWhenAnswered(audit, res, 'mcp_request', { ...who, method: 'unreadable' }, started);
            refuseBody(res, read);
            return;
          }
          body = read.body;
        }
        auditWhenAnswered(
          audit,
          res,
          'mcp_request',
          { ...who, ...(req.method === 'POST' ? rpcOf(body) : { method: req.method ?? 'GET' }) },
          started,
        );
        // node:http always sets method on a server request; its type leaves it optional. The
        // adapter hands `auth` to the server factory and to tools as ctx.http.authInfo.
        const request = Object.assign(req, { auth: admission.authInfo }) as Parameters<typeof nodeHandler>[0] & { auth?: AuthInfo };
        return runAsCaller(admission.caller, () => nodeHandler(request, res, body));
      }),
    );
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
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(options.host) && !options.host.startsWith('127.'))
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
    const lastCall = setTimeout(endCallsForShutdown, EXIT_GRACE_MS - SHUTDOWN_ANSWER_MS);
    await drained;
    clearTimeout(lastCall);
    await handler.close();
    await runtime.close();
  };
  const shutdown = (): void => exitAfter(close(), 0);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return { url, close };
}
