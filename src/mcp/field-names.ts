/**
 * The row fields each dataset has shown, so that `fields` naming none of them can be
 * refused before a request costs a unit. The spec gives no response shape for most
 * datasets: the names are learned from answers, per client (one account's view), and
 * kept apart per `format`, which changes the rows' shape.
 */
import type { MarketDataClient } from '../api/client.js';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';

const seen = new WeakMap<MarketDataClient, Map<string, Set<string>>>();

function keyOf(dataset: DatasetDefinition, query: QueryValues): string {
  return `${dataset.operationId}|${String(query['format'] ?? '')}`;
}

export function rememberFields(client: MarketDataClient, dataset: DatasetDefinition, query: QueryValues, names: readonly string[]): void {
  if (names.length === 0) return;
  let byDataset = seen.get(client);
  if (!byDataset) {
    byDataset = new Map();
    seen.set(client, byDataset);
  }
  const key = keyOf(dataset, query);
  const known = byDataset.get(key) ?? new Set<string>();
  for (const name of names) known.add(name);
  byDataset.set(key, known);
}

/** Field names this dataset is known to have, or undefined before its first answer. */
export function knownFields(client: MarketDataClient, dataset: DatasetDefinition, query: QueryValues): ReadonlySet<string> | undefined {
  return seen.get(client)?.get(keyOf(dataset, query));
}
