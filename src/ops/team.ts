/**
 * The --http server's team features, wired in one place: sign-in (static token or
 * OAuth), the endpoints open without a token (metadata, health, readiness, metrics), the
 * audit line and metrics of every call, and whose key pays (the per-user key map).
 */
import type { AccountGate } from '../api/gate/account-gate.js';
import { currentCaller } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import { JwtAccessTokenVerifier } from '../auth/jwt-verifier.js';
import type { OAuthSettings } from '../auth/settings.js';
import { createLogger } from '../log.js';
import type { ServerDeps } from '../mcp/server.js';
import { DEMO_KEY, type Runtime } from '../runtime.js';
import { bearerGuard, type HttpAccess } from '../transports/http-auth.js';
import { fairShareGate } from './fair-share-gate.js';
import { operationsEndpoints, readinessProbe } from './health.js';
import { TeamMetrics } from './metrics.js';
import { ObservedGate } from './observed-gate.js';
import type { SharedRedis } from './shared-turns.js';
import { observeToolCalls } from './tool-observer.js';
import { shareCatalog } from './catalog-sync.js';
import { UnitsLedger } from './units-ledger.js';
import { sealFor } from './sealed-values.js';
import { BudgetGate, dailyUnits, InProcessLedger, type BudgetLedger } from './daily-budget.js';
import { KeyDirectory, keyMapSettings } from './key-directory.js';
import { RedisBudgetLedger } from './redis-budget-ledger.js';
import { accountNameOf, userAccounts, type UserAccounts } from './user-accounts.js';

export interface TeamOps {
  readonly metrics: TeamMetrics;
  /** For createRuntime: the account gate, observed, with fair shares (across nodes when on Redis). */
  wrapGate(gate: AccountGate, redis?: SharedRedis): AccountGate;
  /** Once the runtime exists: instruments its servers and builds the door. */
  attach(runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): FrontDoor;
  /** The server's dependencies for the request being served: with a key map, the caller's own key's. */
  serverDeps(): Promise<ServerDeps>;
}

/** Throws when the key map or the daily budget is configured but cannot be used: a node must not start spending wrongly. */
export function createTeamOps(env: NodeJS.ProcessEnv): TeamOps {
  const metrics = new TeamMetrics();
  const keyMap = keyMapSettings(env);
  if (!keyMap.ok) throw new Error(keyMap.problem);
  // Opened before anything starts: a map that does not open stops the start with its reason.
  const directory = keyMap.settings ? new KeyDirectory(keyMap.settings, createLogger()) : undefined;
  const budget = dailyUnits(env);
  if (!budget.ok) throw new Error(budget.problem);
  let ledger: BudgetLedger = new InProcessLedger();
  let gate: AccountGate | undefined;
  let team: Runtime | undefined;
  let users: UserAccounts | undefined;
  /** The team key's account on Redis, when shared: the tool list is shared through it too. */
  let teamRedis: SharedRedis | undefined;
  // Fair turns across nodes when the account is shared on Redis, else among this node's callers.
  const observe = (inner: AccountGate, redis?: SharedRedis): AccountGate => {
    const observed = new ObservedGate(
      fairShareGate(inner, () => currentCaller()?.subject, redis),
      metrics,
      Date.now,
      redis ? new UnitsLedger(redis.link, redis.keys) : undefined,
    );
    return budget.units ? new BudgetGate(observed, { units: budget.units, ledger: () => ledger }) : observed;
  };
  return {
    metrics,
    wrapGate(inner, redis) {
      teamRedis = redis;
      if (redis) {
        const units = new UnitsLedger(redis.link, redis.keys);
        metrics.countAccountUnits(() => units.today());
      }
      gate = observe(inner, redis);
      return gate;
    },
    serverDeps() {
      if (!team) throw new Error('the team server is not attached to a runtime yet');
      return users ? users.depsFor(currentCaller()) : Promise.resolve(team.deps);
    },
    attach(runtime, access, oauth) {
      // What the runtime already instruments (traces) stays, for the team key's servers and each user key's.
      const before = runtime.deps.instrument;
      // The audit trail is written at any log level: it is not diagnostics.
      const auditLog = runtime.log.child({}, { level: 'info' });
      const instrument =
        (account: string): NonNullable<ServerDeps['instrument']> =>
        (server) => {
          before?.(server);
          observeToolCalls(server, { metrics, log: auditLog, account: () => account });
        };
      // The audit names the account by a hash: of the operator's account name, else of the key's tag.
      const apiKey = runtime.simulator ? DEMO_KEY : (runtime.config.apiKey ?? '');
      runtime.deps = { ...runtime.deps, instrument: instrument(accountNameOf(apiKey, runtime.config.accountId)) };
      team = runtime;
      const closing: (() => Promise<void>)[] = [];
      if (directory) {
        const accounts = userAccounts({ runtime, directory, observe, instrument });
        users = accounts;
        closing.push(() => accounts.close());
        runtime.log.info({ subjects: directory.size, unmapped: directory.unmapped }, 'per-user key map in use');
      }
      const redisUrl = runtime.config.redisUrl;
      if (budget.units && redisUrl) {
        // Its own link: the budget is the team's, not any one account's.
        const link = import('../redis/connection.js').then(({ RedisLink }) => new RedisLink({ url: redisUrl }));
        void link.then((redis) => (ledger = new RedisBudgetLedger(redis)));
        closing.push(() => link.then((redis) => redis.close()));
      }
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
      const closeRuntime = runtime.close.bind(runtime);
      runtime.close = async () => {
        for (const close of closing) await close();
        await closeRuntime();
      };
      const verifier = oauth ? new JwtAccessTokenVerifier({ settings: oauth }) : undefined;
      const ready = readinessProbe({
        baseUrl: runtime.deps.baseUrl,
        gate: gate ?? runtime.client.gate,
        redisConfigured: Boolean(runtime.config.redisUrl),
        issuer: verifier ? () => verifier.keysReachable() : undefined,
      });
      return createFrontDoor({
        staticToken: bearerGuard(access.token),
        oauth,
        verifier,
        endpoints: [operationsEndpoints({ metrics, ready })],
      });
    },
  };
}
