/**
 * The datasets this server offers: the catalog reconciled with the upstream's OpenAPI
 * document (free of quota) by path. Not MCP: fetching, importing, reconciling, the disk
 * copy and the timers live here; src/mcp/ only registers the tools it lists. The last good document is kept on disk, as
 * we accepted it, so the next start knows late-registered datasets at once; it is
 * refreshed every MARKET_DATA_CATALOG_REFRESH_S, and listeners hear what was added,
 * changed and removed.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MarketDataClient } from '../api/client.js';
import { DATASETS, type DatasetDefinition } from '../catalog/index.js';
import { paramJsonSchemaOnce } from '../catalog/param-json-memo.js';
import type { ImportReport } from './openapi/import.js';
import type { DocumentSource } from './openapi/document-source.js';
import type { OpenedDocument, ReceivedDocument } from './openapi/received.js';
import type { Logger } from '../log.js';
import { cleanKeyNames, nestedDeeperThan, sanitizeDeep } from '../sanitize.js';
import type { ImportDocument } from './import-memo.js';

export interface RegistryOptions {
  client: MarketDataClient;
  log: Logger;
  /** Origin the document comes from; names the disk copy. */
  sourceId: string;
  /** Folder for the disk copy; undefined keeps nothing on disk. */
  cacheDir: string | undefined;
  /** Whether a dataset is offered as a tool (--toolsets, --tools, --exclude-tools: src/mcp/tools/selection.ts); all are, without it. */
  offers?: ((dataset: DatasetDefinition) => boolean) | undefined;
  /** Told when the upstream's document cannot be had (runtime.ts names a base URL that is not the API). */
  onUnavailable?: ((error: unknown) => void) | undefined;
  refreshMs?: number;
  /**
   * With a disk copy, how long the first refresh waits: it would load the HTTP client
   * before the server's first answer otherwise (start-up time, BENCHMARKS.md).
   */
  firstRefreshDelayMs?: number;
  /** sha256 of the catalog's own OpenAPI text: such a document yields the catalog, unimported. */
  catalogDocumentSha256?: string | undefined;
  /**
   * This build's identity (dist/prebuilt.json): with it, a disk copy names the upstream document
   * it was made of, and a refresh that fetches that same document imports nothing.
   */
  buildId?: string | undefined;
  /** Wraps every import of a document, e.g. to memoise it (src/registry/import-memo.ts). */
  importDocument?: ImportDocument | undefined;
  /** Tool names that are not datasets (api_status): no upstream operation may take them. */
  reservedToolNames?: readonly string[];
  /** An operation id → its tool name, the MCP layer's rule; the import's default otherwise. */
  toolNameOf?: (operationId: string) => string;
  /** The upstream serves the catalog as it is (the demo's simulator), so no document is read and none is missed. */
  catalogServed?: boolean;
}

/** What the last document did to the catalog, for api_status: imported and retired datasets, and why. */
export interface CatalogNotes {
  source: 'disk' | 'upstream' | 'catalog';
  /** Where the tools' parameters come from, in words: the document, or this server's own guesses when none was read. */
  parameters: string;
  imported: string[];
  retired: { operationId: string; reason: string }[];
  /** Catalog datasets the document lacked but kept: it did not look complete enough to retire them. */
  kept_though_absent: string[];
  skipped: { path: string; reason: string }[];
}

export interface CatalogChange {
  added: DatasetDefinition[];
  changed: DatasetDefinition[];
  removed: DatasetDefinition[];
}

type Importer = typeof import('./openapi/index.js');
let importer: Importer | undefined;

/**
 * The import's code (its zod conversions and the RE2 engine for upstream patterns, about
 * 15 ms to load) loads with the first document that is not the catalog's own: a start
 * against an upstream that publishes the catalog, or from its disk copy, never loads it.
 */
async function loadImporter(): Promise<Importer> {
  importer ??= await import('./openapi/index.js');
  return importer;
}

/**
 * How long the disk copy of a first start's document waits: made and written before the
 * first answer it cost a first start 12 to 20 ms (cleaning and writing the document); it is
 * written on stop if the server stops sooner. What an import left to first use
 * (settleImport) is read after as long, so that the document is let go.
 */
const FIRST_COPY_DELAY_MS = 2_000;

/** Paths a log line of skipped operations names, at most. */
const SKIPPED_NAMED = 5;

