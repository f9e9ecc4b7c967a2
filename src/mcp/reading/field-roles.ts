/**
 * Fields read by role rather than by one name: the spec leaves most payloads open, so an
 * upstream may call the 25-delta risk reversal `rr25`, `rr_25d` or `risk_reversal_25d`, write
 * it in camelCase, and send it as a JSON number or as text. A derived view names the role's
 * aliases once and reads whichever the row has; a value that is not a number (or numeric
 * text) is not read, and the view says so rather than answering a blank.
 */
import { numberOf } from '../../api/paging-evidence.js';

type Row = Record<string, unknown>;

const fold = (name: string): string => name.toLowerCase().replace(/[-_.]/g, '');

/** The row's own key for the first alias it has (compared without case, `_`, `-` or `.`). */
export function keyFor(row: Row, aliases: readonly string[]): string | undefined {
  const wanted = aliases.map(fold);
  const keys = Object.keys(row);
  for (const alias of wanted) {
    const key = keys.find((k) => fold(k) === alias);
    if (key !== undefined) return key;
  }
  return undefined;
}

/** A number by role: a JSON number or numeric text under any alias; undefined when none reads as one. */
export function numberByRole(row: Row | undefined, aliases: readonly string[]): number | undefined {
  if (!row) return undefined;
  const key = keyFor(row, aliases);
  return key === undefined ? undefined : numberOf(row[key]);
}

/** A text by role under any alias; undefined when none is a non-empty string. */
export function textByRole(row: Row | undefined, aliases: readonly string[]): string | undefined {
  if (!row) return undefined;
  const key = keyFor(row, aliases);
  const value = key === undefined ? undefined : row[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
