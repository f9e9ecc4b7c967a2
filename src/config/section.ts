/**
 * One concern's variables read into its settings, the same way for every concern: a value
 * that does not parse falls back (to the nearest bound for a clamped one, else to the
 * default) and is said as a warning in the user's words, `NAME=value is not …; using …`;
 * one the concern cannot do without is a problem instead, and falls back too, so that the
 * valid rest is kept. Secrets are named, never shown (said.ts).
 */
import * as z from 'zod';
import { given, type Shown } from './said.js';

/** What is wrong with one variable, in the words the user reads at start. */
export interface ConfigProblem {
  readonly variable: string;
  readonly message: string;
}

export interface SectionRules<F extends string> {
  /** The variable each field is read from (env-vars.ts). */
  readonly names: Readonly<Record<F, string>>;
  /** How a field's value is quoted back; `value` unless said. */
  readonly shown?: Partial<Record<F, Shown>>;
  /** Fields whose value out of range is replaced by the nearest bound: closer to what was asked than the default. */
  readonly clamped?: ReadonlySet<F>;
  /** Fields whose bad value stops what the concern does: a problem, not a warning. */
  readonly essential?: ReadonlySet<F>;
}

export interface SectionRead<T> {
  /** Frozen: what start-up read is what every module is handed. */
  readonly settings: Readonly<T>;
  readonly warnings: ConfigProblem[];
  readonly problems: ConfigProblem[];
}

/**
 * The variables of `names` that are set, by field: blank values and a host's unsubstituted
 * placeholder (`${user_config.base_url}` left by the MCPB tooling, `${input:key}`) count as unset.
 */
export function setValues<F extends string>(env: NodeJS.ProcessEnv, names: Readonly<Record<F, string>>): Partial<Record<F, string>> {
  const raw: Partial<Record<F, string>> = {};
  for (const [field, variable] of Object.entries(names) as [F, string][]) {
    const value = env[variable];
    if (value !== undefined && value.trim() !== '' && !isUnsubstitutedPlaceholder(value)) raw[field] = value;
  }
  return raw;
}

/** A value that is only a host's placeholder was never meant as a value: it counts as unset, like "". */
export function isUnsubstitutedPlaceholder(value: string): boolean {
  return /^\$\{[^}]*\}$/.test(value.trim());
}

/** The settings of `schema` from `raw` (strings from the environment, or flags), every bad value said once. */
export function readSection<S extends z.ZodObject, F extends keyof z.output<S> & string>(
  schema: S,
  raw: Record<string, unknown>,
  rules: SectionRules<F>,
): SectionRead<z.output<S>> {
  const values = { ...raw };
  const warnings: ConfigProblem[] = [];
  const problems: ConfigProblem[] = [];
  const first = schema.safeParse(values);
  if (first.success) return { settings: Object.freeze(first.data), warnings, problems };
  const seen = new Set<string>();
  for (const issue of first.error.issues) {
    const field = String(issue.path[0] ?? '') as F;
    if (seen.has(field)) continue;
    seen.add(field);
    const variable = rules.names[field];
    const value = values[field];
    const text = `${typeof value === 'string' ? given(variable, value, rules.shown?.[field]) : variable} ${issue.message}`;
    const bound = rules.clamped?.has(field) ? boundOf(issue) : undefined;
    if (bound !== undefined) {
      warnings.push({ variable, message: `${text}; using ${bound}` });
      values[field] = bound;
      continue;
    }
    delete values[field];
    if (rules.essential?.has(field)) problems.push({ variable, message: text });
    else warnings.push({ variable, message: `${text}; ${fallbackOf(schema, field)}` });
  }
  return { settings: Object.freeze(schema.parse(values)), warnings, problems };
}

/** The limit a number crossed (too small or too large), when that was its fault. */
function boundOf(issue: z.core.$ZodIssue): number | undefined {
  if (issue.code === 'too_small' && issue.origin === 'number') return Number(issue.minimum);
  if (issue.code === 'too_big' && issue.origin === 'number') return Number(issue.maximum);
  return undefined;
}

/** What is used instead of a bad value: the field's default, or nothing. */
function fallbackOf(schema: z.ZodObject, field: string): string {
  const shape: Record<string, z.ZodType | undefined> = schema.shape;
  const parsed = shape[field]?.safeParse(undefined);
  const value: unknown = parsed?.success ? parsed.data : undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `using the default (${String(value)})`;
  return 'left unset';
}

/** Decimal digits only, with an optional minus (so `-1` is said to be below the least, not to be no number). */
const DECIMAL = /^-?\d+$/;

/**
 * A whole number of `unit` from `min` to `max`, each fault said as the user reads it.
 * `below` replaces what is said of a value under `min` (a floor with a reason of its own).
 * A string must be decimal digits (surrounding spaces trimmed): `Number()` would read
 * `0x10` as 16, `1e3` as 1000 and `0b11` as 3, which no one writing a setting means.
 */
export function wholeNumber(unit: string, min: number, max: number, below?: string): z.ZodPreprocess<z.ZodNumber> {
  const notOne = `is not a whole number of ${unit}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value.trim()) : value),
    z
      .number({ error: notOne })
      .int({ error: notOne })
      .min(min, { error: below ?? `is less than ${min} ${unit}` })
      .max(max, { error: `is more than ${max} ${unit}` }),
  );
}
