/**
 * The --http server's team features, wired in one place: sign-in (static token or
 * OAuth), the endpoints open without a token (metadata, health, readiness, metrics), the
 * audit line and metrics of every call, and whose key pays (the per-user key map).
 */
import type { AccountGate } from '../api/gate/account-gate.js';
import type { Caller } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import { JwtAccessTokenVerifier } from '../auth/jwt-verifier.js';
import type { OAuthSettings } from '../config/oauth.js';
import type { TeamSettings } from '../config/team.js';
import { createLogger } from '../log.js';
import type { ServerDeps } from '../mcp/server.js';
import { composeMiddleware, NO_MIDDLEWARE, type ToolMiddleware } from '../mcp/tool.js';
import { DEMO_KEY, type Runtime } from '../runtime.js';
import { bearerGuard, type HttpAccess } from '../transports/http-auth.js';
import { fairShareGate } from './fair-share-gate.js';
import { operationsEndpoints, readinessProbe } from './health.js';
import { TeamMetrics } from '../observe/metrics.js';
import { ObservedGate } from '../observe/observed-gate.js';
import type { SharedRedis } from './shared-turns.js';
import { observeToolCalls } from '../observe/tool-observer.js';
import { shareCatalog } from './catalog-sync.js';
import { UnitsLedger } from './units-ledger.js';
import { sealFor } from '../redis/sealed-values.js';
import { BudgetGate, InProcessLedger, type BudgetLedger } from './daily-budget.js';
import { KeyDirectory } from './key-directory.js';
import { RedisBudgetLedger } from '../redis/budget-ledger.js';
import { accountNameOf, userAccounts, type UserAccounts } from './user-accounts.js';

export interface TeamOps {
  readonly metrics: TeamMetrics;
  /** For createRuntime: the account gate with the team's layers, composed once as the gate is made. */
  wrapGate(gate: AccountGate, redis?: SharedRedis): AccountGate;
  /** Once the runtime exists: the team's server over it. The runtime itself is left as it was made. */
  attach(runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): TeamServer;
}

export interface TeamServer {
  /** Sign-in and the endpoints open without a token. */
  readonly door: FrontDoor;
  /** The dependencies of a server for a request of this caller: the team key's, or with a key map the caller's own key's. */
  depsFor(caller: Caller | undefined): Promise<ServerDeps>;
  /** Closes what the team opened (user keys' clients, the budget's Redis link); the runtime closes after it. */
  close(): Promise<void>;
}

/** Throws when the key map cannot be opened: a node must not start spending wrongly. */
export function createTeamOps(settings: TeamSettings): TeamOps {
  const metrics = new TeamMetrics();
  // Opened before anything starts: a map that does not open stops the start with its reason.
  const directory = settings.keyMap ? new KeyDirectory(settings.keyMap, createLogger()) : undefined;
  const budget = { units: settings.dailyUnits };
  // Where the day's spending is counted: in process, until attach opens the team's own Redis link.
  let ledger: BudgetLedger = new InProcessLedger();
  /** The team key's account on Redis, when shared (set as its gate is made): the tool list is shared through it too. */
  let teamRedis: SharedRedis | undefined;
  const observe = teamGateLayers(metrics, budget.units, () => ledger);
  return {
    metrics,
    wrapGate(inner, redis) {
      teamRedis = redis;
      if (redis) {
        const units = new UnitsLedger(redis.link, redis.keys);
        metrics.countAccountUnits(() => units.today());
      }
      return observe(inner, redis);
    },
    attach(runtime, access, oauth) {
      const parts: TeamParts = { metrics, directory, observe, budgetUnits: budget.units, teamRedis, useLedger: (kept) => (ledger = kept) };
      return attachTeam(parts, runtime, access, oauth);
    },
  };
}

/**
 * The team's layers over an account's gate, outermost first: the caller's daily budget (when
 * configured), the metrics and the call's cost record, then fair turns among the account's
 * users (across nodes when the account is shared on Redis, else among this node's callers).
 * On Redis, each charged answer is also added to the account's day there (units-ledger.ts).
 */
