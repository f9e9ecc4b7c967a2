/**
 * What a tool's description says when discover (free) has said that this key cannot call
 * its dataset: first, so that an agent reading the list (and a host that cuts descriptions
 * short) does not spend a call to learn it. Nothing is said while discover has not
 * answered: a tool is never marked, nor hidden, on a scope the server does not know.
 *
 * A tool over several datasets (the fan-out tools) is marked the same way when the key
 * can call none of its parts, and says which parts its answers leave out when it can call
 * only some; a call discover says would be refused is refused before anything is sent.
 */
import type { MarketDataClient } from '../api/client.js';
import type { ApiError } from '../api/errors.js';
import { discoveredUnreachable } from '../catalog/index.js';
import { knownOutOfScope } from './arguments/discover-memory.js';
import { knownScopeRefusal } from './arguments/scope.js';
import { toolNameOf } from './tools/dataset-tool.js';

/** How the note begins: what a reader of the list (the demo's) looks for. */
export const NOT_FOR_THIS_KEY = 'Not for this key';
/** How the note of a tool the key can call only some parts of begins. */
export const PARTLY_FOR_THIS_KEY = 'Partly for this key';

/** Why discover says the key cannot call a dataset: the scope it lacks, or `held` (the key has it; the account is kept out). */
type Unreachable = NonNullable<ReturnType<typeof discoveredUnreachable>>;

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** The scopes the key lacks among `unreachable` (not those kept from its account), once each; `unnamed` where discover named none. */
export function lackedScopes(unreachable: readonly Unreachable[], unnamed: string): string[] {
  return [...new Set(unreachable.filter((u) => !u.held).map((u) => u.scope ?? unnamed))];
}

/** What the note says in brackets: the scopes the key lacks, and whether a dataset is kept from its account. */
function because(unreachable: readonly Unreachable[]): string {
  const lacks = lackedScopes(unreachable, 'its scope');
  return [lacks.length > 0 ? `lacks ${inWords(lacks)}` : '', unreachable.some((u) => u.held) ? 'not open to its account' : '']
    .filter(Boolean)
    .join('; ');
}

function notFor(unreachable: readonly Unreachable[]): string {
  return `${NOT_FOR_THIS_KEY} (discover: ${because(unreachable)}): calls answer SCOPE_INSUFFICIENT.`;
}

export function unreachableNote(client: MarketDataClient, operationId: string): string | undefined {
  const unreachable = discoveredUnreachable(client.discovered.last?.data, operationId);
  return unreachable ? notFor([unreachable]) : undefined;
}

/** The description with the note first, when there is one. */
export function withReach(description: string, client: MarketDataClient, operationId: string): string {
  const note = unreachableNote(client, operationId);
  return note ? `${note} ${description}` : description;
}

/** One part of a tool over several datasets, named as its answers name it, and the datasets it reads (each one needed). */
export interface ReachPart {
  readonly name: string;
  readonly datasets: readonly string[];
}

/**
 * What a tool over several datasets reads: its parts, any one of which gives an answer, and
 * what only some calls ask for (a sector's names), without which those calls are refused.
 */
export interface FanOutReach {
  readonly parts: readonly ReachPart[];
  readonly asked?: readonly ReachPart[];
}

/** Why discover says `part` is out of this key's reach (one entry a dataset), or none: reachable, or nothing known. */
function partUnreachable(body: unknown, part: ReachPart): Unreachable[] {
  return part.datasets.flatMap((id) => discoveredUnreachable(body, id) ?? []);
}

/** What discover says of a tool over several datasets: nothing against it, none of its parts, or some (and which). */
export type FanOutReachState =
  | { readonly kind: 'reachable' }
  | { readonly kind: 'none'; readonly unreachable: readonly Unreachable[] }
  | {
      readonly kind: 'partly';
      readonly unreachable: readonly Unreachable[];
      readonly missing: readonly string[];
      readonly refused: readonly string[];
    };

