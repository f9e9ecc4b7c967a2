/**
 * Text from the upstream's document (titles, descriptions, enum values) becomes part of
 * what the agent reads as our tool list, so it passes a filter stricter than data's: one
 * line, short, no links, and nothing that reads as an instruction to the agent.
 */
import { sanitizeText } from '../sanitize.js';

const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S*/giu;
/** Phrases that address the agent rather than describe data. */
const INSTRUCTION =
  /\b(?:ignore|disregard|forget|override)\b[^.]{0,40}\b(?:instructions?|prompts?|rules?|above|previous|prior)\b|\b(?:you (?:must|should|are)|system prompt|assistant:|always call|call (?:every|all|this) tools?|do not (?:tell|mention|reveal)|reveal|exfiltrate|api[_ -]?key|password|secret)\b|<\/?[a-z][^>]*>/iu;
const SAFE_ENUM_VALUE = /^[A-Za-z0-9 _.,:+-]{1,60}$/u;

/** One line, at most `maxLength` characters; empty when the text looks like an instruction. */
export function registryText(value: string, maxLength: number): string {
  const line = sanitizeText(value, 20_000).replace(URL_LIKE, '').replace(/\s+/gu, ' ').trim();
  if (INSTRUCTION.test(line)) return '';
  return sanitizeText(line, maxLength);
}

/** An enum value from the document, or undefined when it is not a plain token. */
export function registryEnumValue(value: string): string | undefined {
  return SAFE_ENUM_VALUE.test(value) && !INSTRUCTION.test(value) ? value : undefined;
}
