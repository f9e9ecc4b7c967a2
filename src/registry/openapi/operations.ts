/**
 * The GET operations of a document, read as OpenAPI allows them to be written: parameters
 * declared on the path item and on the operation (the operation's win, by name and
 * location), schemas in any of their forms (schema-forms.ts), Swagger 2's inline
 * parameter types, arrays with their `style`/`explode` (or `collectionFormat`), and paths
 * relative to `servers` (or Swagger 2's `basePath`). An operation is skipped only for a
 * reason OpenAPI itself forbids (a parameter without a name, one declared twice, a path
 * variable no parameter declares, a `$ref` to nothing) or one this server cannot honour
 * (a required header it does not send), and the reason is kept for the report.
 */
import { registryPath } from '../../catalog/registry-text.js';
import type { DocumentSource } from './document-source.js';
import { plainSchema, type PlainSchema } from './schema-forms.js';

/** A name of the document quoted in a reason: its own characters only, short (the reason reaches a tool's description). */
export const shown = (name: string): string => registryPath(name, 40) || '(unprintable)';

export type ArrayDelimiter = ',' | ' ' | '|';

export interface DocumentParameter {
  /** As the document names it, on the wire. */
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly description: string | undefined;
  readonly schema: PlainSchema;
  /** Arrays only: each value as its own `name=value` pair, or all joined by `delimiter`. */
  readonly explode: boolean;
  readonly delimiter: ArrayDelimiter;
}

export interface DocumentOperation {
  /** The path as the document's `paths` names it: what the disk copy keeps. */
  readonly key: string;
  /** Where requests go below the base URL: the `servers` base path, then the key. */
  readonly path: string;
  readonly operationId: unknown;
  readonly summary: string | undefined;
  readonly description: string | undefined;
  readonly parameters: readonly DocumentParameter[];
  /** The JSON schema of a 200 answer, when the document gives one: read (and resolved) when first asked for. */
  readonly response: PlainSchema | undefined;
  readonly onDemand: boolean | undefined;
  readonly cacheClass: unknown;
}

/** A GET operation of the document, listed before it is read (reading resolves and cleans its item). */
export interface ListedOperation {
  readonly key: string;
  readonly path: string;
  /** Its id as written, for telling a meta endpoint apart without reading it. */
  readonly operationId: unknown;
}

export interface OperationsListed {
  /** Every GET operation, in the document's order. */
  readonly operations: ListedOperation[];
  /** Path items that are no operation OpenAPI allows (not an object, or a GET that is not one). */
  readonly skipped: { key: string; path: string; reason: string }[];
  /** What every key sits below (from `servers` or `basePath`), '' when nothing. */
  readonly basePath: string;
}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** More parameters than any real operation needs: the rest of such an operation is not read. */
const MAX_PARAMETERS = 50;
const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);
/** The answer a dataset's rows come in: a 200, else the first 2XX the document describes. */
const SUCCESS = ['200', '2XX', '2xx', '203'];
/** What of a GET operation is read, besides its success answers. */
const READ_OF_GET = ['operationId', 'summary', 'description', 'parameters', 'x-on-demand', 'x-cache-class'];

/**
 * How a part of a path item is read: whole, by its keys (each read as the function says), or
 * not at all.
 */
export type PartReading = 'whole' | ((key: string) => PartReading) | undefined;

/**
 * The parts of a path item this reader reads, by the keys it reads them under. To list an
 * operation: its parameters and its GET's, the GET's words and flags. Its success answers
 * (the row fields a tool checks `fields` against) only when they are first asked for: a first
 * start lists up to 100 datasets the upstream adds, and most are never called. The rest (other
 * methods, error answers, examples) is never resolved (document-source.ts).
 */
export type ItemReading = 'listing' | 'answers';

const ITEM_READINGS: Record<ItemReading, PartReading> = {
  listing: (key) =>
    key === 'get' ? (part) => (READ_OF_GET.includes(part) ? 'whole' : undefined) : key === 'parameters' ? 'whole' : undefined,
  answers: (key) =>
    key === 'get' ? (part) => (part === 'responses' ? (code) => (SUCCESS.includes(code) ? 'whole' : undefined) : undefined) : undefined,
};

