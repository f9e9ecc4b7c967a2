/** One MCP tool per dataset, generated from its catalog (or upstream) definition. */
import type { CallToolResult, McpServer, RegisteredTool, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { MarketDataClient, ProgressEvent } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { withoutUnreadableNext } from '../api/result-meta.js';
import { paramJsonSchema, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { quoteValue } from '../sanitize.js';
import { answerDealer } from './dealer-answer.js';
import { datasetCostSentence } from './request-costs.js';
import { knownFields, rememberFields } from './field-names.js';
import { readWindow, rowFilterOf } from './row-filters.js';
import { knownScopeRefusal, withScopeAlternatives } from './scope-refusal.js';
import { beforeOpenNotice, followsSessions, knownEmptyDates, knownEmptyResult, knownEmptyWindow } from './known-empty.js';
import { advertisedSchema, FIELDS_PARAM, supportsFields, toolInputJsonSchema, type ToolArguments } from './input-schema.js';
import { portableOutputSchema } from './output-schema.js';
import { upstreamRoles } from '../catalog/param-roles.js';
import { coversReached, localValues, readLocally, readsLocally, type LocalRead } from './local-pages.js';
import { pagingOf, shapingCovers } from './page-args.js';
import { isOurCursor } from './paging.js';
import { advertisedMetaSchema, successResult } from './results.js';
import { fieldNamesOf, newShapingWork } from './trimming.js';
import { asApiError, errorResult, refusalError } from './tool-errors.js';
import { checkScreenedArguments, screenToolArguments } from './tool-arguments.js';

export interface ToolDeps {
  client: MarketDataClient;
  resultTokens: number;
  simulated: boolean;
  /** Where a bug of ours is logged with its stack. */
  log?: Logger | undefined;
  /** The upstream's openapi.json as last accepted: its response schemas may name the rows' fields. */
  document?: (() => unknown) | undefined;
}

/** `flow.ticker_overview` → `flow_ticker_overview`: stable, and within ^[a-zA-Z0-9_-]{1,64}$. */
export function toolNameOf(dataset: Pick<DatasetDefinition, 'operationId'>): string {
  return dataset.operationId.replace(/\./g, '_').slice(0, 64);
}

export function toolDescription(dataset: DatasetDefinition, client?: MarketDataClient): string {
  // What every tool shares (quota, paging, budget) is said once, in the server instructions;
  // what a call here spends, where it depends on the upstream's page size, is said per tool.
  const cost = client ? datasetCostSentence(client, dataset) : undefined;
  return `${dataset.description}${dataset.onDemand ? ' On demand.' : ''}${cost ? ` ${cost}` : ''}`;
}

/** The output schema a tool declares, where the spec gives the response shape. */
function outputSchemaOf(dataset: DatasetDefinition): OutputSchema | undefined {
  if (!dataset.response) return undefined;
  const known = outputSchemas.get(dataset);
  if (known) return known;
  const data =
    dataset.toolOutput ??
    (dataset.response instanceof z.ZodObject ? (dataset.response.shape as Record<string, z.ZodType>)['data'] : undefined);
  if (!data) return undefined;
  const zod = z.object({ data, meta: advertisedMetaSchema });
  const schema = { zod, advertised: portableOutputSchema(zod) };
  outputSchemas.set(dataset, schema);
  return schema;
}

interface OutputSchema {
  zod: z.ZodType;
  advertised: StandardSchemaWithJSON<unknown, unknown>;
}

/** One per dataset: HTTP builds a server per request and must not convert again. */
const outputSchemas = new WeakMap<DatasetDefinition, OutputSchema>();

/** Where a result breaks its tool's output schema, in one line (path: message); undefined when it conforms. */
function outputProblem(schema: OutputSchema, value: unknown): string | undefined {
  const checked = schema.zod.safeParse(value);
  if (checked.success) return undefined;
  const issue = deepestIssue(checked.error.issues);
  if (!issue) return 'unknown problem';
  return `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`.slice(0, 200);
}

/** For a union (the dealer data is snapshots or levels), the issue of the branch that got furthest. */
function deepestIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  let best: z.core.$ZodIssue | undefined;
  for (const issue of issues) {
    const candidate =
      issue.code === 'invalid_union'
        ? (deepestIssue(issue.errors.flat().map((i) => ({ ...i, path: [...issue.path, ...i.path] }))) ?? issue)
        : issue;
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

function responseShapeError(problem: string): ApiError {
  return new ApiError({
    code: 'RESPONSE_INVALID',
    status: null,
    message: `The API's answer does not have the documented shape (${problem}).`,
    hint: 'Nothing usable came back for these arguments; try another session or ticker, or call again later.',
    recoverable: true,
    local: true,
  });
}

export function registerDatasetTool(server: McpServer, dataset: DatasetDefinition, deps: ToolDeps): RegisteredTool {
  const outputSchema = outputSchemaOf(dataset);
  const name = toolNameOf(dataset);
  return server.registerTool(
    name,
    {
      title: dataset.title,
      description: toolDescription(dataset, deps.client),
      inputSchema: advertisedSchema(toolInputJsonSchema(dataset)),
      ...(outputSchema ? { outputSchema: outputSchema.advertised } : {}),
      // Read-only: the destructive and idempotent hints only mean something for tools that write.
      annotations: { readOnlyHint: true },
    },
    async (args: ToolArguments, ctx: ServerContext) => {
      try {
        const result = await callDataset(dataset, args, ctx, deps);
        // Checked here rather than left to the SDK, whose refusal is a bare protocol error:
        // an agent is told, with the code and what to do, that the API broke the documented shape.
        const problem = outputSchema && result.isError !== true ? outputProblem(outputSchema, result.structuredContent) : undefined;
        if (problem) throw responseShapeError(problem);
        return result;
      } catch (error) {
        return errorResult(asApiError(error, deps.log, name), { structured: outputSchema === undefined });
      }
    },
  );
}

/**
 * One call of a dataset's tool, as a unit: screening, scope, paging, local filters, shaping.
 * Tools over several names (src/mcp/fan-out.ts) call it per name, as an agent would.
 */
export async function callDataset(
  dataset: DatasetDefinition,
  args: ToolArguments,
  ctx: ServerContext,
  deps: ToolDeps,
): Promise<CallToolResult> {
  const projectable = supportsFields(dataset);
  // One screening for every tool: nulls, host control properties, unknown and prototype names.
  const screened = screenToolArguments(dataset, args, { extraParams: projectable ? [FIELDS_PARAM] : [] });
  if (!screened.ok) throw refusalError(screened.refusal);
  // Out of scope by discover: answered here, for every tool alike, before any request.
  const outOfScope = knownScopeRefusal(deps.client, dataset.operationId);
  if (outOfScope) throw outOfScope;
  if (dataset.toolOutput) {
    return answerDealer(dataset, screened.args, {
      client: deps.client,
      budgetTokens: deps.resultTokens,
      simulated: deps.simulated,
      signal: ctx.mcpReq.signal,
      onProgress: progressReporter(ctx),
    }).catch(async (error: unknown) => {
      throw await withScopeAlternatives(deps.client, dataset.operationId, error);
    });
  }
  // The cursor of an earlier page brings back its `fields` too (src/mcp/page-args.ts).
  const { args: paged, paging, fields: rawFields } = pagingOf(dataset, screened.args);
  // A cursor of ours brings back the query of its first page: input from the agent again, screened as it is opened.
  const reopened = isOurCursor(screened.args['cursor']) ? screenToolArguments(dataset, paged) : { ok: true as const, args: paged };
  if (!reopened.ok) throw refusalError(reopened.refusal);
  const resolved = reopened.args;
  const checked = checkScreenedArguments(dataset, resolved);
  if (!checked.ok) throw refusalError(checked.refusal);
  const rowFilter = rowFilterOf(dataset, resolved);
  // Ours the upstream does not offer (a page size, tickers, a session...): applied here over its pages.
  // So is a row filter of the tool's own, in every dialect: `limit` then counts the rows that
  // match, as it does for a filter the upstream applies, whoever does the filtering.
  const local = readsLocally(dataset) ? localValues(dataset, resolved) : rowFilter ? {} : undefined;
  const asked = local ? { ...checked.query, ...local } : checked.query;
  // Known empty by the calendar: answered here, for free, saying why.
  const empty =
    knownEmptyDates(asked, Date.now(), followsSessions(dataset)) ??
    (rowFilter ? knownEmptyWindow(asked, rowFilter, Date.now()) : undefined);
  if (empty) return knownEmptyResult(dataset.operationId, empty, deps.simulated);
  const fields = projectable ? parseFields(rawFields) : undefined;
  const known = fields ? knownFields(deps.client, dataset, checked.query, deps.document?.()) : undefined;
  const unknownBefore = known ? (fields ?? []).filter((f) => !known.names.has(f)) : [];
  // A schema's list may be partial: alone, it refuses only a call naming none of its fields.
  if (known && unknownBefore.length > 0 && (known.seen || unknownBefore.length === fields?.length))
    throw unknownFieldsError(unknownBefore, [...known.names], 'before');

  // A row filter is read locally (above), so what is sent is the checked query as it stands.
  const sent = checked.query;
  const callOptions = { signal: ctx.mcpReq.signal, onProgress: progressReporter(ctx) };
  const withAlternatives = async (error: unknown): Promise<never> => {
    throw await withScopeAlternatives(deps.client, dataset.operationId, error);
  };
  const fetchPage = (query: typeof sent) => deps.client.dataset(dataset, checked.ticker, query, callOptions).catch(withAlternatives);
  let pages: LocalRead | undefined;
  let windowUnits: number | undefined;
  /** Whether the answer is one upstream page as the API sent it (not gathered here over several). */
  let onePage = false;
  let fetched: Awaited<ReturnType<typeof fetchPage>>;
  if (local) {
    const localDeps = { client: deps.client, ...callOptions };
    pages = await readLocally(
      dataset,
      checked.ticker,
      withoutCursor(dataset, checked.query),
      local,
      paging ?? NO_PAGING,
      rowFilter,
      localDeps,
    ).catch(withAlternatives);
    fetched = pages.result;
  } else {
    // A time window past the first page is read on with the upstream's cursor, when it has one.
    const cursorName = upstreamRoles(dataset).cursor;
    const nextPage = cursorName ? (cursor: string) => fetchPage({ ...sent, [cursorName]: cursor }) : undefined;
    const read = await readWindow(await fetchPage(sent), rowFilter, nextPage);
    const reachable = cursorName ? read.result.meta : withoutUnreadableNext(read.result.meta);
    // The result itself unless its meta changed: its rows are read in shaping, where a failure is handled.
    fetched = reachable === read.result.meta ? read.result : { ...read.result, meta: reachable };
    windowUnits = read.units;
    onePage = read.pages === 1;
  }
  const beforeOpen = beforeOpenNotice(dataset, checked.query, Date.now());
  const noticed = beforeOpen
    ? { ...fetched, meta: { ...fetched.meta, notice: [beforeOpen, fetched.meta.notice].filter(Boolean).join(' ') } }
    : fetched;
  // The limit asked: the local reader may have asked the upstream for a larger page than the call set.
  const limitSource = local ? asked : sent;
  const sentLimit = typeof limitSource['limit'] === 'number' ? limitSource['limit'] : undefined;
  const result = noticed;
  const work = newShapingWork();
  // What trimming cost, so that a slow answer can be told from a slow upstream.
  const shaped = (answer: CallToolResult): CallToolResult => {
    deps.log?.debug(
      { op: dataset.operationId, rows_read: work.rowsRead, exact_counts: work.exactCounts, exact_chars: work.exactChars },
      'shaped',
    );
    return answer;
  };
  try {
    const shaping = {
      work,
      budgetTokens: deps.resultTokens,
      simulated: deps.simulated,
      // Rows gathered over pages start where the cursor pointed: nothing of them to skip again.
      paging: pages && paging ? { ...paging, skip: 0 } : paging,
      // Rows that never reached back to the range's start cover only what was read.
      covers:
        pages?.reachedBackTo !== undefined
          ? coversReached(pages.reachedBackTo, asked['to'] ?? asked['session_date'])
          : shapingCovers(asked),
      ...adviceOf(dataset),
      used: [...Object.keys(asked).filter((name) => asked[name] !== undefined), ...(fields ? [FIELDS_PARAM] : [])],
      limit: sentLimit,
      // An upstream that sends more rows than the limit asked: the agent gets what it asked for.
      ...(onePage ? { rowCap: sentLimit } : {}),
      units: pages ? pages.units : windowUnits,
      ...(pages ? { cursorAfter: pages.cursorAfter } : {}),
      ...(pages?.moreRows ? { moreRows: pages.moreRows } : {}),
    };
    if (!projectable) return shaped(await successResult(result, shaping));
    const available = await fieldNamesOf(result.data);
    rememberFields(deps.client, dataset, checked.query, available);
    const unknown = fields && available.length > 0 ? fields.filter((f) => !available.includes(f)) : [];
    if (fields && unknown.length === fields.length)
      throw unknownFieldsError(unknown, available, 'after', deps.client.cachedForMs(dataset, checked.ticker, sent));
    const reported =
      unknown.length === 0
        ? result
        : {
            ...result,
            meta: { ...result.meta, notice: [result.meta.notice, unknownFieldsNotice(unknown, available)].filter(Boolean).join(' ') },
          };
    return shaped(await successResult(reported, { ...shaping, fields }));
  } catch (error) {
    // A result that failed shaping (a bug of ours, not an ApiError) is not kept in the cache.
    if (!(error instanceof ApiError)) {
      deps.client.forget(dataset, checked.ticker, sent);
      pages?.forget();
    }
    throw error;
  }
}

/** A tool that takes no cursor: read from the first page, no cursor handed back. */
const NO_PAGING = { base: undefined, upstreamCursor: undefined, skip: 0 };

/** The query less the upstream's cursor: the local reader sets it page by page. */
function withoutCursor(dataset: DatasetDefinition, query: QueryValues): QueryValues {
  const name = upstreamRoles(dataset).cursor;
  if (name === undefined) return query;
  return Object.fromEntries(Object.entries(query).filter(([key]) => key !== name));
}

function unknownFieldsNotice(unknown: readonly string[], available: readonly string[]): string {
  return `Not fields of this dataset, left out: ${unknown.join(', ')}. Fields available: ${available.slice(0, 30).join(', ')}.`;
}

/**
 * `before`: refused from the names earlier answers showed, nothing sent. `after`: the
 * first answer of this dataset showed none of them; it was charged, and asking again is
 * free only while the rows are cached (`cachedMs`), which the hint says only when true.
 */
function unknownFieldsError(unknown: readonly string[], available: readonly string[], when: 'before' | 'after', cachedMs = 0): ApiError {
  const again =
    when === 'before'
      ? ''
      : cachedMs > 0
        ? ` The rows are cached for the next ${Math.floor(cachedMs / 1000)} s: asking again with these names is free.`
        : ' These names are now known here: a call naming none of them is refused before any request; a call with names from the list is charged as usual.';
  // Honest about the unit spent: nothing could have told the names before this answer.
  const first =
    when === 'after' ? ' The API publishes no field list for this dataset, so this first call was sent (and charged) to learn them.' : '';
  return new ApiError({
    code: 'VALIDATION_ERROR',
    status: when === 'before' ? 400 : null,
    message: `Not fields of this dataset: ${unknown.map((f) => quoteValue(f)).join(', ')}.`,
    hint: `Fields available: ${available.slice(0, 30).join(', ')}.${first}${again}`,
    local: when === 'before',
  });
}

function parseFields(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = z
    .array(z.string().regex(/^[a-z0-9_]{1,60}$/))
    .max(30)
    .safeParse(raw);
  if (!parsed.success) {
    throw new ApiError({
      code: 'VALIDATION_ERROR',
      status: 400,
      message: `Invalid value ${quoteValue(raw)} for "fields".`,
      hint: '"fields" is a list of up to 30 snake_case field names, e.g. ["ticker","short_float_pct"].',
      local: true,
    });
  }
  return parsed.data.length > 0 ? [...new Set(parsed.data)] : undefined;
}

/** Query parameters that select no fewer rows, or are required (so always set): never offered as a way to narrow. */
const NOT_NARROWING = new Set(['limit', 'cursor', FIELDS_PARAM, 'with_tickers', 'lookback_days']);
/** The usual narrowing parameters, named first and in this order. */
const USUAL_NARROWING = ['fields', 'limit', 'from', 'to', 'session_date', 'tickers', 'format'];

interface Advice {
  /** Parameters this tool has that narrow an answer: the only ones advice may name. */
  narrowing: string[];
  /** The largest `limit` the tool accepts, from its schema. */
  limitMax: number | undefined;
  takesTicker: boolean;
}

/** One per dataset: HTTP builds a server per request. */
const advice = new WeakMap<DatasetDefinition, Advice>();

/** What advice needs of a dataset, derived once from its query schemas. */
function adviceOf(dataset: DatasetDefinition): Advice {
  const known = advice.get(dataset);
  if (known) return known;
  // The tool's parameters, those applied here included: advice names what the agent can send.
  const offered = {
    ...dataset.query,
    ...Object.fromEntries((dataset.localParams ?? []).flatMap((n) => (dataset.shaping?.[n] ? [[n, dataset.shaping[n]]] : []))),
  };
  const filters = Object.entries(offered)
    .filter(([name, schema]) => !NOT_NARROWING.has(name) && schema.safeParse(undefined).success)
    .map(([name]) => name);
  const has = new Set([...filters, ...('limit' in offered ? ['limit'] : []), ...(supportsFields(dataset) ? [FIELDS_PARAM] : [])]);
  const usual = USUAL_NARROWING.filter((name) => has.has(name));
  const limitSchema = offered['limit'];
  const max = limitSchema ? paramJsonSchema(limitSchema).schema['maximum'] : undefined;
  const made: Advice = {
    narrowing: [...usual, ...[...has].filter((name) => !usual.includes(name))],
    limitMax: typeof max === 'number' ? max : undefined,
    takesTicker: dataset.ticker !== undefined,
  };
  advice.set(dataset, made);
  return made;
}

/** Progress notifications while a call waits (queue, 202, Retry-After), when the client asked for them. */
export function progressReporter(ctx: ServerContext): ((event: ProgressEvent) => void) | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (event) => {
    progress += 1;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, message: event.message } })
      .catch(() => undefined);
  };
}
