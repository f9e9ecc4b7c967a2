/**
 * Examples a text gives ("e.g. EURUSD", "for example `SPY`", "such as SPY, QQQ"), held to
 * the check they illustrate. A curated parameter keeps its reviewed words when the
 * upstream's document replaces its pattern, enum or format (parameter-schema.ts): "e.g.
 * EURUSD" beside a pattern `^[A-Z]{3}/[A-Z]{3}$` shows an agent a value the tool refuses.
 * An example the check refuses is not shown: dropped, or, when none is left, replaced by a
 * sample that passes, or its clause left out.
 */

/** Words that introduce examples, and what may follow them (a colon, a comma). */
const MARKER = /\b(?:e\.g\.|for example|for instance|such as)[:,]?[ \t]+/gi;
/** One example: quoted (any characters but the quote), or a bare token up to a space, `;` or a bracket. */
const ITEM = /^(?:"([^"\n]{1,80})"|'([^'\n]{1,80})'|`([^`\n]{1,80})`|“([^”\n]{1,80})”|([^\s;()[\]"'`“”]{1,120}))/;
/** Between two examples: a comma and a space, "or", "and". */
const SEPARATOR = /^(?:,[ \t]+(?:or[ \t]+|and[ \t]+)?|[ \t]+(?:or|and)[ \t]+)/;
/** A bare token is a value (not prose) when it holds what words do not: a capital, a digit, punctuation. */
const VALUE_LIKE = /[A-Z0-9._:/,-]/;

export interface StatedExample {
  /** The value, unquoted, without the sentence's punctuation. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

export interface ExampleClause {
  /** Where the marker ("e.g.") starts. */
  readonly start: number;
  readonly examples: readonly StatedExample[];
}

/** Every clause of examples in `text`, in order. */
export function statedExamples(text: string): ExampleClause[] {
  const clauses: ExampleClause[] = [];
  for (const marker of text.matchAll(MARKER)) {
    const examples: StatedExample[] = [];
    let at = marker.index + marker[0].length;
    for (;;) {
      const item = ITEM.exec(text.slice(at));
      if (!item) break;
      const quoted = item[1] ?? item[2] ?? item[3] ?? item[4];
      const bare = quoted === undefined ? (item[5] ?? '').replace(/[.,:!?]+$/, '') : undefined;
      // Prose after the marker ("such as the latest session") is no example.
      if (bare !== undefined && (bare === '' || !VALUE_LIKE.test(bare))) break;
      const end = at + (bare === undefined ? item[0].length : bare.length);
      examples.push({ value: quoted ?? bare ?? '', start: at, end });
      const separator = SEPARATOR.exec(text.slice(end));
      if (!separator) break;
      at = end + separator[0].length;
    }
    if (examples.length > 0) clauses.push({ start: marker.index, examples });
  }
  return clauses;
}

/**
 * `text` with the examples `accepts` refuses taken out: a clause keeps the examples that pass;
 * one left with none shows `sample` instead when there is one, else is left out with the
 * comma or brackets that held it. Unchanged when every example passes (or none is given).
 */
export function withAcceptedExamples(text: string, accepts: (value: string) => boolean, sample?: string): string {
  const clauses = statedExamples(text);
  let out = text;
  // From the last clause back, so that earlier positions hold.
  for (const clause of clauses.reverse()) {
    const kept = clause.examples.filter((example) => accepts(example.value));
    if (kept.length === clause.examples.length) continue;
    const first = clause.examples[0];
    const last = clause.examples.at(-1);
    if (!first || !last) continue;
    const shown = kept.map((example) => out.slice(example.start, example.end));
    if (shown.length === 0 && sample !== undefined) shown.push(sample);
    if (shown.length > 0) {
      out = `${out.slice(0, first.start)}${shown.join(', ')}${out.slice(last.end)}`;
      continue;
    }
    out = withoutClause(out, clause.start, last.end);
  }
  return out;
}

/** `text` without the clause between `start` and `end`, and the brackets or comma that held it. */
function withoutClause(text: string, start: number, end: number): string {
  const before = text.slice(0, start);
  const after = text.slice(end);
  if (/\(\s*$/.test(before) && /^\s*\)/.test(after)) return tidy(`${before.replace(/\s*\(\s*$/, '')}${after.replace(/^\s*\)/, '')}`);
  return tidy(`${before.replace(/[,;:]?\s*$/, '')}${after}`);
}

/** No space before a stop, no sentence of punctuation alone. */
function tidy(text: string): string {
  const joined = text.replace(/\s+([.,;])/g, '$1').replace(/\s{2,}/g, ' ');
  return /^[\s.,;:]*$/.test(joined) ? '' : joined.replace(/^[\s.,;:]+/, '');
}
