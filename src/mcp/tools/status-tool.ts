/**
 * `api_status`: free of quota and nearly free of rate. It answers from what the account
 * gate already knows (the server's limit headers of the last answer) and from a discover
 * of the last minute (src/mcp/arguments/discover-memory.ts): at most one free request a minute,
 * none without a key. One line first an agent can act on (requests left this minute, quota
 * left and its reset, anything disabled or out of scope); `details` adds scopes,
 * capabilities, the gate's and cache's state and the base URL.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallContext } from '../../api/call-context.js';
import type { MarketDataClient } from '../../api/client.js';
import type { DiscoverAnswer } from '../../api/discover-memory.js';
import { wrongBaseUrl } from '../../api/wrong-base-url.js';
import { toolNameOf } from './dataset-tool.js';
import { recentDiscover } from '../arguments/discover-memory.js';
import { advertisedSchema, type ToolArguments } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { withinBudget } from '../answers/results.js';
import { asApiError, errorResult, invalidArguments } from '../answers/tool-errors.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import type { ToolDefinition } from '../tool.js';
import { fanOutReach, lackedScopes, partlyUsableFanOuts, type FanOutReach } from '../key-reach.js';

export const STATUS_TOOL = 'api_status';

export interface StatusDeps {
  client: MarketDataClient;
  simulated: boolean;
  baseUrl: string | undefined;
  keyConfigured: boolean;
  /** Why there is no key for this caller, when not for want of MARKET_DATA_API_KEY. */
  noKeyBecause?: string | undefined;
  datasetCount: () => number;
  /** Datasets the upstream's document imported or retired, and why. */
  catalogNotes?: () => unknown;
  /** The result budget in o200k tokens (MARKET_DATA_RESULT_TOKENS). */
  resultTokens?: number;
  /** Settings that fell back to their defaults, for the user to fix (never the values). */
  configWarnings: readonly string[];
  /** Why no data tool is offered (unknown toolsets only), or undefined. */
  noDataTools: string | undefined;
  /** What a call of each tool whose cost depends on the upstream spends in requests (request-costs.ts): one line, and per tool. */
  costs?: (() => { line: string | undefined; byTool: Record<string, string> }) | undefined;
  /** The tools over several datasets offered, with their parts: listed as unusable when discover puts every part out of reach. */
  fanOuts?: (() => readonly { name: string; reach: FanOutReach }[]) | undefined;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A tool the key cannot use and why; `overSeveral` for a tool over several datasets, whose name is not its toolset's. */
export interface UnusableTool {
  readonly tool: string;
  readonly reason: string;
  readonly overSeveral?: boolean;
}

const OUT_OF_SCOPE = "out of this key's scope";
const ADMIN_ONLY = 'limited to administrator accounts (the key has the scope; the account is not an administrator)';

/** Tools of datasets the key cannot call, with why, from discover's dataset list. */
export function unusableTools(discovered: Json | undefined): UnusableTool[] {
  const datasets = Array.isArray(discovered?.['datasets']) ? (discovered['datasets'] as unknown[]) : [];
  const out: UnusableTool[] = [];
  for (const item of datasets) {
    const d = record(item);
    const operationId = str(d['operation_id']);
    if (!operationId) continue;
    const scope = str(d['scope']);
    const scopes = Array.isArray(discovered?.['access_scope']) ? (discovered['access_scope'] as unknown[]) : [];
    // A key that holds the scope and still cannot call the dataset is kept out by the
    // dataset's own rule (administrator user ids only, spec endpoint 1), not by its scope.
    const reason =
      d['status'] === 'disabled'
        ? 'disabled for now'
        : d['accessible'] === false
          ? scope !== undefined && scopes.includes(scope)
            ? ADMIN_ONLY
            : `${OUT_OF_SCOPE} (${scope ?? 'scope'})`
          : undefined;
    if (reason) out.push({ tool: toolNameOf({ operationId }), reason });
  }
  return out;
}

/** The tools over several datasets none of whose parts discover says the key may call, with why (key-reach.ts). */
export function unusableFanOuts(discovered: Json | undefined, fanOuts: readonly { name: string; reach: FanOutReach }[]): UnusableTool[] {
  return fanOuts.flatMap(({ name, reach }) => {
    const state = fanOutReach(discovered, reach);
    if (state.kind !== 'none') return [];
    const lacks = lackedScopes(state.unreachable, 'scope');
    return [{ tool: name, reason: lacks.length > 0 ? `${OUT_OF_SCOPE} (${lacks.join(', ')})` : ADMIN_ONLY, overSeveral: true }];
  });
}

