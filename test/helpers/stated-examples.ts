/** Examples a tool's words give, read independently of the server's own reader (src/registry/openapi/stated-examples.ts). */
type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The examples a text gives, read as a reader would: after e.g. / for example / such as, up to the sentence's end. */
export function examplesIn(text: string): string[] {
  const clauses = text.matchAll(/(?:e\.g\.|for example|for instance|such as)[:,]?\s+(.*?)(?=\.\s|\.$|;|\)|$)/gi);
  return [...clauses].flatMap((clause) =>
    (clause[1] ?? '')
      .split(/,\s+|\s+or\s+|\s+and\s+/)
      .map((item) => item.trim().replace(/^["'`“]|["'`”]$/g, ''))
      .filter((item) => /[A-Z0-9._:/,-]/.test(item)),
  );
}

/** The value an agent sends for an example written as text, by the advertised type. */
export function sent(property: Json, example: string): unknown {
  if (property['type'] === 'integer' || property['type'] === 'number') return Number(example);
  if (property['type'] === 'array') return example.split(',');
  return example;
}

/** Whether the advertised JSON Schema takes a value: its pattern, enum and lengths, its items'. */
export function advertisedTakes(property: Json, value: unknown): boolean {
  if (Array.isArray(value)) {
    const items = isJson(property['items']) ? property['items'] : {};
    return value.every((item) => advertisedTakes(items, item));
  }
  if (Array.isArray(property['enum']) && !property['enum'].includes(value)) return false;
  if (typeof value !== 'string') return true;
  if (typeof property['pattern'] === 'string' && !new RegExp(property['pattern'], 'u').test(value)) return false;
  if (typeof property['maxLength'] === 'number' && value.length > property['maxLength']) return false;
  return !(typeof property['minLength'] === 'number' && value.length < property['minLength']);
}
