/**
 * Regular expressions from the upstream document run on the agent's input, so they run
 * on RE2JS, a pure-JavaScript port of RE2 whose matching time is linear in the input:
 * `^([A-Z]+)+$` on a long ticker answers at once instead of freezing the process. A
 * pattern RE2 refuses (backreferences, lookaround) is not run at all.
 */
import { RE2JS } from 're2js';

export interface UpstreamPattern {
  /** Search semantics, as JSON Schema's `pattern`: the expression may match anywhere. */
  test(value: string): boolean;
  /**
   * Whether a backtracking engine (a host's JSON Schema validator) could run it safely:
   * no quantified group that holds a quantifier or an alternation.
   */
  readonly backtrackingSafe: boolean;
}

const MAX_PATTERN_LENGTH = 300;

/**
 * Compiled patterns by source: a registry repeats a few patterns (ticker, date, cursor)
 * in every operation, and compiling one costs about as much as the rest of a parameter's
 * import. Bounded, since the patterns come from the upstream.
 */
const compiledPatterns = new Map<string, UpstreamPattern | undefined>();
const MAX_COMPILED_PATTERNS = 256;

export function compileUpstreamPattern(pattern: string): UpstreamPattern | undefined {
  if (compiledPatterns.has(pattern)) return compiledPatterns.get(pattern);
  if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
  const compiled = compileOnce(pattern);
  compiledPatterns.set(pattern, compiled);
  return compiled;
}

function compileOnce(pattern: string): UpstreamPattern | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return undefined;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
  return { test: (value) => compiled.matcher(value).find(), backtrackingSafe: backtrackingSafe(pattern) };
}

/** A conservative scan: any group with a quantifier or `|` inside that is itself quantified is unsafe. */
export function backtrackingSafe(pattern: string): boolean {
  const groups: { risky: boolean }[] = [];
  let closedRisky = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    const quantifier = ch === '*' || ch === '+' || ch === '?' || ch === '{';
    if (ch === '\\') {
      i += 1;
      closedRisky = false;
      continue;
    }
    if (ch === '[') {
      // Skip a character class whole; its contents are literals.
      for (i += 1; i < pattern.length && pattern[i] !== ']'; i += 1) if (pattern[i] === '\\') i += 1;
      closedRisky = false;
      continue;
    }
    if (quantifier && closedRisky) return false;
    if (ch === '(') groups.push({ risky: false });
    else if (ch === ')') {
      closedRisky = groups.pop()?.risky ?? false;
      const outer = groups[groups.length - 1];
      if (outer && closedRisky) outer.risky = true;
      continue;
    } else if (quantifier || ch === '|') {
      const inner = groups[groups.length - 1];
      if (inner) inner.risky = true;
    }
    closedRisky = false;
  }
  return true;
}