/** How a reading reads a whole path item. */
export const itemReading = (reading: ItemReading): PartReading => ITEM_READINGS[reading];

/**
 * The parts of a path item a reading reads whole, to look for references in: a part that
 * should be an object and is not, or is a reference, is read whole, as what it names.
 */
export function readParts(item: unknown, reading: ItemReading): unknown[] {
  const parts: unknown[] = [];
  const visit = (value: unknown, how: PartReading): void => {
    if (how === 'whole' || (how !== undefined && (!isJson(value) || typeof value['$ref'] === 'string'))) parts.push(value);
    else if (how !== undefined && isJson(value)) for (const key of Object.keys(value)) visit(value[key], how(key));
  };
  visit(item, ITEM_READINGS[reading]);
  return parts;
}

/** Whether a reading reads the place these tokens name inside a path item, or something below it. */
export function readsAt(tokens: readonly string[], reading: ItemReading): boolean {
  let how = ITEM_READINGS[reading];
  for (const token of tokens) {
    if (how === 'whole') return true;
    if (how === undefined) return false;
    how = how(token);
  }
  return how !== undefined;
}

/** A problem that skips the operation, with the reason in words. */
export class Unusable extends Error {}

const NOT_AN_OPERATION = 'its GET operation is not an object';

/**
 * Lists the GET operations of a document without reading them: a path item is read (its
 * references resolved, its text cleaned) only when readOperation is asked for it. `baseUrl`
 * is where requests go: relative `servers` resolve against the document's own address below it.
 */
export function listOperations(source: DocumentSource, baseUrl?: string): OperationsListed {
  const basePath = basePathOf(source.head, baseUrl);
  const operations: ListedOperation[] = [];
  const skipped: OperationsListed['skipped'] = [];
  for (const key of source.keys) {
    const path = fullPath(basePath, key);
    let shape = source.shape(key);
    // A path item by reference: what it holds is known once resolved.
    if (shape.kind === 'unknown') shape = shapeOfItem(source.item(key));
    // OpenAPI: a path item and its operations are objects; one without a GET is no dataset.
    if (shape.kind === 'not-object' || shape.kind === 'get-not-object') skipped.push({ key, path, reason: NOT_AN_OPERATION });
    else if (shape.kind === 'get') operations.push({ key, path, operationId: shape.operationId });
  }
  return { operations, skipped, basePath };
}

function shapeOfItem(item: unknown): ReturnType<DocumentSource['shape']> {
  if (!isJson(item)) return { kind: 'not-object' };
  if (item['get'] === undefined) return { kind: 'none' };
  const get = item['get'];
  return isJson(get) ? { kind: 'get', operationId: get['operationId'] } : { kind: 'get-not-object' };
}

/** One listed operation, read; throws Unusable with the reason it cannot be used. */
export function readListed(source: DocumentSource, listed: ListedOperation): DocumentOperation {
  const item = source.item(listed.key);
  if (!isJson(item) || !isJson(item['get'])) throw new Unusable(NOT_AN_OPERATION);
  return readOperation(listed.key, listed.path, item, item['get'], () => source.answers(listed.key));
}

/**
 * Where the document's keys sit below the base URL. OpenAPI 3: the first server's URL, its
 * variables at their defaults, resolved against the document's own address; its path less
 * the base URL's own. Swagger 2: `basePath`. Only the path is taken: requests never go to
 * another host than the base URL, whatever the document names.
 */