/** Whether the key works, as far as this server knows without spending anything. */
export type KeyState =
  | { kind: 'ok' }
  | { kind: 'none'; because?: string | undefined }
  | { kind: 'failed'; code: string }
  /** Discover answered as no API would (a 404, a page, a redirect): the base URL is wrong, and the key untested. */
  | { kind: 'not_the_api'; why: string }
  /** `held`: discover was not sent, held back here (a Retry-After pause) for about `inSeconds`. */
  | { kind: 'unchecked'; held?: { code: string; inSeconds: number | undefined } };

function keyWords(key: KeyState): string {
  switch (key.kind) {
    case 'ok':
      return 'Key OK.';
    case 'none':
      return key.because ? `No key for you: ${key.because}` : 'No key configured: set MARKET_DATA_API_KEY (or run with --demo).';
    case 'failed':
      return `Key NOT working (${key.code}): see key.error.`;
    case 'not_the_api':
      return `Base URL NOT the API, so the key is not checked yet: ${key.why}`;
    case 'unchecked':
      return key.held
        ? `Key not checked yet: discover was not sent (held back by ${key.held.code}${key.held.inSeconds !== undefined ? `; call api_status again in about ${key.held.inSeconds} s` : ''}).`
        : 'Key not checked yet (discover did not answer).';
  }
}

/** The one line: what the agent can do right now. */
export function statusLine(budget: Json, quota: Json, key: KeyState, unusable: readonly UnusableTool[]): string {
  const parts: string[] = [keyWords(key)];
  const rateLeft = num(budget['rate_remaining']);
  const rateLimit = num(budget['rate_limit_per_window']);
  const rateReset = str(budget['rate_window_resets_at']);
  if (rateLeft !== undefined)
    parts.push(`${rateLeft}${rateLimit ? `/${rateLimit}` : ''} requests left this minute${rateReset ? ` (resets ${rateReset})` : ''}.`);
  const paused = str(budget['paused_until']);
  if (paused) parts.push(`Paused until ${paused}.`);
  const quotaLeft = num(quota['remaining']);
  const quotaLimit = num(quota['limit']);
  const quotaReset = str(quota['resets_at']);
  if (quotaLeft !== undefined) {
    parts.push(
      `${quotaLeft.toLocaleString('en-US')}${quotaLimit ? ` of ${quotaLimit.toLocaleString('en-US')}` : ''} quota units left${quotaReset ? `, resets ${quotaReset}` : ''}.`,
    );
  }
  if (budget['quota_exhausted'] === true) parts.push('Quota exhausted: dataset calls are refused until the reset.');
  const disabled = Array.isArray(budget['disabled'])
    ? (budget['disabled'] as unknown[]).filter((d): d is string => typeof d === 'string')
    : [];
  if (disabled.length > 0) parts.push(`Disabled: ${disabled.join(', ')}.`);
  if (unusable.length > 4) parts.push(`Cannot use ${unusable.length} tools or toolsets: see cannot_use.`);
  else if (unusable.length > 0) parts.push(`Cannot use: ${unusable.map((u) => u.tool).join(', ')}.`);
  return parts.join(' ');
}

/** The reason in a few words for the default answer; the full one is in details. */
function shortReason(reason: string): string {
  if (reason.startsWith('limited to administrator')) return 'administrator accounts only';
  return reason.startsWith(OUT_OF_SCOPE) ? OUT_OF_SCOPE : reason;
}

/** Every unusable tool under its full reason: the details' `cannot_use`, in the default answer's shape. */
function unusableByReason(unusable: readonly UnusableTool[]): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const { tool, reason } of unusable) (groups[reason] ??= []).push(tool);
  return groups;
}

/**
 * Unusable tools grouped by reason, a toolset out of scope as `toolset_*`: a scope is per
 * toolset (read:shorts), so all its tools share the reason. A tool over several datasets
 * is named on its own (a key may lack another toolset's scope it needs), unless a toolset
 * named covers it already.
 */
