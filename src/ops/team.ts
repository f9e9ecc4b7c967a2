/**
 * The --http server's team features, wired in one place: sign-in (static token or
 * OAuth), the endpoints open without a token (metadata, health, readiness, metrics), and
 * the audit line and metrics of every call.
 */
import type { AccountGate } from '../api/gate/account-gate.js';
import { accountTag } from '../redis/keys.js';
import { currentCaller, digestOf } from '../auth/caller.js';
import { createFrontDoor, type FrontDoor } from '../auth/front-door.js';
import type { OAuthSettings } from '../auth/settings.js';
import { DEMO_KEY, type Runtime } from '../runtime.js';
import { bearerGuard, type HttpAccess } from '../transports/http-auth.js';
import { FairShareGate } from './fair-share-gate.js';
import { operationsEndpoints, readinessProbe } from './health.js';
import { TeamMetrics } from './metrics.js';
import { ObservedGate } from './observed-gate.js';
import { observeToolCalls } from './tool-observer.js';

export interface TeamOps {
  readonly metrics: TeamMetrics;
  /** For createRuntime: the account gate, observed. */
  wrapGate(gate: AccountGate): AccountGate;
  /** Once the runtime exists: instruments its servers and builds the door. */
  attach(runtime: Runtime, access: HttpAccess, oauth: OAuthSettings | undefined): FrontDoor;
}

export function createTeamOps(): TeamOps {
  const metrics = new TeamMetrics();
  let gate: AccountGate | undefined;
  return {
    metrics,
    wrapGate(inner) {
      gate = new ObservedGate(new FairShareGate(inner, { who: () => currentCaller()?.subject }), metrics);
      return gate;
    },
    attach(runtime, access, oauth) {
      // The audit names the account by a hash: of the operator's account name, else of the key's tag.
      const apiKey = runtime.simulator ? DEMO_KEY : (runtime.config.apiKey ?? '');
      const account = digestOf(`account:${runtime.config.accountId ?? accountTag(apiKey)}`);
      runtime.deps = {
        ...runtime.deps,
        instrument: (server) => observeToolCalls(server, { metrics, log: runtime.log, account: () => account }),
      };
      const ready = readinessProbe({
        baseUrl: runtime.deps.baseUrl,
        gate: gate ?? runtime.client.gate,
        redisConfigured: Boolean(runtime.config.redisUrl),
      });
      return createFrontDoor({
        staticToken: bearerGuard(access.token),
        oauth,
        endpoints: [operationsEndpoints({ metrics, ready })],
      });
    },
  };
}
