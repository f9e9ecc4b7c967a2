/**
 * Constraints every host can read. Some hosts strip `pattern`, `minimum`, `maximum`,
 * `format` and `default` before their model sees a tool's schema (Codex does), leaving
 * `limit` as a bare integer. So each property's range, default and date format are said
 * in its description, in a few words; the keywords the words replace are dropped, as
 * tools/list has a token budget and the server checks every argument itself (a bad one is
 * refused with the rule and a hint, never sent).
 */
import { GENERAL_TICKER_PATTERN, meantBound, OSI_CONTRACT_PATTERN, UNSTATED_MAX_LENGTH } from '../../catalog/index.js';

type JsonSchemaObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonSchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Patterns said in words; the words replace them. */
const WORDED_PATTERNS: Record<string, string> = {
  '^\\d{4}-\\d{2}-\\d{2}$': 'YYYY-MM-DD',
  [GENERAL_TICKER_PATTERN.source]: 'Upper case, e.g. AAPL or BRK.B',
  // Its description names the format and gives an example, which says more than the regex.
  [OSI_CONTRACT_PATTERN.source]: 'OSI symbol',
};

/** The words a property's constraints come to, e.g. "1-2000, default 50" or "YYYY-MM-DD". */
function constraintWords(property: JsonSchemaObject): string[] {
  const words: string[] = [];
  // A bound no one means (a safe-integer bound from `.int()`) is left unsaid.
  const min = meantBound(property['minimum']);
  const max = meantBound(property['maximum']);
  if (typeof min === 'number' && typeof max === 'number') words.push(`${min}-${max}`);
  else if (typeof min === 'number') words.push(`>= ${min}`);
  else if (typeof max === 'number') words.push(`<= ${max}`);
  // A list's length the same way (a document's ticker list as an array): "up to 10", "2 to 10".
  const fewest = typeof property['minItems'] === 'number' && property['minItems'] > 1 ? property['minItems'] : undefined;
  const most = property['maxItems'];
  if (typeof most === 'number') words.push(fewest === undefined ? `up to ${most}` : `${fewest} to ${most}`);
  else if (fewest !== undefined) words.push(`at least ${fewest}`);
  const pattern = property['pattern'];
  const worded = typeof pattern === 'string' ? WORDED_PATTERNS[pattern] : undefined;
  if (worded) words.push(worded);
  else if (property['format'] === 'date') words.push('YYYY-MM-DD');
  if (property['format'] === 'date-time') words.push('ISO date-time');
  const fallback = property['default'];
  if (typeof fallback === 'number' || typeof fallback === 'string' || typeof fallback === 'boolean')
    words.push(`default ${String(fallback)}`);
  return words;
}

/** One property with its constraints in its description; unchanged when it has none. */
export function portableProperty(property: JsonSchemaObject): JsonSchemaObject {
  const description = typeof property['description'] === 'string' ? property['description'] : '';
  // Words the description already carries are not repeated ("YYYY-MM-DD", "default 60").
  const words = constraintWords(property).filter((w) => !description.includes(w) && !description.includes(w.replace('-', ' to ')));
  const out: JsonSchemaObject = { ...property };
  for (const key of ['minimum', 'maximum', 'default', 'minItems', 'maxItems'] as const) delete out[key];
  if (typeof out['pattern'] === 'string' && WORDED_PATTERNS[out['pattern']]) delete out['pattern'];
  // A list's items the same way (a document's `symbols` as an array of tickers): their pattern
  // is said by the list's example where it gives one ("e.g. GME,AMC"), else in words.
  if (out['maxLength'] === UNSTATED_MAX_LENGTH) delete out['maxLength'];
  if (isObject(out['items']) && out['items']['maxLength'] === UNSTATED_MAX_LENGTH) {
    const plain = { ...out['items'] };
    delete plain['maxLength'];
    out['items'] = plain;
  }
  const items = out['items'];
  const itemPattern = isObject(items) && typeof items['pattern'] === 'string' ? WORDED_PATTERNS[items['pattern']] : undefined;
  if (isObject(items) && itemPattern) {
    const rest = { ...items };
    delete rest['pattern'];
    out['items'] = rest;
    if (!description.includes('e.g.')) words.push(`each ${itemPattern}`);
  }
  if (words.length === 0) return out;
  const joined = words.join(', ');
  out['description'] = description
    ? `${description.replace(/\.$/, '')}; ${joined}.`
    : `${joined[0]?.toUpperCase() ?? ''}${joined.slice(1)}.`;
  return out;
}
