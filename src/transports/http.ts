/**
 * Streamable HTTP, bound to 127.0.0.1 by default. In front of the handler: a bearer
 * token on every request (no one else may spend the key), then Host and Origin checks
 * (DNS-rebinding protection). One server instance per request.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { Caller } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import type { Admission } from '../auth/http-guard.js';
import type { Logger } from '../log.js';
import { markingHandler } from '../mcp/arguments/prototype-guard.js';
import { callerOf, requestOrigin } from '../mcp/request-origin.js';
import { createServer, type ServerDeps } from '../mcp/server.js';
import type { Runtime } from '../runtime.js';
import { RequestEnds } from './request-ends.js';
import { exitAfter } from './exit.js';
import { HTTP_ENV } from '../config/env-vars.js';
import type { HttpSettings } from '../config/http.js';
import { isLoopbackHost } from '../config/secure-url.js';
import { closeAfterRefusal, connectionTimeouts, limitConnections, refusalsClose } from './http-limits.js';
import { bearerGuard, type HttpAccess } from './http-auth.js';
import { ListenStreams } from './http-listen.js';
import { auditWhenAnswered, rpcOf, type AuditEntry } from '../observe/http-audit.js';

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

/** What the end of a shutdown's grace keeps for answering the calls it stops. */
const SHUTDOWN_ANSWER_MS = 1000;

interface HttpOptions {
  port: number;
  host: string;
  access: HttpAccess;
  /** The connection cap and the shutdown grace (src/config/http.ts). */
  limits: Pick<HttpSettings, 'maxConnections' | 'shutdownGraceMs'>;
  door?: FrontDoor | undefined;
  /** The dependencies of a request of this caller (the caller's own key: src/team/user-accounts.ts). */
  deps?: ((caller: Caller | undefined) => Promise<ServerDeps>) | undefined;
  /** Closes, before the runtime, what the team's server opened (src/team/team.ts). */
  closing?: (() => Promise<void>) | undefined;
}

export async function serveHttp(runtime: Runtime, options: HttpOptions): Promise<{ url: string; close(): Promise<void> }> {
  const depsFor = options.deps;
  // One server per request, for its caller: the factory is handed the request's AuthInfo.
  const handler = createMcpHandler(async ({ authInfo }) => createServer(depsFor ? await depsFor(callerOf(authInfo)) : runtime.deps));
  // Streams that hear of changes: 2026-07-28 listens (the SDK's) and 2025-11-25 GET streams (ours), a few per member.
  const listen = new ListenStreams();
  runtime.registry.onChange(() => {
    handler.notify.toolsChanged();
    listen.toolsChanged();
  });
  const route = mcpRoute(handler, listen, runtime.log, options.access.allowedHosts);
  // OAuth sign-in, health and metrics live in src/auth, src/team and src/observe; without them, the static token.
  const door = options.door ?? createFrontDoor({ staticToken: bearerGuard(options.access.token) });
  const inFlight = new ResponsesInFlight();
  const ends = new RequestEnds();
  const http = createHttpServer(connectionTimeouts(), (req, res) => {
    inFlight.track(res, () => http.closeIdleConnections());
    if (door.open(req, res)) return;
    const started = Date.now();
    const admitted = refusalsClose(res);
    // Watched from before admission: one who hangs up while a token is checked is gone as well.
    const ended = ends.watch(req, res);
    void door.admit(req, res).then((admission) => routeRequest(route, { req, res, admission, started, ended, admitted }));
  });
  limitConnections(http, options.limits.maxConnections);
  const url = await listenOn(http, options.host, options.port);
  announce(url, door, options);
  // Graceful: stop accepting connections, end the idle keep-alive ones, let the requests in
  // flight be answered, and only then close the handler (which would abort them) and the
  // runtime. exitAfter (exit.ts) bounds the whole by the grace: a request that does not
  // finish in time (a stream left open, an upstream that hangs) cannot keep the process up.
  const graceMs = options.limits.shutdownGraceMs;
  const close = async (): Promise<void> => {
    listen.endAll();
    await drain(http, inFlight, ends, graceMs);
    await handler.close();
    await options.closing?.();
    await runtime.close();
  };
  const shutdown = (): void => {
    process.stderr.write(`market-data-mcp shutting down: calls in flight have up to ${graceMs} ms to finish\n`);
    exitAfter(close(), 0, graceMs);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return { url, close };
}

function mcpRoute(handler: McpHandler, listen: ListenStreams, log: Logger, allowedHosts: string[]): McpRoute {
  return {
    // At any log level: the audit trail is not diagnostics.
    audit: log.child({}, { level: 'info' }),
    validateHost: hostHeaderValidation(allowedHosts),
    validateOrigin: originValidation(allowedHosts),
    listen,
    // Each request's body is read once, by the prototype guard (mcp/prototype-guard.ts), which
    // renames an own __proto__ argument before the SDK's parse drops it and tells the request's
    // audit line what the body asks (2025-11-25 clients send no Mcp-Method header).
    handlerNaming: (entry) => toNodeHandler(markingHandler(handler, (body) => Object.assign(entry, rpcOf(body)))),
  };
}

type McpHandler = ReturnType<typeof createMcpHandler>;

/** What answers an admitted request: made once per server, shared by its requests. */
interface McpRoute {
  readonly audit: Pick<Logger, 'info'>;
  readonly validateHost: (req: IncomingMessage, res: ServerResponse) => boolean;
  readonly validateOrigin: (req: IncomingMessage, res: ServerResponse) => boolean;
  readonly listen: ListenStreams;
  /** The MCP handler for one request, filling the request's audit line with what its body asks. */
  readonly handlerNaming: (entry: AuditEntry) => ReturnType<typeof toNodeHandler>;
}

/** One request as the door left it: `admission` is undefined when the door refused it. */
interface DoorRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly admission: Admission | undefined;
  /** When the request came, for the audit line's latency. */
  readonly started: number;
  /** Aborted when the caller hangs up or the server shuts down. */
  readonly ended: AbortSignal;
  /** Tells the connection limits this request was not refused. */
  readonly admitted: () => void;
}

