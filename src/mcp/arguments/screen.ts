/**
 * An agent's arguments as they arrive, screened once: what hosts add or send in their own
 * way is normalised, and every name the tool does not take is refused before any value is
 * read. The values are then checked against the catalog as the wire's are
 * (src/catalog/validate.ts).
 */
import {
  acceptedParams,
  checkAgentArguments,
  PROTOTYPE_KEYS,
  refuseUnknownParam,
  takenQuery,
  type DatasetDefinition,
  type ParamRefusal,
  type ValidatedRequest,
} from '../../catalog/index.js';
import { upstreamRoles, type RoleNames } from '../../catalog/param-roles.js';
import { serverDrivenParams } from './cursor.js';
import { PROTO_ARGUMENT } from './prototype-guard.js';

/**
 * Properties some hosts add to every tool's arguments for their own use; they are not
 * parameters of any dataset and are dropped rather than refused. Gemini CLI injects
 * `wait_for_previous` into every tool schema and forwards it with each call.
 */
export const HOST_CONTROL_PROPERTIES: readonly string[] = ['wait_for_previous'];

export interface ToolArgumentsOptions {
  /** Parameters the tool adds beyond the dataset's own (e.g. `fields`), taken out before the check. */
  readonly extraParams?: readonly string[];
  /** The dataset's parameter roles, where the call's plan has worked them out already (dataset-call.ts). */
  readonly roles?: RoleNames;
}

/** An agent's arguments after screening: what the dataset and the tool take, nulls and host properties gone. */
export type ScreenedArguments =
  { readonly ok: true; readonly args: Record<string, unknown> } | { readonly ok: false; readonly refusal: ParamRefusal };

/**
 * An agent's arguments: `null` means omitted (OpenAI strict mode sends it for every
 * optional property), host control properties are dropped, and every other name the
 * dataset does not take is refused, `ticker` on a market-wide dataset included. Tools
 * that shape answers on this side (`dataset.shaping`, `fields`) screen first, take out
 * their own parameters, then check the rest (checkScreenedArguments).
 */
export function screenToolArguments(
  dataset: DatasetDefinition,
  args: Readonly<Record<string, unknown>>,
  options: ToolArgumentsOptions = {},
): ScreenedArguments {
  const extra = localParams(dataset, options);
  // Positions the server drives itself are refused from an agent, and not named among those taken (cursor.ts).
  const driven = serverDrivenParams(dataset, options.roles ?? upstreamRoles(dataset));
  const accepted = (): string[] => acceptedParams(dataset, [...extra]).filter((name) => !driven.has(name) || extra.has(name));
  // A `__proto__` key sent as JSON becomes the prototype once a schema copies the object
  // (the SDK parses arguments as a record): a foreign prototype means one was sent.
  const prototype: unknown = Object.getPrototypeOf(args);
  if (prototype !== Object.prototype && prototype !== null) return refuseUnknownParam(dataset, '__proto__', accepted(), 'agent');
  const screened: Record<string, unknown> = {};
  for (const name of Object.keys(args)) {
    const value = args[name];
    if (HOST_CONTROL_PROPERTIES.includes(name)) continue;
    const declared =
      (name === 'ticker' && dataset.ticker !== undefined) ||
      (Object.hasOwn(takenQuery(dataset), name) && !driven.has(name)) ||
      (extra.has(name) && !PROTOTYPE_KEYS.has(name));
    // The prototype guard renamed an own `__proto__` so that it survives the SDK's parse: refused by its real name.
    if (!declared) return refuseUnknownParam(dataset, name === PROTO_ARGUMENT ? '__proto__' : name, accepted(), 'agent');
    if (value !== null) Object.defineProperty(screened, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, args: screened };
}

/** Arguments already screened, checked against the catalog; the tool's own parameters are not sent. */
export function checkScreenedArguments(
  dataset: DatasetDefinition,
  screened: Readonly<Record<string, unknown>>,
  options: ToolArgumentsOptions = {},
): ValidatedRequest {
  return checkAgentArguments(dataset, screened, localParams(dataset, options));
}

/** Screens an agent's arguments, then checks them: for a tool that shapes nothing on this side. */
export function validateToolArguments(
  dataset: DatasetDefinition,
  args: Readonly<Record<string, unknown>>,
  options: ToolArgumentsOptions = {},
): ValidatedRequest {
  const screened = screenToolArguments(dataset, args, options);
  if (!screened.ok) return screened;
  return checkScreenedArguments(dataset, screened.args, options);
}

function localParams(dataset: DatasetDefinition, options: ToolArgumentsOptions): ReadonlySet<string> {
  return new Set([...Object.keys(dataset.shaping ?? {}), ...(options.extraParams ?? [])]);
}
