/**
 * The import of an upstream OpenAPI document, memoised by the document's hash and this
 * build's identity (start-up time, BENCHMARKS.md). Importing costs about 1.8 ms per
 * dataset (zod conversions, linear-time patterns, tool input JSON Schemas); a start with
 * a disk copy of a document already imported by this build does none of it:
 *
 * - within a process, the same document is imported once (the disk copy is checked, then
 *   applied);
 * - on disk, next to the document's copy, a compact record of the import keeps what the
 *   tool list needs (name, text, path, input JSON Schema) for each dataset the catalog
 *   does not hold as is. Such a dataset is registered from the record; its parameters
 *   (zod schemas) are imported on its first call, from that one operation of the document.
 *
 * The record is refused unless it was written for this very document by this very build:
 * an import logic or catalog that changed cannot be served from an old record.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DATASETS, type DatasetDefinition } from '../catalog/index.js';
import type { ImportReport } from './openapi/import.js';
import type { DocumentSource } from './openapi/document-source.js';
import type { OpenedDocument } from './openapi/received.js';
import type { Logger } from '../log.js';
import { primeToolInputJsonSchema, toolInputJsonSchema } from '../mcp/arguments/input-schema.js';

/** Imports a document, reading its operations from `source`. */
export type ImportNow = (source: DocumentSource) => ImportReport;
/**
 * `fresh`: a freshly fetched document, which may retire catalog datasets (the disk copy never
 * does). `flush`: writes at once what the import keeps on disk and has not written yet (as
 * the server stops).
 */
export type ImportDocument = ((document: OpenedDocument, importNow: ImportNow, fresh: boolean) => ImportReport) & { flush?: () => void };

export interface ImportMemoOptions {
  /** The record's file; undefined keeps the memo in memory only. */
  file: string | undefined;
  /** This build's identity (dist/prebuilt.json): a record of another build is not used. */
  buildId: string;
  log: Pick<Logger, 'debug' | 'warn'>;
}

/** What the tool list needs of a dataset the catalog does not hold as is. */
interface RecordedDataset {
  operationId: string;
  /** The catalog's entry it changes (path or parameters), if any. */
  catalog: boolean;
  /** The document's key (`paths`) of its operation. */
  key: string;
  path: `/v1/${string}`;
  title: string;
  description: string;
  onDemand: boolean;
  cacheClass: DatasetDefinition['cacheClass'];
  inputSchema: Record<string, unknown>;
}

interface ImportRecord {
  key: string;
  /** Datasets in the report's order: a catalog operation id (unchanged), or a recorded dataset. */
  datasets: (string | RecordedDataset)[];
  added: string[];
  retired: ImportReport['retired'];
  keptAbsent: string[];
  changed: string[];
  skipped: ImportReport['skipped'];
  accepted: string[];
}

/**
 * The file keeps the last two records: the upstream's document and the disk copy made of
 * it (its accepted part) differ, and each start reads one, each refresh the other.
 */
interface RecordFile {
  version: 1;
  records: ImportRecord[];
}

const RECORDS_KEPT = 2;

/** Where the records of an upstream's imports are kept, next to the disk copy of its document. */
export function importRecordFile(cacheDir: string | undefined, sourceId: string | undefined): string | undefined {
  if (!cacheDir || !sourceId) return undefined;
  return join(cacheDir, `import-${createHash('sha256').update(sourceId).digest('hex').slice(0, 16)}.json`);
}

const catalogById = new Map(DATASETS.map((d) => [d.operationId, d]));

/**
 * How long a new record waits before it is written: written before the first answer, a first
 * start against 500 datasets spent 8-11 ms on it (BENCHMARKS.md). A server that stops sooner
 * writes it as it stops (flush).
 */
const RECORD_DELAY_MS = 2_000;

export function memoisedImport(options: ImportMemoOptions): ImportDocument {
  let last: { key: string; report: ImportReport } | undefined;
  let pending: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    const write = pending;
    pending = undefined;
    write?.();
  };
  const memo = (document: OpenedDocument, importNow: ImportNow, fresh: boolean): ImportReport => {
    const key = createHash('sha256')
      .update(options.buildId)
      .update(fresh ? '\nfresh\n' : '\ndisk\n')
      .update(document.text)
      .digest('hex');
    if (last?.key === key) return last.report;
    const recorded = readRecord(options, key);
    const report = recorded ? fromRecord(recorded, document.source, importNow) : importNow(document.source);
    if (!recorded) {
      // A record still waiting is written first: the file keeps the last two.
      flush();
      pending = () => record(options, key, report);
      timer = setTimeout(flush, RECORD_DELAY_MS).unref();
    }
    last = { key, report };
    return report;
  };
  return Object.assign(memo, { flush });
}

