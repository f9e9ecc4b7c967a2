/**
 * Arguments of the tools that are not datasets (api_status, volatility_compare), screened
 * as the dataset tools screen theirs: `null` means omitted, a host's own control
 * properties are dropped, and any other name the tool does not take is refused with the
 * list of those it does, before anything else runs. A number or a flag sent as text of
 * exactly its form ("5", "true") is taken as the value, as the dataset tools take it.
 */
import { invalidArguments } from '../answers/tool-errors.js';
import { PROTO_ARGUMENT } from './prototype-guard.js';
import { HOST_CONTROL_PROPERTIES } from './screen.js';
import { acceptedHint, fromText, type TextForm } from '../../catalog/index.js';
import { quoteValue } from '../../sanitize.js';

export function ownArguments(
  raw: Readonly<Record<string, unknown>>,
  accepted: readonly string[],
  forms: Readonly<Record<string, TextForm>> = {},
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === null || value === undefined || HOST_CONTROL_PROPERTIES.includes(name)) continue;
    if (!accepted.includes(name)) {
      throw invalidArguments(`Unknown parameter ${quoteValue(name === PROTO_ARGUMENT ? '__proto__' : name)}.`, acceptedHint(accepted));
    }
    const form = Object.hasOwn(forms, name) ? forms[name] : undefined;
    kept[name] = form === undefined ? value : fromText(value, form);
  }
  return kept;
}
