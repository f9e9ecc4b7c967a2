/**
 * Text from the upstream's document (titles, descriptions, enum values) becomes part of
 * what the agent reads as our tool list, so it passes a filter stricter than data's: one
 * line, short, no links, and nothing that reads as an instruction to the agent.
 */
import { sanitizeText } from '../sanitize.js';

const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S*/giu;
/** Phrases that address the agent rather than describe data. */
const INSTRUCTION =
  /\b(?:ignore|disregard|forget|override)\b[^.]{0,40}\b(?:instructions?|prompts?|rules?|above|previous|prior)\b|\b(?:assistant|system|user|developer)\s*:|\b(?:you (?:must|should|are)|system prompt|always call|call (?:every|all|this) tools?|do not (?:tell|mention|reveal)|reveal|exfiltrate|api[_ -]?key|password|secret)\b|<\/?[a-z][^>]*>|\b(?:from now on|act as|pretend|you are now|without (?:asking|telling|checking)|approve (?:every|all|any))\b/iu;
const SAFE_ENUM_VALUE = /^[A-Za-z0-9 _.,:+-]{1,60}$/u;
/**
 * What may reach the tool list at all: letters, digits, spaces and the punctuation of
 * plain prose. An allow-list, so that markup, code, quoting tricks and symbols never
 * pass whatever their form; the deny-list above only catches phrasing.
 */
const NOT_PROSE = /[^\p{L}\p{N} .,;:()'%/+&-]/gu;

/** One line of plain prose, at most `maxLength` characters; empty when the text looks like an instruction. */
export function registryText(value: string, maxLength: number): string {
  const text = sanitizeText(value, 20_000).replace(URL_LIKE, '');
  // Phrasing and markup are judged before the allow-list would blur them into plain words.
  if (INSTRUCTION.test(text)) return '';
  const line = withoutRepeats(text.replace(NOT_PROSE, ' ').replace(/\s+/gu, ' ').trim());
  if (INSTRUCTION.test(line)) return '';
  return sanitizeText(line, maxLength);
}

/** A sentence said again adds nothing but weight (a repeated line is how a document shouts). */
function withoutRepeats(line: string): string {
  const seen = new Set<string>();
  return line
    .split(/(?<=\.) /u)
    .filter((sentence) => {
      const key = sentence.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .join(' ');
}

/** A parameter's default that may be shown: a number, a boolean, or a short token (a value, never prose). */
const SAFE_DEFAULT = /^[A-Za-z0-9_.:+-]{1,40}$/u;

export function registryDefault(value: string | number | boolean): string | number | boolean | undefined {
  if (typeof value !== 'string') return Number.isFinite(value) || typeof value === 'boolean' ? value : undefined;
  return SAFE_DEFAULT.test(value) && !INSTRUCTION.test(value) ? value : undefined;
}

/** Three words in a row: prose, which a pattern has no need of. */
const PROSE_RUN = /\p{L}{2,}[ _]+\p{L}{2,}[ _]+\p{L}{2,}/u;

/** Whether an upstream pattern may be shown to hosts: short, and a pattern rather than words for the agent. */
export function registryPatternShown(pattern: string): boolean {
  return pattern.length <= 120 && !PROSE_RUN.test(pattern) && !INSTRUCTION.test(pattern);
}

/** What may stand in a path named in a report (api_status's skipped list): a path's own characters. */
const NOT_PATH = /[^A-Za-z0-9/{}_.~ -]/gu;

/** A path of the document as a report names it: braces of path parameters kept, anything else blanked. */
export function registryPath(value: string, maxLength: number): string {
  const text = sanitizeText(value, 2000);
  if (INSTRUCTION.test(text)) return '';
  return sanitizeText(text.replace(NOT_PATH, ' ').replace(/\s+/gu, ' ').trim(), maxLength);
}

/** An enum value from the document, or undefined when it is not a plain token. */
export function registryEnumValue(value: string): string | undefined {
  return SAFE_ENUM_VALUE.test(value) && !INSTRUCTION.test(value) ? value : undefined;
}
