/**
 * The last stages of a dataset call: what was read, shaped for the agent (rows kept to the
 * limit and the token budget, `fields` projected, the cursor that continues right after the
 * last row shown, what it covers and what it cost) and answered as a tool result. A call
 * known empty by the calendar is answered for free, with the reason.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { DatasetCall } from '../arguments/dataset-call.js';
import { rememberFields, unknownFieldsError, unknownFieldsNotice } from '../arguments/fields.js';
import { FIELDS_PARAM, supportsFields } from '../arguments/input-schema.js';
import type { DatasetRead } from '../reading/read-dataset.js';
import { knownEmptyResult } from './known-empty-answer.js';
import type { Logger } from '../../log.js';
import { adviceOf } from './advice.js';
import { coversReached, shapingCovers } from './covers.js';
import { successResult, type ShapeOptions } from './results.js';
import { fieldNamesOf, newShapingWork } from './trimming.js';

export interface AnswerDeps {
  client: MarketDataClient;
  budgetTokens: number;
  simulated: boolean;
  log?: Logger | undefined;
}

export async function answerDataset(request: DatasetCall, read: DatasetRead, deps: AnswerDeps): Promise<CallToolResult> {
  if (read.kind === 'known-empty') return knownEmptyResult(request.query.dataset.operationId, read.empty, deps.simulated);
  try {
    return await shapeRead(request, read, deps);
  } catch (error) {
    // A result that failed shaping (a bug of ours, not an ApiError) is not kept in the cache.
    if (!(error instanceof ApiError)) read.forget();
    throw error;
  }
}

async function shapeRead(request: DatasetCall, read: Extract<DatasetRead, { kind: 'read' }>, deps: AnswerDeps): Promise<CallToolResult> {
  const { fields } = request;
  const { dataset } = request.query;
  const work = newShapingWork();
  const shaping: ShapeOptions = { ...shapeOptions(request, read, deps), work };
  let result = read.result;
  if (supportsFields(dataset)) {
    const available = await fieldNamesOf(result.data);
    rememberFields(deps.client, dataset, request.query.values, available);
    const unknown = fields && available.length > 0 ? fields.filter((f) => !available.includes(f)) : [];
    if (fields && unknown.length === fields.length) throw unknownFieldsError(unknown, available, 'after', read.cachedForMs());
    if (unknown.length > 0) {
      const notice = [result.meta.notice, unknownFieldsNotice(unknown, available)].filter(Boolean).join(' ');
      result = { ...result, meta: { ...result.meta, notice } };
    }
  }
  const answer = await successResult(result, { ...shaping, fields });
  // What trimming cost, so that a slow answer can be told from a slow upstream.
  deps.log?.debug(
    { op: dataset.operationId, rows_read: work.rowsRead, exact_counts: work.exactCounts, exact_chars: work.exactChars },
    'shaped',
  );
  return answer;
}

/** How the read is shaped: the budget, the cursor's base, coverage, advice, the limit asked and the units spent. */
function shapeOptions(request: DatasetCall, read: Extract<DatasetRead, { kind: 'read' }>, deps: AnswerDeps): ShapeOptions {
  const { asked, paging, fields } = request;
  const pages = read.pages;
  // The limit asked: the local reader may have asked the upstream for a larger page than the call set.
  const limitAsked = (request.local ? asked : request.query.values)['limit'];
  const limit = typeof limitAsked === 'number' ? limitAsked : undefined;
  return {
    budgetTokens: deps.budgetTokens,
    simulated: deps.simulated,
    // Rows gathered over pages start where the cursor pointed: nothing of them to skip again.
    paging: pages && paging ? { ...paging, skip: 0 } : paging,
    // Rows that never reached back to the range's start cover only what was read.
    covers:
      pages?.reachedBackTo !== undefined ? coversReached(pages.reachedBackTo, asked['to'] ?? asked['session_date']) : shapingCovers(asked),
    ...adviceOf(request.query.dataset),
    used: [...Object.keys(asked).filter((name) => asked[name] !== undefined), ...(fields ? [FIELDS_PARAM] : [])],
    limit,
    // An upstream that sends more rows than the limit asked: the agent gets what it asked for.
    ...(read.onePage ? { rowCap: limit } : {}),
    units: read.units,
    ...(pages ? { cursorAfter: pages.cursorAfter } : {}),
    ...(pages?.moreRows ? { moreRows: pages.moreRows } : {}),
    ...(pages?.cutBeforeLimit ? { limitReadsFurther: false } : {}),
  };
}