export function groupedUnusable(unusable: readonly UnusableTool[]): Record<string, string[]> {
  const groups: Record<string, UnusableTool[]> = {};
  for (const entry of unusable) (groups[shortReason(entry.reason)] ??= []).push(entry);
  const toolsetOf = (tool: string): string => tool.split('_')[0] ?? tool;
  return Object.fromEntries(
    Object.entries(groups).map(([reason, entries]) => {
      if (reason !== OUT_OF_SCOPE) return [reason, entries.map((e) => e.tool)];
      const toolsets = [...new Set(entries.filter((e) => !e.overSeveral).map((e) => toolsetOf(e.tool)))];
      const alone = entries.filter((e) => e.overSeveral && !toolsets.includes(toolsetOf(e.tool))).map((e) => e.tool);
      return [reason, [...toolsets.map((toolset) => `${toolset}_*`), ...alone]];
    }),
  );
}

/** Screen: `details` is the one argument, a boolean; refused as every tool refuses a name it does not take. */
function screenDetails(args: ToolArguments): boolean {
  const given = ownArguments(args, ['details'], { details: 'boolean' })['details'];
  if (given !== undefined && typeof given !== 'boolean') throw invalidArguments('Invalid value for "details".', 'true or false.');
  return given === true;
}

/** What api_status reads: discover of the last minute (none without a key), the gate's budget, and the quota once. */
interface StatusRead {
  readonly memory: DiscoverAnswer | undefined;
  readonly discovered: Json | undefined;
  readonly budget: Json;
  readonly quota: { remaining: number | undefined; limit: number | undefined; resets_at: string | undefined };
  readonly key: KeyState;
  readonly unusable: readonly UnusableTool[];
  /** Tools over several datasets the key may call in part: what each leaves out, and why. */
  readonly partly: Record<string, string>;
}

/** Read: nothing spent but at most one free discover a minute. */
async function readStatus(deps: StatusDeps, call: CallContext): Promise<StatusRead> {
  // No key: nothing to ask the API, and nothing it could say about a key.
  const memory = deps.keyConfigured ? await recentDiscover(deps.client, { call }) : undefined;
  const discovered = memory?.data;
  const budget = record(await deps.client.budget());
  const upstreamQuota = record(discovered?.['quota']);
  // The quota once: the gate's view of the headers, else discover's.
  const quota = {
    remaining: num(budget['quota_remaining']) ?? num(upstreamQuota['monthly_remaining']),
    limit: num(budget['quota_limit']) ?? num(upstreamQuota['monthly_limit']),
    resets_at: str(budget['quota_resets_at']) ?? str(upstreamQuota['resets_at']),
  };
  const unusable = [...unusableTools(discovered), ...unusableFanOuts(discovered, deps.fanOuts?.() ?? [])];
  const partly = partlyUsableFanOuts(discovered, deps.fanOuts?.() ?? []);
  return { memory, discovered, budget, quota, key: keyState(deps, memory), unusable, partly };
}

/** Whether the key works, from what discover last answered or why it was not asked. */
function keyState(deps: StatusDeps, memory: DiscoverAnswer | undefined): KeyState {
  if (!deps.keyConfigured) return { kind: 'none', because: deps.noKeyBecause };
  if (memory?.data) return { kind: 'ok' };
  const error = memory?.error;
  const notTheApi = error ? wrongBaseUrl(error, deps.baseUrl, '/v1/discover') : undefined;
  if (notTheApi) return { kind: 'not_the_api', why: notTheApi };
  if (error && error.status !== null && error.status >= 400 && error.status < 500) return { kind: 'failed', code: error.code };
  if (error?.local) return { kind: 'unchecked', held: { code: error.code, inSeconds: error.retryAfterSeconds } };
  return { kind: 'unchecked' };
}

