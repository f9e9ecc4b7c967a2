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
import { FairShareGate } from './fair-share-gate.js';
import { operationsEndpoints, readinessProbe } from './health.js';
import { TeamMetrics } from './metrics.js';
import { ObservedGate } from './observed-gate.js';
import { observeToolCalls } from './tool-observer.js';
import { KeyDirectory, keyMapSettings } from './key-directory.js';
import { accountNameOf, userAccounts, type UserAccounts } from './user-accounts.js';

export interface TeamOps {
  readonly metrics: TeamMetrics;
  /** For createRuntime: the account gate, observed. */
  wrapGate(gate: AccountGate): AccountGate;
  /** Once the runtime exists: instruments its servers and builds the door. */
  attach(runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): FrontDoor;
  /** The server's dependencies for the request being served: with a key map, the caller's own key's. */
  serverDeps(): Promise<ServerDeps>;
}

/** Throws when the key map is configured but cannot be used: a node must not start spending the wrong key. */
export function createTeamOps(env: NodeJS.ProcessEnv): TeamOps {
  const metrics = new TeamMetrics();
  const keyMap = keyMapSettings(env);
  if (!keyMap.ok) throw new Error(keyMap.problem);
  // Opened before anything starts: a map that does not open stops the start with its reason.
  const directory = keyMap.settings ? new KeyDirectory(keyMap.settings, createLogger()) : undefined;
  let gate: AccountGate | undefined;
  let team: Runtime | undefined;
  let users: UserAccounts | undefined;
  const observe = (inner: AccountGate): AccountGate =>
    new ObservedGate(new FairShareGate(inner, { who: () => currentCaller()?.subject }), metrics);
  return {
    metrics,
    wrapGate(inner) {
      gate = observe(inner);
      return gate;
    },
    serverDeps() {
      if (!team) throw new Error('the team server is not attached to a runtime yet');
      return users ? users.depsFor(currentCaller()) : Promise.resolve(team.deps);
    },
    attach(runtime, access, oauth) {
      const instrument =
        (account: string): NonNullable<ServerDeps['instrument']> =>
        (server) =>
          observeToolCalls(server, { metrics, log: runtime.log, account: () => account });
      // The audit names the account by a hash: of the operator's account name, else of the key's tag.
      const apiKey = runtime.simulator ? DEMO_KEY : (runtime.config.apiKey ?? '');
      runtime.deps = { ...runtime.deps, instrument: instrument(accountNameOf(apiKey, runtime.config.accountId)) };
      team = runtime;
      if (directory) {
        users = userAccounts({ runtime, directory, observe, instrument });
        const closeTeam = runtime.close.bind(runtime);
        const closeUsers = users.close.bind(users);
        runtime.close = async () => {
          await closeUsers();
          await closeTeam();
        };
        runtime.log.info({ subjects: directory.size, unmapped: directory.unmapped }, 'per-user key map in use');
      }
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
