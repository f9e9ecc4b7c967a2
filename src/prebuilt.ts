/**
 * Work done once at build time instead of at every start (start-up time, BENCHMARKS.md):
 * the JSON Schema of every catalog tool's input, and the fingerprint of the catalog's own
 * OpenAPI document, so that a cached upstream document identical to it is not imported
 * again. `npm run build` writes dist/prebuilt.json next to the server; without that file
 * (tests run from dist-test) everything is computed at run time as before.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildOpenApiDocument, DATASETS } from './catalog/index.js';
import { datasetParamJson, type DatasetParamJson } from './catalog/param-json-memo.js';
import { toolInputJsonSchema } from './mcp/arguments/input-schema.js';

export interface Prebuilt {
  /** sha256 of JSON.stringify(buildOpenApiDocument(DATASETS)). */
  catalogDocumentSha256: string;
  /** Tool input JSON Schemas by operation id, as toolInputJsonSchema gives them. */
  inputSchemas: Record<string, Record<string, unknown>>;
  /** Every catalog parameter's JSON Schema by operation id, as paramJsonSchema gives it (the import compares with them). */
  paramSchemas: Record<string, DatasetParamJson>;
  /**
   * sha256 of the built dist/cli.js, which names every chunk by its content hash: what
   * identifies this build's import logic, so that a memoised import of another is not
   * used (src/registry/import-memo.ts). Written by scripts/build-bundle.mjs after bundling.
   */
  buildId?: string;
}

export function documentSha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What the build writes; also what a drift test compares the file with. */
export function computePrebuilt(): Prebuilt {
  return {
    catalogDocumentSha256: documentSha256(JSON.stringify(buildOpenApiDocument(DATASETS))),
    inputSchemas: Object.fromEntries(DATASETS.map((d) => [d.operationId, toolInputJsonSchema(d)])),
    paramSchemas: Object.fromEntries(DATASETS.map((d) => [d.operationId, datasetParamJson(d)])),
  };
}

export function loadPrebuilt(url: URL = new URL('./prebuilt.json', import.meta.url)): Prebuilt | undefined {
  try {
    const parsed = JSON.parse(readFileSync(url, 'utf8')) as Partial<Prebuilt>;
    if (typeof parsed.catalogDocumentSha256 !== 'string' || typeof parsed.inputSchemas !== 'object' || parsed.inputSchemas === null)
      return undefined;
    return {
      catalogDocumentSha256: parsed.catalogDocumentSha256,
      inputSchemas: parsed.inputSchemas,
      // A file of an older build has none: the start converts them itself.
      paramSchemas: typeof parsed.paramSchemas === 'object' && parsed.paramSchemas !== null ? parsed.paramSchemas : {},
      ...(typeof parsed.buildId === 'string' ? { buildId: parsed.buildId } : {}),
    };
  } catch {
    return undefined;
  }
}
