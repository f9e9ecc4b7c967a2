/**
 * What a tool's description says when discover (free) has said that this key cannot call
 * its dataset: first, so that an agent reading the list (and a host that cuts descriptions
 * short) does not spend a call to learn it. Nothing is said while discover has not
 * answered: a tool is never marked, nor hidden, on a scope the server does not know.
 */
import type { MarketDataClient } from '../api/client.js';
import { discoveredUnreachable } from '../catalog/index.js';

/** How the note begins: what a reader of the list (the demo's) looks for. */
export const NOT_FOR_THIS_KEY = 'Not for this key';

export function unreachableNote(client: MarketDataClient, operationId: string): string | undefined {
  const unreachable = discoveredUnreachable(client.discovered.last?.data, operationId);
  if (!unreachable) return undefined;
  const why = unreachable.held ? 'not open to its account' : `lacks ${unreachable.scope ?? 'its scope'}`;
  return `${NOT_FOR_THIS_KEY} (discover: ${why}): calls answer SCOPE_INSUFFICIENT.`;
}

/** The description with the note first, when there is one. */
export function withReach(description: string, client: MarketDataClient, operationId: string): string {
  const note = unreachableNote(client, operationId);
  return note ? `${note} ${description}` : description;
}
