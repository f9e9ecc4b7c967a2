/**
 * One plain form for the many ways OpenAPI lets a document write the same schema. A
 * parameter `limit` may be `{type: integer}`, `{type: [integer, "null"]}` (3.1),
 * `{type: integer, nullable: true}` (3.0), `{anyOf: [{type: integer}, {type: "null"}]}`
 * (FastAPI with Pydantic v2, for every optional parameter), `{allOf: [{$ref: …}]}`, an
 * enum given by `$ref` or a `const`: the reader sees one `PlainSchema` for all of them.
 * References are resolved before this runs (dereference.ts); one left (a circular or an
 * external one) reads as a schema saying nothing.
 */

export type PlainType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
export type EnumValue = string | number | boolean;

export interface PlainSchema {
  /** Undefined: the document says nothing of the type (any value). */
  type: PlainType | undefined;
  /** Whether null is allowed: for a parameter, the same as leaving it out. */
  nullable: boolean;
  enum?: EnumValue[];
  /** Every pattern the value must match (allOf may stack several). */
  patterns?: string[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
  title?: string;
  items?: PlainSchema;
  properties?: Record<string, PlainSchema>;
  /** An object's values under names it does not list (`additionalProperties`): rows keyed by ticker. */
  values?: PlainSchema;
  /** Properties an object must have. */
  required?: string[];
}

type Json = Record<string, unknown>;

const TYPES: readonly PlainType[] = ['string', 'integer', 'number', 'boolean', 'array', 'object'];
/** How deep a schema is read: response schemas nest, parameter schemas barely do. */
const MAX_DEPTH = 12;
/** A union of more branches is read as saying nothing precise. */
const MAX_BRANCHES = 20;
/**
 * Schema objects read for one top-level schema at most: resolved references are shared
 * objects, so a hostile document could make a small text read as an enormous tree.
 */
const MAX_NODES = 5000;

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullSchema = (value: unknown): boolean =>
  isJson(value) &&
  (value['type'] === 'null' ||
    value['const'] === null ||
    (Array.isArray(value['enum']) && value['enum'].length > 0 && value['enum'].every((v) => v === null)));
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const isEnumValue = (value: unknown): value is EnumValue =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/** The plain form of a schema as a document writes it; `{type: undefined}` for anything unreadable. */
export function plainSchema(raw: unknown): PlainSchema {
  return read(raw, 0, { left: MAX_NODES });
}

interface Budget {
  left: number;
}

function read(raw: unknown, depth: number, budget: Budget): PlainSchema {
  budget.left -= 1;
  if (!isJson(raw) || depth > MAX_DEPTH || budget.left < 0) return { type: undefined, nullable: false };
  let nullable = raw['nullable'] === true;
  let type: PlainType | undefined;
  const declared = raw['type'];
  if (typeof declared === 'string') {
    if (declared === 'null') nullable = true;
    else type = TYPES.find((t) => t === declared);
  } else if (Array.isArray(declared)) {
    // 3.1: `[T, "null"]`. Several real types read as text, which is what a query carries anyway.
    const real = declared.filter((t): t is PlainType => TYPES.includes(t as PlainType));
    nullable ||= declared.includes('null');
    type = real.length === 1 ? real[0] : real.length > 1 ? widest(real) : undefined;
  }
  const own = ownKeywords(raw, type, nullable, depth, budget);
  // allOf: every branch holds; anyOf/oneOf: null branches mean optional, the rest are merged as alternatives.
  let schema = own;
  const allOf = Array.isArray(raw['allOf']) ? raw['allOf'].slice(0, MAX_BRANCHES) : [];
  for (const branch of allOf) schema = intersect(schema, read(branch, depth + 1, budget));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = Array.isArray(raw[key]) ? (raw[key] as unknown[]).slice(0, MAX_BRANCHES) : [];
    if (branches.length === 0) continue;
    const real = branches.filter((b) => !isNullSchema(b));
    const alternatives = real.map((b) => read(b, depth + 1, budget));
    const merged = alternatives.length > 0 ? alternatives.reduce(union) : { type: undefined, nullable: true };
    schema = intersect(schema, { ...merged, nullable: merged.nullable || real.length < branches.length });
  }
  return schema;
}

