/**
 * The names a query goes out under. The spec leaves most parameter names open (note C):
 * a tool keeps its portable MCP-side names, and the upstream's document says what each is
 * called on the wire (src/registry/openapi/import.ts fills `upstreamNames`).
 */
import type { DatasetDefinition } from './types.js';

/** A validated query, MCP-side names → the names the upstream's document gives them: what goes on the wire. */
export function upstreamQuery<T>(dataset: DatasetDefinition, query: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  const names = dataset.upstreamNames;
  if (!names) return query;
  return Object.fromEntries(Object.entries(query).map(([name, value]) => [upstreamName(dataset, name), value]));
}

/** The name one MCP-side parameter goes out under: own names only, so a parameter called `constructor` is not renamed to Object's constructor. */
export function upstreamName(dataset: DatasetDefinition, name: string): string {
  const names = dataset.upstreamNames;
  return names && Object.hasOwn(names, name) ? (names[name] ?? name) : name;
}
