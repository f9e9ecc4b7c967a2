/**
 * One tool list for every node of a team: each node reads the upstream's document on its
 * own timer, so until each refreshed (900 s by default) nodes behind one balancer listed
 * different tools, and a call sent to a node that had not refreshed got "Tool … not found".
 * Here a document a node fetched and applied is put in Redis (sealed with the team key:
 * whoever can write Redis cannot give the nodes tools) and announced; every other node
 * applies it at once, as if it had fetched it itself, and tells its own listeners
 * (tools/list_changed). A node that starts from its disk copy takes the deployment's
 * document from Redis at once.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log.js';
import type { AccountKeys } from '../redis/keys.js';
import type { ValueSeal } from '../redis/sealed-values.js';
import type { TurnsLink } from './shared-turns.js';

/** What the sync needs of the dataset registry (src/registry/dataset-registry.ts). */
export interface SharedCatalog {
  onFetched(listener: (text: string) => void): () => void;
  adopt(text: string): Promise<boolean>;
  lastFetchedText(): string | undefined;
}

export interface CatalogSyncOptions {
  registry: SharedCatalog;
  link: TurnsLink;
  keys: AccountKeys;
  seal: ValueSeal;
  log: Pick<Logger, 'info' | 'warn'>;
  /** How long the deployment's document is kept in Redis without a change (every key the server writes expires). */
  keepMs?: number;
}

export interface CatalogSync {
  /** Settles once the node has published its own document or taken the deployment's. */
  ready: Promise<void>;
  close(): void;
}

const KEEP_MS = 7 * 24 * 60 * 60_000;
const START_ATTEMPTS = 10;
const START_RETRY_MS = 2000;

/** Where the deployment's document and its announcements live, beside the account's other keys. */
export function catalogKeys(keys: AccountKeys): { document: string; channel: string } {
  return { document: `${keys.state}:catalog`, channel: `${keys.wake}:catalog` };
}

export function shareCatalog(options: CatalogSyncOptions): CatalogSync {
  const { registry, link, seal, log } = options;
  const names = catalogKeys(options.keys);
  let closed = false;

  const publish = async (text: string): Promise<void> => {
    const sealed = seal.seal(text, names.document);
    await link.sendCommand(['SET', names.document, sealed, 'PX', String(options.keepMs ?? KEEP_MS)]);
    await link.sendCommand(['PUBLISH', names.channel, createHash('sha256').update(text).digest('hex').slice(0, 16)]);
  };

  /** The deployment's document, applied here if it is not the one in use. */
  const take = async (): Promise<void> => {
    const sealed = await link.sendCommand(['GET', names.document]);
    if (typeof sealed !== 'string' || closed) return;
    const text = seal.open(sealed, names.document);
    if (text === undefined) {
      log.warn({}, "the deployment's tool list in Redis is not sealed with this server's key; ignored");
      return;
    }
    if (await registry.adopt(text)) log.info({}, 'tool list updated from another node of the deployment');
  };

  const unsubscribe = registry.onFetched((text) => {
    publish(text).catch((error: unknown) =>
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not share the new tool list through Redis'),
    );
  });
  link.subscribe(names.channel, () => void take().catch(() => undefined)).catch(() => undefined);
  // At start: a document this node just fetched is the newest there is; a disk copy may be older than the deployment's.
  const own = registry.lastFetchedText();
  // Redis may not answer yet (a node never waits on it to start): tried again a few times.
  const ready = (async () => {
    for (let attempt = 0; attempt < START_ATTEMPTS && !closed; attempt += 1) {
      try {
        await (own === undefined ? take() : publish(own));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS).unref());
      }
    }
  })();
  return {
    ready,
    close() {
      closed = true;
      unsubscribe();
    },
  };
}