function readFileRecords(file: string): ImportRecord[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordFile>;
    return parsed.version === 1 && Array.isArray(parsed.records) ? parsed.records : [];
  } catch {
    return [];
  }
}

function readRecord(options: ImportMemoOptions, key: string): ImportRecord | undefined {
  if (!options.file) return undefined;
  const record = readFileRecords(options.file).find((r) => r.key === key);
  if (!record || !Array.isArray(record.datasets) || !Array.isArray(record.retired) || !Array.isArray(record.keptAbsent)) return undefined;
  // A catalog id this build does not know means the record is not ours after all.
  for (const entry of record.datasets) if (typeof entry === 'string' && !catalogById.has(entry)) return undefined;
  return record;
}

/**
 * Written after the first answer, or as the server stops (memoisedImport). A record that
 * cannot be made or written only costs the next start an import; it never fails this one.
 */
function record(options: ImportMemoOptions, key: string, report: ImportReport): void {
  if (!options.file) return;
  try {
    const made = toRecord(key, report);
    const records = [made, ...readFileRecords(options.file).filter((r) => r.key !== key)].slice(0, RECORDS_KEPT);
    mkdirSync(dirname(options.file), { recursive: true });
    // Write then rename: a crash never leaves half a record for the next start.
    writeFileSync(`${options.file}.tmp`, JSON.stringify({ version: 1, records } satisfies RecordFile));
    renameSync(`${options.file}.tmp`, options.file);
  } catch (error) {
    options.log.debug({ err: String(error) }, 'could not keep the import record on disk');
  }
}

function toRecord(key: string, report: ImportReport): ImportRecord {
  return {
    key,
    datasets: report.datasets.map((d) =>
      catalogById.get(d.operationId) === d
        ? d.operationId
        : {
            operationId: d.operationId,
            // Any dataset the catalog holds: its reviewed fields come from the catalog, what the document changed from the import.
            catalog: catalogById.has(d.operationId),
            key: report.keys[d.operationId] ?? d.path,
            path: d.path,
            title: d.title,
            description: d.description,
            onDemand: d.onDemand,
            cacheClass: d.cacheClass,
            inputSchema: toolInputJsonSchema(d),
          },
    ),
    added: report.added,
    retired: report.retired,
    keptAbsent: report.keptAbsent,
    changed: report.changed,
    skipped: report.skipped,
    accepted: report.accepted,
  };
}

function fromRecord(record: ImportRecord, document: DocumentSource, importNow: ImportNow): ImportReport {
  const datasets = record.datasets.map((entry) => {
    if (typeof entry === 'string') return catalogById.get(entry) as DatasetDefinition;
    const dataset = lazyDataset(entry, () => importOne(entry, document, importNow));
    primeToolInputJsonSchema(dataset, entry.inputSchema);
    return dataset;
  });
  return {
    datasets,
    added: record.added,
    retired: record.retired,
    keptAbsent: record.keptAbsent,
    changed: record.changed,
    skipped: record.skipped,
    accepted: record.accepted,
    keys: Object.fromEntries(record.datasets.flatMap((entry) => (typeof entry === 'string' ? [] : [[entry.operationId, entry.key]]))),
  };
}

/**
 * A dataset whose text is known and whose parameters are imported when first read: the
 * fields the tool list needs are plain, `ticker`, `query` and where its parameters go (and, for a catalog dataset
 * the upstream changed, the catalog's own fields) come from the import of its operation.
 */
function lazyDataset(entry: RecordedDataset, load: () => DatasetDefinition): DatasetDefinition {
  let loaded: DatasetDefinition | undefined;
  const full = (): DatasetDefinition => (loaded ??= load());
  const dataset = {
    ...(entry.catalog ? catalogById.get(entry.operationId) : {}),
    operationId: entry.operationId,
    path: entry.path,
    title: entry.title,
    description: entry.description,
    onDemand: entry.onDemand,
    cacheClass: entry.cacheClass,
  } as DatasetDefinition;
  // Where parameters go (renamed, applied here) is part of the import, not of the catalog.
  for (const field of [
    'ticker',
    'query',
    'shaping',
    'upstreamNames',
    'localParams',
    'pathParams',
    'wireForms',
    'responseFields',
    'unreadable',
  ] as const)
    Object.defineProperty(dataset, field, { enumerable: true, configurable: true, get: () => full()[field] });
  return dataset;
}

/** One operation of the document, imported alone; the whole document if that does not give it. */
function importOne(entry: RecordedDataset, document: DocumentSource, importNow: ImportNow): DatasetDefinition {
  const found =
    importNow(document.only(entry.key)).datasets.find((d) => d.operationId === entry.operationId) ??
    importNow(document).datasets.find((d) => d.operationId === entry.operationId);
  if (!found) throw new Error(`the upstream document no longer gives ${entry.operationId}`);
  return found;
}
