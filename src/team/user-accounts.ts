/**
 * One client per API key of the per-user key map, built the first time its subject calls:
 * each key gets its own cache (in process, and its own names and seal on Redis) and each
 * account its own gate, so nothing cached for one key is served to another and one
 * account's window never holds another's calls. Keys the operator names as one account
 * share that account's gate, in process as on Redis.
 */
import type { SharedRedis } from './shared-turns.js';
import { MarketDataClient, type ApiResult } from '../api/client.js';
import type { AccountGate } from '../api/gate/account-gate.js';
import { InProcessAccountGate } from '../api/gate/in-process-gate.js';
import type { SharedAccount } from '../redis/factory.js';
import { accountTag } from '../redis/keys.js';
import { digestOf, type Caller } from '../auth/caller.js';
import type { ServerDeps } from '../mcp/server.js';
import type { ToolMiddleware } from '../mcp/tool.js';
import { inaccessible, packageVersion, type Runtime } from '../runtime.js';
import { TEAM_ENV } from '../config/env-vars.js';
import type { KeyDirectory } from './key-directory.js';
import type { UserKey } from './key-map-file.js';

export interface UserAccountsDeps {
  runtime: Runtime;
  /** The team key's server dependencies (its audit included): a caller without a key of its own gets these. */
  teamDeps: ServerDeps;
  directory: KeyDirectory;
  /** The account gate with the team's eyes and fair shares (team.ts). */
  observe: (gate: AccountGate, redis?: SharedRedis) => AccountGate;
  /** What wraps the tools of a server whose calls the named account pays (by its one-way name): audit and metrics. */
  middleware: (account: string) => ToolMiddleware;
}

interface KeyClient {
  client: MarketDataClient;
  account: string;
  shared: SharedAccount<ApiResult> | undefined;
  /** With --hide-inaccessible: what this key's own discover says it cannot call (asked once per key). */
  hidden: ReadonlySet<string> | undefined;
}

export interface UserAccounts {
  /** The server's dependencies for this caller: its own key's client, the team's, or a refusal. */
  depsFor(caller: Caller | undefined): Promise<ServerDeps>;
  close(): Promise<void>;
}

/** The one-way name of the account a key pays for: the operator's account name, else the key's tag. */
export function accountNameOf(apiKey: string, accountId: string | undefined): string {
  return digestOf(`account:${accountId ?? accountTag(apiKey)}`);
}

/** The team key's discover decided `hidden`: another key's list follows its own discover (with --hide-inaccessible), and its calls say so. */
function teamDepsWithoutHidden(deps: ServerDeps): ServerDeps {
  const rest = { ...deps };
  delete rest.hidden;
  return rest;
}

export function userAccounts(deps: UserAccountsDeps): UserAccounts {
  const { runtime, teamDeps, directory } = deps;
  const byKey = new Map<string, Promise<KeyClient>>();
  // In process, keys of one account share one gate (on Redis its key names do the same).
  const gates = new Map<string, AccountGate>();
  const refusedSubjects = new Set<string>();

  const gateOf = (account: string): AccountGate => {
    const known = gates.get(account);
    if (known) return known;
    const gate = deps.observe(new InProcessAccountGate());
    gates.set(account, gate);
    return gate;
  };

  const keyClient = (entry: UserKey): Promise<KeyClient> => {
    const known = byKey.get(entry.key);
    if (known) return known;
    const made = buildKeyClient(deps, entry, gateOf);
    byKey.set(entry.key, made);
    return made;
  };

  return {
    async depsFor(caller) {
      if (!caller) return teamDeps;
      const entry = directory.lookup(caller.subject);
      if (!entry) return directory.unmapped === 'team' ? teamDeps : refusedDeps(runtime, teamDeps, caller.subject, refusedSubjects);
      const { client, account, hidden } = await keyClient(entry);
      return {
        ...teamDepsWithoutHidden(teamDeps),
        ...(hidden ? { hidden } : {}),
        client,
        keyConfigured: true,
        middleware: deps.middleware(account),
      };
    },
    async close() {
      const clients = await Promise.allSettled(byKey.values());
      for (const made of clients) {
        if (made.status !== 'fulfilled') continue;
        await made.value.client.close();
        await made.value.shared?.close();
      }
    },
  };
}

/** The client of one key of the map; `gateOf` gives the in-process gate its account shares when there is no Redis. */
async function buildKeyClient(deps: UserAccountsDeps, entry: UserKey, gateOf: (account: string) => AccountGate): Promise<KeyClient> {
  const { runtime, teamDeps } = deps;
  const { config, log } = runtime;
  const account = accountNameOf(entry.key, entry.account);
  const shared = config.redisUrl ? await sharedAccountOf(config.redisUrl, runtime, entry) : undefined;
  const client = new MarketDataClient({
    config,
    log,
    ...(teamDeps.baseUrl ? { baseUrl: teamDeps.baseUrl } : {}),
    apiKey: entry.key,
    userAgent: `market-data-mcp/${packageVersion()}`,
    gate: shared ? deps.observe(shared.gate, shared.redis) : gateOf(account),
    sharedCache: shared?.cache,
  });
  // The tool list follows this key's scopes, not the team key's (discover is free).
  const hidden = teamDeps.hidden ? await inaccessible(client, log) : undefined;
  return { client, account, shared, hidden };
}

/** The key's gate and cache on Redis, under its own names and seal; the Redis client loads only here. */
async function sharedAccountOf(redisUrl: string, runtime: Runtime, entry: UserKey): Promise<SharedAccount<ApiResult>> {
  const { config, log } = runtime;
  const { createSharedAccount } = await import('../redis/factory.js');
  const { teamAccountKeys } = await import('../redis/team-keys.js');
  const { sealFor } = await import('../redis/sealed-values.js');
  return createSharedAccount<ApiResult>({
    redisUrl,
    apiKey: entry.key,
    keys: teamAccountKeys(entry.key, entry.account),
    seal: sealFor(entry.key),
    fallback: new InProcessAccountGate(),
    log,
    cacheMaxBytes: config.redisCacheMb * 1024 * 1024,
    expectedProcesses: config.expectedProcesses,
    deadlineMs: config.deadlineMs,
  });
}

/**
 * A signed-in subject the key map does not name, where the operator refuses them: a client
 * without a transport, so every data call answers CONFIG_INVALID with this hint and nothing
 * reaches the upstream. Logged once per subject (`warned` remembers whom).
 */
function refusedDeps(runtime: Runtime, teamDeps: ServerDeps, subject: string, warned: Set<string>): ServerDeps {
  const client = new MarketDataClient({
    config: runtime.config,
    log: runtime.log,
    configProblem: `No API key is assigned to your sign-in (subject "${subject}") on this server, and it refuses signed-in users without one (${TEAM_ENV.keyMapUnmapped}=refuse). Ask the operator to run: market-data-mcp keys set ${subject}`,
  });
  if (!warned.has(subject)) runtime.log.warn({ subject }, 'a subject the key map does not name signed in; its data calls are refused');
  warned.add(subject);
  return {
    ...teamDepsWithoutHidden(teamDeps),
    client,
    keyConfigured: false,
    noKeyBecause: `no API key is assigned to your sign-in (subject "${subject}") on this server. Ask the operator to run: market-data-mcp keys set ${subject}`,
  };
}
