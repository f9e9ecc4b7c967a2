/**
 * How a value the user gave is quoted back in a warning or an error at start: cut to a
 * length a terminal line holds, its control and invisible characters escaped (a value can
 * carry an escape sequence, a newline that forges a log line, or a right-to-left mark), and
 * a secret never shown at all, only named.
 */

/** Characters of a value quoted back, at most: enough to recognise a typo. */
export const SHOWN_CHARS = 40;

/** What may stand unquoted after `NAME=`: nothing a reader could misread or a terminal act on. */
const PLAIN = /^[A-Za-z0-9._:/@+,%-]+$/;
/** Control, format (bidi marks, zero-width), line and paragraph separators, and the quote and backslash. */
const ESCAPED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\]/gu;

function escaped(char: string): string {
  if (char === '"' || char === '\\') return `\\${char}`;
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** The value as a warning shows it: plain when harmless, else quoted and escaped; longer than SHOWN_CHARS, cut with `…`. */
export function shownValue(value: string): string {
  const chars = [...value];
  const cut = chars.length > SHOWN_CHARS;
  const kept = cut ? chars.slice(0, SHOWN_CHARS).join('') : value;
  const tail = cut ? `… (${chars.length} characters)` : '';
  if (!cut && PLAIN.test(kept)) return kept;
  return `"${kept.replace(ESCAPED, escaped)}"${tail}`;
}

/**
 * A URL as a warning shows it: whatever it carries that may be a secret (a password, a query
 * that may hold a key) is left out. The credentials are everything before the last `@`: a URL
 * quoted back is often one that did not parse (`redis:/:pw@host`, a password with an unescaped
 * `/` or `#`), so neither the scheme's `//` nor the end of the userinfo can be relied on.
 */
export function shownUrl(value: string): string {
  return shownValue(value.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/*)?.*@/s, '$1…@').replace(/[?#].*$/s, '?…'));
}

/** How the value is to be shown: as given, as a URL with its secrets left out, or not at all. */
export type Shown = 'value' | 'url' | 'secret';

/** `NAME=value` as the user set it, or only `NAME` for a secret. */
export function given(variable: string, value: string, shown: Shown = 'value'): string {
  if (shown === 'secret') return variable;
  return `${variable}=${shown === 'url' ? shownUrl(value) : shownValue(value)}`;
}