/** Refused, a stream that listens for changes, or the MCP handler with the caller and the request's end. */
function routeRequest(route: McpRoute, request: DoorRequest): Promise<void> | undefined {
  const { req, res, admission, started, ended } = request;
  const who = { subject: admission?.caller.subject, client_id: admission?.caller.clientId };
  if (!admission || !route.validateHost(req, res) || !route.validateOrigin(req, res)) {
    refuse(route.audit, req, res, who, started);
    return;
  }
  request.admitted();
  if (!req.url?.startsWith('/mcp')) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('MCP endpoint: /mcp\n');
    return;
  }
  const member = admission.caller.subject;
  if (ListenStreams.isLegacyListen(req) && pathOf(req) === '/mcp') {
    auditWhenAnswered(route.audit, res, 'mcp_request', { ...who, method: 'GET (listen for changes)' }, started);
    route.listen.serveLegacy(member, res);
    return;
  }
  if (ListenStreams.isListen(req) && !route.listen.admit(member, res)) {
    auditWhenAnswered(route.audit, res, 'refused', { ...who, method: 'subscriptions/listen' }, started);
    return;
  }
  // The line is written once the answer is sent; a JSON body names its method and tool by then.
  const entry: AuditEntry = { ...who, method: req.method ?? 'GET' };
  auditWhenAnswered(route.audit, res, 'mcp_request', entry, started);
  // node:http always sets method on a server request; its type leaves it optional. The
  // adapter hands `auth` to the server factory and to tools as ctx.http.authInfo: the
  // caller and the request's end go with it to each call's context (src/mcp/call-context.ts).
  const auth: AuthInfo = requestOrigin(admission.caller, admission.authInfo, ended);
  const nodeHandler = route.handlerNaming(entry);
  const withAuth = Object.assign(req, { auth }) as Parameters<typeof nodeHandler>[0] & { auth?: AuthInfo };
  return nodeHandler(withAuth, res);
}

/** A request the door, Host or Origin check turned away: audited, and its connection closed once answered. */
function refuse(
  audit: Pick<Logger, 'info'>,
  req: IncomingMessage,
  res: ServerResponse,
  who: Pick<AuditEntry, 'subject' | 'client_id'>,
  started: number,
): void {
  auditWhenAnswered(audit, res, 'refused', { ...who, method: `${req.method ?? 'GET'} ${pathOf(req)}` }, started);
  closeAfterRefusal(req, res);
}

/** Responses not yet ended: at shutdown they are let finish, and their connections then end. */
class ResponsesInFlight {
  private readonly open = new Set<ServerResponse>();
  private draining = false;

  track(res: ServerResponse, closeIdleConnections: () => void): void {
    this.open.add(res);
    res.once('close', () => {
      this.open.delete(res);
      // Its connection is idle once this response is done: end it rather than keep it alive.
      if (this.draining) setImmediate(closeIdleConnections);
    });
    if (this.draining) res.shouldKeepAlive = false;
  }

  startDraining(): void {
    this.draining = true;
    for (const res of this.open) if (!res.headersSent) res.shouldKeepAlive = false;
  }
}

/** Stops accepting connections and resolves once the requests in flight are answered. */
async function drain(http: HttpServer, inFlight: ResponsesInFlight, ends: RequestEnds, graceMs: number): Promise<void> {
  inFlight.startDraining();
  const drained = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  // A call still running near the end of the grace is answered with a recoverable error
  // (the time left lets that answer reach its caller) instead of losing its connection.
  const lastCall = setTimeout(() => ends.endForShutdown(), graceMs - SHUTDOWN_ANSWER_MS);
  await drained;
  clearTimeout(lastCall);
}

/** Listens and returns the MCP endpoint's URL (a port of 0 takes a free one). */
async function listenOn(http: HttpServer, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/mcp`;
}

/** The start-up lines on stderr: where to connect, how to sign in, and a warning off loopback. */
function announce(url: string, door: FrontDoor, options: HttpOptions): void {
  const lines = [`market-data-mcp listening on ${url}`, ...door.describe()];
  if (door.describe().length === 0)
    lines.push(
      options.access.generated
        ? `Bearer token (generated for this run; set ${HTTP_ENV.token} to choose one): ${options.access.token}`
        : `Bearer token: the value of ${HTTP_ENV.token}`,
    );
  lines.push(`Clients send: Authorization: Bearer <token>. Allowed Host names: ${options.access.allowedHosts.join(', ')}.`);
  if (!isLoopbackHost(options.host))
    lines.push(`WARNING: ${options.host} is not loopback; anyone who can reach this port and knows the token can spend the API key.`);
  process.stderr.write(`${lines.join('\n')}\n`);
}
