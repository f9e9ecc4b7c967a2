/**
 * Text that came from outside (upstream payloads, user input echoed in hints) is data,
 * not instructions: strip what can hide or reorder text, and cap its length.
 */
// C0/C1 controls except tab and newline, zero-width characters, bidi embeddings,
// overrides and isolates, the BOM, and the line/paragraph separators.
const HIDDEN_OR_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2028\u2029\u2060-\u2064\u2066-\u2069\uFEFF]/g;

export function sanitizeText(value: string, maxLength = 2000): string {
  const clean = value.replace(HIDDEN_OR_CONTROL, '');
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

/** A user-supplied value quoted back in an error: short and printable. */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(sanitizeText(text, 40));
}

/** Every string in an upstream payload, keys included, cleaned and capped; numbers and structure untouched. */
export function sanitizeDeep(value: unknown, maxLength = 2000): unknown {
  if (typeof value === 'string') return sanitizeText(value, maxLength);
  if (Array.isArray(value)) return value.map((item) => sanitizeDeep(item, maxLength));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [sanitizeText(key, 100), sanitizeDeep(item, maxLength)]));
  }
  return value;
}
