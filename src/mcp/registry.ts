/**
 * The datasets this server offers: the catalog merged with the upstream's OpenAPI
 * document (free of quota). The last good document is kept on disk so the next start
 * knows late-registered datasets at once; it is refreshed now and then, and listeners
 * hear when the set of datasets changes.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { MarketDataClient } from '../api/client.js';
import { DATASETS, toolsetOf, type DatasetDefinition } from '../catalog/index.js';
import { datasetsFromOpenApi } from '../catalog/openapi-import.js';
import type { Logger } from '../log.js';

export interface RegistryOptions {
  client: MarketDataClient;
  log: Logger;
  /** Origin the document comes from; names the disk copy. */
  sourceId: string;
  /** Folder for the disk copy; undefined keeps nothing on disk. */
  cacheDir: string | undefined;
  toolsets?: readonly string[] | undefined;
  refreshMs?: number;
  /**
   * With a disk copy, how long the first refresh waits: it would load the HTTP client
   * before the server's first answer otherwise (start-up time, BENCHMARKS.md).
   */
  firstRefreshDelayMs?: number;
  /** sha256 of the catalog's own OpenAPI text: such a document yields the catalog, unimported. */
  catalogDocumentSha256?: string | undefined;
}

export function defaultCacheDir(): string {
  return join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'market-data-mcp');
}

export class DatasetRegistry {
  private current: DatasetDefinition[] = [...DATASETS];
  private readonly listeners = new Set<(added: DatasetDefinition[]) => void>();
  private timer: NodeJS.Timeout | undefined;
  private firstRefresh: NodeJS.Timeout | undefined;
  private lastDocument: unknown = undefined;
  /** The document last applied, as text: an identical one is not imported again. */
  private lastText: string | undefined;

  constructor(private readonly options: RegistryOptions) {}

  /** Datasets offered as tools, after the toolset filter. */
  datasets(): DatasetDefinition[] {
    const toolsets = this.options.toolsets;
    return toolsets && toolsets.length > 0 ? this.current.filter((d) => toolsets.includes(toolsetOf(d))) : this.current;
  }

  /** The upstream document last seen (for the openapi resource), if any. */
  document(): unknown {
    return this.lastDocument;
  }

  onAdded(listener: (added: DatasetDefinition[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Loads the disk copy, then asks the upstream. With a disk copy the server starts at
   * once and refreshes behind; without one it waits at most `waitMs` for the upstream.
   */
  async start(waitMs: number): Promise<void> {
    const cached = await this.readDiskCopy();
    if (cached !== undefined) {
      this.apply(cached, 'disk');
      this.firstRefresh = setTimeout(() => void this.refresh(), this.options.firstRefreshDelayMs ?? 0).unref();
    } else await Promise.race([this.refresh(), new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    const every = this.options.refreshMs ?? 15 * 60_000;
    this.timer = setInterval(() => void this.refresh(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.firstRefresh);
  }

  /** Fetches the upstream document; keeps the current datasets if it cannot be had. */
  async refresh(): Promise<void> {
    try {
      const result = await this.options.client.meta('/v1/openapi.json', { deadlineMs: 5000 });
      if (JSON.stringify(result.data) === this.lastText) return;
      this.apply(result.data, 'upstream');
      await this.writeDiskCopy(result.data);
    } catch (error) {
      this.options.log.warn(
        { err: error instanceof Error ? { message: error.message, code: (error as { code?: unknown }).code } : String(error) },
        'upstream openapi.json unavailable; serving the built-in catalog',
      );
    }
  }

  private apply(document: unknown, source: 'disk' | 'upstream'): void {
    const text = JSON.stringify(document);
    const isCatalog = createHash('sha256').update(text).digest('hex') === this.options.catalogDocumentSha256;
    const report = isCatalog ? { datasets: [...DATASETS], added: [], changed: [], skipped: [] } : datasetsFromOpenApi(document);
    if (report.datasets.length === 0) return;
    this.lastDocument = document;
    this.lastText = text;
    const before = new Set(this.current.map((d) => d.operationId));
    this.current = report.datasets;
    const added = report.datasets.filter((d) => !before.has(d.operationId));
    this.options.log.info(
      { source, datasets: report.datasets.length, added: report.added, changed: report.changed, skipped: report.skipped.length },
      'dataset registry updated',
    );
    if (added.length > 0) for (const listener of this.listeners) listener(added);
  }

  private diskPath(): string | undefined {
    if (!this.options.cacheDir) return undefined;
    const id = createHash('sha256').update(this.options.sourceId).digest('hex').slice(0, 16);
    return join(this.options.cacheDir, `openapi-${id}.json`);
  }

  private async readDiskCopy(): Promise<unknown> {
    const path = this.diskPath();
    if (!path) return undefined;
    try {
      return JSON.parse(await readFile(path, 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  private async writeDiskCopy(document: unknown): Promise<void> {
    const path = this.diskPath();
    if (!path || !this.options.cacheDir) return;
    try {
      await mkdir(this.options.cacheDir, { recursive: true });
      // Write then rename, so a crash never leaves half a document for the next start.
      await writeFile(`${path}.tmp`, JSON.stringify(document));
      await rename(`${path}.tmp`, path);
    } catch (error) {
      this.options.log.debug({ err: String(error) }, 'could not keep openapi.json on disk');
    }
  }
}