/** The keywords a schema states itself, beside any composition. */
function ownKeywords(raw: Json, type: PlainType | undefined, nullable: boolean, depth: number, budget: Budget): PlainSchema {
  const schema: PlainSchema = { type, nullable };
  const values = Array.isArray(raw['enum']) ? (raw['enum'] as unknown[]) : 'const' in raw ? [raw['const']] : undefined;
  if (values) {
    if (values.includes(null)) schema.nullable = true;
    const kept = values.filter(isEnumValue);
    if (kept.length > 0) schema.enum = [...new Set(kept)];
    // An enum with no declared type: its values say it.
    schema.type ??= typeOfValues(kept);
  }
  if (typeof raw['pattern'] === 'string') schema.patterns = [raw['pattern']];
  if (typeof raw['format'] === 'string') schema.format = raw['format'];
  // 3.0 writes `exclusiveMinimum: true` beside `minimum`; 3.1 writes the bound itself.
  const minimum = num(raw['minimum']);
  const maximum = num(raw['maximum']);
  const exclusiveMin = num(raw['exclusiveMinimum']) ?? (raw['exclusiveMinimum'] === true ? minimum : undefined);
  const exclusiveMax = num(raw['exclusiveMaximum']) ?? (raw['exclusiveMaximum'] === true ? maximum : undefined);
  const step = schema.type === 'integer' ? 1 : 0;
  if (exclusiveMin !== undefined) schema.minimum = Math.max(exclusiveMin + step, minimum ?? -Infinity);
  else if (minimum !== undefined) schema.minimum = minimum;
  if (exclusiveMax !== undefined) schema.maximum = Math.min(exclusiveMax - step, maximum ?? Infinity);
  else if (maximum !== undefined) schema.maximum = maximum;
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    const value = num(raw[key]);
    if (value !== undefined && value >= 0) schema[key] = Math.floor(value);
  }
  if ('default' in raw && raw['default'] !== null) schema.default = raw['default'];
  if (typeof raw['description'] === 'string') schema.description = raw['description'];
  if (typeof raw['title'] === 'string') schema.title = raw['title'];
  if (raw['items'] !== undefined) {
    schema.items = read(raw['items'], depth + 1, budget);
    schema.type ??= 'array';
  }
  if (isJson(raw['properties'])) {
    schema.properties = Object.fromEntries(
      Object.entries(raw['properties'])
        .slice(0, 200)
        .map(([name, value]) => [name, read(value, depth + 1, budget)]),
    );
    schema.type ??= 'object';
  }
  if (isJson(raw['additionalProperties'])) {
    schema.values = read(raw['additionalProperties'], depth + 1, budget);
    schema.type ??= 'object';
  }
  if (Array.isArray(raw['required'])) schema.required = raw['required'].filter((v): v is string => typeof v === 'string');
  return schema;
}

function typeOfValues(values: readonly EnumValue[]): PlainType | undefined {
  const types = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
  if (types.size === 1) return [...types][0] as PlainType;
  if ([...types].every((t) => t === 'integer' || t === 'number')) return 'number';
  return values.length > 0 ? 'string' : undefined;
}

/** The one type several types can all be read as: numbers as number, anything else as text. */
function widest(types: readonly PlainType[]): PlainType {
  if (types.every((t) => t === 'integer' || t === 'number')) return 'number';
  return 'string';
}

