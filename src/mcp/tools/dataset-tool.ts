/**
 * The dataset tools: one per dataset, a value built from its catalog (or upstream)
 * definition. A call goes through stages, each a module of its own, each handing the next
 * a typed value:
 *
 *   screen  arguments/dataset-call.ts   the arguments checked and sorted by where each goes, and the
 *                                       query planned: named once, its parameter roles worked out (DatasetCall)
 *   read    reading/read-dataset.ts     the upstream's pages through the client (DatasetRead)
 *   shape   answers/dataset-answer.ts   rows, fields, budget, cursor and meta (the result)
 *   answer  here                        checked against the output schema, or the error as a tool error
 *
 * The dealer history has the same stages for its views (arguments/dealer-call.ts,
 * reading/dealer-read.ts, answers/dealer-answer.ts). Both walked, file by file: src/mcp/README.md.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallContext } from '../../api/call-context.js';
import type { MarketDataClient, ProgressEvent } from '../../api/client.js';
import type { DatasetDefinition } from '../../catalog/index.js';
import type { Logger } from '../../log.js';
import { screenDatasetCall } from '../arguments/dataset-call.js';
import { advertisedSchema, toolInputJsonSchema, type ToolArguments } from '../arguments/input-schema.js';
import { answerDataset } from '../answers/dataset-answer.js';
import { outputProblem, outputSchemaOf, responseShapeError } from '../answers/output-schema.js';
import { asApiError, errorResult } from '../answers/tool-errors.js';
import { progressReporter } from '../call-context.js';
import { readDataset } from '../reading/read-dataset.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { datasetCostSentence } from './request-costs.js';
import { screenDealerCall } from '../arguments/dealer-call.js';
import { answerDealerRead } from '../answers/dealer-answer.js';
import { readDealer } from '../reading/dealer-read.js';

export interface ToolDeps {
  client: MarketDataClient;
  resultTokens: number;
  simulated: boolean;
  /** Where a bug of ours is logged with its stack. */
  log?: Logger | undefined;
}

/** What one call of a dataset tool runs with: the tool's dependencies, the call's context, its progress. */
export interface DatasetCallDeps extends ToolDeps {
  call: CallContext;
  onProgress: ((event: ProgressEvent) => void) | undefined;
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

export function datasetTool(dataset: DatasetDefinition, deps: ToolDeps): ToolDefinition {
  const outputSchema = outputSchemaOf(dataset);
  const name = toolNameOf(dataset);
  return {
    name,
    config: {
      title: dataset.title,
      description: toolDescription(dataset, deps.client),
      inputSchema: advertisedSchema(toolInputJsonSchema(dataset)),
      ...(outputSchema ? { outputSchema: outputSchema.advertised } : {}),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: async (args, ctx, call) => {
      try {
        const result = await callDataset(dataset, args, { ...deps, call, onProgress: progressReporter(ctx) });
        // Checked here rather than left to the SDK, whose refusal is a bare protocol error:
        // an agent is told, with the code and what to do, that the API broke the documented shape.
        const problem = outputSchema && result.isError !== true ? outputProblem(outputSchema, result.structuredContent) : undefined;
        if (problem) throw responseShapeError(problem);
        return result;
      } catch (error) {
        return errorResult(asApiError(error, deps.log, name), { structured: outputSchema === undefined });
      }
    },
  };
}

/**
 * One call of a dataset's tool, its stages composed (screen, read, shape), left unchecked
 * against the output schema and its errors thrown: what the tool answers, and what the tools
 * over several names (fan-out.ts) ask per name with the context of their own call.
 */
export function callDataset(dataset: DatasetDefinition, args: ToolArguments, deps: DatasetCallDeps): Promise<CallToolResult> {
  // The dealer history answers with views of its own; every other dataset with its rows.
  return dataset.toolOutput ? answerViews(dataset, args, deps) : answerRows(dataset, args, deps);
}

/** A call of a dataset answered with its rows: screened, read, shaped. */
async function answerRows(dataset: DatasetDefinition, args: ToolArguments, deps: DatasetCallDeps): Promise<CallToolResult> {
  const request = screenDatasetCall(dataset, args, deps.client);
  const read = await readDataset(request, deps);
  return answerDataset(request, read, { client: deps.client, budgetTokens: deps.resultTokens, simulated: deps.simulated, log: deps.log });
}

/** A call of the dealer history answered in the view asked: screened, its pages walked, shaped. */
async function answerViews(dataset: DatasetDefinition, args: ToolArguments, deps: DatasetCallDeps): Promise<CallToolResult> {
  const request = screenDealerCall(dataset, args, deps.client);
  const read = await readDealer(request, deps);
  return answerDealerRead(request, read, { budgetTokens: deps.resultTokens, simulated: deps.simulated });
}