/** The summary first: no data tools, the one line, settings not used as given. */
function statusSummary(deps: StatusDeps, read: StatusRead, details: boolean): string {
  // Details name every tool; the default line names toolsets out of scope as `toolset_*`.
  const named = details
    ? read.unusable
    : Object.values(groupedUnusable(read.unusable)).flatMap((tools) => tools.map((tool) => ({ tool, reason: '' })));
  return [
    deps.noDataTools ? `No data tools: ${deps.noDataTools}` : '',
    statusLine(read.budget, read.quota, read.key, named),
    Object.keys(read.partly).length > 0
      ? `Partly usable: ${Object.keys(read.partly).join(', ')}${details ? ' (see partly_usable)' : ''}.`
      : '',
    deps.configWarnings.length > 0 ? `Some settings were not used as given: see server.config_warnings.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The key's part of the answer: configured, working, when checked, and discover's error. */
function keyPart(deps: StatusDeps, read: StatusRead): Json {
  const { key, memory } = read;
  return {
    configured: deps.keyConfigured,
    ok: key.kind === 'ok' ? true : key.kind === 'failed' ? false : null,
    ...(memory ? { checked_seconds_ago: Math.max(0, Math.round((Date.now() - memory.at) / 1000)) } : {}),
    ...(memory?.error ? { error: memory.error.toJSON() } : {}),
  };
}

/** The tools the key may call in part, when there are any (details only; the summary names them): usable, so not in cannot_use, yet not whole. */
function partlyPart(read: StatusRead): Json {
  return Object.keys(read.partly).length > 0 ? { partly_usable: read.partly } : {};
}

/** The default answer: the summary, unusable tools by short reason, the budget's few figures. */
function compactStatus(deps: StatusDeps, read: StatusRead, costLine: string | undefined): Json {
  const { budget, quota } = read;
  return {
    summary: statusSummary(deps, read, false),
    cannot_use: groupedUnusable(read.unusable),
    budget: {
      mode: budget['mode'],
      ...(budget['mode_reason'] ? { mode_reason: budget['mode_reason'] } : {}),
      rate_remaining: budget['rate_remaining'] ?? null,
      rate_window_resets_at: budget['rate_window_resets_at'] ?? null,
      quota_remaining: quota.remaining ?? null,
      quota_resets_at: quota.resets_at ?? null,
      ...(budget['paused_until'] ? { paused_until: budget['paused_until'] } : {}),
      ...(budget['quota_exhausted'] === true ? { quota_exhausted: true } : {}),
    },
    ...(costLine ? { costs: costLine } : {}),
    key: keyPart(deps, read),
    server: { simulated: deps.simulated, config_warnings: deps.configWarnings },
    more: 'details=true adds scopes, capabilities, gate and cache state.',
  };
}

/** details=true: every unusable tool by full reason, each tool's costs, the whole budget, scopes and the server. */
function detailedStatus(deps: StatusDeps, read: StatusRead, costsByTool: Record<string, string> | undefined): Json {
  const { budget, quota, discovered } = read;
  return {
    summary: statusSummary(deps, read, true),
    cannot_use: unusableByReason(read.unusable),
    ...partlyPart(read),
    ...(costsByTool ? { costs: costsByTool } : {}),
    budget: {
      ...budget,
      quota_remaining: quota.remaining ?? null,
      quota_limit: quota.limit ?? null,
      quota_resets_at: quota.resets_at ?? null,
    },
    key: { ...keyPart(deps, read), access_scope: discovered?.['access_scope'] ?? null, capabilities: discovered?.['capabilities'] ?? null },
    server: {
      base_url: deps.baseUrl ?? null,
      simulated: deps.simulated,
      tools_for_datasets: deps.datasetCount(),
      catalog: deps.catalogNotes?.() ?? null,
      config_warnings: deps.configWarnings,
    },
  };
}

/** Screen → read → shape → answer. A refused argument is the only error: what is not known is said in the answer. */
async function answerStatus(deps: StatusDeps, args: ToolArguments, call: CallContext): Promise<CallToolResult> {
  let details: boolean;
  try {
    details = screenDetails(args);
  } catch (error) {
    return errorResult(asApiError(error));
  }
  const read = await readStatus(deps, call);
  // Requests, not calls: one call may read several pages, and the minute's limit counts requests.
  const costs = deps.costs?.();
  const status = details ? detailedStatus(deps, read, costs?.byTool) : compactStatus(deps, read, costs?.line);
  const fitted = await withinBudget(status, deps.resultTokens ?? 8000);
  return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
}

export function statusTool(deps: StatusDeps): ToolDefinition {
  return {
    name: STATUS_TOOL,
    config: {
      title: 'API status and budget',
      description: `${deps.noDataTools ? `NO DATA TOOLS ARE OFFERED: ${deps.noDataTools} ` : ''}Free, no quota: one line on what the key can do now (requests left this minute, quota and its reset, tools it cannot use), and what a call of the tools reading several pages or names spends in requests here. Call it when a tool reports an auth, scope, quota or rate problem.`,
      inputSchema: advertisedSchema({
        type: 'object',
        properties: { details: { type: 'boolean', description: 'Also scopes, capabilities, gate and cache state (default false).' } },
        additionalProperties: false,
      }),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: (args, _ctx, call) => answerStatus(deps, args, call),
  };
}