/** What both schemas say: each bound the tighter, enums the common values, every pattern kept. */
function intersect(a: PlainSchema, b: PlainSchema): PlainSchema {
  const type = a.type === undefined ? b.type : b.type === undefined || a.type === b.type ? a.type : narrower(a.type, b.type);
  const out: PlainSchema = { type, nullable: nullableBoth(a, b) };
  const values = a.enum && b.enum ? a.enum.filter((v) => b.enum?.includes(v)) : (a.enum ?? b.enum);
  if (values) out.enum = values;
  const patterns = [...(a.patterns ?? []), ...(b.patterns ?? [])];
  if (patterns.length > 0) out.patterns = [...new Set(patterns)];
  const format = a.format ?? b.format;
  if (format !== undefined) out.format = format;
  const tighter = (x: number | undefined, y: number | undefined, pick: (...n: number[]) => number): number | undefined =>
    x === undefined ? y : y === undefined ? x : pick(x, y);
  const bounds = {
    minimum: tighter(a.minimum, b.minimum, Math.max),
    maximum: tighter(a.maximum, b.maximum, Math.min),
    minLength: tighter(a.minLength, b.minLength, Math.max),
    maxLength: tighter(a.maxLength, b.maxLength, Math.min),
    minItems: tighter(a.minItems, b.minItems, Math.max),
    maxItems: tighter(a.maxItems, b.maxItems, Math.min),
  };
  for (const [key, value] of Object.entries(bounds)) if (value !== undefined) out[key as keyof typeof bounds] = value;
  // The outer schema's words win: a parameter's own description over its referenced type's.
  const def = 'default' in a ? a.default : b.default;
  if (def !== undefined) out.default = def;
  const description = a.description ?? b.description;
  if (description !== undefined) out.description = description;
  const title = a.title ?? b.title;
  if (title !== undefined) out.title = title;
  const items = a.items && b.items ? intersect(a.items, b.items) : (a.items ?? b.items);
  if (items) out.items = items;
  if (a.properties || b.properties) out.properties = { ...b.properties, ...a.properties };
  const keyed = a.values ?? b.values;
  if (keyed) out.values = keyed;
  const required = [...(a.required ?? []), ...(b.required ?? [])];
  if (required.length > 0) out.required = [...new Set(required)];
  return out;
}

/**
 * Whether null is allowed where both schemas hold: only if both allow it, except that a
 * schema constraining no type or value (a description, a bound, the outer schema of an
 * `anyOf`) does not forbid it, and one saying null is fine beside it is believed.
 */
function nullableBoth(a: PlainSchema, b: PlainSchema): boolean {
  const saysNothing = (s: PlainSchema): boolean => s.type === undefined && s.enum === undefined;
  if (saysNothing(a) || saysNothing(b)) return a.nullable || b.nullable;
  return a.nullable && b.nullable;
}

function narrower(a: PlainType, b: PlainType): PlainType {
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'integer';
  return a;
}

/** What either schema allows: the looser bound, the values of both enums, no pattern unless both agree. */
function union(a: PlainSchema, b: PlainSchema): PlainSchema {
  const type = a.type === b.type ? a.type : a.type === undefined || b.type === undefined ? undefined : widest([a.type, b.type]);
  const out: PlainSchema = { type, nullable: a.nullable || b.nullable };
  if (a.enum && b.enum) out.enum = [...new Set([...a.enum, ...b.enum])];
  const samePatterns = JSON.stringify(a.patterns ?? []) === JSON.stringify(b.patterns ?? []);
  if (samePatterns && a.patterns) out.patterns = a.patterns;
  if (a.format !== undefined && a.format === b.format) out.format = a.format;
  const looser = (x: number | undefined, y: number | undefined, pick: (...n: number[]) => number): number | undefined =>
    x === undefined || y === undefined ? undefined : pick(x, y);
  const bounds = {
    minimum: looser(a.minimum, b.minimum, Math.min),
    maximum: looser(a.maximum, b.maximum, Math.max),
    minLength: looser(a.minLength, b.minLength, Math.min),
    maxLength: looser(a.maxLength, b.maxLength, Math.max),
  };
  for (const [key, value] of Object.entries(bounds)) if (value !== undefined) out[key as keyof typeof bounds] = value;
  const description = a.description ?? b.description;
  if (description !== undefined) out.description = description;
  if (a.items && b.items) out.items = union(a.items, b.items);
  // An alternative that is no list says nothing of items: a list of rows beside a summary
  // object (`anyOf: [{type: array, items: Row}, {type: object}]`) keeps its rows' schema.
  else if (a.items && b.type !== 'array') out.items = a.items;
  else if (b.items && a.type !== 'array') out.items = b.items;
  if (a.properties || b.properties) out.properties = { ...b.properties, ...a.properties };
  const values = a.values ?? b.values;
  if (values) out.values = values;
  return out;
}
