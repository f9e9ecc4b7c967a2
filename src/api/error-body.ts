/**
 * What an API said in an error body that is not the spec's envelope. A JSON body came from
 * the API (a proxy answers in HTML), and the common forms all carry a message the agent can
 * act on: GitHub's `{message, errors, documentation_url}`, FastAPI's `{detail: [{loc, msg}]}`
 * and `{detail: "text"}`, RFC 9457 problem details `{title, detail, status}`, JSON:API's
 * `{errors: [{title, detail, source}]}`, `{error: "text"}`, `{error: {message}}`,
 * OAuth's `{error_description}`. The text returned is raw: the caller sanitizes and caps it.
 */

type Json = Record<string, unknown>;

/** Items of a list of errors said, at most (a 422 may list every field of a form). */
const ITEMS = 3;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** FastAPI's `loc` (`["query", "size"]`) as `query.size`. */
function place(item: Json): string | undefined {
  const loc = item['loc'];
  if (Array.isArray(loc)) return loc.map(String).join('.') || undefined;
  const source = item['source'];
  if (isRecord(source)) return text(source['parameter']) ?? text(source['pointer']);
  return text(item['field']) ?? text(item['param']) ?? text(item['parameter']) ?? text(item['name']);
}

/** One item of a list of errors: its message, after the place it names. */
function itemSaid(item: unknown): string | undefined {
  if (typeof item === 'string') return text(item);
  if (!isRecord(item)) return undefined;
  const message = text(item['msg']) ?? text(item['message']) ?? text(item['detail']) ?? text(item['title']) ?? text(item['code']);
  if (message === undefined) return undefined;
  const where = place(item);
  return where === undefined ? message : `${where}: ${message}`;
}

/** A list of errors said as one sentence: the first few, and how many more. */
function listSaid(items: readonly unknown[]): string | undefined {
  const said = items.map(itemSaid).filter((s): s is string => s !== undefined);
  if (said.length === 0) return undefined;
  const more = said.length > ITEMS ? ` (and ${said.length - ITEMS} more)` : '';
  return said.slice(0, ITEMS).join('; ') + more;
}

/** A value that says something: text, a list of errors, or an object carrying a message. */
function said(value: unknown): string | undefined {
  if (Array.isArray(value)) return listSaid(value);
  if (isRecord(value)) return itemSaid(value);
  return text(value);
}

/** What the body says of the error, or undefined when it carries no message in a form we know. */
export function errorBodyMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return text(body);
  if (Array.isArray(body)) return listSaid(body);
  if (!isRecord(body)) return undefined;
  // RFC 9457: the title names the problem, the detail this occurrence of it.
  const title = text(body['title']);
  const detail = said(body['detail']);
  const head =
    title !== undefined && detail !== undefined && !detail.startsWith(title)
      ? `${title}: ${detail}`
      : (detail ?? text(body['message']) ?? text(body['error_description']) ?? said(body['error']) ?? text(body['msg']) ?? title);
  const errors = Array.isArray(body['errors']) ? listSaid(body['errors']) : undefined;
  if (head === undefined) return errors;
  return errors === undefined || head.includes(errors) ? head : `${head} (${errors})`;
}