/** Read from discover's answer `body` (none yet: reachable, as nothing is known against it). */
export function fanOutReach(body: unknown, reach: FanOutReach): FanOutReachState {
  const parts = reach.parts.map((part) => ({ part, unreachable: partUnreachable(body, part) }));
  const asked = (reach.asked ?? []).map((part) => ({ part, unreachable: partUnreachable(body, part) }));
  const out = (all: typeof parts): typeof parts => all.filter((p) => p.unreachable.length > 0);
  const missing = out(parts);
  const refused = out(asked);
  if (missing.length > 0 && missing.length === parts.length) return { kind: 'none', unreachable: missing.flatMap((p) => p.unreachable) };
  if (missing.length === 0 && refused.length === 0) return { kind: 'reachable' };
  return {
    kind: 'partly',
    unreachable: [...missing, ...refused].flatMap((p) => p.unreachable),
    missing: missing.map((p) => p.part.name),
    refused: refused.map((p) => p.part.name),
  };
}

/** The note of a tool over several datasets: not for this key, or which parts its answers leave out and what it refuses. */
function fanOutNote(state: FanOutReachState): string | undefined {
  if (state.kind === 'reachable') return undefined;
  if (state.kind === 'none') return notFor(state.unreachable);
  return `${PARTLY_FOR_THIS_KEY} (discover: ${because(state.unreachable)}): ${leftOut(state)}.`;
}

/** What the answers of a tool the key may call in part leave out, and what calls it refuses. */
function leftOut(state: Extract<FanOutReachState, { kind: 'partly' }>): string {
  return [
    state.missing.length > 0 ? `its answers leave out ${inWords(state.missing)} (listed in failed)` : '',
    state.refused.length > 0 ? `a call with ${inWords(state.refused)} answers SCOPE_INSUFFICIENT` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * The tools over several datasets the key may call only in part, each with what it leaves
 * out and why, in the words of its description's note (api_status's `partly_usable`).
 */
export function partlyUsableFanOuts(discovered: unknown, fanOuts: readonly { name: string; reach: FanOutReach }[]): Record<string, string> {
  return Object.fromEntries(
    fanOuts.flatMap(({ name, reach }) => {
      const state = fanOutReach(discovered, reach);
      return state.kind === 'partly' ? [[name, `${because(state.unreachable)}: ${leftOut(state)}`]] : [];
    }),
  );
}

/** The description of a tool over several datasets with its note first, when discover has said something against it. */
export function withFanOutReach(description: string, client: MarketDataClient, reach: FanOutReach): string {
  const note = fanOutNote(fanOutReach(client.discovered.last?.data, reach));
  return note ? `${note} ${description}` : description;
}

/**
 * The refusal of a call of `tool` none of whose `parts` discover says the key may call,
 * before anything is sent (a sector's names read first would spend a unit on an answer
 * already known); undefined while any part may be called or nothing is known. As a dataset
 * tool's own check, only a scope the key lacks is refused here.
 */
export function knownReachRefusal(client: MarketDataClient, tool: string, parts: readonly ReachPart[]): ApiError | undefined {
  // Each part's first dataset the key lacks the scope for; a part without one may be called.
  const lacking = parts.map((part) => part.datasets.find((id) => knownScopeRefusal(client, id) !== undefined));
  const first = lacking[0] === undefined ? undefined : knownScopeRefusal(client, lacking[0]);
  if (!first || lacking.some((id) => id === undefined)) return undefined;
  const ids = [...new Set(lacking.flatMap((operationId) => (operationId === undefined ? [] : [operationId])))];
  const tools = ids.map((operationId) => toolNameOf({ operationId }));
  // Every scope missing, not only the first part's: the user asked to widen the key needs the whole list.
  const scopes = [...new Set(ids.flatMap((operationId) => knownOutOfScope(client, operationId)?.scope ?? []))];
  return first.with({
    message: `${tool} reads ${inWords(tools)}, which this API key lacks the scope for (discover says so); nothing was sent.`,
    ...(scopes.length > 1 ? { hint: `This key lacks ${inWords(scopes)} for ${tool}; api_status lists what it can use.` } : {}),
  });
}
