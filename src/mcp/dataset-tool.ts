/** One MCP tool per dataset, generated from its catalog (or upstream) definition. */
import type { CallToolResult, McpServer, RegisteredTool, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { MarketDataClient, ProgressEvent } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { validateRequest, type DatasetDefinition } from '../catalog/index.js';
import { quoteValue } from '../sanitize.js';
import { advertisedSchema, FIELDS_PARAM, supportsFields, toolInputJsonSchema, type ToolArguments } from './input-schema.js';
import { answerDealer } from './dealer-answer.js';
import { pagingOf, shapingCovers } from './page-args.js';
import { advertisedMetaSchema, project, successResult } from './results.js';
import { asApiError, errorResult, refusalError } from './tool-errors.js';

export interface ToolDeps {
  client: MarketDataClient;
  resultTokens: number;
  simulated: boolean;
}

/** `flow.ticker_overview` → `flow_ticker_overview`: stable, and within ^[a-zA-Z0-9_-]{1,64}$. */
export function toolNameOf(dataset: Pick<DatasetDefinition, 'operationId'>): string {
  return dataset.operationId.replace(/\./g, '_').slice(0, 64);
}

export function toolDescription(dataset: DatasetDefinition): string {
  // What every tool shares (quota, paging, budget) is said once, in the server instructions.
  return `${dataset.description}${dataset.onDemand ? ' On demand.' : ''}`;
}

/** The output schema a tool declares, where the spec gives the response shape. */
function outputSchemaOf(dataset: DatasetDefinition): z.ZodType | undefined {
  if (!dataset.response) return undefined;
  const data =
    dataset.toolOutput ??
    (dataset.response instanceof z.ZodObject ? (dataset.response.shape as Record<string, z.ZodType>)['data'] : undefined);
  return data ? z.object({ data, meta: advertisedMetaSchema }) : undefined;
}

export function registerDatasetTool(server: McpServer, dataset: DatasetDefinition, deps: ToolDeps): RegisteredTool {
  const outputSchema = outputSchemaOf(dataset);
  return server.registerTool(
    toolNameOf(dataset),
    {
      title: dataset.title,
      description: toolDescription(dataset),
      inputSchema: advertisedSchema(toolInputJsonSchema(dataset)),
      ...(outputSchema ? { outputSchema } : {}),
      // Read-only: the destructive and idempotent hints only mean something for tools that write.
      annotations: { readOnlyHint: true },
    },
    async (args: ToolArguments, ctx: ServerContext) => {
      try {
        return await callDataset(dataset, args, ctx, deps);
      } catch (error) {
        return errorResult(asApiError(error));
      }
    },
  );
}

async function callDataset(dataset: DatasetDefinition, args: ToolArguments, ctx: ServerContext, deps: ToolDeps): Promise<CallToolResult> {
  if (dataset.toolOutput) {
    return answerDealer(dataset, args, {
      client: deps.client,
      budgetTokens: deps.resultTokens,
      simulated: deps.simulated,
      signal: ctx.mcpReq.signal,
      onProgress: progressReporter(ctx),
    });
  }
  const { [FIELDS_PARAM]: rawFields, ...given } = args;
  const { args: rest, paging } = pagingOf(dataset, given);
  const fields = supportsFields(dataset) ? parseFields(rawFields) : undefined;
  if (!supportsFields(dataset) && rawFields !== undefined) throw unknownParam(FIELDS_PARAM, dataset);
  const { ticker, ...query } = dataset.ticker ? rest : { ticker: undefined, ...rest };
  const checked = validateRequest(dataset, ticker, query);
  if (!checked.ok) throw refusalError(checked.refusal);

  const result = await deps.client.dataset(dataset, checked.ticker, checked.query, {
    signal: ctx.mcpReq.signal,
    onProgress: progressReporter(ctx),
  });
  if (fields) {
    const { available } = project(result.data, fields);
    if (available.length > 0 && !fields.some((f) => available.includes(f))) {
      throw new ApiError({
        code: 'VALIDATION_ERROR',
        status: 400,
        message: 'None of the requested fields is in this dataset.',
        hint: `Fields available: ${available.slice(0, 30).join(', ')}.`,
        local: true,
      });
    }
  }
  return successResult(result, {
    budgetTokens: deps.resultTokens,
    fields,
    simulated: deps.simulated,
    paging,
    covers: shapingCovers(checked.query),
    narrowing: narrowingOf(dataset),
  });
}

function parseFields(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
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
  return parsed.data;
}

function unknownParam(name: string, dataset: DatasetDefinition): ApiError {
  return new ApiError({
    code: 'VALIDATION_ERROR',
    status: 400,
    message: `Unknown parameter "${name}".`,
    hint: `Accepted parameters: ${[...(dataset.ticker ? ['ticker'] : []), ...new Set([...Object.keys(dataset.query), ...Object.keys(dataset.shaping ?? {})])].join(', ')}.`,
    local: true,
  });
}

/** Parameters this tool has that narrow an answer: the only ones trimming advice may name. */
function narrowingOf(dataset: DatasetDefinition): string[] {
  const has = new Set([...Object.keys(dataset.query), ...(supportsFields(dataset) ? [FIELDS_PARAM] : [])]);
  return ['fields', 'limit', 'from', 'to', 'session_date', 'tickers', 'format'].filter((name) => has.has(name));
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
