/**
 * A call that arrives while a first start's upstream document is still on its way (the start
 * waits 1.5 s for it, then serves) waits for that document, and is answered by the tool as
 * the document describes its dataset. Without the wait it was answered from the catalog's
 * guesses: `limit` sent to an upstream that takes `per_page`, a cursor made of pages the
 * document then renamed, a dataset the upstream registered missing (seen on a loaded
 * machine, where a composed dialect's document took 2 s). Where the document is read, or
 * none is coming, the tool answers at once.
 */
import type { DatasetDefinition } from '../../catalog/index.js';
import type { ToolDefinition } from '../tool.js';

export interface DocumentSource {
  /** Settles once the document on its way is read or could not be had (DatasetRegistry.documentRead). */
  documentRead(): Promise<void>;
  /** Every dataset known now. */
  known(): readonly DatasetDefinition[];
}

/** The tool, its calls answered after the document on its way; a dataset's tool by `rebuild` of the dataset as then known. */
export function afterDocument(
  tool: ToolDefinition,
  source: DocumentSource,
  dataset?: { definition: DatasetDefinition; rebuild: (now: DatasetDefinition) => ToolDefinition },
): ToolDefinition {
  return {
    ...tool,
    handler: async (args, ctx, call) => {
      await source.documentRead();
      const now = dataset && source.known().find((d) => d.operationId === dataset.definition.operationId);
      // The same object is the same tool (the registry keeps unchanged datasets as they were).
      if (dataset && now && now !== dataset.definition) return dataset.rebuild(now).handler(args, ctx, call);
      return tool.handler(args, ctx, call);
    },
  };
}