function teamGateLayers(
  metrics: TeamMetrics,
  budgetUnits: number | undefined,
  ledger: () => BudgetLedger,
): (inner: AccountGate, redis?: SharedRedis) => AccountGate {
  return (inner, redis) => {
    const observed = new ObservedGate(
      fairShareGate(inner, redis),
      metrics,
      Date.now,
      redis ? new UnitsLedger(redis.link, redis.keys) : undefined,
    );
    return budgetUnits ? new BudgetGate(observed, { units: budgetUnits, ledger }) : observed;
  };
}

/** What createTeamOps made before the runtime existed, handed to attachTeam. */
interface TeamParts {
  readonly metrics: TeamMetrics;
  readonly directory: KeyDirectory | undefined;
  readonly observe: (gate: AccountGate, redis?: SharedRedis) => AccountGate;
  readonly budgetUnits: number | undefined;
  readonly teamRedis: SharedRedis | undefined;
  /** Where the daily budget is counted from now on (the team's Redis, once its link is made). */
  readonly useLedger: (ledger: BudgetLedger) => void;
}

function attachTeam(parts: TeamParts, runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): TeamServer {
  const { metrics, directory, observe, budgetUnits, teamRedis } = parts;
  const middleware = teamMiddleware(runtime, metrics);
  // The audit names the account by a hash: of the operator's account name, else of the key's tag.
  const apiKey = runtime.simulator ? DEMO_KEY : (runtime.config.apiKey ?? '');
  const teamDeps: ServerDeps = { ...runtime.deps, middleware: middleware(accountNameOf(apiKey, runtime.config.accountId)) };
  const closing: (() => Promise<void>)[] = [];
  let users: UserAccounts | undefined;
  if (directory) {
    const accounts = userAccounts({ runtime, teamDeps, directory, observe, middleware });
    users = accounts;
    closing.push(() => accounts.close());
    runtime.log.info({ subjects: directory.size, unmapped: directory.unmapped }, 'per-user key map in use');
  }
  const redisUrl = runtime.config.redisUrl;
  if (budgetUnits && redisUrl) closing.push(openBudgetLedger(redisUrl, parts.useLedger));
  if (teamRedis) {
    const sync = shareCatalog({
      registry: runtime.registry,
      link: teamRedis.link,
      keys: teamRedis.keys,
      seal: sealFor(apiKey),
      log: runtime.log,
    });
    closing.push(() => Promise.resolve(sync.close()));
  }
  const door = teamDoor(runtime, access, oauth, metrics);
  return {
    door,
    depsFor: (caller) => (users ? users.depsFor(caller) : Promise.resolve(teamDeps)),
    async close() {
      for (const close of closing) await close();
    },
  };
}

/** The tools' wrapping for calls the named account pays: what the runtime already wraps them in (traces), then the audit line and metrics. */
function teamMiddleware(runtime: Runtime, metrics: TeamMetrics): (account: string) => ToolMiddleware {
  const before = runtime.deps.middleware ?? NO_MIDDLEWARE;
  // The audit trail is written at any log level: it is not diagnostics.
  const auditLog = runtime.log.child({}, { level: 'info' });
  return (account) => composeMiddleware(before, observeToolCalls({ metrics, log: auditLog, account: () => account }));
}

/** The daily budget on Redis, over its own link (the budget is the team's, not any one account's); returns what closes the link. */
function openBudgetLedger(redisUrl: string, useLedger: (ledger: BudgetLedger) => void): () => Promise<void> {
  const link = import('../redis/connection.js').then(({ RedisLink }) => new RedisLink({ url: redisUrl }));
  void link.then((redis) => useLedger(new RedisBudgetLedger(redis)));
  return () => link.then((redis) => redis.close());
}

/** Sign-in (static token or OAuth) and the endpoints open without a token: health, readiness, metrics. */
function teamDoor(runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined, metrics: TeamMetrics): FrontDoor {
  const verifier = oauth ? new JwtAccessTokenVerifier({ settings: oauth }) : undefined;
  const ready = readinessProbe({
    baseUrl: runtime.deps.baseUrl,
    gate: runtime.client.gate,
    redisConfigured: Boolean(runtime.config.redisUrl),
    issuer: verifier ? () => verifier.keysReachable() : undefined,
  });
  return createFrontDoor({
    staticToken: bearerGuard(access.token),
    oauth,
    verifier,
    endpoints: [operationsEndpoints({ metrics, ready })],
  });
}
