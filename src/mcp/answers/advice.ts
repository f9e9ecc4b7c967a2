/**
 * What trimming advice may suggest for a dataset: the parameters it has that narrow an
 * answer (named in the usual order), the largest `limit` it takes, whether it takes a
 * ticker. Derived once per dataset from its schemas: advice names only what the agent can
 * actually send.
 */
import { paramJsonSchema, type DatasetDefinition } from '../../catalog/index.js';
import { FIELDS_PARAM, supportsFields } from '../arguments/input-schema.js';

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
export function adviceOf(dataset: DatasetDefinition): Advice {
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
