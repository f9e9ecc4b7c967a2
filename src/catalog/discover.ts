/**
 * The part of GET /v1/discover this server reads, as zod schemas: the body comes from the
 * upstream and is untrusted, so an entry that does not have the spec's shape is skipped
 * rather than trusted or fatal.
 */
import * as z from 'zod';

/** One dataset of discover's list: its operation id and whether this key can call it. */
const discoveredDataset = z.looseObject({ operation_id: z.string(), accessible: z.boolean() });

const discoverBody = z.looseObject({ datasets: z.array(z.unknown()) });

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
