/**
 * Names from the document, in the forms a tool uses: our portable operation id (which the
 * MCP layer turns into a tool name) and the snake_case name a tool takes a parameter under.
 */
import type { DatasetDefinition } from '../../catalog/types.js';

/** An upstream id in any common form; anything else is replaced by one derived from the path. */
const UPSTREAM_ID = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;
/** Ours: dotted snake_case, which the MCP layer turns into a tool name. */
const PORTABLE_ID = /^[a-z][a-z0-9_]{0,40}(\.[a-z0-9_]{1,40}){0,2}$/;
/** A tool's parameter name: what the MCP-side name of a document parameter must become. */
export const TOOL_PARAM_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Our portable id for an upstream operation: `getEtfFlowsByTicker`, `etf-flows-by-ticker`
 * and `etf.flows_by_ticker` all become `etf.flows_by_ticker`-like ids; a missing or odd id
 * is derived from the path (`/v1/etf/flows-by-ticker/{ticker}` → `etf.flows_by_ticker`).
 * The upstream's `namespace` (see namespaceOf), when it has one, is left out.
 */
export function portableOperationId(raw: unknown, path: string, namespace = ''): string {
  if (typeof raw === 'string' && UPSTREAM_ID.test(raw)) {
    const snake = snakeId(raw);
    const bare = namespace && underscored(snake).startsWith(namespace) ? snake.slice(namespace.length) : snake;
    if (PORTABLE_ID.test(bare)) return bare;
  }
  const segments = path
    .split('/')
    .slice(2)
    .filter((s) => s !== '' && !s.startsWith('{'))
    .map((s) =>
      s
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter(Boolean);
  const [group, ...rest] = segments;
  const id = rest.length > 0 ? `${group}.${rest.join('_')}` : (group ?? 'dataset');
  return /^[a-z]/.test(id) ? id.slice(0, 80) : `d_${id}`.slice(0, 80);
}

/** An upstream id in snake form: `getEtfFlowsByTicker`, `Etf_GetFlowsByTicker` → `etf_flows_by_ticker`, kebab and dotted ids lower-cased. */
function snakeId(raw: string): string {
  return (
    raw
      .replace(/^get(?=[A-Z])/, '')
      .replace(/^get[_.-]/i, '')
      // NSwag's Tag_Verb: `Etf_GetFlowsByTicker` is `getEtfFlowsByTicker` with its tag first.
      .replace(/^([A-Za-z][A-Za-z0-9]*)_Get(?=[A-Z])/, '$1_')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/-/g, '_')
      .replace(/_+/g, '_')
  );
}

const underscored = (id: string): string => id.replace(/\./g, '_');

/**
 * A prefix the upstream puts before every id (`marketdata.` in `marketdata.etf_flows`), learnt
 * from the operations on paths we know: their ids are ours behind it. Stripped from imported
 * ids, so that a dataset the catalog does not know gets the tool name it would get from an
 * upstream without the prefix. Two known operations at least, all agreeing; else none.
 */
export function namespaceOf(known: readonly { raw: unknown; dataset: DatasetDefinition }[]): string {
  const prefixes = new Set<string>();
  let count = 0;
  for (const { raw, dataset } of known) {
    if (typeof raw !== 'string' || !UPSTREAM_ID.test(raw)) continue;
    const theirs = underscored(snakeId(raw));
    const ours = underscored(dataset.operationId);
    if (!theirs.endsWith(ours)) return '';
    prefixes.add(theirs.slice(0, theirs.length - ours.length));
    count += 1;
  }
  const [only] = prefixes;
  return count >= 2 && prefixes.size === 1 && only !== undefined && /^[a-z][a-z0-9]*_$/.test(only) ? only : '';
}

/** `pageSize`, `page-size`, `date.gte`, `filter[side]` → `page_size`, `date_gte`, `filter_side`: the portable form a tool takes. */
export function snakeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** A path with its variables blanked: two documents that name the ticker otherwise still name one route. */
export function routeOf(path: string): string {
  return path.replace(/\{[^{}]*\}/g, '{}');
}