/** A larger document is refused whole: ours is about 60 kB. */
export const MAX_DOCUMENT_CHARS = 2_000_000;

/**
 * How long the upstream's document may take to arrive. It is free and read once a refresh, and
 * a first start's calls wait for it (documentRead), so a slow one is worth waiting for: given up
 * at 5 s, a loaded machine's first start kept the catalog's guesses for a refresh interval and
 * sent `limit` to an upstream that takes `per_page` (refused, VALIDATION_ERROR).
 */
const DOCUMENT_DEADLINE_MS = 15_000;

/** What a tool shows and does, as one string: equal strings mean nothing to tell the client. */
function fingerprint(d: DatasetDefinition): string {
  const params = Object.entries(d.query).map(([name, schema]) => [name, paramJsonSchemaOnce(schema), schema.safeParse(undefined).success]);
  return JSON.stringify([
    d.path,
    d.title,
    d.description,
    d.ticker ? paramJsonSchemaOnce(d.ticker) : null,
    params,
    d.onDemand,
    d.cacheClass,
    d.response !== undefined,
    // Where each parameter goes (renamed, or applied here): the same tool, another behaviour.
    d.upstreamNames ?? null,
    d.localParams ?? null,
    d.shaping ? Object.keys(d.shaping) : null,
    d.pathParams ?? null,
    d.wireForms ?? null,
    d.responseFields ?? null,
    d.unreadable ?? null,
  ]);
}

export class DatasetRegistry {
  private current: DatasetDefinition[] = [...DATASETS];
  private readonly prints = new WeakMap<DatasetDefinition, string>();
  private readonly listeners = new Set<(change: CatalogChange) => void>();
  private readonly fetchedListeners = new Set<(text: string) => void>();
  /** The text of the last upstream document this process fetched and applied itself. */
  private lastFetched: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private firstRefresh: NodeJS.Timeout | undefined;
  /** The first start's disk copy, not written yet (FIRST_COPY_DELAY_MS). */
  private pendingCopy: (() => unknown) | undefined;
  private copyTimer: NodeJS.Timeout | undefined;
  /** The document last applied, as accepted: made when first read (a start from disk need not clean it again). */
  private lastDocument: (() => unknown) | undefined;
  private underWay: Promise<void> | undefined;
  /** A first start's fetch of the document, while it is under way: what calls wait for (documentRead). */
  private first: Promise<void> | undefined;
  /** The document last applied, as text: an identical one is not imported again. */
  private lastText: string | undefined;
  private copyFailureTold = false;
  /** The upstream document the one last applied was made of, as sourcePrint: nor is that one. */
  private lastSource: string | undefined;
  private lastNotes: CatalogNotes;
  /** The last text isCatalog judged, and its verdict. */
  private catalogVerdict: { text: string; catalog: boolean } | undefined;

  constructor(private readonly options: RegistryOptions) {
    this.lastNotes = {
      source: 'catalog',
      parameters: options.catalogServed
        ? 'the catalog, which the upstream (the built-in simulator) serves as is'
        : "the catalog's own choices: no openapi.json of the API has been read yet, so the names, bounds and enums the spec leaves open are this server's guesses and the API may refuse them",
      imported: [],
      retired: [],
      kept_though_absent: [],
      skipped: [],
    };
  }

  /** Datasets offered as tools, after the selection of tools. */
  datasets(): DatasetDefinition[] {
    const offers = this.options.offers;
    return offers ? this.current.filter(offers) : this.current;
  }

  /** Every dataset known, offered as a tool or not: what a tool reading several datasets (volatility_compare) may read. */
  known(): DatasetDefinition[] {
    return this.current;
  }

  /**
   * Settles once a first start's document, still on its way after the start's wait, is read
   * (or could not be had); at once otherwise. A call that arrived meanwhile waits for it: the
   * catalog's guesses sent to an upstream whose document is coming are refused or misread
   * (`limit` where it takes `per_page`, on a loaded machine where the document took 2 s).
   */
  documentRead(): Promise<void> {
    return this.first ?? Promise.resolve();
  }

  /** The upstream document last accepted (sanitized, skipped operations left out), if any. */
  document(): unknown {
    return this.lastDocument?.();
  }

  /** What the last document applied did to the catalog. */
  notes(): CatalogNotes {
    return this.lastNotes;
  }