function basePathOf(document: Json, baseUrl: string | undefined): string {
  const base = safeUrl(baseUrl ?? '') ?? new URL('https://upstream.invalid/');
  const basePathname = base.pathname.replace(/\/+$/, '');
  let pathname: string | undefined;
  const servers = document['servers'];
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  if (isJson(first) && typeof first['url'] === 'string') {
    const url = withVariables(first['url'], first['variables']);
    // The document's own address: relative servers resolve against it (OpenAPI 3, "Server Object").
    const documentUrl = new URL(`${basePathname}/v1/openapi.json`, base.origin);
    pathname = safeUrl(url, documentUrl)?.pathname;
  } else if (typeof document['basePath'] === 'string') pathname = document['basePath'];
  if (pathname === undefined) return '';
  let decoded = safeDecode(pathname).replace(/\/+$/, '');
  if (basePathname !== '' && (decoded === basePathname || decoded.startsWith(`${basePathname}/`)))
    decoded = decoded.slice(basePathname.length);
  return decoded === '/' ? '' : decoded;
}

function withVariables(url: string, variables: unknown): string {
  if (!isJson(variables)) return url;
  return url.replace(/\{([^{}]{1,60})\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isJson(variable) && typeof variable['default'] === 'string' ? variable['default'] : whole;
  });
}

function safeUrl(value: string, base?: URL): URL | undefined {
  try {
    return new URL(value, base);
  } catch {
    return undefined;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURI(value);
  } catch {
    return value;
  }
}

/**
 * The key below the base path. A key that already starts with it (a document listing
 * `servers: [{url: "/v1"}]` beside absolute `/v1/...` keys, a common slip) is not prefixed
 * twice: no API serves `/v1/v1/...` on purpose.
 */
function fullPath(basePath: string, key: string): string {
  if (basePath === '' || key === basePath || key.startsWith(`${basePath}/`)) return key;
  return `${basePath}${key.startsWith('/') ? '' : '/'}${key}`;
}

/** `answers`: the GET's `responses`, resolved when first asked for (the operation's `response`). */
function readOperation(key: string, path: string, item: Json, get: Json, answers: () => unknown): DocumentOperation {
  const parameters = mergedParameters(item['parameters'], get['parameters']);
  const declared = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
  for (const variable of key.matchAll(/\{([^{}]*)\}/g)) {
    const name = variable[1] ?? '';
    if (!declared.has(name)) throw new Unusable(`path variable {${shown(name)}} is declared by no parameter`);
  }
  const used = new Set([...key.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]));
  let response: { read: PlainSchema | undefined } | undefined;
  return {
    key,
    path,
    operationId: get['operationId'],
    summary: typeof get['summary'] === 'string' ? get['summary'] : undefined,
    description: typeof get['description'] === 'string' ? get['description'] : undefined,
    // A path parameter the path does not use cannot be sent anywhere: left out.
    parameters: parameters.filter((p) => p.in === 'query' || used.has(p.name)),
    get response() {
      response ??= { read: responseSchema(answers()) };
      return response.read;
    },
    onDemand: typeof get['x-on-demand'] === 'boolean' ? get['x-on-demand'] : undefined,
    cacheClass: get['x-cache-class'],
  };
}

/** Path-item parameters, overridden by the operation's of the same name and location. */
function mergedParameters(onPath: unknown, onOperation: unknown): DocumentParameter[] {
  const byKey = new Map<string, DocumentParameter>();
  for (const level of [onPath, onOperation]) {
    if (level === undefined) continue;
    if (!Array.isArray(level)) throw new Unusable('parameters is not a list');
    const seen = new Set<string>();
    for (const [index, raw] of level.slice(0, MAX_PARAMETERS).entries()) {
      for (const parameter of readParameter(raw, index)) {
        const id = `${parameter.in}:${parameter.name}`;
        if (seen.has(id)) throw new Unusable(`parameter "${shown(parameter.name)}" is declared twice`);
        seen.add(id);
        byKey.set(id, parameter);
      }
    }
  }
  return [...byKey.values()];
}

