/**
 * What a load balancer and Prometheus ask of a node, open without a token: /healthz (the
 * process answers), /readyz (Redis, the upstream and the identity provider's keys
 * reachable: send it traffic),
 * /metrics (Prometheus text). Readiness never spends the account: the upstream is probed
 * without the key (any HTTP answer below 500 proves it reachable) and the answer is kept
 * for a few seconds, so frequent probes cost the upstream little.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccountGate } from '../api/gate/account-gate.js';
import type { OpenEndpoint } from '../auth/front-door.js';
import type { TeamMetrics } from '../observe/metrics.js';

export interface ReadinessDeps {
  /** The upstream's base URL; undefined when none is configured (not ready). */
  baseUrl: string | undefined;
  gate: AccountGate;
  /** Redis is configured: the gate must be on it for the node to count as ready. */
  redisConfigured: boolean;
  /** With OAuth: whether the issuer's keys can be fetched (a node that cannot check tokens refuses everyone). */
  issuer?: (() => Promise<Check>) | undefined;
  now?: () => number;
  fetch?: typeof fetch;
}

export interface Check {
  ok: boolean;
  detail: string;
}

const PROBE_CACHE_MS = 5000;

export function readinessProbe(deps: ReadinessDeps): () => Promise<Record<string, Check>> {
  const now = deps.now ?? Date.now;
  const get = deps.fetch ?? fetch;
  let upstream: { at: number; check: Promise<Check> } | undefined;
  let issuer: { at: number; check: Promise<Check> } | undefined;
  const probeUpstream = async (): Promise<Check> => {
    if (!deps.baseUrl) return { ok: false, detail: 'no upstream configured' };
    try {
      const response = await get(`${deps.baseUrl}/v1/health`, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.status < 500 ? { ok: true, detail: `HTTP ${response.status}` } : { ok: false, detail: `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  };
  return async () => {
    if (!upstream || now() - upstream.at > PROBE_CACHE_MS) upstream = { at: now(), check: probeUpstream() };
    const probeIssuer = deps.issuer;
    if (probeIssuer && (!issuer || now() - issuer.at > PROBE_CACHE_MS)) issuer = { at: now(), check: probeIssuer() };
    const checks: Record<string, Check> = { upstream: await upstream.check };
    if (issuer) checks['issuer'] = await issuer.check;
    if (deps.redisConfigured) {
      const view = await deps.gate.view();
      checks['redis'] = { ok: view.mode === 'redis', detail: view.mode_reason ?? view.mode };
    }
    return checks;
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

export function operationsEndpoints(options: { metrics: TeamMetrics; ready: () => Promise<Record<string, Check>> }): OpenEndpoint {
  return (req, res) => {
    const path = pathOf(req);
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/healthz') {
      json(res, 200, { status: 'ok' });
      return true;
    }
    if (path === '/readyz') {
      void options.ready().then(
        (checks) => json(res, Object.values(checks).every((c) => c.ok) ? 200 : 503, { checks }),
        (error: unknown) => json(res, 503, { error: error instanceof Error ? error.message : String(error) }),
      );
      return true;
    }
    if (path === '/metrics') {
      void options.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': options.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return true;
    }
    return false;
  };
}