  /** Hears every change of the offered datasets (after the toolset filter). */
  onChange(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hears the text of each upstream document this process fetched and applied (not those
   * adopted from another node): the team server publishes it, so every node lists the same tools.
   */
  onFetched(listener: (text: string) => void): () => void {
    this.fetchedListeners.add(listener);
    return () => this.fetchedListeners.delete(listener);
  }

  /**
   * Applies an upstream document another node fetched, as if fetched here (its text as
   * `onFetched` gave it). False when it is the document in use already, or not usable.
   */
  async adopt(text: string): Promise<boolean> {
    // After a refresh under way: the two never apply at once.
    await this.underWay?.catch(() => undefined);
    if (this.alreadyApplied(text)) return false;
    let received: ReceivedDocument;
    try {
      received = await this.received(JSON.parse(text) as unknown, text);
    } catch {
      return false;
    }
    return this.applyUpstream(received, false);
  }

  /**
   * Loads the disk copy, then asks the upstream. With a disk copy the server starts at
   * once and refreshes behind; without one it waits at most `waitMs` for the upstream.
   */
  async start(waitMs: number): Promise<void> {
    const cached = await this.readDiskCopy();
    if (cached !== undefined) {
      this.apply(cached, 'disk', true);
      this.firstRefresh = setTimeout(() => void this.refresh(), this.options.firstRefreshDelayMs ?? 0).unref();
    } else {
      // A first start: the importer loads while the document is on its way (the wait for an
      // upstream's answer leaves the process idle), not after it. Every upstream but our own
      // simulator, which serves the catalog's document, needs it (start-up time, BENCHMARKS.md).
      loadImporter().catch(() => undefined);
      const first = this.refreshing(true)
        .catch(() => undefined)
        .finally(() => (this.first = undefined));
      this.first = first;
      await Promise.race([first, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    }
    const every = this.options.refreshMs ?? 15 * 60_000;
    this.timer = setInterval(() => void this.refresh(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.firstRefresh);
    clearTimeout(this.copyTimer);
    // Stopping before the first start's copy was written: the next start still finds it.
    const pending = this.pendingCopy;
    this.pendingCopy = undefined;
    if (pending) this.writeDiskCopySync(pending());
    this.options.importDocument?.flush?.();
  }

  /** Fetches the upstream document; keeps the current datasets if it cannot be had or used. */
  refresh(): Promise<void> {
    return this.refreshing(false);
  }

  /** `copyLater`: the first start's fetch, which answers before keeping its disk copy. */
  private refreshing(copyLater: boolean): Promise<void> {
    // One refresh at a time: a slow upstream must not stack them up.
    this.underWay ??= this.fetchAndApply(copyLater).finally(() => (this.underWay = undefined));
    return this.underWay;
  }

  private async fetchAndApply(copyLater = false): Promise<void> {
    let received: ReceivedDocument;
    try {
      const document = (await this.options.client.meta('/v1/openapi.json', { deadlineMs: DOCUMENT_DEADLINE_MS })).data;
      // An unchanged document is the common case of a refresh: nothing to import again.
      const text = JSON.stringify(document) ?? '';
      if (this.alreadyApplied(text)) return;
      received = await this.received(document, text);
    } catch (error) {
      this.options.log.warn(
        { err: error instanceof Error ? { message: error.message, code: (error as { code?: unknown }).code } : String(error) },
        'upstream openapi.json unavailable; keeping the current datasets',
      );
      this.options.onUnavailable?.(error);
      return;
    }
    if (!(await this.applyUpstream(received, copyLater))) return;
    this.lastFetched = received.text;
    for (const listener of this.fetchedListeners) listener(received.text);
  }

  /** The upstream document this process last fetched and applied itself, as text (undefined: none yet, or only a disk copy). */
  lastFetchedText(): string | undefined {
    return this.lastFetched;
  }

  /**
   * Whether a document's text is the one in use: the same text, or the document the disk
   * copy in use was made of (the copy leaves out the operations it skipped, so its text
   * never equals the upstream's, and a registry over the 100 imported, or with any unusable
   * operation, was imported again and its skips logged again at every start).
   */
  private alreadyApplied(text: string): boolean {
    if (text === this.lastText) return true;
    return this.lastSource !== undefined && this.sourcePrint(text) === this.lastSource;
  }

  /** Applies an upstream document and keeps it on disk; false when it was not accepted. */
  private async applyUpstream(received: ReceivedDocument, copyLater: boolean): Promise<boolean> {
    const accepted = this.apply(received, 'upstream', false);
    if (accepted === undefined) return false;
    // A later document supersedes the copy still waiting.
    clearTimeout(this.copyTimer);
    this.pendingCopy = undefined;
    if (!copyLater) {
      await this.writeDiskCopy(accepted());
      return true;
    }
    this.pendingCopy = accepted;
    this.copyTimer = setTimeout(() => {
      const pending = this.pendingCopy;
      this.pendingCopy = undefined;
      if (pending) void this.writeDiskCopy(pending());
    }, FIRST_COPY_DELAY_MS).unref();
    return true;
  }

  /**
   * Why a document cannot be used at all, or undefined. `fetched`: the client's answer, whose
   * nesting the client has judged already (src/api/upstream-answer.ts refuses a deeper one):
   * only a disk copy is walked for it again.
   */
  private refusal(document: unknown, text: string, fetched: boolean): string | undefined {
    if (typeof document !== 'object' || document === null || Array.isArray(document)) return 'not a JSON object';
    if (!fetched && nestedDeeperThan(document, 64)) return 'nested deeper than 64 levels';
    if (text.length > MAX_DOCUMENT_CHARS) return `larger than ${MAX_DOCUMENT_CHARS} characters`;
    return undefined;
  }

  /** Which upstream document, read by which build: undefined without a build id (nothing is skipped then). */
  private sourcePrint(text: string): string | undefined {
    const build = this.options.buildId;
    return build ? createHash('sha256').update(build).update('\n').update(text).digest('hex') : undefined;
  }

  /** Whether a document's text is the catalog's own, which needs no import. */
  private isCatalog(text: string): boolean {
    // Asked twice of each document (as it is opened, then applied): hashed once.
    if (this.catalogVerdict?.text !== text)
      this.catalogVerdict = { text, catalog: createHash('sha256').update(text).digest('hex') === this.options.catalogDocumentSha256 };
    return this.catalogVerdict.catalog;
  }

  /**
   * A document as received, opened for the importer (src/registry/openapi/document-source.ts:
   * each operation cleaned and its references resolved when the import reads it); the
   * catalog's own document, which needs no import, is left as it is.
   */
  private async received(raw: unknown, text: string): Promise<ReceivedDocument> {
    if (this.isCatalog(text) || typeof raw !== 'object' || raw === null) return { raw, text, source: undefined };
    const loaded = await loadImporter();
    return { raw, text, source: await loaded.openDocument(raw, text) };
  }

  /** Imports a document; its caller has loaded the importer (loadImporter, through received). */
  private importReport(document: ReceivedDocument, fresh: boolean): ImportReport {
    const loaded = importer;
    if (!loaded) throw new Error('the OpenAPI importer is used before it was loaded');
    // Only our own disk copy carries retirements: an upstream's document saying so is no evidence.
    const retired = fresh ? [] : retiredOf(document.raw);
    const importNow = (source: DocumentSource): ImportReport =>
      loaded.importOperations(source, {
        reservedToolNames: this.options.reservedToolNames ?? [],
        ...(this.options.toolNameOf ? { toolNameOf: this.options.toolNameOf } : {}),
        fresh,
        ...(fresh ? {} : { retired }),
        baseUrl: this.options.sourceId,
      });
    const opened: OpenedDocument = { ...document, source: document.source ?? loaded.plainSource(document.raw) };
    return this.options.importDocument ? this.options.importDocument(opened, importNow, fresh) : importNow(opened.source);
  }

  /**
   * Applies a document; returns what of it was accepted (to keep on disk, made when called), or
   * undefined. `checked`: its JSON text, when the caller has already found it acceptable.
   */
  private apply(received: ReceivedDocument, source: 'disk' | 'upstream', checked: boolean): (() => unknown) | undefined {
    const { raw: document, text } = received;
    const refused = checked ? undefined : this.refusal(document, text, source === 'upstream');
    if (refused) {
      this.options.log.warn({ source, reason: refused }, 'openapi.json refused; keeping the current datasets');
      return undefined;
    }
    // A document identical to the catalog's own (a simulator upstream) is the catalog: no import.
    const report: ImportReport = this.isCatalog(text) ? catalogReport() : this.importReport(received, source === 'upstream');
    const settle = importer?.settleImport;
    if (settle) setTimeout(() => settle(report), FIRST_COPY_DELAY_MS).unref();
    this.logSkipped(source, report.skipped);
    if (report.accepted.length === 0) {
      this.options.log.warn({ source }, 'openapi.json has no usable operation; keeping the current datasets');
      return undefined;
    }
    this.lastNotes = {
      source,
      parameters:
        source === 'upstream'
          ? "the API's openapi.json, as last fetched"
          : "the disk copy of the API's openapi.json (refreshed in the background)",
      imported: report.added,
      retired: report.retired,
      kept_though_absent: report.keptAbsent,
      skipped: report.skipped.slice(0, 20),
    };
    // What a fresh document retired goes to disk with it: the copy alone is no evidence, but
    // the evidence it was accepted on still holds at the next start.
    // The document as received is let go once the accepted one is made.
    let kept: unknown = document;
    let made: unknown;
    const madeOf = source === 'upstream' ? this.sourcePrint(text) : sourceOf(document);
    const accepted = (): unknown => {
      if (kept !== undefined) [made, kept] = [acceptedDocument(kept, report.accepted, report.retired, madeOf), undefined];
      return made;
    };
    this.lastDocument = accepted;
    this.lastText = text;
    this.lastSource = madeOf;
    const change = this.reconcile(report.datasets);
    this.options.log.info(
      {
        source,
        datasets: this.current.length,
        added: change.added.map((d) => d.operationId),
        changed: change.changed.map((d) => d.operationId),
        removed: change.removed.map((d) => d.operationId),
        skipped: report.skipped.length,
      },
      'dataset registry updated',
    );
    return accepted;
  }

  /**
   * One warning per reason an operation was skipped, naming the first few: a registry of 500
   * datasets has 400 beyond the import's cap, and a line for each cost a first start at the
   * default log level 20 ms of CPU before its first answer, and its host's log 400 lines.
   */
  private logSkipped(source: 'disk' | 'upstream', skipped: ImportReport['skipped']): void {
    const byReason = new Map<string, string[]>();
    for (const { path, reason } of skipped) {
      const paths = byReason.get(reason);
      if (paths) paths.push(path);
      else byReason.set(reason, [path]);
    }
    for (const [reason, paths] of byReason) {
      const named = paths.slice(0, SKIPPED_NAMED);
      if (paths.length === 1) this.options.log.warn({ source, path: named[0], reason }, 'upstream operation skipped');
      else this.options.log.warn({ source, reason, count: paths.length, paths: named }, 'upstream operations skipped');
    }
  }

  /** Keeps the object of every dataset whose tool would look the same, so listeners see only real changes. */
  private reconcile(next: DatasetDefinition[]): CatalogChange {
    const before = new Map(this.datasets().map((d) => [d.operationId, d]));
    const previous = new Map(this.current.map((d) => [d.operationId, d]));
    this.current = next.map((d) => {
      const old = previous.get(d.operationId);
      // The same object is the same tool: no fingerprint to compute (a start from the disk copy keeps most).
      return old && (old === d || this.print(old) === this.print(d)) ? old : d;
    });
    const after = new Map(this.datasets().map((d) => [d.operationId, d]));
    const change: CatalogChange = { added: [], changed: [], removed: [] };
    for (const [id, dataset] of after) {
      const old = before.get(id);
      if (!old) change.added.push(dataset);
      else if (old !== dataset) change.changed.push(dataset);
    }
    for (const [id, dataset] of before) if (!after.has(id)) change.removed.push(dataset);
    if (change.added.length + change.changed.length + change.removed.length > 0) for (const listener of this.listeners) listener(change);
    return change;
  }

  private print(dataset: DatasetDefinition): string {
    let known = this.prints.get(dataset);
    if (known === undefined) {
      known = fingerprint(dataset);
      this.prints.set(dataset, known);
    }
    return known;
  }

  private diskPath(): string | undefined {
    if (!this.options.cacheDir) return undefined;
    const id = createHash('sha256').update(this.options.sourceId).digest('hex').slice(0, 16);
    return join(this.options.cacheDir, `openapi-${id}.json`);
  }

  /** The disk copy, if it is one we would accept today; a bad one is deleted so it cannot fail the next start too. */
  private async readDiskCopy(): Promise<ReceivedDocument | undefined> {
    const path = this.diskPath();
    if (!path) return undefined;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return undefined;
    }
    let received: ReceivedDocument | undefined;
    let problem: string | undefined;
    try {
      const document = JSON.parse(text) as unknown;
      const canonicalText = JSON.stringify(document);
      problem = this.refusal(document, canonicalText, false);
      // The catalog's own document is usable as it is: nothing to import to find out.
      if (!problem) received = await this.received(document, canonicalText);
      if (received && !this.isCatalog(canonicalText)) {
        const report = this.importReport(received, false);
        if (report.accepted.length === 0) problem = 'no usable operation';
        else if (report.skipped.length > 0) problem = `${report.skipped.length} unusable operations`;
      }
    } catch {
      problem = 'not JSON';
    }
    if (!problem && received) return received;
    this.options.log.warn({ path, reason: problem }, 'discarding the disk copy of openapi.json');
    await unlink(path).catch(() => undefined);
    return undefined;
  }

  /** writeDiskCopy, at once: when the server stops. */
  private writeDiskCopySync(document: unknown): void {
    const path = this.diskPath();
    if (!path || !this.options.cacheDir) return;
    try {
      mkdirSync(this.options.cacheDir, { recursive: true });
      writeFileSync(`${path}.tmp`, JSON.stringify(document));
      renameSync(`${path}.tmp`, path);
    } catch (error) {
      this.copyFailed(error);
    }
  }

  /**
   * Said once, at warn: without the copy every start is a first start (it waits for the
   * upstream, and lists only the catalog's tools while the upstream is down), and the user
   * who set the folder should know why.
   */
  private copyFailed(error: unknown): void {
    if (this.copyFailureTold) return;
    this.copyFailureTold = true;
    this.options.log.warn(
      { err: String(error), dir: this.options.cacheDir },
      'could not keep openapi.json on disk: every start will fetch the document first (check MARKET_DATA_CACHE_DIR)',
    );
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
      this.copyFailed(error);
    }
  }
}

/** The document with only the operations we took (and the meta endpoints), its text cleaned, what it retired and what it was made of. */
function acceptedDocument(
  document: unknown,
  acceptedPaths: readonly string[],
  retired: ImportReport['retired'],
  source: string | undefined,
): unknown {
  const upstream = document as { paths?: Record<string, unknown> } & Record<string, unknown>;
  const keep = new Set([...acceptedPaths, '/v1/discover', '/v1/health', '/v1/openapi.json']);
  // The import names paths by their keys cleaned (the document is cleaned as it is read).
  const entries = Object.entries(upstream.paths ?? {});
  const names = cleanKeyNames(entries.map(([key]) => key));
  const paths: Record<string, unknown> = {};
  for (const [index, [, item]] of entries.entries()) {
    const name = names[index] as string;
    if (keep.has(name)) Object.defineProperty(paths, name, { value: item, enumerable: true, writable: true, configurable: true });
  }
  // The upstream's own key of that name, if any, is not ours: replaced, never carried over.
  const rest = Object.fromEntries(Object.entries(upstream).filter(([key]) => key !== RETIRED_KEY && key !== SOURCE_KEY));
  return {
    ...(sanitizeDeep({ ...rest, paths }) as Record<string, unknown>),
    ...(retired.length > 0 ? { [RETIRED_KEY]: retired } : {}),
    ...(source !== undefined ? { [SOURCE_KEY]: source } : {}),
  };
}

/** Where the disk copy keeps the sourcePrint of the upstream document it was made of. */
const SOURCE_KEY = 'x-market-data-mcp-source';

/** The sourcePrint a disk copy carries, if it is one we wrote. */
function sourceOf(document: unknown): string | undefined {
  const value = typeof document === 'object' && document !== null ? (document as Record<string, unknown>)[SOURCE_KEY] : undefined;
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
}

/** Where the disk copy keeps what the fresh document it was made of retired. */
const RETIRED_KEY = 'x-market-data-mcp-retired';

const retiredSchema = z.array(z.object({ operationId: z.string().max(100), reason: z.string().max(300) })).max(100);

/** The retirements a disk copy carries; none when it carries none, or nothing we wrote. */
function retiredOf(document: unknown): ImportReport['retired'] {
  const value = typeof document === 'object' && document !== null ? (document as Record<string, unknown>)[RETIRED_KEY] : undefined;
  const parsed = retiredSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
}

/** The import of the catalog's own document, known without importing it. */
function catalogReport(): ImportReport {
  return {
    datasets: [...DATASETS],
    added: [],
    changed: [],
    skipped: [],
    accepted: DATASETS.map((d) => d.path),
    retired: [],
    keptAbsent: [],
    keys: {},
  };
}
