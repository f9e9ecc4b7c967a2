/**
 * The upstream's document with every internal `$ref` resolved, by
 * @apidevtools/json-schema-ref-parser: the reference implementation behind swagger-parser,
 * kept up by the APIDevTools maintainers, and the one that resolves JSON pointers,
 * `$ref` chains, circular references and OpenAPI 3.1's `description`/`summary` beside a
 * `$ref` the way the standard says. It is told to resolve nothing outside the document
 * (no file, no URL: the document is data from the network, and a reference is never a
 * reason to fetch anything), to leave circular references in place, and to go on past a
 * pointer to nothing (that one reads as null, and the operation holding it is skipped
 * with that reason, not the whole document).
 *
 * Resolved references are shared objects, so the result is read, never written or
 * serialised: the registry keeps and hashes the document as received. The registry reads a
 * document an item at a time (document-source.ts), with these options; a document is
 * resolved whole here when its `$id`s scope what a reference means.
 */
import $RefParser, { JSONParserErrorGroup } from '@apidevtools/json-schema-ref-parser';

export interface DereferencedDocument {
  /** The document as received: what is kept on disk and hashed. */
  readonly raw: unknown;
  /** The same document with its internal references resolved: what is read. */
  readonly resolved: unknown;
}

export const OPTIONS = {
  resolve: { external: false },
  dereference: { circular: 'ignore' as const, preservedProperties: ['description', 'summary'] },
  continueOnError: true,
};

/** Resolves the whole document's internal references; one without any (by its text) is returned as it is. */
export async function dereferenceDocument(raw: unknown, text = JSON.stringify(raw) ?? ''): Promise<DereferencedDocument> {
  if (typeof raw !== 'object' || raw === null || !text.includes('"$ref"')) return { raw, resolved: raw };
  try {
    const resolved: unknown = await $RefParser.dereference(structuredClone(raw), OPTIONS);
    return { raw, resolved };
  } catch (error) {
    // continueOnError: the document is resolved as far as it can be; a pointer to nothing reads as null.
    if (error instanceof JSONParserErrorGroup) {
      const resolved: unknown = error.files.schema;
      return { raw, resolved: resolved ?? raw };
    }
    // Anything else (a document the parser cannot walk): read as received, each `$ref` then unreadable.
    return { raw, resolved: raw };
  }
}
