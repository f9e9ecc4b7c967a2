/**
 * The row fields each dataset has shown, so that `fields` naming none of them can be
 * refused before a request costs a unit. The spec gives no response shape for most
 * datasets: the names are learned from answers, per client (one account's view, kept by
 * the client: src/api/fields-seen.ts), and apart per `format`, which changes the rows'
 * shape. A response schema that lists the rows' properties (ours or the upstream's
 * document) tells them before any answer.
 */
import type { MarketDataClient } from '../../api/client.js';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { documentedFields } from './documented-fields.js';

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