/** One parameter (a deepObject one as its members); none for one this server may leave out (an optional header or cookie). */
function readParameter(raw: unknown, index: number): DocumentParameter[] {
  if (raw === null) throw new Unusable(`parameter ${index} is a $ref to nothing`);
  if (!isJson(raw)) throw new Unusable(`parameter ${index} is not an object`);
  if (typeof raw['$ref'] === 'string') throw new Unusable(`parameter ${index} is a $ref that cannot be resolved`);
  const name = raw['name'];
  const location = raw['in'];
  if (typeof name !== 'string' || name === '' || name.length > 100) throw new Unusable(`parameter ${index} has no name`);
  if (typeof location !== 'string' || !LOCATIONS.has(location)) throw new Unusable(`parameter "${shown(name)}" has no location`);
  const required = location === 'path' || raw['required'] === true;
  if (location === 'header' || location === 'cookie') {
    if (required) throw new Unusable(`it requires the ${location} "${shown(name)}", which this server does not send`);
    return [];
  }
  const schema = parameterSchema(raw);
  if (location === 'query' && raw['style'] === 'deepObject') return deepObjectMembers(name, required, schema);
  const { explode, delimiter } = arrayForm(raw, location);
  return [
    {
      name,
      in: location as 'path' | 'query',
      required,
      description: typeof raw['description'] === 'string' ? raw['description'] : schema.description,
      schema,
      explode,
      delimiter,
    },
  ];
}

/**
 * A `style: deepObject` query parameter (JSON:API's `page` with `size`, `number`, `cursor`...)
 * as the parameters it is sent as: one `name[member]=value` pair per member its object schema
 * lists, each read (and its role found) like any parameter written with that bracketed name. A
 * member is required only where the object is and its schema requires it.
 */
function deepObjectMembers(name: string, required: boolean, schema: PlainSchema): DocumentParameter[] {
  const members = schema.type === 'object' ? Object.entries(schema.properties ?? {}) : [];
  if (members.length === 0) {
    if (required) throw new Unusable(`the deepObject parameter "${shown(name)}" lists no members to send`);
    return [];
  }
  return members.slice(0, MAX_PARAMETERS).map(([member, memberSchema]) => ({
    name: `${name}[${member}]`,
    in: 'query' as const,
    required: required && (schema.required ?? []).includes(member),
    description: memberSchema.description,
    schema: memberSchema,
    explode: false,
    delimiter: ',' as const,
  }));
}

/** `schema` (OpenAPI 3), a `content` map's schema, or Swagger 2's keywords on the parameter itself. */
function parameterSchema(raw: Json): PlainSchema {
  if (raw['schema'] !== undefined) {
    if (raw['schema'] === null) throw new Unusable(`the schema of "${shown(String(raw['name']))}" is a $ref to nothing`);
    return plainSchema(raw['schema']);
  }
  if (isJson(raw['content'])) {
    const [first] = Object.values(raw['content']);
    return plainSchema(isJson(first) ? first['schema'] : undefined);
  }
  return plainSchema(raw);
}

/** How an array parameter goes on the wire: OpenAPI 3's style and explode, or Swagger 2's collectionFormat. */
function arrayForm(raw: Json, location: string): { explode: boolean; delimiter: ArrayDelimiter } {
  const format = raw['collectionFormat'];
  if (typeof format === 'string') {
    if (format === 'multi') return { explode: true, delimiter: ',' };
    return { explode: false, delimiter: format === 'ssv' ? ' ' : format === 'pipes' ? '|' : ',' };
  }
  const style = typeof raw['style'] === 'string' ? raw['style'] : location === 'query' ? 'form' : 'simple';
  const delimiter: ArrayDelimiter = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',';
  // OpenAPI 3: explode defaults to true for form, false for every other style.
  const explode = typeof raw['explode'] === 'boolean' ? raw['explode'] : style === 'form';
  return { explode: explode && style === 'form', delimiter };
}

/** The JSON schema of the operation's success answer, if it gives one. */
function responseSchema(responses: unknown): PlainSchema | undefined {
  if (!isJson(responses)) return undefined;
  const answer = SUCCESS.map((code) => responses[code]).find(isJson);
  const content = answer && isJson(answer['content']) ? answer['content'] : undefined;
  if (!content) return isJson(answer) && isJson(answer['schema']) ? plainSchema(answer['schema']) : undefined;
  const [, media] = Object.entries(content).find(([type]) => /json|\*\/\*/i.test(type)) ?? [];
  return isJson(media) && media['schema'] !== undefined ? plainSchema(media['schema']) : undefined;
}
