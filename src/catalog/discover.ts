/**
 * The part of GET /v1/discover this server reads, as zod schemas: the body comes from the
 * upstream and is untrusted, so an entry that does not have the spec's shape is skipped
 * rather than trusted or fatal.
 */
import * as z from 'zod';

/** One dataset of discover's list: its operation id, whether this key can call it, and the scope it needs. */
const discoveredDataset = z.looseObject({
  operation_id: z.string(),
  accessible: z.boolean(),
  // A scope that is not text is unknown, not a reason to skip the entry.
  scope: z.string().optional().catch(undefined),
});

const discoverBody = z.looseObject({
  datasets: z.array(z.unknown()),
  /** The scopes the key holds. */
  access_scope: z.array(z.unknown()).optional().catch(undefined),
});

/** Operation ids discover says this key cannot call; none when the body is not discover's. */
export function inaccessibleOperations(body: unknown): Set<string> {
  const parsed = discoverBody.safeParse(body);
  if (!parsed.success) return new Set();
  return new Set(
    parsed.data.datasets.flatMap((entry) => {
      const dataset = discoveredDataset.safeParse(entry);
      return dataset.success && !dataset.data.accessible ? [dataset.data.operation_id] : [];
    }),
  );
}

/**
 * The scope discover says this key lacks for `operationId` (undefined inside when it names
 * none); undefined when the key is not known to lack it. An administrator-only dataset
 * whose scope the key holds is not out of scope (its refusal is another matter).
 */
export function discoveredOutOfScope(body: unknown, operationId: string): { scope: string | undefined } | undefined {
  const unreachable = discoveredUnreachable(body, operationId);
  return unreachable && !unreachable.held ? { scope: unreachable.scope } : undefined;
}

/**
 * Why discover says this key cannot call `operationId`: the scope it lacks (undefined when
 * discover names none), or `held: true` when the key holds that scope and the dataset is
 * still kept from it (a rule of its own, such as administrator accounts only). Undefined
 * when discover does not list the dataset as inaccessible: nothing is known against it.
 */
export function discoveredUnreachable(body: unknown, operationId: string): { scope: string | undefined; held: boolean } | undefined {
  const parsed = discoverBody.safeParse(body);
  if (!parsed.success) return undefined;
  const held = parsed.data.access_scope ?? [];
  for (const entry of parsed.data.datasets) {
    const dataset = discoveredDataset.safeParse(entry);
    if (!dataset.success || dataset.data.operation_id !== operationId || dataset.data.accessible) continue;
    const scope = dataset.data.scope;
    return { scope, held: scope !== undefined && held.includes(scope) };
  }
  return undefined;
}
