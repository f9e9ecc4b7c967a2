/**
 * `fields`: the agent's list of row fields, checked, and the row fields each dataset has
 * shown, so that `fields` naming none of them can be refused before a request costs a unit. The spec gives no response shape for most
 * datasets: the names are learned from answers, per client (one account's view, kept by
 * the client: src/api/fields-seen.ts), and apart per `format`, which changes the rows'
 * shape. A response schema that lists the rows' properties (ours or the upstream's
 * document) tells them before any answer.
 */
import * as z from 'zod';
import type { MarketDataClient } from '../../api/client.js';
import { apiError, type ApiError } from '../../api/errors.js';
import { invalidArguments } from '../answers/tool-errors.js';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { quoteValue } from '../../sanitize.js';
import { documentedFields } from './documented-fields.js';
import { FIELD_NAME_PATTERN as FIELD_NAME } from '../../catalog/params.js';

/** The agent's `fields`, checked: up to 30 names, each once; undefined when none was given. */
export function parseFields(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = z.array(z.string().regex(FIELD_NAME)).max(30).safeParse(raw);
  if (!parsed.success) {
    throw invalidArguments(
      `Invalid value ${quoteValue(raw)} for "fields".`,
      '"fields" is a list of up to 30 field names as the rows name them, e.g. ["ticker","short_float_pct"].',
    );
  }
  return parsed.data.length > 0 ? [...new Set(parsed.data)] : undefined;
}

function keyOf(dataset: DatasetDefinition, query: QueryValues): string {
  return `${dataset.operationId}|${String(query['format'] ?? '')}`;
}

export function rememberFields(client: MarketDataClient, dataset: DatasetDefinition, query: QueryValues, names: readonly string[]): void {
  client.fieldsSeen.add(keyOf(dataset, query), names);
}

export interface KnownFields {
  names: ReadonlySet<string>;
  /** Names from answers seen (true), or only from a schema, which may list fewer than the rows have. */
  seen: boolean;
}

/** Field names this dataset is known to have, or undefined when neither an answer nor a schema told. */
export function knownFields(client: MarketDataClient, dataset: DatasetDefinition, query: QueryValues): KnownFields | undefined {
  const seenNames = client.fieldsSeen.get(keyOf(dataset, query));
  const documented = documentedFields(dataset, query);
  if (!seenNames && !documented) return undefined;
  return { names: new Set([...(seenNames ?? []), ...(documented ?? [])]), seen: seenNames !== undefined };
}

/** Refused before any request: none of `fields` is among the names known (an earlier answer, or a schema when the call names none of its fields). */
export function refuseUnknownFields(
  client: MarketDataClient,
  dataset: DatasetDefinition,
  query: QueryValues,
  fields: readonly string[] | undefined,
): void {
  const known = fields ? knownFields(client, dataset, query) : undefined;
  const unknown = known ? (fields ?? []).filter((f) => !known.names.has(f)) : [];
  // A schema's list may be partial: alone, it refuses only a call naming none of its fields.
  if (known && unknown.length > 0 && (known.seen || unknown.length === fields?.length))
    throw unknownFieldsError(unknown, [...known.names], 'before');
}

export function unknownFieldsNotice(unknown: readonly string[], available: readonly string[]): string {
  return `Not fields of this dataset, left out: ${unknown.join(', ')}. Fields available: ${available.slice(0, 30).join(', ')}.`;
}

/**
 * `before`: refused from the names earlier answers showed, nothing sent. `after`: the
 * first answer of this dataset showed none of them; it was charged, and asking again is
 * free only while the rows are cached (`cachedMs`), which the hint says only when true.
 */
export function unknownFieldsError(
  unknown: readonly string[],
  available: readonly string[],
  when: 'before' | 'after',
  cachedMs = 0,
): ApiError {
  const again =
    when === 'before'
      ? ''
      : cachedMs > 0
        ? ` The rows are cached for the next ${Math.floor(cachedMs / 1000)} s: asking again with these names is free.`
        : ' These names are now known here: a call naming none of them is refused before any request; a call with names from the list is charged as usual.';
  // Honest about the unit spent: nothing could have told the names before this answer.
  const first =
    when === 'after' ? ' The API publishes no field list for this dataset, so this first call was sent (and charged) to learn them.' : '';
  // After a charged answer, no status: the API answered 200, and the refusal is this server's.
  return apiError('VALIDATION_ERROR', {
    status: when === 'before' ? 400 : null,
    message: `Not fields of this dataset: ${unknown.map((f) => quoteValue(f)).join(', ')}.`,
    hint: `Fields available: ${available.slice(0, 30).join(', ')}.${first}${again}`,
    local: when === 'before',
  });
}
