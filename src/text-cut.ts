/**
 * Where a text may be cut: after a whole user-perceived character (an extended grapheme
 * cluster), never inside a surrogate pair (which leaves text that is not valid Unicode and
 * that some clients refuse) nor between a letter and its combining marks, a flag's two
 * halves or the parts of an emoji sequence. Only the cut is segmented, never the text as a
 * whole: a value of a megabyte cut to 2,000 characters reads a little past the cut.
 */

let segmenter: Intl.Segmenter | undefined;

/** Characters read past the cut to see whether a cluster runs across it. */
const LOOK_PAST = 32;

/**
 * The longest prefix of `value` of at most `maxChars` UTF-16 units that ends between two
 * grapheme clusters: `value` itself when it is short enough, else possibly a few units
 * shorter than `maxChars` (never longer).
 */
export function wholeCharacters(value: string, maxChars: number): string {
  if (value.length <= maxChars) return value;
  if (maxChars <= 0) return '';
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // From the start: a run of regional indicators pairs into flags counted from its first.
  const window = value.slice(0, maxChars + LOOK_PAST);
  let end = 0;
  for (const { index, segment } of segmenter.segment(window)) {
    const after = index + segment.length;
    // A cluster that reaches the window's end may go on past it: it is not known whole.
    if (after > maxChars || (after === window.length && window.length < value.length)) break;
    end = after;
  }
  return value.slice(0, end);
}
